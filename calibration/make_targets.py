"""Regenerate the printable targets in calibration/targets/ (same as `tablecompanion calibrate targets`).

    python calibration/make_targets.py [--out calibration/targets] [--frame-width 25]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablecompanion.calibration.targets import write_targets  # noqa: E402
from tablecompanion.geometry import BoardSpec  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "targets"))
    parser.add_argument("--frame-width", type=float, default=BoardSpec().frame_width, help="the board frame's width, mm")
    args = parser.parse_args(argv)
    for path in write_targets(args.out, BoardSpec(frame_width=args.frame_width)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
