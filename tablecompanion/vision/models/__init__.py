"""Weights shipped with the dice reader (ONNX, run by cv2.dnn): dice_net.onnx finds dice, dice_cls.onnx
reads each one, dice_val.onnx reads again those it is sure are dice but cannot read. Trained by
tools/train_dice_net.py, tools/train_dice_cls.py and tools/train_dice_val.py (see docs/dice.md).
roll_tilt.onnx is the roll reader's tilt net: whether a die against a checker or the rail lies flat
(tools/roll_tilt_data.py and tools/train_roll_tilt.py; docs/roll-verdicts.md). roll_body.npz is the roll
reader's body model (NumPy weights): whether a changed pixel beside a die is its body or the board in its
shadow (tools/train_roll_body.py)."""
