"""``tablecompanion mat ...``: check and re-export match files (.mat) with the rules engine.

``mat check FILE...`` replays every roll, play and cube action and says, per file, whether all were
legal (else the first illegal one: game, move number, why), each game's winner and points and the
final score; ``--json`` prints one object per file per line. The exit status is 1 when any file
fails. ``mat export FILE`` writes the match back out in the layout GNU Backgammon writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tablecompanion.rules.matfile import CheckReport, MatFileError, check_text, match_from_mat, parse_mat, write_mat


def register(subparsers) -> None:
    parser = subparsers.add_parser("mat", help="check or re-export match files (.mat)", description=__doc__)
    verbs = parser.add_subparsers(dest="mat_command", metavar="VERB")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    check = verbs.add_parser("check", help="replay match files and report legality, results and score")
    check.add_argument("files", nargs="+", metavar="FILE", help=".mat files")
    check.add_argument("--json", action="store_true", help="one JSON object per file per line")
    check.add_argument("--notes", action="store_true", help="also print harmless oddities found in the files")
    check.set_defaults(func=_check)

    export = verbs.add_parser("export", help="re-export a match file in GNU Backgammon's .mat layout")
    export.add_argument("file", metavar="FILE")
    export.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    export.set_defaults(func=_export)


def _read(path: str) -> str:
    return Path(path).read_text(encoding="utf-8", errors="replace")


def _check(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:
        name = Path(path).name
        try:
            report = check_text(_read(path), name)
        except OSError as exc:
            report = CheckReport(name, 0, ("X", "O"), [], (0, 0), [f"cannot read {path}: {exc.strerror or exc}"], [])
        failed += not report.ok
        if args.json:
            print(json.dumps(report.as_dict()), flush=True)
        else:
            print(_describe(report, args.notes), flush=True)
    return 1 if failed else 0


def _describe(report: CheckReport, with_notes: bool) -> str:
    x, o = report.players
    kind = f"{report.length}-point match" if report.length else "money session"
    head = f"{report.file}: {'ok' if report.ok else 'FAILED'} ({kind}, X = {x}, O = {o})"
    lines = [head]
    if report.errors:
        lines.append(f"  first illegal action: {report.errors[0]}")
        lines.extend(f"  also: {e}" for e in report.errors[1:])
    for g in report.games:
        if g.winner is None:
            lines.append(f"  game {g.number}: unfinished")
            continue
        how = " (resigned)" if g.resigned else ""
        check = "" if g.verified else " (from the file, not replayed)"
        name = x if g.winner == "X" else o
        lines.append(f"  game {g.number}: {g.winner} ({name}) wins {g.points} point{'s' * (g.points != 1)}{how}{check}")
    fx, fo = report.final_score
    result = ""
    if report.length and max(fx, fo) >= report.length:
        result = f", {x if fx >= report.length else o} wins the match"
    elif report.length:
        result = ", match not finished"
    lines.append(f"  final score: {fx}-{fo}{result}")
    if with_notes:
        lines.extend(f"  note: {n}" for n in report.notes)
    return "\n".join(lines)


def _export(args: argparse.Namespace) -> int:
    try:
        mat = parse_mat(_read(args.file))
    except OSError as exc:
        print(f"cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except MatFileError as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 1
    match, report = match_from_mat(mat)
    if not report.ok:
        print(f"{args.file}: cannot export, {report.errors[0]}", file=sys.stderr)
        return 1
    headers = {k: v for k, v in mat.headers.items() if k in ("Site", "Event", "Round", "EventDate", "Player 1", "Player 2")}
    text = write_mat(match, headers)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
