"""Child process for the SIGKILL test: plays a match's actions into a Hall, acknowledging each one.

Usage: python killme.py DATA_DIR MATFILE [PAUSE_AFTER]
Prints "ACK <events>" after each action is acknowledged (the referee returned), flushed at once.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tablecompanion.referee import Hall  # noqa: E402
from tablecompanion.referee.matplay import mat_actions, settings_for  # noqa: E402

data_dir, mat_path = sys.argv[1], sys.argv[2]
text = Path(mat_path).read_text(encoding="utf-8", errors="replace")
actions = mat_actions(text)
hall = Hall(data_dir)
ref, _ = hall.create_table(settings_for(text), table_id="1", token="kill-test")
print("READY", len(actions), flush=True)
for action in actions:
    ref.act(action)
    print("ACK", ref.snapshot()["events"], flush=True)
print("DONE", flush=True)
time.sleep(60)
