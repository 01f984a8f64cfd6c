"""Evidence frames: the camera picture behind a void roll or a flagged play, kept as JPEG."""

from __future__ import annotations

from typing import Any

from .errors import RecordError

__all__ = ["encode_jpeg", "JPEG_QUALITY"]

JPEG_QUALITY = 90


def encode_jpeg(image: Any) -> bytes:
    """JPEG bytes of a BGR/greyscale ``numpy`` frame; JPEG bytes pass through after a signature check."""
    if isinstance(image, (bytes, bytearray, memoryview)):
        data = bytes(image)
        if not data.startswith(b"\xff\xd8"):
            raise RecordError("evidence bytes are not a JPEG image")
        return data
    try:
        import cv2
        import numpy as np
    except ImportError as exc:  # pragma: no cover - both are dependencies
        raise RecordError(f"cannot encode evidence frames without OpenCV: {exc}") from exc
    arr = np.asarray(image)
    if arr.ndim not in (2, 3) or arr.size == 0:
        raise RecordError(f"evidence frame must be an image array, got shape {arr.shape}")
    if arr.dtype != np.uint8:
        arr = np.clip(arr, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", arr, [int(cv2.IMWRITE_JPEG_QUALITY), JPEG_QUALITY])
    if not ok:
        raise RecordError("OpenCV could not encode the evidence frame as JPEG")
    return buf.tobytes()
