"""Every tuned threshold of calibration, named, in one place (as chesscog keeps them in its config).

Stages take one of these dataclasses so a test, an evaluation or a person can change a value without
editing code; the defaults are what the evaluations in docs/calibration.md were measured with.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MarkerConfig:
    """Finding the four ArUco markers stuck on the frame's corners."""

    min_markers: int = 3  # a homography needs 4 points; 3 markers give 12 corners, plenty
    corner_refinement: bool = True  # sub-pixel corners: the markers are small (20 mm)
    min_perimeter_rate: float = 0.01  # smallest marker perimeter / image side: far markers of a tilted camera are small
    max_reprojection_error_mm: float = 3.0  # above this a marker is misplaced or misread
    polish_with_board: bool = True  # with 3 markers, refine by the board's look (the 4th corner is a guess)
    polish_max_shift_mm: float = 30.0  # ...unless that moves the surface's corners further than this
    max_marker_scale_error: float = 0.1  # markers 10% off their expected size: wrong print scale or frame width


@dataclass(frozen=True)
class CornersConfig:
    """Four outer-frame corners clicked by a person or given on the command line."""

    min_side_px: float = 20.0  # shorter sides mean a typo or a click on the same spot twice


@dataclass(frozen=True)
class FindBoardConfig:
    """Finding the board from its own features, without markers (see find_board.py)."""

    work_width: int = 640  # the frame is scaled to this width before searching
    fine_work_width: int = 1280  # ...and to this width for the last refinement steps
    min_area_fraction: float = 0.08  # a candidate quadrilateral covers at least this share of the frame
    max_candidates: int = 60  # quadrilaterals scored coarsely
    frame_insets: tuple[float, ...] = (0.0, 0.03, 0.07)  # the picture's own border, inset, as candidates
    triangle_levels: tuple[float, ...] = (20.0, 40.0, 60.0, 80.0)  # percentiles thresholded to find triangles
    refine_top_k: int = 3  # best coarse hypotheses refined...
    second_chance: float = 0.85  # ...when they score at least this share of the best one
    score_px_per_mm: float = 0.35  # resolution of the warped surface used for scoring
    # the coarse search (placing the board, a point either way) counts a pixel this far (weighted Lab) from its
    # class's colour as this far and no further: checkers on the points must not pull the board a point off;
    # 0 = plain variance. The fine steps keep plain variance (4x the pixels; they only polish the corners)
    coarse_outlier_lab: float = 30.0
    refine_px_per_mm: float = 1.0  # resolution of the final refinement
    refine_iterations: int = 25  # passes over the parameters per resolution
    refine_initial_step_mm: float = 12.0  # first step of the coarse refinement
    refine_fine_step_mm: float = 2.0  # first step of the fine refinement
    refine_min_step_mm: float = 0.5
    refine_whole_moves: bool = True  # also turn and stretch the whole quad when no corner move helps
    min_score: float = 0.3  # share of colour variance the board model explains; below it: no board
    alternation_ref: float = 1.0  # alternation at which the search stops discounting a placement
    min_alternation: float = 0.7  # even vs odd triangle colours: contrast over spread; below it: no board
    min_aspect: float = 1.05  # the surface is wider than tall, even in perspective
    search_proportions: bool = True  # fit the bar width when no spec is given
    fit_middle_gap: bool = False  # also the gap between the rows: checkers on the points bias it, so off


@dataclass(frozen=True)
class DriftConfig:
    """When to ask for recalibration."""

    tolerance_mm: float = 6.0  # a marker or the board's corner moved further than this: recalibrate
    warn_mm: float = 3.0  # moved a little: still usable, but say so


@dataclass(frozen=True)
class LensConfig:
    """Lens calibration from the printed ChArUco sheet."""

    min_views: int = 4
    min_corners_per_view: int = 8
    max_rms_px: float = 2.0  # above this the views were blurry or the sheet was not flat


DEFAULT_MARKERS = MarkerConfig()
DEFAULT_CORNERS = CornersConfig()
DEFAULT_FIND_BOARD = FindBoardConfig()
DEFAULT_DRIFT = DriftConfig()
DEFAULT_LENS = LensConfig()
