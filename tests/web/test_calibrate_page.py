"""The calibration page's routes: an operator clicks the board's four corners on a camera frame (or an
uploaded still) and gets a saved profile (under the app's DATA_DIR) and an annotated picture; every bad
request is a 400 with a JSON message, never a 500, and only the table's operator may do any of it."""

from __future__ import annotations

import io
import json
import re

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import evaluate as ev
from tablecompanion.calibration.model import apply_homography, rect_corners
from tablecompanion.calibration.profiles import read_profile_file
from tablecompanion.calibration.synthetic import photograph
from tablecompanion.geometry import BoardGeometry

from .test_views import csrf_of, sign_in


@pytest.fixture(scope="module")
def photo():
    """A drawn board, photographed from a known view, without markers (the case clicks are for)."""
    return photograph(style="tournament", seed=31, markers=False)


def true_corners(photo) -> np.ndarray:
    """The board frame's outer corners in the photo's px, TL TR BR BL."""
    return apply_homography(np.linalg.inv(photo.homography), rect_corners(BoardGeometry().outline))


def true_point_centres(photo) -> np.ndarray:
    geo = BoardGeometry()
    return apply_homography(np.linalg.inv(photo.homography), [geo.point_centre(p) for p in range(1, 25)])


def attach(app, frame, table_id="1", apply=None):
    app.extensions["tablecompanion"].attach_camera(table_id, lambda: frame, apply=apply)


def page_cfg(html: str) -> dict:
    return json.loads(re.search(r'<script id="cfg" type="application/json">(.*?)</script>', html, re.S).group(1))


def shown_clicks(photo, scale=0.5, order=(2, 0, 3, 1)):
    """The true corners as a person clicks them on the picture shown at ``scale``, in a shuffled order."""
    h, w = photo.image.shape[:2]
    pts = true_corners(photo) * scale
    return [[float(x), float(y)] for x, y in pts[list(order)]], [w * scale, h * scale]


def test_clicking_the_true_corners_saves_a_good_profile_and_an_annotated_picture(app, client, photo, tmp_path):
    attach(app, photo.image)
    _, csrf = sign_in(client)
    page = client.get("/tables/1/calibrate")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    cfg = page_cfg(html)
    assert cfg["width"] == photo.image.shape[1] and cfg["height"] == photo.image.shape[0]
    assert cfg["origin"] == "camera" and 'id="cal-img"' in html and 'value="table-1"' in html

    frame = client.get(cfg["frame_url"])  # the picture the page shows
    assert frame.status_code == 200 and frame.mimetype == "image/jpeg"
    shown = cv2.imdecode(np.frombuffer(frame.data, np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape == photo.image.shape
    assert np.abs(shown.astype(int) - photo.image.astype(int)).mean() < 4  # the same picture, JPEG'd

    corners, size = shown_clicks(photo)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={"corners": corners, "displayed_size": size, "name": "table-1", "home": "left",
                          "bottom": "O"})
    assert r.status_code == 200, r.get_json()
    out = r.get_json()
    profile = out["profile"]
    assert profile["name"] == "table-1" and profile["home"] == "left" and profile["bottom"] == "O"
    assert profile["source"] == "corners" and profile["image_size"] == [photo.image.shape[1], photo.image.shape[0]]
    assert out["frame"] == "camera" and out["applied"] is False
    assert out["use"] == f"tablecompanion serve --camera N --profile table-1 --data-dir {tmp_path / 'data'}"
    # the clicks were scaled back to the frame and put in order TL TR BR BL
    assert np.abs(np.array(out["corners"]) - true_corners(photo)).max() < 1.0

    # the profile is where the app keeps its data (the test's tmp dir), and it places the points right
    path = tmp_path / "data" / "profiles" / "table-1.json"
    assert profile["path"] == str(path) and path.is_file()
    cal = read_profile_file(path)
    assert cal.geometry.home == "left" and cal.bottom_player == "O"
    truth = ev.Case("page", photo.image, true_point_centres(photo))
    assert ev.point_error_mm(cal, truth) < 2.0

    # the annotated picture decodes, is the frame's size and has the regions drawn on it
    pic = client.get(out["annotated_url"])
    assert pic.status_code == 200 and pic.mimetype == "image/jpeg"
    annotated = cv2.imdecode(np.frombuffer(pic.data, np.uint8), cv2.IMREAD_COLOR)
    assert annotated is not None and annotated.shape == photo.image.shape
    assert np.abs(annotated.astype(int) - photo.image.astype(int)).mean() > 2


def test_clicks_apply_to_the_picture_shown_not_a_newer_frame(app, client, photo):
    """The person clicked on the frame the page showed; a camera that moved on since must not change that."""
    frames = {"now": photo.image}
    app.extensions["tablecompanion"].attach_camera("1", lambda: frames["now"])
    _, csrf = sign_in(client)
    cfg = page_cfg(client.get("/tables/1/calibrate").get_data(as_text=True))
    frames["now"] = np.zeros((480, 640, 3), np.uint8)  # the camera now sends something else
    corners, size = shown_clicks(photo)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={"corners": corners, "displayed_size": size, "name": "held", "home": "right", "bottom": "X"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["profile"]["image_size"] == [cfg["width"], cfg["height"]]
    # asking for a new frame takes the camera's latest; clicks stamped with the old picture are then refused
    r = client.post("/tables/1/calibrate/still", headers={"X-CSRF-Token": csrf, "Accept": "application/json"})
    assert r.status_code == 200 and (r.get_json()["width"], r.get_json()["height"]) == (640, 480)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={"corners": corners, "displayed_size": size, "name": "held", "picture": cfg["picture"]})
    assert r.status_code == 409 and "reload" in r.get_json()["error"]
    # and a new visit to the page shows the camera as it is now
    frames["now"] = photo.image
    again = page_cfg(client.get("/tables/1/calibrate").get_data(as_text=True))
    assert (again["width"], again["height"]) == (cfg["width"], cfg["height"]) and again["picture"] != cfg["picture"]
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={"corners": corners, "displayed_size": size, "name": "held", "picture": again["picture"]})
    assert r.status_code == 200


def test_a_table_runners_latest_frame_is_the_picture(app, client, hall, photo):
    """``serve --camera`` hands its TableRunner to the app: the page shows what the pipeline saw last."""
    from tablecompanion.referee.runner import TableRunner

    dark = (photo.image * 0.5).astype(np.uint8)
    runner = TableRunner(hall.get("1"), frames=[dark, photo.image], realtime=False)
    app.extensions["tablecompanion"].attach_camera("1", runner)
    _, csrf = sign_in(client)
    html = client.get("/tables/1/calibrate").get_data(as_text=True)
    assert "The camera has sent no frame yet" in html  # attached, not started
    runner.run()  # in this thread: both frames through the pipeline
    r = client.post("/tables/1/calibrate/still", headers={"X-CSRF-Token": csrf, "Accept": "application/json"})
    assert r.status_code == 200 and r.get_json()["origin"] == "camera"
    shown = cv2.imdecode(np.frombuffer(client.get(r.get_json()["frame_url"]).data, np.uint8), cv2.IMREAD_COLOR)
    assert np.abs(shown.astype(int) - photo.image.astype(int)).mean() < 4  # the last frame, not the dark one


def test_an_uploaded_still_is_used_when_there_is_no_camera(app, client, photo, tmp_path):
    _, csrf = sign_in(client)
    html = client.get("/tables/1/calibrate").get_data(as_text=True)
    assert "No camera frame for this table" in html and 'id="cal-img"' not in html
    assert client.get("/tables/1/calibrate/frame.jpg").status_code == 404

    ok, png = cv2.imencode(".png", photo.image)
    r = client.post("/tables/1/calibrate/still", data={"csrf_token": csrf, "picture": (io.BytesIO(png.tobytes()), "still.png")},
                    content_type="multipart/form-data")
    assert r.status_code == 302 and r.headers["Location"].endswith("/tables/1/calibrate")
    cfg = page_cfg(client.get("/tables/1/calibrate").get_data(as_text=True))
    assert cfg["origin"] == "upload" and cfg["width"] == photo.image.shape[1]

    corners, size = shown_clicks(photo, scale=0.7, order=(3, 2, 1, 0))
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={"corners": corners, "displayed_size": size, "name": "from-still", "home": "right", "bottom": "X"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["frame"] == "upload"
    cal = read_profile_file(tmp_path / "data" / "profiles" / "from-still.json")
    assert ev.point_error_mm(cal, ev.Case("still", photo.image, true_point_centres(photo))) < 2.0


@pytest.mark.parametrize("seat, theirs", [("bottom", [0, 1, 2, 3]), ("top", [2, 3, 0, 1]), ("left", [1, 2, 3, 0]),
                                          ("right", [3, 0, 1, 2])])
def test_the_bottom_player_may_sit_at_any_edge_of_the_picture(app, client, photo, seat, theirs):
    """A camera at the end of the table or across it: the corners are taken as that player sees the board."""
    attach(app, photo.image)
    _, csrf = sign_in(client)
    client.get("/tables/1/calibrate")
    corners, size = shown_clicks(photo)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={"corners": corners, "displayed_size": size, "name": f"seat-{seat}", "home": "right",
                          "bottom": "X", "seat": seat})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["profile"]["seat"] == seat
    assert np.abs(np.array(r.get_json()["corners"]) - true_corners(photo)[theirs]).max() < 1.0


def test_a_new_profile_is_handed_to_the_running_camera(app, client, photo):
    got = []
    attach(app, photo.image, apply=got.append)
    _, csrf = sign_in(client)
    client.get("/tables/1/calibrate")
    corners, size = shown_clicks(photo)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={"corners": corners, "displayed_size": size, "name": "live", "home": "right", "bottom": "X"})
    assert r.status_code == 200 and r.get_json()["applied"] is True
    assert len(got) == 1 and got[0].name == "live" and got[0].source == "corners"


GOOD = {"displayed_size": [640, 360], "name": "t", "home": "right", "bottom": "X"}


@pytest.mark.parametrize("body, words", [
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300]]}, "4 outer corners"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], ["x", 300]]}, "pairs of numbers"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [True, 300]]}, "pairs of numbers"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [10]]}, "pairs of numbers"),
    ({**GOOD, "corners": "10,10 600,10 600,300 10,300"}, "pairs of numbers"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [10, 300]], "home": "up"}, "'home'"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [10, 300]], "bottom": "Z"}, "'bottom'"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [10, 300]], "displayed_size": [0, 360]}, "displayed_size"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [10, 300]], "seat": "under"}, "'seat'"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [10, 300]], "name": "../evil"}, "profile name"),
    ({**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [10, 300]], "name": 7}, "'name'"),
    ({**GOOD, "corners": [[10, 10], [10, 10], [10, 10], [10, 10]]}, ""),  # calibration refuses the quad
    ([1, 2, 3], "JSON object"),
])
def test_bad_requests_are_400_with_a_message(app, client, photo, tmp_path, body, words):
    attach(app, photo.image)
    _, csrf = sign_in(client)
    client.get("/tables/1/calibrate")
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf}, json=body)
    assert r.status_code == 400
    out = r.get_json()
    assert out["status"] == 400 and words in out["error"] and len(out["error"]) > 15
    assert not (tmp_path / "data" / "profiles").exists() or not list((tmp_path / "data" / "profiles").glob("*.json"))


def test_a_data_dir_that_cannot_take_the_profile_is_a_json_error(app, client, photo, tmp_path):
    (tmp_path / "data" / "profiles").write_text("a file where the profiles folder should be")
    attach(app, photo.image)
    _, csrf = sign_in(client)
    client.get("/tables/1/calibrate")
    corners, size = shown_clicks(photo)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={"corners": corners, "displayed_size": size, "name": "t", "home": "right", "bottom": "X"})
    assert r.status_code == 500 and "could not be saved" in r.get_json()["error"]


def test_malformed_json_is_400(app, client, photo):
    attach(app, photo.image)
    _, csrf = sign_in(client)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf}, data="{corners: [",
                    content_type="application/json")
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]


def test_no_frame_at_all_is_400(client):
    _, csrf = sign_in(client)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf},
                    json={**GOOD, "corners": [[10, 10], [600, 10], [600, 300], [10, 300]]})
    assert r.status_code == 400 and "no picture" in r.get_json()["error"]
    r = client.post("/tables/1/calibrate/still", headers={"X-CSRF-Token": csrf, "Accept": "application/json"})
    assert r.status_code == 400 and "upload a still" in r.get_json()["error"]


def test_an_upload_that_is_not_a_picture_is_400(client):
    _, csrf = sign_in(client)
    r = client.post("/tables/1/calibrate/still", headers={"X-CSRF-Token": csrf, "Accept": "application/json"},
                    data={"picture": (io.BytesIO(b"not an image at all"), "x.jpg")}, content_type="multipart/form-data")
    assert r.status_code == 400 and "JPEG or PNG" in r.get_json()["error"]
    r = client.post("/tables/1/calibrate/still", data={"csrf_token": csrf, "picture": (io.BytesIO(b"\xff\xd8junk"), "x.jpg")},
                    content_type="multipart/form-data")  # the plain form: back to the page, with the message
    assert r.status_code == 302 and r.headers["Location"].endswith("/tables/1/calibrate")
    assert "JPEG or PNG" in client.get("/tables/1/calibrate").get_data(as_text=True)


@pytest.mark.parametrize("ext", [".png", ".jpg"])
def test_picture_size_is_read_from_the_header(ext):
    from tablecompanion.web.calibration_page import picture_size

    ok, data = cv2.imencode(ext, np.zeros((37, 53, 3), np.uint8))
    assert picture_size(data.tobytes()) == (53, 37)
    assert picture_size(b"GIF89a....") is None


def test_a_picture_claiming_a_huge_size_is_refused_before_decoding(client):
    import struct
    import zlib

    _, csrf = sign_in(client)
    ihdr = struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)
    png = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
           + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)))
    r = client.post("/tables/1/calibrate/still", headers={"X-CSRF-Token": csrf, "Accept": "application/json"},
                    data={"picture": (io.BytesIO(png), "huge.png")}, content_type="multipart/form-data")
    assert r.status_code == 400 and "8192 px" in r.get_json()["error"]


def test_only_the_operator_may_calibrate(app, client, photo, tmp_path):
    attach(app, photo.image)
    corners, size = shown_clicks(photo)
    body = {"corners": corners, "displayed_size": size, "name": "nope", "home": "right", "bottom": "X"}
    # not signed in: the page sends to the table view, the pictures and the POSTs are refused
    r = client.get("/tables/1/calibrate")
    assert r.status_code == 302 and r.headers["Location"].endswith("/tables/1")
    assert client.get("/tables/1/calibrate/frame.jpg").status_code == 403
    html = client.get("/tables/1").get_data(as_text=True)
    assert 'id="calibrate-btn"' not in html
    csrf = csrf_of(html)
    r = client.post("/tables/1/calibrate", headers={"X-CSRF-Token": csrf}, json=body)
    assert r.status_code == 403 and "operator" in r.get_json()["error"]
    r = client.post("/tables/1/calibrate/still", headers={"X-CSRF-Token": csrf, "Accept": "application/json"})
    assert r.status_code == 403
    r = client.post("/tables/1/calibrate/still", data={"csrf_token": csrf})  # the plain form: to the sign-in
    assert r.status_code == 302 and r.headers["Location"].endswith("/tables/1")
    # signed in but without the CSRF token: refused too
    sign_in(client)
    r = client.post("/tables/1/calibrate", json=body)
    assert r.status_code == 400 and "CSRF" in r.get_json()["error"]
    assert not (tmp_path / "data" / "profiles" / "nope.json").exists()
    # the operator's table view links the page
    assert 'id="calibrate-btn"' in client.get("/tables/1").get_data(as_text=True)


def test_unknown_table(client):
    assert client.get("/tables/nope/calibrate").status_code == 404
    _, csrf = sign_in(client)
    r = client.post("/tables/nope/calibrate", headers={"X-CSRF-Token": csrf}, json={})
    assert r.status_code == 404 and r.get_json()["status"] == 404


def test_the_token_signs_in_only_its_table(app, client, hall, photo):
    """An operator of table 1 is not table 2's."""
    from tablecompanion.referee.settings import TableSettings

    hall.create_table(TableSettings(players=("Cat", "Dan"), match_length=3), table_id="2", token="other-token-2")
    attach(app, photo.image, table_id="2")
    _, csrf = sign_in(client)
    assert client.get("/tables/2/calibrate").status_code == 302
    r = client.post("/tables/2/calibrate", headers={"X-CSRF-Token": csrf}, json={})
    assert r.status_code == 403
