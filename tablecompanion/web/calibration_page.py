"""The calibration page (on the ``tables`` blueprint): an operator clicks the board's four outer corners on
a picture of the table when the camera sees no markers, and gets a saved profile and an annotated picture
to check by eye.

The picture is the table's live camera frame (``WebState.attach_camera``) or a still someone uploads; it
is kept while the person clicks, so the corners are always applied to the picture they were clicked on.
Profiles go under the app's ``DATA_DIR`` (``<DATA_DIR>/profiles/<name>.json``), where ``serve --data-dir``
keeps its record. Every refusal of the JSON routes is ``{"error": message, "status": code}``.
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import current_app, flash, jsonify, redirect, render_template, request, url_for

from . import default_data_dir, presenter
from .state import web_state
from .views import _table_or_404, bp, error_page, operator_of

MAX_CALIBRATE_BODY = 16 * 1024
MAX_PICTURE_BYTES = 25 * 1024 * 1024
MAX_PICTURE_SIDE = 8192
# the picture's edge the bottom player sits at -> which of the corners in picture order (TL TR BR BL, the
# picture's bottom edge nearest) are their TL, TR, BR, BL (a camera across the table or at its end)
SEATS = {"bottom": (0, 1, 2, 3), "top": (2, 3, 0, 1), "left": (1, 2, 3, 0), "right": (3, 0, 1, 2)}
_DEFAULT_NAME_BAD = re.compile(r"[^A-Za-z0-9_.-]")


class _Refusal(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _refuse(exc: _Refusal):
    return jsonify(error=exc.message, status=exc.status), exc.status


def _operator_or_refuse(table_id: str) -> None:
    if web_state().table(table_id) is None:
        raise _Refusal(404, f"no table {table_id!r} on this server")
    if not operator_of(table_id):
        raise _Refusal(403, "only this table's operator can calibrate its camera: sign in with the operator token")


def _frame_info(table_id: str) -> dict:
    """What the page needs to know of its picture: its address, size and where it came from."""
    frame, origin, stamp = web_state().shown_frame(table_id)
    if frame is None:
        return {"frame_url": None, "width": None, "height": None, "origin": None, "picture": None}
    h, w = frame.shape[:2]
    return {"frame_url": url_for("tables.calibrate_frame", table_id=table_id, v=_stamp_text(stamp)),
            "width": int(w), "height": int(h), "origin": origin, "picture": _stamp_text(stamp)}


def _stamp_text(stamp: float) -> str:
    return f"{stamp:.6f}"


def default_profile_name(table_id: str) -> str:
    return "table-" + (_DEFAULT_NAME_BAD.sub("-", str(table_id)) or "1")[:50]


def _jpeg(image, quality: int = 90) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise _Refusal(500, "the picture could not be encoded")
    return buf.tobytes()


def _jpeg_response(data: bytes):
    return current_app.response_class(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/tables/<table_id>/calibrate")
def calibrate(table_id: str):
    ref = _table_or_404(table_id)
    if not operator_of(table_id):
        flash("Sign in as this table's operator to calibrate its camera.", "error")
        return redirect(url_for("tables.table", table_id=table_id))
    snap = ref.snapshot(public=True)
    settings = snap.get("settings") or {}
    state = web_state()
    if state.shown_frame(table_id)[1] != "upload":  # a visit shows the camera as it is now
        live = state.latest_frame(table_id)
        if live is not None:
            state.show_frame(table_id, live, "camera")
    info = _frame_info(table_id)
    cfg = {
        "table_id": table_id,
        "calibrate_url": url_for("tables.calibrate_save", table_id=table_id),
        "still_url": url_for("tables.calibrate_still", table_id=table_id),
        "has_camera": web_state().has_camera(table_id),
        "names": {p: presenter.player_name(snap, p) for p in ("X", "O")},
        **info,
    }
    return render_template(
        "calibrate.html", table_id=table_id, t=snap, cfg=cfg, frame=info,
        has_camera=cfg["has_camera"], default_name=default_profile_name(table_id),
        home=settings.get("home") or "right", bottom=settings.get("bottom_player") or "X")


@bp.get("/tables/<table_id>/calibrate/frame.jpg")
def calibrate_frame(table_id: str):
    """The picture the page shows (and calibrates on), as JPEG."""
    _table_or_404(table_id)
    if not operator_of(table_id):
        return error_page(403, "Operator only", "Sign in as this table's operator to see its camera."), 403
    frame, _, _ = web_state().shown_frame(table_id)
    if frame is None:
        return error_page(404, "No picture", "No frame from this table's camera yet, and no picture uploaded."), 404
    return _jpeg_response(_jpeg(frame, 92))


@bp.get("/tables/<table_id>/calibrate/result.jpg")
def calibrate_result(table_id: str):
    """The annotated picture of the last calibration made on the page."""
    _table_or_404(table_id)
    if not operator_of(table_id):
        return error_page(403, "Operator only", "Sign in as this table's operator to see its calibration."), 403
    data = web_state().calibrated(table_id)
    if data is None:
        return error_page(404, "No calibration yet", "No calibration has been made on this page yet."), 404
    return _jpeg_response(data)


@bp.post("/tables/<table_id>/calibrate/still")
def calibrate_still(table_id: str):
    """A new picture to click on: an uploaded file (field ``picture``: a JPEG or PNG still from the
    camera), or without one the live camera's latest frame. Answers the page's picture info as JSON."""
    import cv2
    import numpy as np

    try:
        _operator_or_refuse(table_id)
        state = web_state()
        if request.content_length is not None and request.content_length > MAX_PICTURE_BYTES:
            raise _Refusal(413, f"the picture is larger than {MAX_PICTURE_BYTES // (1024 * 1024)} MB")
        upload = request.files.get("picture")
        if upload is not None and upload.filename:
            data = upload.read(MAX_PICTURE_BYTES + 1)
            if len(data) > MAX_PICTURE_BYTES:
                raise _Refusal(413, f"the picture is larger than {MAX_PICTURE_BYTES // (1024 * 1024)} MB")
            size = picture_size(data)
            if size is not None and max(size) > MAX_PICTURE_SIDE:  # refused before decoding it
                raise _Refusal(400, f"the picture is larger than {MAX_PICTURE_SIDE} px on a side: upload the "
                                    "camera's own frame size")
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if size else None
            if image is None:
                raise _Refusal(400, "that file is not a picture this page reads: upload a JPEG or PNG still "
                                    "from the table's camera")
            state.show_frame(table_id, image, "upload")
        else:
            frame = state.latest_frame(table_id)
            if frame is None:
                raise _Refusal(400, "no picture from this table's camera: upload a still from the camera "
                                    "(JPEG or PNG)" if not state.has_camera(table_id) else
                               "the camera has sent no frame yet: wait a moment and try again, or upload a still")
            state.show_frame(table_id, frame, "camera")
    except _Refusal as exc:
        if request.accept_mimetypes.best == "application/json" or request.headers.get("X-CSRF-Token"):
            return _refuse(exc)
        if exc.status == 404:
            return error_page(404, "No such table", exc.message), 404
        flash(exc.message, "error")
        return redirect(url_for("tables.table" if exc.status == 403 else "tables.calibrate", table_id=table_id))
    if request.accept_mimetypes.best == "application/json" or request.headers.get("X-CSRF-Token"):
        return jsonify(_frame_info(table_id))
    return redirect(url_for("tables.calibrate", table_id=table_id))


def picture_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's or JPEG's header, or None when the bytes are neither (read before
    decoding, so a small file claiming a huge picture never reaches the decoder)."""
    import struct

    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def _calibrate_body(table_id: str) -> dict:
    """The JSON body, checked for shape; what the corners mean is calibration's to judge."""
    if request.content_length is not None and request.content_length > MAX_CALIBRATE_BODY:
        raise _Refusal(413, f"the request body is larger than {MAX_CALIBRATE_BODY} bytes")
    body = request.get_json(silent=True, force=True)
    if not isinstance(body, dict):
        raise _Refusal(400, 'the body must be a JSON object: {"corners": [[x, y], ...4], "displayed_size": [w, h], '
                            '"name": ..., "home": "right", "bottom": "X"}')
    name = body.get("name")
    if name is None or (isinstance(name, str) and not name.strip()):
        name = default_profile_name(table_id)
    if not isinstance(name, str):
        raise _Refusal(400, "'name' must be text: the profile's name, e.g. table-1")
    home = body.get("home", "right")
    if home not in ("right", "left"):
        raise _Refusal(400, f"'home' must be \"right\" or \"left\" (where the bottom player's home board is), "
                            f"not {home!r}")
    bottom = body.get("bottom", body.get("bottom_player"))
    if bottom not in (None, "X", "O"):
        raise _Refusal(400, f"'bottom' must be \"X\" or \"O\" (who sits at the picture's bottom edge), not {bottom!r}")
    seat = body.get("seat", "bottom")
    if seat not in SEATS:
        raise _Refusal(400, f"'seat' must be one of {', '.join(SEATS)} (the picture's edge the bottom player sits "
                            f"at), not {seat!r}")
    picture = body.get("picture")
    if picture is not None and not isinstance(picture, str):
        raise _Refusal(400, "'picture' must be the page's picture stamp (text), or left out")
    # the corners and the displayed size are checked with the frame's size, by calibration.clicks
    return {"corners": body.get("corners"), "displayed_size": body.get("displayed_size"), "name": name.strip(), "home": home, "bottom": bottom,
            "seat": seat, "picture": picture}


def seated(corners, seat: str) -> list:
    """The clicks as TL TR BR BL as the bottom player sees the board, when that player sits at the picture's
    ``seat`` edge (clicks come in any order; the picture's own order is taken first)."""
    import numpy as np

    from tablecompanion.calibration.clicks import order_corners

    ordered = order_corners(np.asarray(corners, dtype=np.float64))  # as seen from the picture's bottom
    return ordered[list(SEATS[seat])].tolist()


@bp.post("/tables/<table_id>/calibrate")
def calibrate_save(table_id: str):
    """Four clicked corners → a saved profile and its annotated picture (see the module docstring)."""
    from tablecompanion.calibration.clicks import calibrate_from_clicks, clicks_to_image
    from tablecompanion.calibration.errors import CalibrationError
    from tablecompanion.calibration.profiles import profile_path

    try:
        _operator_or_refuse(table_id)
        body = _calibrate_body(table_id)
        state = web_state()
        frame, origin, stamp = state.shown_frame(table_id)
        if frame is None:
            raise _Refusal(400, "no picture to calibrate on: no frame from this table's camera yet, and no still "
                                "uploaded")
        if body["picture"] is not None and body["picture"] != _stamp_text(stamp):
            raise _Refusal(409, "the picture was replaced since this page showed it (a new frame or upload, perhaps "
                                "from another page): reload the page and click the corners again")
        if frame.ndim == 2:
            import cv2

            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        data_dir = current_app.config["DATA_DIR"]
        try:
            h, w = frame.shape[:2]
            clicked = clicks_to_image(body["corners"], body["displayed_size"], (w, h))
            cal, jpeg = calibrate_from_clicks(frame, seated(clicked, body["seat"]), None,
                                              name=body["name"], home=body["home"], bottom_player=body["bottom"],
                                              in_order=True, data_dir=data_dir)
        except CalibrationError as exc:
            raise _Refusal(400, str(exc)) from None
        except OSError as exc:  # the server's data dir, not the request: say where and why
            raise _Refusal(500, f"the profile could not be saved under {data_dir}: "
                                f"{exc.strerror or exc}; check that folder") from None
        path = profile_path(body["name"], data_dir)
    except _Refusal as exc:
        return _refuse(exc)
    stamp = state.keep_calibrated(table_id, jpeg)
    applied = False
    apply = state.camera_apply(table_id)
    if apply is not None and origin == "camera":
        try:
            apply(cal)
            applied = True
        except Exception as exc:  # noqa: BLE001 - the profile is saved; the camera keeps its old one
            current_app.logger.warning("table %s: the new calibration was not applied: %s", table_id, exc)
    w, h = cal.image_size
    use = f"tablecompanion serve --camera N --profile {body['name']}"
    if Path(data_dir).expanduser().resolve() != default_data_dir().resolve():
        use += f" --data-dir {data_dir}"
    return jsonify({
        "ok": True,
        "profile": {"name": body["name"], "path": str(path), "home": cal.geometry.home,
                    "bottom": cal.bottom_player, "seat": body["seat"], "source": cal.source, "image_size": [w, h],
                    "fit_error_mm": round(float(cal.reprojection_error_mm), 3)},
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in cal.board_corners_image()],
        "annotated_url": url_for("tables.calibrate_result", table_id=table_id, v=f"{stamp:.3f}"),
        "frame": origin,
        "applied": applied,
        "use": use,
    })
