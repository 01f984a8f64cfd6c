"""Is a changed pixel near a die its body, or the board in the die's shadow?

The roll reader's tilt test looks for a die's body beyond the outline a flat die would have. What it must
not count is the die's shadow, and its model of a shadow is the board darkened: the change along the
reference's colour. That model also explains a white die's side face on an ivory point, or a black die's
on a dark one, as "shadow", and so a die tilted in open space on such a point showed no body at all.

A shadow darkens all three channels alike and keeps the board's texture; a side face has the die's own
colour (a neutral white or black is not a dimmer ivory), straight edges and pips. Those cues are weak one
by one and their mix depends on brightness, so a small perceptron weighs them, pixel by pixel: NumPy only,
weights in ``models/roll_body.npz``, trained by ``tools/train_roll_body.py`` on simulator renders labelled
by the die's true silhouette.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from tablecompanion.vision.dice import DiceVisionError
from tablecompanion.vision.dice_model import _model_file

DEFAULT_BODY_MODEL = Path(__file__).resolve().parent / "models" / "roll_body.npz"
N_FEATURES = 18


def die_colour(now: np.ndarray, radius_px: float) -> np.ndarray:
    """The die's own colour (BGR): the median of ``now`` within ``radius_px`` of the crop's centre, which
    lies on its top face (the pips, a few of its pixels, do not move the median)."""
    h, w = now.shape[:2]
    yy, xx = np.ogrid[:h, :w]
    inside = (xx - (w - 1) / 2) ** 2 + (yy - (h - 1) / 2) ** 2 <= radius_px ** 2
    return np.median(np.asarray(now, np.float32)[inside], axis=0)


def _angle(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Degrees between colours (BGR vectors), per pixel."""
    cos = (x * y).sum(-1) / np.maximum(np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1), 1.0)
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def body_features(now: np.ndarray, ref: np.ndarray, die: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Features (n, N_FEATURES) float32 of the pixels ``where`` (a boolean mask; numpy's nonzero order) of the
    frame ``now`` against the reference ``ref`` (both float32 BGR, blurred alike, on the top-face plane at the
    tilt test's scale), and the die's colour ``die`` (:func:`die_colour`): a side face is the die's colour in
    another light, a shadow the board's."""
    a_full = np.asarray(now, np.float32)
    b_full = np.asarray(ref, np.float32)
    d_full = np.log(a_full + 8.0) - np.log(b_full + 8.0)  # per-channel log ratio: a shadow moves all three alike
    m_full = d_full.mean(-1)
    chroma_full = d_full - m_full[..., None]  # what a uniform darkening cannot explain
    grey = lambda x: cv2.cvtColor(np.clip(x, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)  # noqa: E731
    edge = np.abs(cv2.Laplacian(grey(a_full), cv2.CV_32F, ksize=3)) - np.abs(cv2.Laplacian(grey(b_full), cv2.CV_32F, ksize=3))
    spread = np.sqrt(np.maximum(cv2.blur(m_full * m_full, (3, 3)) - cv2.blur(m_full, (3, 3)) ** 2, 0.0))  # a shadow is smooth
    chroma5 = cv2.blur(np.abs(chroma_full).sum(-1), (5, 5))
    a, b, d, chroma = a_full[where], b_full[where], d_full[where], chroma_full[where]
    die = np.broadcast_to(np.asarray(die, np.float32).reshape(1, 3), a.shape)
    dot = lambda x, y: np.einsum("ij,ij->i", x, y)  # noqa: E731
    shade = np.clip(dot(a, b) / np.maximum(dot(b, b), 1.0), 0.0, 3.0)
    res = np.sqrt(dot(*(2 * [a - np.clip(shade, 0.2, 1.25)[:, None] * b])))
    die_shade = np.clip(dot(a, die) / np.maximum(dot(die, die), 1.0), 0.0, 3.0)
    die_res = np.sqrt(dot(*(2 * [a - die_shade[:, None] * die])))
    return np.column_stack([d, chroma, m_full[where], a.mean(-1) / 255.0, b.mean(-1) / 255.0, edge[where] / 50.0,
                            shade, res / 50.0, spread[where], chroma5[where], _angle(a, die) / 10.0, _angle(a, b) / 10.0,
                            die_res / 50.0, die_shade]).astype(np.float32)


class BodyModel:
    """A two-layer perceptron over :func:`body_features`: P(die body) for each pixel given."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            with np.load(self.path) as z:
                self.mu, self.sd = z["mu"].astype(np.float32), z["sd"].astype(np.float32)
                self.w1, self.b1 = z["w1"].astype(np.float32), z["b1"].astype(np.float32)
                self.w2, self.b2 = z["w2"].astype(np.float32), z["b2"].astype(np.float32)
        except (OSError, KeyError, ValueError) as e:
            raise DiceVisionError(f"cannot read the body model {self.path}: {e}") from e
        if self.w1.shape[0] != N_FEATURES or self.mu.shape != (N_FEATURES,) or self.w2.shape[0] != self.w1.shape[1]:
            raise DiceVisionError(f"body model {self.path}: takes {self.w1.shape[0]} features, not {N_FEATURES}")

    def p_body(self, features: np.ndarray) -> np.ndarray:
        """P(body) for features (n, N_FEATURES)."""
        h = np.maximum(((features - self.mu) / self.sd) @ self.w1 + self.b1, 0.0)
        z = (h @ self.w2).reshape(-1) + self.b2.reshape(-1)[0]
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))


def save_body_model(path: str | Path, mu, sd, w1, b1, w2, b2) -> None:
    np.savez_compressed(path, mu=np.asarray(mu, np.float32), sd=np.asarray(sd, np.float32),
                        w1=np.asarray(w1, np.float32), b1=np.asarray(b1, np.float32),
                        w2=np.asarray(w2, np.float32), b2=np.asarray(b2, np.float32).reshape(-1))


@lru_cache(maxsize=4)
def load_body_model(path: str) -> BodyModel | None:
    """The body model at ``path`` ("" = the shipped one); None when none is shipped."""
    p = _model_file(path, DEFAULT_BODY_MODEL, "body model")
    return BodyModel(p) if p else None
