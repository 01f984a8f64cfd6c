"""The light over footage: what keeps a simulated webcam's picture from being steady frame after frame.

Real footage is never lit the same twice: the webcam's auto-exposure and white balance drift and answer a
hand coming in (:class:`Metering`), the room's light changes and the camera catches up (:class:`RoomLight`),
lamps on the mains roll bands through a rolling shutter's picture (:class:`MainsFlicker`), and someone
leaning between the lamp and the board drifts a shadow across it (:class:`PassingShadows`). Each is drawn
from the footage's seed, so a match renders the same every time; ``iter_match_frames`` applies them.
"""

from __future__ import annotations

import math

import numpy as np

from tablecompanion.sim.errors import SimError


class Metering:
    """What the webcam's automatic exposure and white balance do over footage: a slow drift (daylight,
    the camera hunting), and a lagging response to a hand coming into the picture: the dark sleeve
    pulls the metered brightness down so the gain rises, the warm skin pulls the balance cooler. Steady
    light from frame to frame gave footage away; 0 drift keeps it steady."""

    def __init__(self, seed: int, fps: float, drift: float) -> None:
        self.seed, self.fps, self.drift = seed, fps, drift
        self.cover = 0.0  # the share of the picture under hands, as the camera's metering has caught up with
        self.keep = math.exp(-1.0 / (0.5 * fps))  # about half a second to settle

    def next(self, index: int) -> tuple[float, tuple[float, float, float]]:
        t = index / self.fps
        d = self.drift
        gain = 1.0 + d * (math.sin(2 * math.pi * t / 17.0 + self.seed) * 0.7 + math.sin(2 * math.pi * t / 53.0) * 0.3)
        warm = 0.4 * d * math.sin(2 * math.pi * t / 41.0 + 1.7 * self.seed)
        if d > 0:
            gain *= 1.0 + 0.45 * self.cover
            warm -= 0.35 * self.cover
        return gain, (1.0 - warm, 1.0, 1.0 + warm)

    def saw(self, hand_mask) -> None:
        cover = float(np.count_nonzero(hand_mask)) / hand_mask.size if hand_mask is not None else 0.0
        self.cover = self.keep * self.cover + (1.0 - self.keep) * cover


class RoomLight:
    """The room's light changing under the camera, and the camera catching up. Now and then (every 40-120
    s) a lamp is switched on or off (the light steps by 10-25 % from one frame to the next, warmer or
    cooler) or daylight comes and goes (the same over one to three seconds); the webcam's auto-exposure
    and white balance then bring the picture back towards where it was over about a second, never quite
    (a room lit more is pictured a little brighter). One lamp and one room light the board throughout:
    this changes how bright and what colour the picture is, not where the shadows fall."""

    SETTLE_S = 0.8  # the auto-exposure's time constant
    KEEP = 0.25  # the share of a change the picture keeps once the camera has caught up

    def __init__(self, seed: int, fps: float) -> None:
        self.rng = np.random.default_rng((seed, 173))
        self.fps = fps
        self.events: list[tuple[int, int, float, float]] = []  # (start frame, frames to change, light, tint)
        self._level, self._tint = 1.0, 0.0  # the room's light and warmth now
        self._seen = 1.0, 0.0  # what the camera has caught up with
        self._index = -1
        self._next = int(self.rng.uniform(20, 60) * fps)
        self._from = (1.0, 0.0)
        self._to: tuple[int, int, float, float] | None = None

    def at(self, index: int) -> tuple[float, tuple[float, float, float]]:
        """This frame's picture gain and white-balance tint (B, G, R) from the room's light; frames in order."""
        while self._index < index:
            self._step()
        light = self._level / self._seen[0] ** (1.0 - self.KEEP)
        warm = self._tint - (1.0 - self.KEEP) * self._seen[1]
        return light, (1.0 - warm, 1.0, 1.0 + warm)

    def truth(self, index: int) -> dict:
        light, tint = self.at(index)
        return {"level": round(self._level, 4), "gain": round(light, 4), "tint": round(tint[2] - 1.0, 4)}

    def _step(self) -> None:
        self._index += 1
        i = self._index
        if self._to is None and i >= self._next:
            switch = self.rng.random() < 0.6
            frames = 1 if switch else int(self.rng.uniform(1.0, 3.0) * self.fps)
            factor = float(self.rng.uniform(1.1, 1.25))
            level = self._level * (factor if self._level < 1.0 or self.rng.random() < 0.5 else 1.0 / factor)
            level = float(np.clip(level, 0.7, 1.4))
            tint = float(np.clip(self._tint + self.rng.uniform(-0.04, 0.04), -0.06, 0.06))
            self._to = (i, frames, level, tint)
            self._from = (self._level, self._tint)
            self.events.append(self._to)
        if self._to is not None:
            start, frames, level, tint = self._to
            u = min(1.0, (i - start + 1) / frames)
            self._level = self._from[0] + (level - self._from[0]) * u
            self._tint = self._from[1] + (tint - self._from[1]) * u
            if u >= 1.0:
                self._to = None
                self._next = i + int(self.rng.uniform(40, 120) * self.fps)
        keep = math.exp(-1.0 / (self.SETTLE_S * self.fps))
        self._seen = (keep * self._seen[0] + (1 - keep) * self._level, keep * self._seen[1] + (1 - keep) * self._tint)


class MainsFlicker:
    """Bands a rolling shutter records under lamps that flicker with the mains. LED and fluorescent light
    pulses at twice the mains (100 Hz on 50 Hz mains); a webcam reads its rows out one after another over
    ``READOUT_S``, so each row catches the pulse at another phase: 2.5 bands down the picture, darker and
    brighter by ``depth`` (what is left after the exposure averages the pulse). At 30 frames/s the pulse
    runs 3 1/3 cycles a frame, so the bands roll a third of a band on every frame: every pair of frames
    differs everywhere by up to 1.7 ``depth``, which is what a motion detector must not take for motion.
    Cameras with their anti-flicker setting at the mains' frequency show none (``depth`` 0)."""

    PULSE_HZ = 100.0
    READOUT_S = 0.025

    def __init__(self, seed: int, fps: float, depth: float, height: int) -> None:
        if not 0.0 <= depth <= 0.3:
            raise SimError(f"flicker depth must be 0-0.3, got {depth}")
        self.fps, self.depth, self.height = fps, depth, height
        self.start = float(np.random.default_rng((seed, 131)).uniform(0.0, 1.0))
        self._bands = (self.PULSE_HZ * self.READOUT_S) * np.arange(height, dtype=np.float64) / height

    def phase(self, index: int) -> float:
        """Where in the pulse (0..1) the first row of frame ``index`` is read."""
        return (self.start + self.PULSE_HZ * index / self.fps) % 1.0

    def rows(self, index: int) -> np.ndarray:
        return (1.0 + self.depth * np.cos(2 * np.pi * (self.phase(index) + self._bands))).astype(np.float32)


class PassingShadows:
    """Deterministic passing shadows: every 30-50 s one drifts across the board for 3-5 s."""

    def __init__(self, seed: int, fps: float, spec) -> None:
        self.rng = np.random.default_rng((seed, 97))
        self.fps, self.spec = fps, spec
        self.next_start = int(self.rng.uniform(10, 30) * fps)
        self.current: tuple | None = None

    def at(self, index: int):
        if self.current is None and index >= self.next_start:
            s = self.spec
            length = int(self.rng.uniform(3, 5) * self.fps)
            a = (self.rng.uniform(0, s.width), -80.0 if self.rng.random() < 0.5 else s.height + 80.0)
            b = (self.rng.uniform(0, s.width), s.height - a[1])
            self.current = (index, length, a, b, self.rng.uniform(180, 320), self.rng.uniform(0.15, 0.3))
        if self.current is None:
            return None
        start, length, a, b, radius, strength = self.current
        t = (index - start) / length
        if t > 1:
            self.current = None
            self.next_start = index + int(self.rng.uniform(30, 50) * self.fps)
            return None
        fade = math.sin(math.pi * t)
        return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, radius, strength * fade)
