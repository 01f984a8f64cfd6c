"""A small learned check on each pip group: is it a die, and which value does it show?

Pip counting alone is fooled by pips that blur together, side-face pips and specks. Each pip group
becomes a feature vector (a normalised grey crop of the die, polarity-flipped so pips are always dark,
plus the group's own evidence: pip count, pattern fit, clutter, elongation) and a two-layer perceptron
(NumPy only, weights in ``models/dice_mlp.npz``, trained by ``tools/train_dice.py``) gives
P(no die), P(1) .. P(6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from tablecompanion.vision.dice_reading import DiceVisionError
from tablecompanion.vision.pip_count import GroupEvidence

CROP = 40  # crop side in pixels
CROP_SCALE = 1.3  # crop side / estimated die side
N_SCALARS = 13
THUMB = 20
CELLS = 5
N_FEATURES = THUMB * THUMB + CELLS * CELLS * 8 + N_SCALARS
# what the networks take: BGR pixels less INPUT_MEAN, times INPUT_SCALE (the training tools use the same)
INPUT_MEAN = 128.0
INPUT_SCALE = 1.0 / 64.0
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "dice_mlp.npz"


def crop(ycc: np.ndarray, ev: GroupEvidence, pip_side_frac: float) -> np.ndarray:
    """The die's neighbourhood as a CROP x CROP grey patch, scale from the pip size, pips dark."""
    side = ev.crop_side or ev.diameter / pip_side_frac
    size = CROP_SCALE * side
    cx, cy = ev.centre
    s = CROP / size
    m = np.array([[s, 0, CROP / 2 - s * cx], [0, s, CROP / 2 - s * cy]], np.float32)
    patch = cv2.warpAffine(ycc[..., 0], m, (CROP, CROP), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    patch = patch.astype(np.float32)
    if ev.polarity > 0:
        patch = 255.0 - patch
    patch -= np.median(patch)
    patch /= max(float(patch.std()), 8.0)
    return patch


def scalars(ev: GroupEvidence) -> np.ndarray:
    onehot = np.zeros(7, np.float32)
    if ev.n:
        onehot[min(ev.n, 7) - 1] = 1.0
    spread = 0.0
    if ev.n > 1:
        spread = float(np.sqrt(((ev.pts[:, None, :] - ev.pts[None, :, :]) ** 2).sum(-1)).max()) / max(ev.diameter, 1.0) / 6.0
    return np.concatenate([onehot, [ev.fit, ev.clutter, ev.elongation - 1.0, float(ev.polarity), spread, float(ev.source == "blob")]]).astype(np.float32)


def image_features(patch: np.ndarray) -> np.ndarray:
    """A thumbnail plus 8-bin gradient-orientation histograms on a grid of cells (a small HOG)."""
    thumb = cv2.resize(patch, (THUMB, THUMB), interpolation=cv2.INTER_AREA).ravel()
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    ang = (np.arctan2(gy, gx) + np.pi) / (2 * np.pi) * 8
    b = np.clip(ang.astype(np.int32), 0, 7)
    cell = CROP // CELLS
    hist = np.zeros((CELLS, CELLS, 8), np.float32)
    rows = np.arange(CROP) // cell
    ri, ci = np.meshgrid(rows, rows, indexing="ij")
    np.add.at(hist, (ri.ravel(), ci.ravel(), b.ravel()), mag.ravel())
    hist /= np.linalg.norm(hist) + 1e-3
    return np.concatenate([thumb, hist.ravel() * 8.0])


def features(patch: np.ndarray, ev: GroupEvidence) -> np.ndarray:
    return np.concatenate([image_features(patch), scalars(ev)])


def augment(patch: np.ndarray) -> list[np.ndarray]:
    """The eight symmetries of a square: a die face reads the same turned or mirrored."""
    out = []
    for k in range(4):
        r = np.rot90(patch, k)
        out += [r, r[:, ::-1]]
    return out


@dataclass
class DiceModel:
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    mean: np.ndarray
    std: np.ndarray

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities (n, 7): column 0 = no die, 1..6 = value."""
        x = (np.atleast_2d(x).astype(np.float32) - self.mean) / self.std
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        z = h @ self.w2 + self.b2
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, **{k: getattr(self, k).astype(np.float16) for k in ("w1", "b1", "w2", "b2", "mean", "std")})

    @classmethod
    def load(cls, path: str | Path) -> "DiceModel":
        try:
            with np.load(path) as data:
                arrays = {k: data[k].astype(np.float32) for k in ("w1", "b1", "w2", "b2", "mean", "std")}
        except (OSError, KeyError, ValueError) as exc:
            raise DiceVisionError(f"cannot load dice model {path}: {exc}") from exc
        model = cls(**arrays)
        if model.w1.shape[0] != N_FEATURES:
            raise DiceVisionError(f"dice model {path} expects {model.w1.shape[0]} features, this code makes {N_FEATURES}")
        return model


@lru_cache(maxsize=4)
def load_model(path: str) -> DiceModel | None:
    """The model at ``path`` ("" = the shipped one); None when no weights are shipped."""
    p = Path(path) if path else DEFAULT_MODEL
    if not p.is_file():
        if path:
            raise DiceVisionError(f"no dice model at {p}")
        return None
    return DiceModel.load(p)


def train_mlp(
    x: np.ndarray, y: np.ndarray, hidden: int = 64, epochs: int = 40, lr: float = 2e-3, l2: float = 1e-4,
    batch: int = 256, seed: int = 0, class_weight: np.ndarray | None = None,
) -> DiceModel:
    """Softmax MLP with one hidden ReLU layer, Adam, weight decay. Deterministic for a seed."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-3
    xn = ((x - mean) / std).astype(np.float32)
    n, d = xn.shape
    k = 7
    params = {
        "w1": (rng.normal(0, np.sqrt(2.0 / d), (d, hidden))).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": (rng.normal(0, np.sqrt(1.0 / hidden), (hidden, k))).astype(np.float32),
        "b2": np.zeros(k, np.float32),
    }
    m = {key: np.zeros_like(v) for key, v in params.items()}
    v = {key: np.zeros_like(val) for key, val in params.items()}
    cw = np.ones(k, np.float32) if class_weight is None else class_weight.astype(np.float32)
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb, yb = xn[idx], y[idx]
            h_pre = xb @ params["w1"] + params["b1"]
            h = np.maximum(h_pre, 0)
            z = h @ params["w2"] + params["b2"]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            g = p.copy()
            g[np.arange(len(yb)), yb] -= 1
            g *= cw[yb][:, None] / len(yb)
            grads = {"w2": h.T @ g + l2 * params["w2"], "b2": g.sum(0)}
            gh = (g @ params["w2"].T) * (h_pre > 0)
            grads["w1"] = xb.T @ gh + l2 * params["w1"]
            grads["b1"] = gh.sum(0)
            step += 1
            for key in params:
                m[key] = 0.9 * m[key] + 0.1 * grads[key]
                v[key] = 0.999 * v[key] + 0.001 * grads[key] ** 2
                mh = m[key] / (1 - 0.9**step)
                vh = v[key] / (1 - 0.999**step)
                params[key] -= lr * mh / (np.sqrt(vh) + 1e-8)
    return DiceModel(params["w1"], params["b1"], params["w2"], params["b2"], mean.astype(np.float32), std.astype(np.float32))


# ---------------------------------------------------------------------------------------------------
# The dice network: a tiny CenterNet-style detector run with OpenCV's dnn module (weights: ONNX).
DEFAULT_NET = Path(__file__).resolve().parent / "models" / "dice_net.onnx"
NET_STRIDE = 4  # output cell (i, j) looks at input pixel (4 j + 1.5, 4 i + 1.5)
NET_ALIGN = 16  # input sides are padded to a multiple of this
NET_CHANNELS = 9  # heat logit, six value logits, cocked logit, log die side


@dataclass(frozen=True)
class NetDie:
    """One die proposed by the network, in the pixels of the image it was given."""

    x: float
    y: float
    side: float
    heat: float  # P(a die's centre is here)
    values: np.ndarray  # P(1) .. P(6)
    cocked: float  # P(not lying flat)


def _read_onnx(path: Path, what: str):
    try:
        return cv2.dnn.readNetFromONNX(str(path))
    except cv2.error as exc:
        raise DiceVisionError(f"cannot load {what} {path}: {exc}") from exc


def _model_file(path: str, shipped: Path, what: str) -> Path | None:
    """The file a config names ("" = the shipped one); None when the shipped one is absent, an error when a
    named one is."""
    p = Path(path) if path else shipped
    if p.is_file():
        return p
    if path:
        raise DiceVisionError(f"no {what} at {p}")
    return None


class DiceNet:
    """The ONNX dice network behind ``cv2.dnn``; ``maps`` gives its raw output, ``detect`` the dice."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.net = _read_onnx(self.path, "dice network")

    def maps(self, bgr: np.ndarray) -> np.ndarray:
        """Raw output (9, ceil(h/4), ceil(w/4)) for a BGR uint8 image of any size >= 16 px."""
        h, w = bgr.shape[:2]
        ph, pw = -h % NET_ALIGN, -w % NET_ALIGN
        if ph or pw:
            bgr = cv2.copyMakeBorder(bgr, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        blob = cv2.dnn.blobFromImage(bgr, scalefactor=INPUT_SCALE, mean=(INPUT_MEAN,) * 3, swapRB=False)
        self.net.setInput(blob)
        out = self.net.forward()
        if out.ndim != 4 or out.shape[1] != NET_CHANNELS:
            raise DiceVisionError(f"dice network {self.path} gave output {out.shape}, expected (1, {NET_CHANNELS}, h/4, w/4)")
        return out[0, :, : (h + NET_STRIDE - 1) // NET_STRIDE, : (w + NET_STRIDE - 1) // NET_STRIDE]

    def detect(self, bgr: np.ndarray, min_heat: float = 0.3) -> list[NetDie]:
        return decode(self.maps(bgr), min_heat)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))


def decode(maps: np.ndarray, min_heat: float = 0.3) -> list[NetDie]:
    """Local maxima of the heatmap above ``min_heat``: centre refined over the 3x3 cells around it,
    value probabilities averaged there (weighted by heat), strongest first."""
    heat = _sigmoid(maps[0]).astype(np.float32)
    peaks = (heat >= min_heat) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    ys, xs = np.nonzero(peaks)
    gh, gw = heat.shape
    out = []
    for y, x in zip(ys, xs):
        y0, y1, x0, x1 = max(0, y - 1), min(gh, y + 2), max(0, x - 1), min(gw, x + 2)
        wts = heat[y0:y1, x0:x1]
        sw = float(wts.sum())
        gy, gx = np.mgrid[y0:y1, x0:x1]
        cy, cx = float((gy * wts).sum() / sw), float((gx * wts).sum() / sw)
        logits = maps[1:7, y0:y1, x0:x1].reshape(6, -1)
        z = logits - logits.max(axis=0, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=0, keepdims=True)
        values = (p * wts.reshape(1, -1)).sum(axis=1) / sw
        out.append(NetDie(
            x=cx * NET_STRIDE + 1.5,
            y=cy * NET_STRIDE + 1.5,
            side=float(np.exp(np.clip(maps[8, y, x], 0.0, 6.0))),
            heat=float(heat[y, x]),
            values=values,
            cocked=float(_sigmoid(maps[7, y, x])),
        ))
    out.sort(key=lambda d: -d.heat)
    return out


@lru_cache(maxsize=4)
def load_net(path: str) -> DiceNet | None:
    """The network at ``path`` ("" = the shipped one); None when no network is shipped."""
    p = _model_file(path, DEFAULT_NET, "dice network")
    return DiceNet(p) if p else None


# ---------------------------------------------------------------------------------------------------
# The crop classifier: each die the detector proposes, cut out and resized, gets no die / 1..6 / cocked.
DEFAULT_CLASSIFIER = Path(__file__).resolve().parent / "models" / "dice_cls.onnx"
CLS_SIZE = 32  # crops are CLS_SIZE x CLS_SIZE pixels
CLS_CONTEXT = 1.3  # crop side / die side
CLS_CLASSES = 8  # 0 = no die, 1..6 = value, 7 = cocked


def crop_for_classifier(bgr: np.ndarray, x: float, y: float, side: float, size: int = CLS_SIZE) -> np.ndarray:
    """An axis-aligned square of CLS_CONTEXT x side around (x, y), edges replicated, as size^2 pixels."""
    n = max(2, int(math.ceil(CLS_CONTEXT * side)) + 2)
    patch = cv2.getRectSubPix(bgr, (n, n), (float(x), float(y)))
    return cv2.resize(patch, (size, size), interpolation=cv2.INTER_AREA if n > size else cv2.INTER_LINEAR)


class DiceClassifier:
    """The ONNX crop classifier behind ``cv2.dnn``: ``predict`` gives class probabilities (n, 8)."""

    classes = CLS_CLASSES
    what = "dice classifier"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.net = _read_onnx(self.path, self.what)

    def predict(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, self.classes), np.float32)
        blob = cv2.dnn.blobFromImages(crops, scalefactor=INPUT_SCALE, mean=(INPUT_MEAN,) * 3, swapRB=False)
        self.net.setInput(blob)
        z = self.net.forward().reshape(len(crops), -1)
        if z.shape[1] != self.classes:
            raise DiceVisionError(f"{self.what} {self.path} gave {z.shape[1]} classes, expected {self.classes}")
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)


DEFAULT_VALUE_READER = Path(__file__).resolve().parent / "models" / "dice_val.onnx"
VAL_SIZE = 48  # the value reader's crops are VAL_SIZE x VAL_SIZE pixels, cut as the classifier's are


class DiceValueReader(DiceClassifier):
    """The second look at a die the classifier is sure of but cannot read (``models/dice_val.onnx``,
    tools/train_dice_val.py): values only, on a larger crop (48 px against 32), trained on the photo sets'
    real dice at about their own size rather than down to 14 px, so dark, marbled dice with coloured pips
    keep their pips. ``predict`` gives P(1) .. P(6), (n, 6)."""

    classes = 6
    what = "dice value reader"

    def read(self, bgr: np.ndarray, x: float, y: float, side: float, scales=(0.85, 1.0, 1.15)) -> np.ndarray:
        """P(1) .. P(6) for the die at (x, y), ``side`` px: averaged over a few crop sizes (the detector's
        size is a guess) and the four quarter turns (a face's pattern does not depend on its turn)."""
        crops = [np.ascontiguousarray(np.rot90(crop_for_classifier(bgr, x, y, side * k, VAL_SIZE), r))
                 for k in scales for r in range(4)]
        return self.predict(crops).mean(axis=0)


@lru_cache(maxsize=4)
def load_classifier(path: str) -> DiceClassifier | None:
    """The classifier at ``path`` ("" = the shipped one); None when none is shipped."""
    p = _model_file(path, DEFAULT_CLASSIFIER, "dice classifier")
    return DiceClassifier(p) if p else None


@lru_cache(maxsize=4)
def load_value_reader(path: str) -> DiceValueReader | None:
    """The value reader at ``path`` ("" = the shipped one); None when none is shipped."""
    p = _model_file(path, DEFAULT_VALUE_READER, "dice value reader")
    return DiceValueReader(p) if p else None


# ---------------------------------------------------------------------------------------------------
# The roll reader's tilt net: is a die the readers found lying flat? (tools/train_roll_tilt.py)
DEFAULT_TILT_NET = Path(__file__).resolve().parent / "models" / "roll_tilt.onnx"


class TiltNet:
    """The ONNX tilt net behind ``cv2.dnn``. Its input is ``RollReader.tilt_patch`` (frame, reference and
    a flat die's outline on the top-face plane, 7 channels uint8); ``p_tilted`` averages it over the four
    quarter turns of the patch, each a table the net could have seen (all eight turns and mirrorings called
    16 flat dice in 8460 tilted at 0.99, the four turns 19, one view alone 67; each view costs 2 ms)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.net = _read_onnx(self.path, "tilt net")

    def p_tilted(self, patch: np.ndarray) -> float:
        return float(np.mean(self.p_views(patch)))

    def p_views(self, patch: np.ndarray) -> np.ndarray:
        """P(tilted) of each quarter turn of the patch (the reader vouches on their mean and calls a die
        cocked on their median: one view that sees it otherwise holds back the call either way)."""
        if patch.ndim != 3 or patch.shape[2] != 7:
            raise DiceVisionError(f"tilt net {self.path}: a patch is (h, w, 7), got {patch.shape}")
        x = patch.transpose(2, 0, 1).astype(np.float32)
        views = [np.rot90(x, r, axes=(1, 2)) for r in range(4)]
        self.net.setInput(np.ascontiguousarray(np.stack(views)))
        z = self.net.forward().reshape(-1)
        if len(z) != len(views):
            raise DiceVisionError(f"tilt net {self.path} gave {len(z)} outputs for {len(views)} patches")
        return 1.0 / (1.0 + np.exp(-z))


@lru_cache(maxsize=4)
def load_tilt_net(path: str) -> TiltNet | None:
    """The tilt net at ``path`` ("" = the shipped one); None when none is shipped."""
    p = _model_file(path, DEFAULT_TILT_NET, "tilt net")
    return TiltNet(p) if p else None
