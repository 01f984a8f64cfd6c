"""Camera vision: frame sources, dice reading, roll-settled detection, checker reading."""
