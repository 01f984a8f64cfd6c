"""LED board: state, protocol, host driver and emulated boards (see docs/leds.md)."""
