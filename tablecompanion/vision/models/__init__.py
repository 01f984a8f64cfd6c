"""Weights shipped with the dice reader (ONNX, run by cv2.dnn): dice_net.onnx finds dice, dice_cls.onnx
reads each one. Trained by tools/train_dice_net.py and tools/train_dice_cls.py (see docs/dice.md)."""
