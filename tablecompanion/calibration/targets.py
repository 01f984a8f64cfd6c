"""Printable targets at true size: the four corner markers and the ChArUco lens sheet, as PNG and PDF.

The marker size follows the board's frame width (``MARKER_FILL`` of it), so a board with a narrower
frame gets smaller markers: ``tablecompanion calibrate targets --frame-width 20``. Each marker is drawn
inside a cut line the size of the frame's corner square, so that sticking the cut square flush into the
corner centres the marker where ``BoardGeometry.marker_corners`` expects it.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

from tablecompanion.calibration.lens import DEFAULT_SHEET, LensSheet
from tablecompanion.calibration.markers import marker_dictionary
from tablecompanion.geometry import MARKER_FILL, MARKER_IDS, BoardSpec

DPI = 300
A4_MM = (210.0, 297.0)
MM_PER_INCH = 25.4


def _px(mm: float, dpi: int = DPI) -> int:
    return int(round(mm * dpi / MM_PER_INCH))


def _text(img: np.ndarray, text: str, org_mm: tuple[float, float], size_mm: float, dpi: int = DPI) -> None:
    scale = _px(size_mm, dpi) / 22.0
    cv2.putText(img, text, (_px(org_mm[0], dpi), _px(org_mm[1], dpi)), cv2.FONT_HERSHEY_SIMPLEX, scale, 0, max(1, int(scale * 2)), cv2.LINE_AA)


def _dashed_square(img: np.ndarray, x0: int, y0: int, side: int, dash: int) -> None:
    for i in range(0, side, 2 * dash):
        for a, b in (((x0 + i, y0), (x0 + min(i + dash, side), y0)), ((x0 + i, y0 + side), (x0 + min(i + dash, side), y0 + side))):
            cv2.line(img, a, b, 0, 2)
        for a, b in (((x0, y0 + i), (x0, y0 + min(i + dash, side))), ((x0 + side, y0 + i), (x0 + side, y0 + min(i + dash, side)))):
            cv2.line(img, a, b, 0, 2)


def _ruler(page: np.ndarray, x_mm: float, y_mm: float, dpi: int) -> None:
    """A 100 mm bar with 10 mm ticks: a ruler against it shows whether the page printed at 100%."""
    cv2.line(page, (_px(x_mm, dpi), _px(y_mm, dpi)), (_px(x_mm + 100, dpi), _px(y_mm, dpi)), 0, 3)
    for tick in range(0, 101, 10):
        cv2.line(page, (_px(x_mm + tick, dpi), _px(y_mm - 2, dpi)), (_px(x_mm + tick, dpi), _px(y_mm + 2, dpi)), 0, 3)
    _text(page, "100 mm", (x_mm + 105, y_mm + 1.5), 3.5, dpi)


def marker_sheet(spec: BoardSpec | None = None, dpi: int = DPI) -> np.ndarray:
    """An A4 page (grey, ``dpi``) with the 4 corner markers at true size, cut lines and instructions."""
    spec = spec or BoardSpec()
    page = np.full((_px(A4_MM[1], dpi), _px(A4_MM[0], dpi)), 255, np.uint8)
    frame = spec.frame_width
    marker = MARKER_FILL * frame
    names = {v: k.replace("_", "-") for k, v in MARKER_IDS.items()}
    _text(page, "TableCompanion corner markers (ArUco DICT_4X4_50)", (15, 20), 4.2, dpi)
    _text(page, f"for a frame {frame:g} mm wide: markers {marker:g} mm, cut squares {frame:g} mm", (15, 29), 3.3, dpi)
    _text(page, "Print at 100% (no 'fit to page'); check the 100 mm bar with a ruler.", (15, 37), 3.3, dpi)
    for corner, marker_id in MARKER_IDS.items():
        col, row = int(corner.endswith("right")), int(corner.startswith("bottom"))  # laid out as on the board
        cx, cy = 55 + col * 100, 85 + row * 80  # centre of the cut square, mm
        x0, y0 = _px(cx - frame / 2, dpi), _px(cy - frame / 2, dpi)
        _dashed_square(page, x0, y0, _px(frame, dpi), max(4, _px(1.5, dpi)))
        side = _px(marker, dpi)
        img = cv2.aruco.generateImageMarker(marker_dictionary(), marker_id, side)
        mx, my = _px(cx - marker / 2, dpi), _px(cy - marker / 2, dpi)
        page[my : my + side, mx : mx + side] = img
        _text(page, f"id {marker_id}: {names[marker_id]} corner", (cx - 25, cy + frame / 2 + 9), 3.5, dpi)
        _text(page, "(upright as the bottom player sees it)", (cx - 28, cy + frame / 2 + 15), 2.6, dpi)
    _ruler(page, 15, 260, dpi)
    _text(page, "Cut along the dashed squares and stick each into its corner of the frame,", (15, 275), 3.3, dpi)
    _text(page, "flush with the outer edges, upright as the bottom player sees the board.", (15, 282), 3.3, dpi)
    return page


def lens_sheet_page(sheet: LensSheet = DEFAULT_SHEET, dpi: int = DPI) -> np.ndarray:
    """An A4 landscape page with the ChArUco lens sheet at true size."""
    page = np.full((_px(A4_MM[0], dpi), _px(A4_MM[1], dpi)), 255, np.uint8)
    board = sheet.image(px_per_mm=dpi / MM_PER_INCH, margin_mm=0.0)
    bh, bw = board.shape
    x0 = (page.shape[1] - bw) // 2
    y0 = _px(30, dpi)
    page[y0 : y0 + bh, x0 : x0 + bw] = board
    _text(page, f"TableCompanion lens sheet: ChArUco {sheet.squares[0]}x{sheet.squares[1]}, squares {sheet.square_mm:g} mm, "
          f"{sheet.dictionary}", (15, 15), 4, dpi)
    _text(page, "Print at 100%, glue flat on card. Photograph it 10-20 times at different angles and places.", (15, 23), 3.3, dpi)
    _ruler(page, 15, 195, dpi)
    _text(page, f"check with a ruler: the bar is 100 mm, each square {sheet.square_mm:g} mm", (150, 196.5), 3.3, dpi)
    return page


def write_png(image: np.ndarray, path: str | Path, dpi: int = DPI) -> None:
    """A PNG that carries its resolution (a pHYs chunk), so image viewers print it at true size."""
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise OSError(f"cannot encode {path} as PNG")
    data = encoded.tobytes()
    ihdr_end = 8 + 4 + 4 + 13 + 4  # signature, then the IHDR chunk (length, type, 13 bytes, CRC)
    per_metre = int(round(dpi / MM_PER_INCH * 1000))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)  # unit 1 = metre
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    Path(path).write_bytes(data[:ihdr_end] + chunk + data[ihdr_end:])


def png_dpi(path: str | Path) -> float | None:
    """The resolution a PNG declares (pHYs in pixels per metre), or None when it declares none."""
    data = Path(path).read_bytes()
    at = 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        if kind == b"pHYs":
            x, _y, unit = struct.unpack(">IIB", data[at + 8 : at + 17])
            return x * MM_PER_INCH / 1000 if unit == 1 else None
        if kind == b"IDAT":
            return None
        at += 12 + length
    return None


def write_pdf(image: np.ndarray, path: str | Path, page_mm: tuple[float, float]) -> None:
    """A one-page PDF showing a grey image over the whole page of ``page_mm`` (width, height) at true size.

    Written by hand (zlib-compressed image XObject) so the targets need nothing beyond NumPy and OpenCV.
    """
    h, w = image.shape[:2]
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    data = zlib.compress(np.ascontiguousarray(gray).tobytes(), 9)
    pw, ph = page_mm[0] * 72 / MM_PER_INCH, page_mm[1] * 72 / MM_PER_INCH
    content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    Path(path).write_bytes(bytes(out))


def write_targets(out_dir: str | Path, spec: BoardSpec | None = None, sheet: LensSheet = DEFAULT_SHEET, dpi: int = DPI) -> list[Path]:
    """Write corner-markers.{png,pdf} and lens-sheet.{png,pdf} into ``out_dir``; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    markers = marker_sheet(spec, dpi)
    lens = lens_sheet_page(sheet, dpi)
    paths = [out / "corner-markers.png", out / "corner-markers.pdf", out / "lens-sheet.png", out / "lens-sheet.pdf"]
    write_png(markers, paths[0], dpi)
    write_pdf(markers, paths[1], A4_MM)
    write_png(lens, paths[2], dpi)
    write_pdf(lens, paths[3], (A4_MM[1], A4_MM[0]))
    return paths
