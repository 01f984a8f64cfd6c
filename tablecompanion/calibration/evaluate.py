"""Scoring calibration stage by stage on images whose geometry is known (as chesscog scores each stage).

``tablecompanion calibrate eval`` prints, for marker calibration and for finding the board by its look:
how often it succeeds and how far (mm) the 24 point centres land from where they really are. Cases are
boards drawn here (five styles, hands, real photographs as the table top), simulator renders when the
simulator is importable, and real photographs with no board at all (find_board must say None).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from tablecompanion.calibration.errors import CalibrationError
from tablecompanion.calibration.find_board import find_board
from tablecompanion.calibration.markers import calibrate_from_markers
from tablecompanion.calibration.model import Calibration, apply_homography, rect_corners
from tablecompanion.calibration.synthetic import STYLES, photograph
from tablecompanion.geometry import BoardGeometry

SUCCESS_MM = 10.0  # a found board whose worst point centre is further off than this counts as a failure


@dataclass(frozen=True)
class Case:
    name: str
    image: np.ndarray
    # true image px of the 24 point centres (bottom player's 1..24), None for images without a board
    point_px: np.ndarray | None
    geometry: BoardGeometry = field(default_factory=BoardGeometry)


@dataclass
class Outcome:
    case: str
    found: bool
    error_mm: float  # worst point centre, inf when not found; 0 for a correct "no board"
    seconds: float
    across_mm: float = 0.0  # worst error across the points (x): what decides which point a pixel is on


def point_error_mm(cal: Calibration, case: Case) -> float:
    return point_errors_mm(cal, case)[0]


def point_errors_mm(cal: Calibration, case: Case) -> tuple[float, float]:
    """Worst distance (mm) between where the calibration puts the true point centres and where they are.

    The board looks the same turned round, so a board found upside down is compared both ways. Where the
    calibration fitted its own dimensions (an unknown board's bar width), it is judged in its own model:
    point p's centre must land where its geometry puts point p.
    """
    assert case.point_px is not None
    geo = BoardGeometry(cal.spec, case.geometry.home)
    truth = np.array([geo.point_centre(p) for p in range(1, 25)])
    found = cal.image_to_board(case.point_px)
    turned = np.array([geo.spec.width, geo.spec.height]) - truth
    best = min((found - truth, found - turned), key=lambda d: np.linalg.norm(d, axis=1).max())
    return float(np.linalg.norm(best, axis=1).max()), float(np.abs(best[:, 0]).max())


def synthetic_cases(n: int, seed: int = 0, markers: bool = False, backgrounds: list[np.ndarray] | None = None) -> Iterator[Case]:
    styles = sorted(STYLES)
    geo = BoardGeometry()
    centres = np.array([geo.point_centre(p) for p in range(1, 25)])
    for i in range(n):
        rng = np.random.default_rng(seed + i)
        background = backgrounds[i % len(backgrounds)] if backgrounds and i % 2 == 0 else None
        photo = photograph(
            style=styles[i % len(styles)], seed=seed + i, markers=markers, hand=bool(rng.integers(2)),
            background=background, max_rotation_deg=15, max_tilt=0.2, fill=(0.55, 0.95),
        )
        px = apply_homography(np.linalg.inv(photo.homography), centres)
        yield Case(f"drawn-{photo.style}-{seed + i}", photo.image, px, geo)


def filled_cases(n: int, seed: int = 0) -> Iterator[Case]:
    """Close-ups like overhead broadcast frames: the picture cut to the playing surface plus a margin of
    -15..30 mm (negative: the surface's own edges are cut off), stretched to 1280x720."""
    styles = sorted(STYLES)
    geo = BoardGeometry()
    centres = np.array([geo.point_centre(p) for p in range(1, 25)])
    for i in range(n):
        rng = np.random.default_rng(seed + i)
        photo = photograph(style=styles[i % len(styles)], seed=seed + i, markers=False, max_tilt=0.05,
                           max_rotation_deg=3, hand=bool(rng.integers(2)))
        to_image = np.linalg.inv(photo.homography)
        margin = float(rng.uniform(-15, 30))
        x0, y0, x1, y1 = geo.surface
        quad = apply_homography(to_image, rect_corners((x0 - margin, y0 - margin, x1 + margin, y1 + margin)))
        h, w = photo.image.shape[:2]
        a, b = np.maximum(quad.min(axis=0).astype(int), 0)
        c, d = np.minimum(quad.max(axis=0).astype(int), [w, h])
        crop = photo.image[b:d, a:c]
        sx, sy = 1280 / crop.shape[1], 720 / crop.shape[0]
        px = (apply_homography(to_image, centres) - [a, b]) * [sx, sy]
        yield Case(f"filled-{photo.style}-{seed + i}-margin{margin:+.0f}", cv2.resize(crop, (1280, 720)), px, geo)


def sim_cases(n: int, seed: int = 0, markers: bool = False) -> Iterator[Case]:
    try:
        from tablecompanion.sim import STYLES as SIM_STYLES
        from tablecompanion.sim import Camera, Scene, render_frame
    except ImportError:
        return
    presets = ["top", "default", "tilted", "steep"]
    geo = BoardGeometry()
    centres = np.array([geo.point_centre(p) for p in range(1, 25)])
    start = [(None, 0)] * 24
    for point, colour, count in ((24, "light", 2), (13, "light", 5), (8, "light", 3), (6, "light", 5),
                                 (1, "dark", 2), (12, "dark", 5), (17, "dark", 3), (19, "dark", 5)):
        start[point - 1] = (colour, count)
    for i in range(n):
        style = sorted(SIM_STYLES)[i % len(SIM_STYLES)]
        preset = presets[(i // len(SIM_STYLES)) % len(presets)]
        camera = Camera.preset(preset)
        scene = Scene(points=tuple(start), style=style, markers=markers)
        try:
            image, truth = render_frame(scene, camera, seed=seed + i)
        except Exception:  # the simulator is another area's work in progress: skip what it cannot render
            continue
        k = np.array(truth["camera"]["K"])
        d = np.array(truth["camera"]["dist"])
        und = apply_homography(np.linalg.inv(np.array(truth["homography_image_to_board"])), centres)
        norm = np.hstack([und, np.ones((len(und), 1))]) @ np.linalg.inv(k).T
        px, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, d)
        yield Case(f"sim-{style}-{preset}-{seed + i}", image, px.reshape(-1, 2), geo)


def negative_cases(folder: Path, n: int) -> Iterator[Case]:
    """Real photographs without a board (the shared dice photos): nothing must be found."""
    if not folder.is_dir():
        return
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    step = max(1, len(files) // max(n, 1))
    for path in files[::step][:n]:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is not None:
            yield Case(f"no-board-{path.name}", image, None)


def run(cases: Iterator[Case], method: Callable[[np.ndarray], Calibration | None]) -> list[Outcome]:
    outcomes = []
    for case in cases:
        start = time.perf_counter()
        try:
            cal = method(case.image)
        except CalibrationError:
            cal = None
        seconds = time.perf_counter() - start
        if case.point_px is None:
            outcomes.append(Outcome(case.name, cal is not None, 0.0 if cal is None else float("inf"), seconds))
        elif cal is None:
            outcomes.append(Outcome(case.name, False, float("inf"), seconds))
        else:
            worst, across = point_errors_mm(cal, case)
            outcomes.append(Outcome(case.name, True, worst, seconds, across))
    return outcomes


def summary(outcomes: list[Outcome]) -> dict:
    """Success rate (found and within SUCCESS_MM), error percentiles of the found ones, time."""
    if not outcomes:
        return {"cases": 0}
    errors = np.array([o.error_mm for o in outcomes])
    ok = errors <= SUCCESS_MM
    finite = errors[np.isfinite(errors)]
    across = [o.across_mm for o in outcomes if o.found and np.isfinite(o.error_mm)]
    return {
        "cases": len(outcomes),
        "success_rate": float(ok.mean()),
        "median_error_mm": float(np.median(finite)) if len(finite) else None,
        "p90_error_mm": float(np.percentile(finite, 90)) if len(finite) else None,
        "max_error_mm": float(finite.max()) if len(finite) else None,
        "median_across_mm": float(np.median(across)) if across else None,
        "max_across_mm": float(max(across)) if across else None,
        "mean_seconds": float(np.mean([o.seconds for o in outcomes])),
        "failures": [o.case for o, good in zip(outcomes, ok) if not good],
    }


def markers_method(image: np.ndarray) -> Calibration | None:
    return calibrate_from_markers(image)


def board_method(image: np.ndarray) -> Calibration | None:
    return find_board(image)
