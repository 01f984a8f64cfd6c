"""Regenerate the example frames, profiles and the README picture in calibration/.

    python calibration/make_examples.py

Frames come from the table simulator (tablecompanion.sim) when it is importable, else from the
calibration's own drawn boards; each is calibrated with the CLI exactly as a person would.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HERE = ROOT / "calibration"


def _start_points():
    start = [(None, 0)] * 24
    for point, colour, n in ((24, "light", 2), (13, "light", 5), (8, "light", 3), (6, "light", 5),
                             (1, "dark", 2), (12, "dark", 5), (17, "dark", 3), (19, "dark", 5)):
        start[point - 1] = (colour, n)
    return tuple(start)


def frames() -> dict[str, object]:
    try:
        from tablecompanion.sim import Camera, Scene, render_frame
    except ImportError:
        from tablecompanion.calibration.synthetic import photograph

        return {"markers": photograph(seed=3).image, "no-markers": photograph(seed=4, markers=False, style="tournament").image}
    with_markers, _ = render_frame(Scene(points=_start_points()), Camera.preset("tilted"), seed=1)
    without, _ = render_frame(Scene(points=_start_points(), markers=False, style="classic", home="left"), Camera(), seed=2)
    return {"markers": with_markers, "no-markers": without}


def calibrate(image: Path, name: str, data: Path, *extra: str) -> None:
    cmd = [sys.executable, "-m", "tablecompanion", "calibrate", "--image", str(image), "--name", name,
           "--data-dir", str(data), *extra]
    subprocess.run(cmd, check=True, cwd=ROOT)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        for label, frame in frames().items():
            path = HERE / "examples" / f"frame-{label}.jpg"
            cv2.imwrite(str(path), frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
        calibrate(HERE / "examples" / "frame-markers.jpg", "example-markers", data, "--bottom", "X")
        calibrate(HERE / "examples" / "frame-no-markers.jpg", "example-board-look", data, "--home", "left")
        for name in ("example-markers", "example-board-look"):
            shutil.copy(data / "profiles" / f"{name}.json", HERE / "profiles" / f"{name}.json")
            annotated = cv2.imread(str(data / "profiles" / f"{name}.png"))
            cv2.imwrite(str(HERE / "examples" / f"annotated-{name}.jpg"), annotated, [cv2.IMWRITE_JPEG_QUALITY, 88])
    print("wrote calibration/examples and calibration/profiles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
