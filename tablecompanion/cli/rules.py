"""``tablecompanion rules show|legal|play|bench``: the rules engine from the command line."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("rules", help="positions, legal plays, notation and IDs; rules engine speed")
    sub = p.add_subparsers(dest="rules_command", metavar="VERB")
    where = "a gnubg Position ID (e.g. 4HPwATDgc/ABMA), a GNUBG ID (PositionID:MatchID), an XGID, or 'start'"

    s = sub.add_parser("show", help="draw a position and print its IDs and pip counts",
                       description=f"POSITION is {where}.")
    s.add_argument("position", metavar="POSITION")
    s.set_defaults(func=_show)

    lg = sub.add_parser("legal", help="list every legal play of a roll, one per resulting position",
                        description=f"POSITION is {where}. Each line: the play in gnubg notation and the "
                        "Position ID after it (opponent on roll).")
    lg.add_argument("position", metavar="POSITION")
    lg.add_argument("dice", metavar="DIE", type=int, nargs=2)
    lg.add_argument("--json", action="store_true", help="print a JSON list of {play, next_position_id}")
    lg.set_defaults(func=_legal)

    pl = sub.add_parser("play", help="check a written play and print the position after it",
                        description=f"POSITION is {where}. PLAY is notation such as '8/5 6/5', "
                        "'25/21 6/0', 'bar/22*', '8/5(2)'. Exit status 1 and the reason when it is illegal.")
    pl.add_argument("position", metavar="POSITION")
    pl.add_argument("dice", metavar="DIE", type=int, nargs=2)
    pl.add_argument("play", metavar="PLAY")
    pl.set_defaults(func=_play)

    b = sub.add_parser("bench", help="legal plays per second, ours beside the gnubg binding when installed",
                       description="Generates legal plays for positions of random games with fresh rolls, "
                       "timed on CPU time. For the full benchmark run "
                       "'python -m pytest benchmarks/bench_legal_plays.py --benchmark-enable'.")
    b.add_argument("--positions", type=int, default=5000, help="how many (position, roll) cases")
    b.add_argument("--seed", type=int, default=1)
    b.set_defaults(func=_bench)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _position(text: str):
    from tablecompanion.rules import Position

    text = text.strip()
    if text.lower() == "start":
        return Position.initial()
    if text.upper().startswith("XGID=") or text.count(":") >= 8:
        return Position.from_xgid(text)
    return Position.from_position_id(text)


def _fail(exc: Exception) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 1


def _show(args) -> int:
    from tablecompanion.rules import RulesError

    try:
        pos = _position(args.position)
    except RulesError as exc:
        return _fail(exc)
    print(pos)
    print(f"XGID {pos.xgid()}")
    return 0


def _legal(args) -> int:
    from tablecompanion.rules import RulesError

    try:
        pos = _position(args.position)
        plays = pos.legal_plays(args.dice)
    except RulesError as exc:
        return _fail(exc)
    rows = sorted((str(p), pos.apply(p).position_id()) for p in plays)
    if args.json:
        print(json.dumps([{"play": t, "next_position_id": i} for t, i in rows], indent=1))
        return 0
    if not rows:
        print(f"no legal play: {args.dice[0]}-{args.dice[1]} is forfeited")
        return 0
    width = max(len(t) for t, _ in rows)
    for text, pid in rows:
        print(f"{text:<{width}}  {pid}")
    print(f"{len(rows)} legal play{'s' if len(rows) > 1 else ''}")
    return 0


def _play(args) -> int:
    from tablecompanion.rules import RulesError

    try:
        pos = _position(args.position)
        play = pos.parse_play(args.play, args.dice)
    except RulesError as exc:
        return _fail(exc)
    after = pos.apply(play) if not play.is_pass() else pos.swapped()
    print(f"legal: {play or '(no move)'}")
    print(f"next position (opponent on roll): {after.position_id()}")
    return 0


def _cases(n: int, seed: int):
    """``n`` (position, roll) cases from random games, each position with a fresh roll."""
    from tablecompanion.rules import Position

    rng = random.Random(seed)
    cases = []
    pos = Position.initial()
    while len(cases) < n:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        cases.append((pos, dice))
        plays = pos.legal_plays(dice)
        pos = pos.apply(rng.choice(plays)) if plays else pos.swapped()
        if pos.winner():
            pos = Position.initial()
    # a second, fresh roll for each position: the one the game went on with is not measured
    return [(p, (rng.randint(1, 6), rng.randint(1, 6))) for p, _ in cases]


def _bench(args) -> int:
    cases = _cases(args.positions, args.seed)
    start = time.process_time()
    for pos, dice in cases:
        pos.legal_plays(dice)
    ours = len(cases) / (time.process_time() - start)
    print(f"tablecompanion.rules  {ours:>10,.0f} positions/s")
    try:
        import gnubg
    except ImportError:
        print("gnubg binding not installed (pip install gnubg): no comparison")
        return 0
    cube, context = gnubg.cube_info(), gnubg.eval_context()
    boards = [((p.opponent, p.on_roll), d) for p, d in cases]
    start = time.process_time()
    for board, dice in boards:
        gnubg.find_best_moves(board, cube, context, dice)
    theirs = len(cases) / (time.process_time() - start)
    print(f"gnubg binding         {theirs:>10,.0f} positions/s")
    print(f"ratio ours / gnubg    {ours / theirs:>10.2f}")
    return 0
