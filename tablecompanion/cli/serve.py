"""``tablecompanion serve``: the table companion's server (dashboard, JSON API, live updates).

With no arguments it starts one table in demo mode on http://127.0.0.1:5000; ``--manual`` starts
table 1 for an operator (rolls and plays entered on the dashboard); ``--camera`` / ``--board`` select
real parts where the table runner supports them.
"""

from __future__ import annotations

import logging
import secrets
import sys
import time
from pathlib import Path

DEFAULT_PORT = 5000


def console_token() -> str:
    """A random operator token to print on the console: one that never starts with "-", or typed back as
    ``serve --token TOKEN`` argparse takes it for an option (it did, one run in 64, in the test suite)."""
    while True:
        token = secrets.token_urlsafe(9)
        if not token.startswith("-"):
            return token


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "serve", help="start the table server (demo mode with no arguments)",
        description="Start the dashboard, JSON API and live updates for one table (table '1'). "
                    "With no arguments: demo mode on http://127.0.0.1:5000.")
    mode = p.add_argument_group("mode")
    mode.add_argument("--manual", action="store_true", help="no camera, no board: an operator enters rolls and plays")
    mode.add_argument("--camera", metavar="N", help="read the table from camera N (a device index or a video file)")
    mode.add_argument("--board", metavar="PORT", help="the LED board's serial port (default: the emulated board)")
    mode.add_argument("--profile", metavar="NAME", help="the calibration profile for --camera (tablecompanion "
                                                        "calibrate); without one the first frame is calibrated "
                                                        "from the board's markers")
    p.add_argument("--token", help="table 1's operator token (a random one is printed when left out)")
    p.add_argument("--admin-token", help="server admin token needed to start matches through the API from "
                                         "other machines (without one, only from 127.0.0.1)")
    p.add_argument("--data-dir", type=Path, help="where the record lives (default: $TABLECOMPANION_DATA or "
                                                 "~/.local/share/tablecompanion)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the "
                                                       "local network)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    match = p.add_argument_group("the match at table 1 (when it is new)")
    match.add_argument("--players", nargs=2, metavar=("X", "O"), help="the two players' names")
    match.add_argument("--length", type=int, help="match length in points (0 = money); default 7")
    match.add_argument("--policy", choices=("legal", "responsible"), default="legal", help="illegal-move policy")
    demo = p.add_argument_group("demo mode")
    demo.add_argument("--demo-delay", type=float, default=1.5, help="seconds between demo actions (default 1.5)")
    demo.add_argument("--demo-match", type=Path, help="a .mat file to play (default: one from ../shared/data)")
    demo.add_argument("--demo-vision-wait", type=float, default=20.0,
                      help="seconds the simulator footage + vision pipeline gets to read its first roll before "
                           "the demo replays the match without it; 0 = replay only (default 20)")
    demo.add_argument("--demo-measure", type=int, metavar="TURNS",
                      help="no server: play the first TURNS turns of the demo footage through the camera pipeline "
                           "as fast as possible and print (JSON) how many rolls and plays the camera read")
    p.add_argument("--quiet", action="store_true", help="do not log each request")
    p.set_defaults(func=run)


def _data_dir(args) -> Path:
    from tablecompanion.web import default_data_dir

    return (args.data_dir or default_data_dir()).expanduser()


def _settings(args, demo_settings: dict | None):
    from tablecompanion.referee.settings import TableSettings

    if demo_settings is not None:
        base = dict(demo_settings)
    else:
        base = {"players": list(args.players or ("Player 1", "Player 2")),
                "match_length": 7 if args.length is None else args.length}
    if args.players:
        base["players"] = list(args.players)
    if args.length is not None:
        base["match_length"] = args.length
    base["move_policy"] = args.policy
    return TableSettings.from_dict(base)


def _open_table(hall, args, demo_settings):
    """Table 1: resumed from the record when it is there, else started; returns (referee, token, new)."""
    from tablecompanion.referee.errors import RefereeError

    try:
        ref = hall.get("1")
    except (RefereeError, KeyError):
        ref = None
    if ref is not None:
        return ref, args.token, False
    token = args.token or console_token()
    # The record keeps the token's hash, even of a short one chosen on the console (``--token T``), so a
    # restart without --token still opens the table with it.
    ref, _ = hall.create_table(_settings(args, demo_settings), table_id="1", token=token, min_token_length=1)
    return ref, token, True


def _open_leds(args, ref, demo: bool):
    """The LED board: --board PORT (or 'emulated'), the emulated board in demo mode, else none."""
    spec = args.board or ("emulated" if demo else None)
    if spec is None:
        return None
    try:
        from tablecompanion.leds.board import open_board

        return open_board(spec, home=ref.settings.home)
    except Exception as exc:  # noqa: BLE001 - the table runs without lights rather than not at all
        print(f"LED board {spec!r} not available: {exc}", file=sys.stderr)
        return None


def _camera_runner(args, ref, leds):
    """--camera N [--profile NAME]: real frames through the vision pipeline into the referee, in a thread."""
    from tablecompanion.referee.runner import start_for_serve

    return start_for_serve(ref, camera=args.camera, calibration=args.profile, leds=leds, data_dir=_data_dir(args))


class _Gate:
    """The referee as the vision runner sees it, with a switch: once closed, its observations and actions
    are dropped, so a runner thread that is slow to stop can never act after the replay took over."""

    def __init__(self, ref) -> None:
        self._ref = ref
        self.open = True

    def __getattr__(self, name):
        return getattr(self._ref, name)

    def observe(self, *args, **kwargs):
        return self._ref.observe(*args, **kwargs) if self.open else []

    def act(self, *args, **kwargs):
        return self._ref.act(*args, **kwargs) if self.open else []


def _vision_demo(ref, match_file, leds, fallback, wait_s: float):
    """Simulator footage of the match through the real vision and referee; when the vision has not
    read a single roll after ``wait_s`` seconds, the replay (``fallback``) takes over so the demo plays."""
    import threading

    from tablecompanion.referee.runner import start_for_serve

    gate = _Gate(ref)
    runner = start_for_serve(gate, demo=True, match_file=match_file, leds=leds)
    if runner is None:
        raise RuntimeError(f"no simulator footage for {match_file}")

    def watchdog():
        deadline = time.monotonic() + wait_s
        history: list = []
        while time.monotonic() < deadline:
            time.sleep(1.0)
            history = ref.snapshot(public=True).get("history") or []
            if any(h.get("source") == "camera" and h.get("action") in ("opening_roll", "roll") for h in history):
                return
        log = logging.getLogger("tablecompanion.serve")
        if history:
            # the footage plays on: its operator enters the turns the camera does not read
            log.warning("demo: the vision pipeline read no roll in %.0f s; the footage's operator enters the "
                        "turns it misses", wait_s)
            return
        log.warning("demo: the footage and vision produced nothing in %.0f s; replaying the match without them",
                    wait_s)
        gate.open = False
        runner.stop()
        time.sleep(0.5)  # an observation already inside the referee finishes first
        fallback()

    threading.Thread(target=watchdog, name="demo-watchdog", daemon=True).start()
    return runner


def _measure(args) -> int:
    """``--demo-measure N``: the demo's figures, without a server."""
    import json

    from tablecompanion.referee.camera_demo import measure_demo
    from tablecompanion.web.demo import find_demo_match

    logging.basicConfig(level=logging.WARNING)
    match_file = args.demo_match or find_demo_match()
    if match_file is None or not Path(match_file).is_file():
        print("no demo match: give --demo-match FILE.mat (or put ../shared/data/matches next to the checkout)",
              file=sys.stderr)
        return 2
    if args.demo_measure < 1:
        print("--demo-measure needs a number of turns of at least 1", file=sys.stderr)
        return 2
    print(json.dumps(measure_demo(match_file, turns=args.demo_measure), indent=1))
    return 0


def run(args) -> int:
    from werkzeug.serving import make_server

    from tablecompanion.referee import Hall
    from tablecompanion.web import create_app
    from tablecompanion.web.demo import DemoPlayer, find_demo_match

    if args.demo_measure is not None:
        return _measure(args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.quiet:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    demo = not args.manual and args.camera is None and args.board is None
    data_dir = _data_dir(args)
    if demo and args.data_dir is None:
        # each demo run starts its own record, so the demo always begins at the opening roll
        data_dir = data_dir / "demo" / time.strftime("%Y%m%d-%H%M%S")
    data_dir.mkdir(parents=True, exist_ok=True)
    hall = Hall(data_dir)
    match_file = (args.demo_match or find_demo_match()) if demo else None
    demo_settings = DemoPlayer.settings_for(match_file) if demo else None
    ref, token, new = _open_table(hall, args, demo_settings)

    mode = "demo" if demo else ("camera" if args.camera is not None else "manual")
    config = {"DATA_DIR": str(data_dir), "ADMIN_TOKEN": args.admin_token, "MODE": mode}
    if token:
        config["TABLE_TOKENS"] = {"1": token}  # --token works for a resumed table too
    app = create_app(config, hall=hall)

    leds = _open_leds(args, ref, demo)
    runner = player = link = None
    demo_source = None
    if args.camera is not None:
        try:
            runner = _camera_runner(args, ref, leds)
        except Exception as exc:  # noqa: BLE001
            print(f"camera {args.camera!r} not available ({exc}): the table is served for manual entry",
                  file=sys.stderr)
    if demo:
        def replay():
            nonlocal player, link
            player = DemoPlayer(ref, delay_s=args.demo_delay, match_file=match_file).start()
            if runner is not None and leds is not None:  # the runner's LED link closed with it
                try:
                    from tablecompanion.referee.leds import LedLink

                    link = LedLink(ref, leds)
                except Exception as exc:  # noqa: BLE001
                    logging.getLogger("tablecompanion.serve").warning("LED board not linked: %s", exc)

        if match_file is not None and args.demo_vision_wait > 0:
            try:
                runner = _vision_demo(ref, match_file, leds, replay, args.demo_vision_wait)
                demo_source = f"simulator footage of {match_file.name} through the vision pipeline"
            except Exception as exc:  # noqa: BLE001
                logging.getLogger("tablecompanion.serve").warning("demo: no simulator footage (%s)", exc)
        if runner is None:
            replay()
            demo_source = f"{match_file.name if match_file else 'a generated match'} replayed through the referee"
    if runner is not None and getattr(runner, "pipeline", None) is not None:
        # the dashboard's calibration page shows this camera's frames and hands its profile back to it
        app.extensions["tablecompanion"].attach_camera("1", runner, apply=runner.pipeline.use_calibration)
    if runner is None and leds is not None:
        try:
            from tablecompanion.referee.leds import LedLink

            link = LedLink(ref, leds)
        except Exception as exc:  # noqa: BLE001
            print(f"LED board not linked: {exc}", file=sys.stderr)
    hall.start_ticker(1.0)  # a time-out is recorded when it happens, even if nobody acts

    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    base = f"http://{host}:{server.port}"
    print(f"TableCompanion ({mode}) on {base}/  — record in {data_dir}", flush=True)
    print(f"  table 1: {base}/tables/1   display: {base}/tables/1/display", flush=True)
    if token:
        print(f"  operator token for table 1: {token}", flush=True)
    if not new:
        print("  table 1 resumed from the record" + ("" if token else "; its operator token is the one it was "
                                                    "started with (or give --token)"), flush=True)
    if demo:
        print(f"  demo: {demo_source}", flush=True)
    if leds is not None:
        print(f"  LED board: {args.board or 'emulated'}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        hall.stop_ticker()
        for part in (player, runner):
            if part is not None:
                part.stop()
        if link is not None and hasattr(link, "close"):
            link.close()
        if leds is not None and hasattr(leds, "close"):
            leds.close()
        app.extensions["tablecompanion"].broker.close_all()
        server.server_close()
        close = getattr(hall, "close", None)
        if close:
            close()
    return 0
