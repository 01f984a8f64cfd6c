"""Frame sources behind one interface: a live camera, a video file, a folder of images.

Every source yields ``Frame`` (image, timestamp in seconds, index). A camera that drops out is reopened
(``reconnect_attempts`` times, ``reconnect_delay`` apart) instead of ending the stream; a file or
folder simply ends. Unreadable images in a folder are skipped and counted, never a crash.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Protocol

import cv2
import numpy as np

from tablecompanion.vision.dice import DiceVisionError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class FrameSourceError(DiceVisionError):
    """A frame source cannot be opened (no camera, missing file, empty folder)."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    time: float  # seconds: stream time for files, monotonic clock for cameras
    index: int


class FrameSource(Protocol):
    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


@dataclass
class ImageFolderSource:
    """Images of a folder in name order, at a nominal frame rate (for timestamps)."""

    folder: str | Path
    fps: float = 30.0
    skipped: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        root = Path(self.folder)
        if not root.is_dir():
            raise FrameSourceError(f"no such folder: {root}")
        self.paths = sorted(p for p in root.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise FrameSourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {root}")
        if not self.fps > 0:
            raise FrameSourceError("fps must be positive")

    def frames(self) -> Iterator[Frame]:
        index = 0
        for path in self.paths:
            data = np.fromfile(str(path), dtype=np.uint8)
            img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
            if img is None:
                self.skipped.append(str(path))
                continue
            yield Frame(img, index / self.fps, index)
            index += 1

    def close(self) -> None:
        pass


class VideoFileSource:
    """A recorded video; timestamps from the container (or index / fps when it has none)."""

    def __init__(self, path: str | Path, capture_factory: Callable[[str], object] = cv2.VideoCapture):
        self.path = Path(path)
        if not self.path.is_file():
            raise FrameSourceError(f"no such video file: {self.path}")
        self._cap = capture_factory(str(self.path))
        if not self._cap.isOpened():
            raise FrameSourceError(f"cannot open video {self.path} (unknown format or codec)")
        fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if fps > 0 else 30.0

    def frames(self) -> Iterator[Frame]:
        index = 0
        while True:
            ok, img = self._cap.read()
            if not ok or img is None or img.size == 0:
                return
            yield Frame(img, index / self.fps, index)
            index += 1

    def close(self) -> None:
        self._cap.release()


@dataclass
class CameraConfig:
    """How to open a camera: index, device path (/dev/video0) or URL (rtsp://, http://)."""

    device: int | str = 0
    width: int | None = 1280
    height: int | None = 720
    fps: float | None = 30.0
    reconnect_attempts: int = 10
    reconnect_delay: float = 1.0
    # consecutive failed reads before the camera counts as gone and is reopened
    max_failed_reads: int = 5
    # frames the driver may queue (V4L2 holds 4 by default): with 1, a frame that takes longer than the
    # frame interval to process is followed by the newest frame, not by a queue of ever older ones that
    # delays a roll's call. Backends that cannot (network streams through FFmpeg or GStreamer) keep their
    # own; None leaves the driver's setting alone
    buffer_frames: int | None = 1


def parse_device(text: str) -> int | str:
    """"0" → camera index 0; anything else (a path or URL) stays a string."""
    return int(text) if text.strip().isdigit() else text


class CameraSource:
    """A live camera; reopens it when reads fail, and ends only after ``reconnect_attempts`` tries."""

    def __init__(
        self,
        config: CameraConfig | None = None,
        capture_factory: Callable[..., object] = cv2.VideoCapture,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.config = config or CameraConfig()
        self._factory = capture_factory
        self._clock = clock
        self._sleep = sleep
        self.reconnects = 0
        self._cap = self._open()
        if self._cap is None:
            raise FrameSourceError(f"cannot open camera {self.config.device!r}")

    def _open(self) -> object | None:
        cap = self._factory(self.config.device)
        if not cap.isOpened():
            cap.release()
            return None
        c = self.config
        if c.width:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, c.width)
        if c.height:
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, c.height)
        if c.fps:
            cap.set(cv2.CAP_PROP_FPS, c.fps)
        if c.buffer_frames:
            cap.set(cv2.CAP_PROP_BUFFERSIZE, c.buffer_frames)  # False where the backend cannot: its own queue
        return cap

    def _reconnect(self) -> bool:
        if self._cap is not None:
            self._cap.release()
        self._cap = None
        for _ in range(max(0, self.config.reconnect_attempts)):
            self._sleep(self.config.reconnect_delay)
            self._cap = self._open()
            if self._cap is not None:
                self.reconnects += 1
                return True
        return False

    def frames(self) -> Iterator[Frame]:
        index = 0
        failed = 0
        while self._cap is not None:
            ok, img = self._cap.read()
            if ok and img is not None and img.size:
                failed = 0
                yield Frame(img, self._clock(), index)
                index += 1
                continue
            failed += 1
            if failed >= self.config.max_failed_reads:
                failed = 0
                if not self._reconnect():
                    return

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


def open_source(spec: str, fps: float = 30.0, camera: CameraConfig | None = None) -> FrameSource:
    """A source from a command-line word: a folder, a video file, or a camera (index, /dev path, URL)."""
    p = Path(spec)
    if p.is_dir():
        return ImageFolderSource(p, fps=fps)
    if p.is_file():
        return VideoFileSource(p)
    if spec.strip().isdigit() or spec.startswith(("/dev/", "rtsp://", "http://", "https://")):
        cfg = camera or CameraConfig()
        cfg.device = parse_device(spec)
        return CameraSource(cfg)
    raise FrameSourceError(f"not a folder, video file or camera: {spec}")
