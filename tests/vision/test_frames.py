"""Frame sources: image folders, video files, cameras that drop out and come back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablecompanion.vision.frames import (
    CameraConfig,
    CameraSource,
    FrameSourceError,
    ImageFolderSource,
    VideoFileSource,
    open_source,
    parse_device,
)


def _img(v: int) -> np.ndarray:
    return np.full((48, 64, 3), v, np.uint8)


def test_image_folder_in_name_order_skips_bad_files(tmp_path):
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), _img(10 * i))
    (tmp_path / "f15.png").write_bytes(b"broken")
    (tmp_path / "notes.txt").write_text("x")
    src = ImageFolderSource(tmp_path, fps=10)
    frames = list(src.frames())
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 10, 20]
    assert [f.time for f in frames] == [0.0, 0.1, 0.2]
    assert len(src.skipped) == 1


def test_missing_or_empty_sources_are_clear_errors(tmp_path):
    with pytest.raises(FrameSourceError):
        ImageFolderSource(tmp_path)
    with pytest.raises(FrameSourceError):
        ImageFolderSource(tmp_path / "nope")
    with pytest.raises(FrameSourceError):
        VideoFileSource(tmp_path / "nope.avi")
    with pytest.raises(FrameSourceError):
        open_source(str(tmp_path / "nothing-here"))
    bad = tmp_path / "bad.avi"
    bad.write_bytes(b"not a video")
    with pytest.raises(FrameSourceError):
        VideoFileSource(bad)


def test_video_file_round_trip(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG .avi files")
    for i in range(6):
        writer.write(_img(40 * i))
    writer.release()
    src = open_source(str(path))
    frames = list(src.frames())
    src.close()
    assert len(frames) == 6
    assert abs(frames[1].time - 1 / 25.0) < 1e-6
    assert abs(int(frames[3].image.mean()) - 120) < 8


class FakeCapture:
    """Plays a script: each open gets the next list of frames (None = read fails); [] = cannot open."""

    scripts: list = []
    opened: list = []

    def __init__(self, device):
        FakeCapture.opened.append(device)
        self.frames = list(FakeCapture.scripts.pop(0)) if FakeCapture.scripts else []
        self.ok = bool(self.frames)
        self.props = {}

    def isOpened(self):
        return self.ok

    def set(self, prop, value):
        self.props[prop] = value
        return True

    def read(self):
        if not self.frames:
            return False, None
        f = self.frames.pop(0)
        return (f is not None), f

    def release(self):
        self.ok = False


def test_camera_reconnects_after_dropping_out():
    FakeCapture.opened = []
    FakeCapture.scripts = [[_img(1), _img(2), None, None], [], [_img(3)]]
    cfg = CameraConfig(device="/dev/video9", reconnect_attempts=3, reconnect_delay=0, max_failed_reads=2)
    cam = CameraSource(cfg, capture_factory=FakeCapture, sleep=lambda s: None)
    got = [int(f.image[0, 0, 0]) for f in cam.frames()]
    assert got == [1, 2, 3]
    assert cam.reconnects == 1
    # first open, a failed and a good reopen, then three failed reopens after the last frame: the end
    assert FakeCapture.opened == ["/dev/video9"] * 6


def test_a_camera_is_asked_to_queue_one_frame_and_to_keep_its_own_queue_when_told():
    """With the driver's default queue (4 frames on V4L2) a slow frame is followed by stale ones; the
    camera is opened asking for one, at the configured size and rate."""
    FakeCapture.scripts = [[_img(1)], [_img(1)]]
    cam = CameraSource(CameraConfig(device=0), capture_factory=FakeCapture)
    props = cam._cap.props
    assert props[cv2.CAP_PROP_BUFFERSIZE] == 1
    assert (props[cv2.CAP_PROP_FRAME_WIDTH], props[cv2.CAP_PROP_FRAME_HEIGHT], props[cv2.CAP_PROP_FPS]) == (1280, 720, 30.0)
    cam = CameraSource(CameraConfig(device=0, buffer_frames=None), capture_factory=FakeCapture)
    assert cv2.CAP_PROP_BUFFERSIZE not in cam._cap.props


def test_camera_that_never_opens_is_an_error():
    FakeCapture.scripts = []
    with pytest.raises(FrameSourceError, match="cannot open camera"):
        CameraSource(CameraConfig(device=7), capture_factory=FakeCapture)


def test_parse_device():
    assert parse_device("0") == 0 and parse_device("/dev/video2") == "/dev/video2"
    assert parse_device("rtsp://cam/1") == "rtsp://cam/1"
