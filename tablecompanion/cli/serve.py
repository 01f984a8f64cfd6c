"""``tablecompanion serve``: the table companion's server (dashboard, JSON API, live updates).

With no arguments it starts one table in demo mode on http://127.0.0.1:5000; ``--manual`` starts
table 1 for an operator (rolls and plays entered on the dashboard); ``--camera`` / ``--board`` select
real parts where the table runner supports them.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
import time
from pathlib import Path

DEFAULT_PORT = 5000


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "serve", help="start the table server (demo mode with no arguments)",
        description="Start the dashboard, JSON API and live updates for one table (table '1'). "
                    "With no arguments: demo mode on http://127.0.0.1:5000.")
    mode = p.add_argument_group("mode")
    mode.add_argument("--manual", action="store_true", help="no camera, no board: an operator enters rolls and plays")
    mode.add_argument("--camera", metavar="N", help="read the table from camera N (a device index or a video file)")
    mode.add_argument("--board", metavar="PORT", help="the LED board's serial port (default: the emulated board)")
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
    demo.add_argument("--demo-match", type=Path, help="a .mat file to replay (default: one from ../shared/data)")
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
    token = args.token or secrets.token_urlsafe(9)
    # The record keeps a hash of a token of 4+ characters; a shorter --token (``--token T``) is checked by
    # the server itself (TABLE_TOKENS) and the record gets a random one.
    stored = token if len(token) >= 4 else secrets.token_urlsafe(12)
    ref, _ = hall.create_table(_settings(args, demo_settings), table_id="1", token=stored)
    return ref, token, True


def _try_runner(args, hall, ref, data_dir: Path):
    """The camera/LED table runner when it exists in this checkout; None otherwise."""
    try:
        from tablecompanion.referee.runner import TableRunner  # noqa: F401
    except ImportError:
        return None
    from tablecompanion.referee import runner as runner_mod

    factory = getattr(runner_mod, "start_for_serve", None)
    if factory is None:
        return None
    return factory(referee=ref, camera=args.camera, board=args.board, demo=not args.manual and args.camera is None,
                   data_dir=data_dir)


def run(args) -> int:
    from werkzeug.serving import make_server

    from tablecompanion.referee import Hall
    from tablecompanion.web import create_app
    from tablecompanion.web.demo import DemoPlayer, find_demo_match

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
    runner = None
    if args.camera is not None or args.board is not None or demo:
        runner = _try_runner(args, hall, ref, data_dir)
    player = None
    if demo and runner is None:
        player = DemoPlayer(ref, delay_s=args.demo_delay, match_file=match_file).start()
    elif (args.camera is not None or args.board is not None) and runner is None:
        print("camera/board mode is not available in this build: serving the table for manual entry",
              file=sys.stderr)

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
        source = match_file.name if match_file else "a generated match"
        print(f"  demo: replaying {source} through the referee, one action every ~{args.demo_delay:g} s",
              flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if player is not None:
            player.stop()
        app.extensions["tablecompanion"].broker.close_all()
        server.server_close()
        close = getattr(hall, "close", None)
        if close:
            close()
    return 0
