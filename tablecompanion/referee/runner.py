"""A table's camera and LED wiring: frames in, observations to the referee, LED states out, in a thread.

:class:`CameraPipeline` turns frames into referee observations with the real vision stages: the dice
``RollWatcher`` (roll settled valid or void, dice picked up), the board reader and play identification
when the dice are picked up. :class:`TableRunner` owns a frame source (or any iterator of ready-made
observations), the pipeline and an optional LED board for one table and runs them in a daemon thread,
so ``tablecompanion serve`` can start one per table (demo footage, ``--camera N``, ``--board PORT``).

Nothing the camera sees can crash the runner: refused observations (a roll out of turn, a board that
matches nothing) become counted and logged decisions, and every camera decision can be overridden by
the operator (``roll``, ``play``, ``void``, ``undo`` actions).
"""

from __future__ import annotations

import logging
import threading
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .errors import RefereeError

__all__ = ["CameraPipeline", "TableRunner", "RunnerStats", "demo_runner", "start_for_serve", "find_match_for"]

log = logging.getLogger(__name__)

COLOURS = ("light", "dark")


@dataclass
class RunnerStats:
    frames: int = 0
    observations: int = 0
    decisions: int = 0
    refused: int = 0
    errors: int = 0
    last_error: str | None = None
    log: list[dict] = field(default_factory=list)  # the last decisions and refusals, newest last

    def note(self, item: dict, keep: int = 200) -> None:
        self.log.append(item)
        del self.log[:-keep]

    def to_dict(self) -> dict:
        return {"frames": self.frames, "observations": self.observations, "decisions": self.decisions,
                "refused": self.refused, "errors": self.errors, "last_error": self.last_error}


BOARD_DEFER_FRAMES = 90  # the longest a stable board's re-read waits for a roll call (3 s at 30 fps: a throw)


class CameraPipeline:
    """Frames → referee observations, with the vision package's stages.

    ``calibration`` (``tablecompanion.calibration.Calibration``) places dice and reads checkers; without
    it dice placement is unknown (judged on the values alone) and the board reader looks for the board
    itself. ``colours`` says which checker colour each player has (default: bottom player "light").

    With a calibration (and no ``board_reader`` of the caller's), the board is read through a
    :class:`~tablecompanion.vision.occlusion.BoardWatcher` fed every frame: when the dice are picked up the
    play is taken from the first reading of a clear, still board after that (a hand still over a point is
    never read), and while an illegal play's flag is open every new stable reading is offered to the referee
    as the correction. ``board_wait_frames`` bounds the wait; then the latest clear frame is read alone.
    """

    def __init__(self, referee, calibration=None, *, colours: dict | None = None, watcher=None,
                 board_reader: Callable | None = None, locate_dice: bool = True,
                 calibrate_first_frame: bool = False, watch_board: bool = True,
                 board_wait_frames: int = 90) -> None:
        from tablecompanion.vision.settle import RollWatcher

        self._read_board = board_reader
        self.watch_board = watch_board and board_reader is None
        self.board_wait_frames = board_wait_frames
        self.board_watcher = None
        self._board_wanted: int | None = None  # frames waited for a stable board since the dice were picked up
        self._clear_since_pickup = False
        self._clear_frame = None  # the latest frame the board watcher saw clear (the wait's fallback)
        self._stable_reading = None  # the board watcher's latest stable reading
        self._current: tuple | None = None  # (the board watcher's reading of the board as it is now, its frame)
        self._turn_before = None  # ... as it stood when this turn's roll settled: the board before the play
        self.referee = referee
        self.calibration = calibration
        bottom = referee.settings.bottom_player
        top = "O" if bottom == "X" else "X"
        self.sides = {bottom: "bottom", top: "top"}
        self.colours = colours or {bottom: "light", top: "dark"}
        self.locate_dice = locate_dice
        self.locator = None
        self._fallback_calibration = calibration
        self._calibrate_pending = calibrate_first_frame and watcher is None
        if self._calibrate_pending:
            self.calibration = None
        self.watcher = watcher
        if watcher is None and not self._calibrate_pending:
            self._make_watcher()
        self.watcher = self.watcher or RollWatcher()
        self.last_frame = None
        self._new_calibration = None
        self._quiet_frames = 0
        self._clean = True
        self._reads_seen = 0
        self._down_mark = None
        self._board_deferred = 0  # consecutive frames the board watcher's re-read waited for a roll call
        self._picked_mark: tuple | None = None  # the turn (``_turn_mark``) whose dice were last seen picked up

    def _make_watcher(self) -> None:
        """The roll watcher for this calibration: placement in board mm, and (``locate_dice``) a dice reader
        that reads only what newly came to rest on the playing surface (:class:`~.camera.DiceLocator`)."""
        from tablecompanion.vision.settle import RollWatcher

        cal = self.calibration
        self.board_watcher = None
        self._board_wanted = None
        self._stable_reading = self._turn_before = None  # read through another calibration
        if cal is None:
            self.watcher = RollWatcher()
            return
        if self.watch_board:
            from tablecompanion.vision.occlusion import BoardWatcher, WatchConfig

            # the board is read at every clear frame until stable, then only now and then; a board that reads
            # as the one last passed on after an arm's visit is taken as it stands after two reads, and reads
            # of one board on either side of an arm count together (CPU: a roll's read-ahead queued behind them)
            self.board_watcher = BoardWatcher(cal, WatchConfig(idle_every=4, confirm_frames=2, agree_across_arms=True))
        kwargs = {}
        if self.locate_dice:
            from .camera import DiceLocator

            from tablecompanion.vision.settle import SettleConfig

            self.locator = DiceLocator(cal)
            kwargs["reader"] = self.locator
            # a 16 mm die is 2 px wide in the watcher's default 160-px motion copy: its last tumbles go
            # unseen and the roll is read while it still moves; watch at 640 px and count a few pixels
            kwargs["config"] = SettleConfig(motion_width=640, moving_fraction=0.0001)
        self.watcher = RollWatcher(board_from_image=cal.homography, geometry=cal.geometry, **kwargs)

    def _calibrate(self, image) -> None:
        """Calibrate once from the first frame (markers, else the board's look, else the given fallback)."""
        from .camera import calibrate_first_frame

        s = self.referee.settings
        self.calibration = calibrate_first_frame(image, home=s.home, bottom_player=s.bottom_player,
                                                 fallback=self._fallback_calibration)
        self._calibrate_pending = False
        log.info("table %s: calibration from the first frame: %s", self.referee.table_id,
                 getattr(self.calibration, "source", None))
        self._make_watcher()

    def use_calibration(self, calibration) -> None:
        """Take ``calibration`` from the next frame on (the dashboard's clicked corners, from another thread).
        The roll watcher starts afresh with it: a roll in the air while the camera is recalibrated is read
        again once it has come to rest."""
        self._new_calibration = calibration

    def _switch_calibration(self) -> None:
        cal, self._new_calibration = self._new_calibration, None
        self.calibration = self._fallback_calibration = cal
        self._calibrate_pending = False
        self.locator = None
        self._make_watcher()
        log.info("table %s: calibration replaced: %s", self.referee.table_id, getattr(cal, "source", None))

    # -- per frame ------------------------------------------------------------------------------------
    def _prepare(self) -> None:
        """Tell the watcher what roll comes next: the opening roll (one die each) or whose right-hand board."""
        state = self.referee.state
        game = state.game
        self.watcher.opening = game.awaiting == "opening_roll"
        turn = game.turn if game.turn in ("X", "O") else self.referee.settings.bottom_player
        if game.awaiting == "play" and self._picked_mark is not None and self._picked_mark == self._turn_mark():
            # the mover's dice were picked up and the record still waits for their play (the camera could not
            # tell it; a person will enter it): the next throw is the opponent's, in the opponent's right half
            turn = "O" if turn == "X" else "X"
        self.watcher.roller_side = self.sides[turn]
        loc = self.locator
        if loc is not None:
            mark = self._turn_mark()
            if not loc.dice_down:
                self._down_mark = None
            elif self._down_mark is None:
                self._down_mark = mark  # the table as it stood once the settled roll was judged
            elif mark != self._down_mark:
                # the operator moved the table on (entered the play, undid the roll): the dice are gone,
                # whatever the camera sees where they lay
                self._dice_gone()
                self._down_mark = None

    def _turn_mark(self) -> tuple:
        """This turn as the record stands: games, turns entered, what it waits for, whose turn."""
        state = self.referee.state
        return (len(state.match.games), len(state.game.history), state.game.awaiting, state.game.turn)

    def feed(self, image, t: float | None = None) -> list[dict]:
        """One frame in; the observations it produced (already dicts the referee reads)."""
        from tablecompanion.vision.settle import DicePickedUp, RollSettled

        self.last_frame = image
        if self._new_calibration is not None:
            self._switch_calibration()
        if self._calibrate_pending:
            self._calibrate(image)
        self._prepare()
        out = []
        deciding = bool(getattr(self.watcher, "deciding", False))  # as the frame comes: a call may follow on it
        events = self.watcher.feed(image, t)
        loc = self.locator
        # a throw at rest (dice found in the frame read ahead, none down before) is called a few frames
        # later: no board read joins those frames (rolling dice are no motion to the board watcher, which
        # read the board on the very frames of the read-ahead and the call, 30-60 ms each); the frames while
        # the dice roll, before, are cheap and read it instead
        called = any(isinstance(ev, RollSettled) for ev in events)
        hold = loc is not None and not loc.dice_down and (
            called or (bool(getattr(self.watcher, "coming_to_rest", False)) and bool(getattr(loc, "roll_ahead", False)))
            or (deciding and self._board_known()))
        stable = self._watch_board(image, deciding, hold)
        if called:
            out.extend(self._board_now(image, None, now=True))  # the last play before the next roll
        for ev in events:
            if isinstance(ev, RollSettled):
                self._turn_before = self._stable_reading
                if loc is not None:
                    loc.dice_settled(ev.dice, image)
                out.append(self._roll(ev, image))
            elif isinstance(ev, DicePickedUp):
                out.append(self._dice_seen_gone(image))
        if loc is not None:
            out.extend(self._follow_table(image, picked=any(isinstance(ev, DicePickedUp) for ev in events)))
        out.extend(self._board_now(image, stable))
        return out

    def _board_known(self) -> bool:
        """With the last roll's dice gone (the caller's test): whether the referee already has the board as it
        stands, a stable reading seen, the board after the pick-up handed over and no flag waiting for a
        correction. Then a throw in the air needs no board read: the board watcher's settling after the arm
        that threw (six reads of 30-70 ms each, while the dice roll) only confirmed what was known, and queued
        the roll's read-ahead and call behind it."""
        return self._stable_reading is not None and self._board_wanted is None and self.referee.state.flag is None

    def _watch_board(self, image, deciding: bool = False, hold: bool = False):
        """Feed the board watcher; the new stable reading this frame produced, if any. ``deciding``: the
        roll watcher had seen motion since its last decision when this frame came; ``hold``: read no board
        this frame (a throw being called)."""
        bw = self.board_watcher
        if bw is None:
            return None
        # a stable board's now-and-then re-read waits while a throw is decided: the roll call comes first
        # (each re-read is 40-60 ms, and one in the debounce delayed the call by as much); bounded, so that
        # motion that never settles (a hand resting, something moving at the picture's edge) cannot stop it
        defer = deciding and self._board_deferred < BOARD_DEFER_FRAMES
        self._board_deferred = self._board_deferred + 1 if defer else 0
        hold = hold and defer
        try:
            event = bw.feed(image, defer_read=defer, hold_read=hold)
        except Exception as exc:  # noqa: BLE001 - the board is read alone at pick-up instead
            log.warning("table %s: board watcher: %s", self.referee.table_id, exc)
            return None
        if event is not None:
            self._stable_reading = event.reading
        cur = bw.current
        if cur is None or self.locator is None:  # only the locator can tell whether the dice were gone in it
            self._current = None
        elif self._current is None or self._current[0] is not cur:
            self._current = (cur, image.copy())  # a frame source may reuse its buffer
        if bw.state is not None and bw.state.clear:
            self._clear_frame = image
            if self._board_wanted is not None:
                self._clear_since_pickup = True
        return event

    def _dice_gone(self) -> None:
        """The last roll's dice have left the table: the locator stops following them, and the roll watcher
        (a caller's own may not listen) takes the next dice it sees for a new roll."""
        self.locator.dice_gone()
        gone = getattr(self.watcher, "dice_gone", None)
        if callable(gone):
            gone()

    def dice_picked_up(self, image, keep_board: bool = False) -> dict:
        """The dice picked up (seen, or the board's done button): with a board watcher the board follows
        once it is clear and still. ``keep_board``: the board watcher's stable reading was made after the
        dice had gone (:meth:`_read_after_pickup`), so it is the board after the play."""
        self._picked_mark = self._turn_mark()
        if self.board_watcher is None:
            obs = self.board_observation(image)
            obs["type"] = "dice_picked_up"
            return obs
        self._board_wanted = 0
        self._clear_since_pickup = False
        if not keep_board:
            self.board_watcher.current = None  # a reading from before the pick-up (dice on the board) will not do
        return {"type": "dice_picked_up", "frame": image}

    def _dice_seen_gone(self, image) -> dict:
        """The camera saw the dice picked up: the locator (and the watcher) let them go, and the board follows;
        the board watcher's stable reading stands when it was made after they had gone."""
        after = self._read_after_pickup()  # asked before the locator forgets where the dice lay
        if self.locator is not None:
            self._dice_gone()
        return self.dice_picked_up(image, keep_board=after)

    def _read_after_pickup(self) -> bool:
        """Whether the board watcher's stable reading was made on a frame that shows the settled dice gone.
        When the pick-up and the next throw run together, the dice are seen gone only on the first quiet frame
        after the throw, and the board watcher has read the board after the play while the new dice rolled
        (rolling dice are no motion to it). Dropping that reading made the call of the throw read the board
        again (35 ms on the frame of the call)."""
        loc, bw = self.locator, self.board_watcher
        if loc is None or bw is None or bw.current is None or self._current is None or self._current[0] is not bw.current:
            return False
        try:
            return bool(loc.gone(self._current[1]))
        except Exception as exc:  # noqa: BLE001 - unsure: the board is read again
            log.debug("table %s: pick-up check of the stable board: %s", self.referee.table_id, exc)
            return False

    def flush(self) -> list[dict]:
        """The frames have ended: what is still awaited (the board after a pick-up) from the last clear frame.
        Dice whose places show the table in the last frame were picked up, though no quiet frame came to
        see it (footage cut off as the arm withdraws): the board after the pick-up is awaited then too."""
        if self.last_frame is None:
            return []
        out = []
        loc = self.locator
        if loc is not None and loc.dice_down and self._board_wanted is None and loc.gone(self.last_frame):
            self._dice_gone()
            out.append(self.dice_picked_up(self.last_frame))
        return out + self._board_now(self.last_frame, None, now=True)

    def _board_now(self, image, stable, now: bool = False) -> list[dict]:
        """The board for the referee: after a pick-up, the first stable reading; or the latest clear frame
        read alone when none comes in time (``board_wait_frames``, the board busy again after being clear,
        the next roll already down: ``now``). With an illegal play flagged, each new stable reading (the
        player correcting it)."""
        bw = self.board_watcher
        if bw is None:
            return []
        if self._board_wanted is not None:
            self._board_wanted += 1
            busy_again = self._clear_since_pickup and not (bw.state is not None and bw.state.clear)
            if bw.current is not None:
                reading, frame = bw.current.reading, image
            elif now or busy_again or self._board_wanted > self.board_wait_frames:
                reading, frame = None, self._clear_frame if self._clear_frame is not None else image
            else:
                return []
            self._board_wanted = None
            obs = self.board_observation(frame, reading)
            obs["type"] = "board"
            return [obs]
        flag = self.referee.state.flag
        if stable is not None and flag is not None and not flag.provisional:
            obs = self.board_observation(image, stable.reading)
            obs["type"] = "board"
            return [obs]
        return []

    def _follow_table(self, image, picked: bool) -> list[dict]:
        """The locator's side of each frame: the dice picked up as soon as their places show the empty
        table (the next throw often starts before the watcher sees four quiet frames), and the empty-table
        view kept fresh while nothing is pending (every few quiet frames: slow light changes follow)."""
        w, loc = self.watcher, self.locator
        out: list[dict] = []
        quiet = w.last_motion <= w.config.moving_fraction
        self._quiet_frames = self._quiet_frames + 1 if quiet else 0
        if not quiet:
            self._clean = False
        if loc.reads != self._reads_seen:  # the watcher decided on this frame
            self._reads_seen = loc.reads
            self._clean = True
        if quiet and not picked and loc.dice_down and loc.gone(image):
            out.append(self._dice_seen_gone(image))  # the watcher's own pick-up would repeat this one
            self._clean = True
            # a pick-up seen only once the next throw came to rest (they ran together): this frame holds the new
            # dice, and the watcher hands the roll reader the board before the throw at its read-ahead, so the
            # reader keeps this frame only as a view of the play's last checkers (no checker search for it)
            resting = bool(getattr(w, "coming_to_rest", False))
            loc.set_reference(image, resting=resting)
        elif quiet and self._clean and not loc.dice_down and self._quiet_frames % 5 == 1:
            loc.set_reference(image)
        return out

    def _roll(self, ev, image) -> dict:
        if ev.verdict != "valid":
            obs = {"type": "roll_void", "reason": ev.reason, "frame": image}
            proposal = list(getattr(ev, "proposal", None) or ())
            if proposal and ev.opening:
                # one die each: whose is whose from the halves they lie in; without a calibration nobody knows
                proposal = self._opening_order(ev.dice, proposal) if self.calibration is not None else None
            if proposal:
                obs["proposal"] = proposal
            return obs
        values = [d.value for d in ev.dice]
        if ev.opening and self.calibration is not None:
            values = self._opening_order(ev.dice, values) or values  # the watcher already called it void
        return {"type": "roll", "dice": values, "frame": image}

    def _opening_order(self, dice, values) -> list[int] | None:
        """[X's die, O's die] from which player's right-hand board each die lies in; None when both lie in
        one half."""
        geo = self.calibration.geometry
        mm = self.calibration.image_to_board([d.centre for d in dice])
        bottom_half = geo.right_hand_board("bottom")
        in_bottom = [bottom_half[0] <= x <= bottom_half[2] for x, _ in mm]
        if in_bottom[0] == in_bottom[1]:
            return None
        by_side = {"bottom": values[0] if in_bottom[0] else values[1],
                   "top": values[1] if in_bottom[0] else values[0]}
        return [by_side[self.sides["X"]], by_side[self.sides["O"]]]

    def board_observation(self, image, reading=None) -> dict:
        """The board in the frame (or ``reading`` of it) as ``{"board": {"X", "O"}}`` plus the identified
        play when vision is sure."""
        obs: dict[str, Any] = {"frame": image}
        try:
            reading = reading if reading is not None else self._reading(image)
        except Exception as exc:  # noqa: BLE001 - an unreadable frame: no board, the operator decides
            obs["board_error"] = str(exc)
            return obs
        state = self.referee.state
        mover = state.game.turn if state.game.turn in ("X", "O") else "X"
        other = "O" if mover == "X" else "X"
        game = state.game
        # the tray is counted as the change since the board before the play, whose borne-off count is known
        if self._turn_before is not None and game.awaiting == "play" and game.dice:
            seen = reading.observation(self.colours[mover], self.sides[mover], before=self._turn_before,
                                       off_before=game.position.borne_off[0])
        else:
            seen = reading.observation(self.colours[mover], self.sides[mover])
        obs["board"] = {mover: list(seen.mover), other: list(seen.opponent)}
        if seen.uncertain:
            obs["uncertain"] = sorted(seen.uncertain)
        if game.awaiting == "play" and game.dice:
            try:
                from tablecompanion.vision.identify import identify_play

                ident = identify_play(game.position, game.dice, seen)
                if ident.verdict == "legal" and ident.play is not None:
                    obs["play"] = str(ident.play)
                obs["identification"] = ident.to_dict()
            except Exception as exc:  # noqa: BLE001
                obs["identification_error"] = str(exc)
        return obs

    def _reading(self, image):
        if self._read_board is not None:
            return self._read_board(image)
        from tablecompanion.vision.board_reader import read_board

        return read_board(image, self.calibration)


class TableRunner:
    """Runs one table's inputs in a thread: a frame source through :class:`CameraPipeline`, or ready-made
    observations; optional LED board kept in step with the referee (``LedLink``).

    ``frames`` may be any iterable of images, of ``(image, time)`` or ``(image, truth-dict)`` pairs
    (simulator footage), or a vision ``FrameSource`` (``.frames()`` yielding ``Frame``). ``realtime``
    paces the frames at ``fps`` (demo mode); tests run as fast as possible.
    """

    def __init__(self, referee, *, frames: Any = None, observations: Iterable[dict] | None = None,
                 pipeline: CameraPipeline | None = None, calibration=None, leds: Any = None,
                 realtime: bool = False, fps: float = 30.0, colours: dict | None = None,
                 max_frames: int | None = None, fallback_actions: Iterable[dict] | None = None,
                 fallback_after_voids: int = 3, action_delay_s: float = 1.5,
                 on_frame: Callable | None = None, calibrate_first_frame: bool = False) -> None:
        if frames is None and observations is None and leds is None:
            raise RefereeError("a table runner needs frames, observations or an LED board")
        self.referee = referee
        self.frames = frames
        self.observations = observations
        self.pipeline = pipeline
        if frames is not None and pipeline is None:
            self.pipeline = CameraPipeline(referee, calibration, colours=colours,
                                           calibrate_first_frame=calibrate_first_frame)
        self.on_frame = on_frame  # (image, truth or None) after each frame: the demo's operator
        self.realtime = realtime
        self.fps = fps
        self.max_frames = max_frames
        self.fallback_actions = fallback_actions
        self.fallback_after_voids = fallback_after_voids
        self.action_delay_s = action_delay_s
        self.mode = "camera" if frames is not None else ("observations" if observations is not None else "board")
        self._voids_in_a_row = 0
        self._camera_rolls = 0
        self.stats = RunnerStats()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.led_link = None
        if leds is not None:
            from .leds import LedLink

            self.led_link = LedLink(referee, leds, on_done=self._done_button)
        self._done_pressed = threading.Event()

    # -- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> "TableRunner":
        if self._thread is not None:
            raise RefereeError("this runner is already running", status=409)
        self._thread = threading.Thread(target=self._guarded_run, name=f"table-{self.referee.table_id}",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self.led_link is not None:
            self.led_link.close()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _guarded_run(self) -> None:
        try:
            self.run()
        except Exception as exc:  # noqa: BLE001 - the thread reports, the server stays up
            self.stats.errors += 1
            self.stats.last_error = f"{type(exc).__name__}: {exc}"
            log.exception("table %s: runner stopped", self.referee.table_id)

    # -- the loop -----------------------------------------------------------------------------------
    def run(self) -> RunnerStats:
        """Process every input in the calling thread until it ends or :meth:`stop` is called."""
        if self.observations is None and self.frames is None:
            self._stop.wait()  # a board-only table: the LED link does the work from callbacks
            return self.stats
        if self.observations is not None:
            for obs in self.observations:
                if self._stop.is_set():
                    break
                self._observe(obs)
            return self.stats
        t0 = _time.monotonic()
        for k, (image, t, truth) in enumerate(self._frames()):
            if self._stop.is_set() or (self.max_frames is not None and k >= self.max_frames):
                break
            if self.realtime:
                delay = t0 + k / self.fps - _time.monotonic()
                if delay > 0 and self._stop.wait(delay):
                    break
            self.stats.frames += 1
            try:
                observations = self.pipeline.feed(image, t)
            except Exception as exc:  # noqa: BLE001 - one bad frame must not stop the table
                self.stats.errors += 1
                self.stats.last_error = f"frame {k}: {exc}"
                continue
            if self._done_pressed.is_set():
                self._done_pressed.clear()
                observations.append(self.pipeline.dice_picked_up(image))
            for obs in observations:
                if self._stop.is_set():
                    return self.stats  # stopped while this frame was read: act no more
                self._observe(obs)
            if self._stop.is_set():
                return self.stats
            if self.on_frame is not None:
                try:
                    self.on_frame(image, truth)
                except RefereeError as exc:
                    self.stats.refused += 1
                    self.stats.note({"refused": "operator", "status": exc.status, "message": exc.message})
            self.referee.tick()
            if self._vision_failing():
                return self._replay_actions()
        flush = getattr(self.pipeline, "flush", None)
        if flush is not None and not self._stop.is_set():
            for obs in flush():  # the frames ended while the board was awaited
                self._observe(obs)
        if self.on_frame is not None and not self._stop.is_set():
            end = getattr(self.on_frame, "finish", None)
            if end is not None:
                end()
        return self.stats

    def _vision_failing(self) -> bool:
        """The camera has not read one roll and called the last few all void: it cannot follow this table."""
        return (self.fallback_actions is not None and self._camera_rolls == 0
                and self._voids_in_a_row >= self.fallback_after_voids)

    def _replay_actions(self) -> RunnerStats:
        """Play on from the recorded match's actions (the demo when the vision cannot read the footage)."""
        self.mode = "replay"
        msg = (f"the camera read no roll in {self._voids_in_a_row} throws: the demo goes on from the match "
               f"file, without the camera")
        log.warning("table %s: %s", self.referee.table_id, msg)
        self.stats.note({"decision": "camera_off", "message": msg})
        for action in self.fallback_actions:
            if self._stop.wait(self.action_delay_s if self.realtime else 0):
                break
            try:
                out = self.referee.act(dict(action), source="replay")
            except RefereeError as exc:
                self.stats.refused += 1
                self.stats.note({"refused": action.get("action"), "status": exc.status, "message": exc.message})
                continue
            self.stats.decisions += len(out)
            if self.referee.state.match_over:
                break
        return self.stats

    def _frames(self) -> Iterator[tuple[Any, float | None, dict | None]]:
        src = self.frames
        if hasattr(src, "frames") and callable(src.frames):
            for f in src.frames():
                yield f.image, f.time, None
            return
        for item in src:
            if isinstance(item, tuple) and len(item) == 2:
                image, extra = item
                if isinstance(extra, dict):
                    yield image, extra.get("t"), extra
                else:
                    yield image, extra, None
            else:
                yield item, None, None

    def _observe(self, obs: Any) -> None:
        if self._stop.is_set():
            return
        self.stats.observations += 1
        try:
            out = self.referee.observe(obs)
        except RefereeError as exc:
            self.stats.refused += 1
            typ = obs.get("type") if isinstance(obs, dict) else type(obs).__name__
            self.stats.note({"refused": typ, "status": exc.status, "message": exc.message})
            log.info("table %s: camera %s refused: %s", self.referee.table_id, typ, exc.message)
            return
        self.stats.decisions += len(out)
        for d in out:
            kind = d.get("decision")
            if kind == "void_roll":
                self._voids_in_a_row += 1
            elif kind in ("roll", "opening_roll", "opening_roll_tie"):
                self._voids_in_a_row = 0
                self._camera_rolls += 1
            self.stats.note(d if "frame" not in d else {k: v for k, v in d.items() if k != "frame"})

    def _done_button(self) -> None:
        """The LED board's "done" button: read the board now, as if the dice were picked up."""
        if self.frames is None:
            self._observe({"type": "dice_picked_up"})
        else:
            self._done_pressed.set()


def demo_runner(referee, mat_path, *, seed: int = 0, inject: str | dict | None = None, leds: Any = None,
                realtime: bool = True, max_turns: int | None = None, fps: float = 30.0,
                fallback: bool = False, fallback_after_voids: int = 3, with_operator: bool = True,
                calibrate_first_frame: bool = True) -> TableRunner:
    """Simulator footage of a real match played through the real vision into ``referee`` (demo mode).

    The referee's seating (``bottom_player``, ``home``) is used for the footage. The calibration comes
    from the corner markers in the first frame (``calibrate_first_frame``), as a table is set up; the
    simulator camera's own homography stands in when that fails. ``with_operator`` adds the demo's
    operator (:class:`~.camera_demo.FootageOperator`): cube actions and resignations, and the turns the
    camera missed or misread, entered from the match file; ``runner.operator.tally`` counts who read what.
    """
    import numpy as np

    from tablecompanion.calibration import Calibration
    from tablecompanion.geometry import BoardGeometry
    from tablecompanion.sim.camera import Camera
    from tablecompanion.sim.footage import iter_match_frames

    s = referee.settings
    camera = Camera()
    model = camera.model()
    calibration = Calibration(geometry=BoardGeometry(home=s.home), image_size=(camera.width, camera.height),
                              homography=np.asarray(model.homography_image_to_board()),
                              camera_matrix=np.asarray(model.K), dist_coeffs=np.asarray(model.dist),
                              bottom_player=s.bottom_player, source="markers")
    turns: list = []
    frames = iter_match_frames(mat_path, seed=seed, fps=fps, inject=inject, camera=camera, home=s.home,
                               bottom=s.bottom_player, max_turns=max_turns, encode=False, turns_out=turns)
    fallback_actions = None
    if fallback:
        from .matplay import mat_actions

        fallback_actions = mat_actions(Path(mat_path).read_text(encoding="utf-8", errors="replace"),
                                       settings=referee.settings)
    operator = None
    if with_operator:
        from .camera_demo import FootageOperator

        operator = FootageOperator(referee, turns)
    runner = TableRunner(referee, frames=frames, calibration=calibration, leds=leds, realtime=realtime, fps=fps,
                         fallback_actions=fallback_actions, fallback_after_voids=fallback_after_voids,
                         on_frame=operator, calibrate_first_frame=calibrate_first_frame)
    runner.operator = operator
    return runner


SHARED_MATCHES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "matches"


def find_match_for(referee, directory: Path | None = None) -> Path | None:
    """A .mat file whose players and length are this table's (the file the demo table was set up from)."""
    from tablecompanion.rules.matfile import parse_mat

    from .matplay import settings_for

    directory = Path(directory) if directory is not None else SHARED_MATCHES
    if not directory.is_dir():
        return None
    s = referee.settings
    files = sorted(directory.glob("*.mat"))
    named = [f for f in files if all(p.split(" (")[0] in f.name for p in s.players)]
    for f in named + [f for f in files if f not in named]:
        try:
            want = settings_for(parse_mat(f.read_text(encoding="utf-8", errors="replace")))
        except Exception:  # noqa: BLE001 - an unreadable file is just not the one
            continue
        if want.players == s.players and want.match_length == s.match_length:
            return f
    return None


def start_for_serve(referee, *, camera=None, board=None, demo: bool = False, data_dir=None,
                    match_file=None, calibration=None, realtime: bool = True, seed: int = 0,
                    inject: str | dict | None = "cocked:0.05,misplaced:0.03,illegal:0.03",
                    leds: Any = None, max_turns: int | None = None) -> TableRunner | None:
    """What ``tablecompanion serve`` starts for table 1: a running :class:`TableRunner`, or None when there
    is nothing to run (no camera, no board, no demo footage), so the server serves manual entry.

    * demo: simulator footage of ``match_file`` (default: the shared .mat whose players and length are
      the table's) through the real vision, with the emulated LED board unless ``board`` is given; if the
      camera reads no roll in its first throws, the demo goes on from the match file's actions (the
      runner's ``mode`` becomes "replay" and its log says so);
    * ``camera``: a camera index, device path, URL, video file or image folder (``vision.frames``), read
      with the calibration profile ``calibration`` (a name or a ``Calibration``) when given;
    * ``board``: an LED board spec for ``leds.open_board`` ("auto", a port, "emulated"), or ``leds`` an
      LED board already open.

    In demo mode the footage's operator (:class:`~.camera_demo.FootageOperator`) enters cube actions and
    the turns the camera missed, so the demo plays the whole match; ``runner.operator.tally`` says who
    read each turn.
    """
    if leds is None and (board is not None or demo):
        try:
            from tablecompanion.leds.board import open_board

            leds = open_board(str(board) if board is not None else "emulated")
        except Exception as exc:  # noqa: BLE001 - the table runs without LEDs
            log.warning("LED board %s not opened: %s", board or "emulated", exc)
    if isinstance(calibration, str):
        from tablecompanion.calibration import load_profile
        from tablecompanion.calibration.profiles import profile_path

        # the server's own data dir first (where the dashboard's calibration page saves), else the default
        if data_dir is not None and profile_path(calibration, data_dir).exists():
            calibration = load_profile(calibration, data_dir)
        else:
            calibration = load_profile(calibration)
    if camera is not None:
        from tablecompanion.vision.frames import open_source

        source = open_source(str(camera))
        # without a profile, calibrate from the first frame (markers, else the board's look)
        return TableRunner(referee, frames=source, calibration=calibration, leds=leds, realtime=False,
                           calibrate_first_frame=calibration is None).start()
    if demo:
        match_file = Path(match_file) if match_file else find_match_for(referee)
        if match_file is None or not Path(match_file).exists():
            log.warning("demo footage needs a .mat file; none found for table %s", referee.table_id)
            if leds is not None:
                leds.close()
            return None
        return demo_runner(referee, match_file, seed=seed, inject=inject, leds=leds, realtime=realtime,
                           max_turns=max_turns).start()
    if leds is not None:
        # a board without a camera: buttons act, LEDs follow the operator's entries
        return TableRunner(referee, leds=leds).start()
    return None
