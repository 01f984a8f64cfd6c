"""The printed targets: markers at true size, detectable, the right ids where they belong; valid PDFs."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from tablecompanion.calibration.lens import DEFAULT_SHEET, detect_sheet
from tablecompanion.calibration.markers import detect_markers
from tablecompanion.calibration.targets import DPI, lens_sheet_page, marker_sheet, write_targets
from tablecompanion.geometry import MARKER_FILL, BoardSpec


@pytest.mark.parametrize("frame_width", [25.0, 20.0])
def test_markers_are_printed_at_true_size(frame_width):
    page = marker_sheet(BoardSpec(frame_width=frame_width))
    det = detect_markers(page)
    assert det.ids == [0, 1, 2, 3]
    expected_px = MARKER_FILL * frame_width * DPI / 25.4
    for corners in det.corners.values():
        side = np.mean([np.linalg.norm(corners[(k + 1) % 4] - corners[k]) for k in range(4)])
        assert side == pytest.approx(expected_px, abs=2.0)
    # laid out as on the board: id 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left
    c = {i: det.corners[i].mean(axis=0) for i in det.ids}
    assert c[0][0] < c[1][0] and c[3][0] < c[2][0] and c[0][1] < c[3][1] and c[1][1] < c[2][1]


def test_lens_sheet_page_is_detectable():
    page = lens_sheet_page()
    small = cv2.resize(page, None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA)
    obj, _ = detect_sheet(small, DEFAULT_SHEET)
    assert len(obj) == 24


def test_written_files_are_a4_pdfs_and_pngs(tmp_path):
    paths = write_targets(tmp_path)
    assert [p.name for p in paths] == ["corner-markers.png", "corner-markers.pdf", "lens-sheet.png", "lens-sheet.pdf"]
    pdf = (tmp_path / "corner-markers.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert box and float(box.group(1)) == pytest.approx(595.28, abs=0.1) and float(box.group(2)) == pytest.approx(841.89, abs=0.1)
    # the xref offsets point at the objects
    xref = int(re.search(rb"startxref\n(\d+)", pdf).group(1))
    assert pdf[xref : xref + 4] == b"xref"
    first = int(re.search(rb"xref\n0 \d+\n0000000000 65535 f \n(\d{10})", pdf).group(1))
    assert pdf[first : first + 7] == b"1 0 obj"
    png = cv2.imread(str(tmp_path / "corner-markers.png"), cv2.IMREAD_GRAYSCALE)
    assert png.shape == (round(297 * DPI / 25.4), round(210 * DPI / 25.4))


def test_committed_targets_match_the_generator():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "calibration" / "targets"
    committed = cv2.imread(str(folder / "corner-markers.png"), cv2.IMREAD_GRAYSCALE)
    assert committed is not None, f"missing {folder / 'corner-markers.png'}: run python calibration/make_targets.py"
    made = marker_sheet()
    assert committed.shape == made.shape
    # markers, cut squares and ruler pixel for pixel; the text only by its ink: OpenCV 5.1's putText places and
    # smooths the glyphs differently from 5.0's (176692 pixels of it differ, none outside it)
    from unittest import mock

    from tablecompanion.calibration import targets

    with mock.patch.object(targets, "_text", lambda *a, **k: None):
        bare = marker_sheet()
    text = cv2.dilate(((made != bare) | (committed != bare)).astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)
    assert np.array_equal(committed[~text], made[~text])
    ink, made_ink = int(np.count_nonzero(committed[text] < 128)), int(np.count_nonzero(made[text] < 128))
    assert ink > 0 and abs(made_ink - ink) <= 0.02 * ink, (ink, made_ink)


def _pdf_page_image(pdf: bytes) -> tuple[np.ndarray, tuple[float, float], tuple[float, float]]:
    """The one image a target PDF shows, the page size (pt) and the size (pt) the page draws it at."""
    import zlib

    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    head = re.search(rb"/Subtype /Image /Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n", pdf)
    w, h, n = (int(head.group(k)) for k in (1, 2, 3))
    pixels = np.frombuffer(zlib.decompress(pdf[head.end() : head.end() + n]), np.uint8).reshape(h, w)
    drawn = re.search(rb"q ([\d.]+) 0 0 ([\d.]+) 0 0 cm /Im0 Do Q", pdf)
    return pixels, (float(box.group(1)), float(box.group(2))), (float(drawn.group(1)), float(drawn.group(2)))


@pytest.mark.parametrize("name", ["corner-markers.pdf", "lens-sheet.pdf"])
def test_committed_pdfs_print_the_targets_at_true_size(name):
    """Decode the committed PDF as a printer would: the markers/squares measure their nominal mm on paper."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "calibration" / "targets" / name
    pixels, page_pt, drawn_pt = _pdf_page_image(path.read_bytes())
    assert drawn_pt == pytest.approx(page_pt, abs=0.01)  # the image covers the page exactly, no scaling
    mm_per_px = page_pt[0] / 72 * 25.4 / pixels.shape[1]
    assert page_pt[1] / 72 * 25.4 / pixels.shape[0] == pytest.approx(mm_per_px, rel=1e-3)  # square pixels
    if name == "corner-markers.pdf":
        det = detect_markers(pixels)
        assert det.ids == [0, 1, 2, 3]
        for corners in det.corners.values():
            side_px = np.mean([np.linalg.norm(corners[(k + 1) % 4] - corners[k]) for k in range(4)])
            assert side_px * mm_per_px == pytest.approx(MARKER_FILL * BoardSpec().frame_width, abs=0.3)
    else:
        small = cv2.resize(pixels, None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA)
        obj, img = detect_sheet(small, DEFAULT_SHEET)
        assert len(obj) == 24
        # every pair of inner corners lies as far apart on paper as on the nominal sheet (mm)
        paper = img / 0.3 * mm_per_px
        spans_paper = np.linalg.norm(paper[:, None] - paper[None], axis=2)
        spans_nominal = np.linalg.norm(obj[:, None, :2] - obj[None, :, :2], axis=2)
        far = spans_nominal > 2 * DEFAULT_SHEET.square_mm
        assert np.abs(spans_paper[far] / spans_nominal[far] - 1).max() < 0.01


def test_committed_pngs_declare_their_print_resolution():
    from pathlib import Path

    from tablecompanion.calibration.targets import png_dpi

    folder = Path(__file__).resolve().parents[2] / "calibration" / "targets"
    for name in ("corner-markers.png", "lens-sheet.png"):
        assert png_dpi(folder / name) == pytest.approx(DPI, abs=0.01), name
        assert cv2.imread(str(folder / name)) is not None  # the added chunk keeps the file readable
