"""Average networks' weights: one network whose every weight is the weighted mean of theirs.

Fine-tunes that start from one network stay close to it in weight space, and their weighted mean (a
"model soup"; with the starting network among them, WiSE-FT) often reads better than any one of them: each
run's own noise averages out, and the start's weight holds on to what the fine-tunes were not shown again.
The shipped value reader (``models/dice_val.onnx``, forty-fifth session) is 3 parts the reader before and 1
part each of three CPU fine-tunes on the fixed labels (docs/dice.md):

    python tools/soup_onnx.py tablecompanion/vision/models/dice_val.onnx \\
        3:dice_val_before.onnx 1:val_c.onnx 1:val_d.onnx 1:val_e.onnx

The networks must be the same graph (the same ``--widths``/``--hidden``, exported by the same tool): every
floating-point weight is averaged, everything else must be equal. Exported networks have their batch norms
folded into the convolutions, so the mean is taken over what ``cv2.dnn`` runs. Needs ``onnx`` (the test
extra), not torch.
"""

from __future__ import annotations

import argparse

import numpy as np


def parse_part(text: str) -> tuple[float, str]:
    """"W:PATH" as (W, PATH); a bare PATH weighs 1."""
    weight, sep, path = text.partition(":")
    if not sep:
        return 1.0, text
    try:
        w = float(weight)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the weight before ':' is not a number") from None
    if not w > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a weight must be more than 0")
    return w, path


def soup(parts: list[tuple[float, str]]):
    """The first network with each floating-point initializer replaced by the weighted mean over ``parts``."""
    import onnx
    from onnx import numpy_helper

    if not parts:
        raise SystemExit("no networks to average")
    models = [(w, onnx.load(p), p) for w, p in parts]
    total = sum(w for w, _, _ in models)
    base = models[0][1]
    tables = [({t.name: t for t in m.graph.initializer}, p) for _, m, p in models]
    names = set(tables[0][0])
    for table, path in tables[1:]:
        if set(table) != names:
            raise SystemExit(f"{path}: its weights are not {parts[0][1]}'s (another graph?)")
    for t in base.graph.initializer:
        arrays = [numpy_helper.to_array(table[t.name]) for table, _ in tables]
        for a, (_, path) in zip(arrays[1:], tables[1:]):
            if a.shape != arrays[0].shape:
                raise SystemExit(f"{path}: {t.name} is {a.shape}, not {arrays[0].shape}")
        if arrays[0].dtype.kind != "f":
            if any(not np.array_equal(a, arrays[0]) for a in arrays[1:]):
                raise SystemExit(f"{t.name} is not a float and differs between the networks")
            continue
        mean = sum(w * a.astype(np.float64) for (w, _, _), a in zip(models, arrays)) / total
        t.CopyFrom(numpy_helper.from_array(mean.astype(arrays[0].dtype), t.name))
    return base


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="the averaged network (.onnx) to write")
    ap.add_argument("parts", nargs="+", type=parse_part, metavar="[W:]NET.onnx",
                    help="the networks, each with its weight (default 1)")
    args = ap.parse_args(argv)
    import onnx

    onnx.save(soup(args.parts), args.out)
    print(f"wrote {args.out}: the mean of {len(args.parts)} networks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
