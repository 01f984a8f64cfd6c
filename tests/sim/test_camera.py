"""The camera model: it projects like OpenCV, fits the board, and its homography is the plane's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablecompanion.geometry import BoardSpec
from tablecompanion.sim import Camera, SimError


@pytest.mark.parametrize("preset", ["top", "default", "tilted", "steep"])
def test_projection_agrees_with_opencv(preset):
    m = Camera.preset(preset).model()
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(0, 830, 50), rng.uniform(0, 550, 50), -rng.uniform(0, 60, 50)])
    rvec, _ = cv2.Rodrigues(m.R)
    ref = cv2.projectPoints(pts, rvec, m.t, m.K, m.dist)[0].reshape(-1, 2)
    assert np.allclose(m.project(pts), ref, atol=1e-6)


@pytest.mark.parametrize("preset", ["top", "default", "tilted", "steep"])
def test_board_fits_in_the_picture_with_the_bottom_player_at_the_bottom(preset):
    cam = Camera.preset(preset)
    spec = BoardSpec()
    px = cam.model(spec).project(np.array([[0, 0, 0], [spec.width, 0, 0], [spec.width, spec.height, 0], [0, spec.height, 0]], float))
    assert (px[:, 0] >= 0).all() and (px[:, 0] < cam.width).all()
    assert (px[:, 1] >= 0).all() and (px[:, 1] < cam.height).all()
    # Bottom edge of the board below its top edge; left corner left of the right one.
    assert px[2:, 1].min() > px[:2, 1].max()
    assert px[0, 0] < px[1, 0] and px[3, 0] < px[2, 0]
    if cam.tilt_deg > 10:  # seen from the bottom player's side the far edge looks shorter
        assert np.linalg.norm(px[1] - px[0]) < np.linalg.norm(px[2] - px[3])


def test_homography_maps_undistorted_pixels_to_board_mm():
    m = Camera.preset("tilted").model()
    pts = np.array([[100.0, 50.0, 0.0], [700.0, 500.0, 0.0], [415.0, 275.0, 0.0]])
    px = m.project(pts).reshape(-1, 1, 2)
    und = cv2.undistortPoints(px, m.K, m.dist, P=m.K)
    back = cv2.perspectiveTransform(und, m.homography_image_to_board()).reshape(-1, 2)
    assert np.allclose(back, pts[:, :2], atol=1e-3)


def test_lens_distortion_bends_straight_edges():
    spec = BoardSpec()
    edge = np.array([[0, 0, 0], [spec.width / 2, 0, 0], [spec.width, 0, 0]], float)

    def sag(cam):
        a, mid, b = cam.model(spec).project(edge)
        return abs(mid[1] - (a[1] + b[1]) / 2)

    assert sag(Camera.preset("top", distortion=(0, 0, 0, 0, 0))) < 0.01
    assert sag(Camera.preset("top", distortion=(-0.08, 0.02, 0, 0, 0))) > 1.0


def test_pixel_rays_hit_the_board_where_projection_says():
    cam = Camera.preset("default", width=320, height=180)
    m = cam.model()
    X, Y = m.pixel_rays_to_plane()
    for v, u in [(10, 20), (90, 160), (170, 300)]:
        px = m.project(np.array([[X[v, u], Y[v, u], 0.0]]))[0]
        assert np.allclose(px, (u, v), atol=0.05)


@pytest.mark.parametrize("bad", [dict(width=4), dict(tilt_deg=85), dict(jpeg_quality=0), dict(noise=-1),
                                 dict(distance_mm=10), dict(distortion=(0.1,))])
def test_bad_camera_is_a_sim_error(bad):
    with pytest.raises(SimError):
        Camera(**bad)
    with pytest.raises(SimError, match="preset"):
        Camera.preset("fisheye")
