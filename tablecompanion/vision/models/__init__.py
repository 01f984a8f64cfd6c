"""Weights shipped with the dice reader (ONNX, run by cv2.dnn): dice_net.onnx finds dice, dice_cls.onnx
reads each one, dice_val.onnx reads again those it is sure are dice but cannot read. Trained by
tools/train_dice_net.py, tools/train_dice_cls.py and tools/train_dice_val.py (see docs/dice.md)."""
