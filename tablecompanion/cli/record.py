"""``tablecompanion record``: what a tournament director asks of a server's record, from the command line.

* ``record export --data-dir D --table 1 [-o OUT.mat]``: the match at a table as a ``.mat`` file (GNU
  Backgammon imports it);
* ``record ids --data-dir D --table 1 [--at N]``: the gnubg Position ID, Match ID and XGID now, or after
  history entry N (0 = first, negative from the end);
* ``record stats --data-dir D [--json]``: dice statistics per dice set across every match of the record.

It reads the record the server writes (SQLite in WAL mode, so it can run while the server does) and never
changes it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def register(subparsers) -> None:
    p = subparsers.add_parser("record", help="export matches, IDs and dice statistics from a server's record",
                              description="Read a TableCompanion record (the server's --data-dir).")
    sub = p.add_subparsers(dest="record_command", metavar="VERB")
    sub.required = True

    def common(q, table: bool = True):
        q.add_argument("--data-dir", type=Path, help="the record's folder (default: $TABLECOMPANION_DATA or "
                                                     "~/.local/share/tablecompanion)")
        if table:
            q.add_argument("--table", default="1", help="the table id (default 1)")

    q = sub.add_parser("export", help="a table's match as a .mat file")
    common(q)
    q.add_argument("-o", "--output", type=Path, help="write here (default: standard output)")
    q.set_defaults(func=run_export)

    q = sub.add_parser("ids", help="gnubg Position ID / Match ID and XGID, now or after history entry N")
    common(q)
    q.add_argument("--at", type=int, help="after history entry N (0 = first, -1 = last)")
    q.add_argument("--json", action="store_true", help="print JSON")
    q.set_defaults(func=run_ids)

    q = sub.add_parser("stats", help="dice statistics per dice set across every match")
    common(q, table=False)
    q.add_argument("--json", action="store_true", help="print JSON")
    q.set_defaults(func=run_stats)


class _Fail(Exception):
    pass


def _hall(args):
    from tablecompanion.referee import Hall
    from tablecompanion.referee.errors import RefereeError
    from tablecompanion.web import default_data_dir

    data_dir = (args.data_dir or default_data_dir()).expanduser()
    if not (data_dir / "record.sqlite3").is_file():
        raise _Fail(f"no record in {data_dir} (give the server's --data-dir)")
    try:
        return Hall(data_dir)
    except RefereeError as exc:
        raise _Fail(f"cannot open the record in {data_dir}: {exc.message}") from None


def _referee(hall, table_id: str):
    if str(table_id) not in hall:
        known = ", ".join(sorted(r.table_id for r in hall.tables())) or "none"
        why = hall.resume_errors.get(str(table_id))
        raise _Fail(f"table {table_id!r} could not be resumed: {why}" if why else
                    f"no table {table_id!r} in this record (tables: {known})")
    return hall.get(str(table_id))


def _run(fn, args) -> int:
    from tablecompanion.referee.errors import RefereeError

    hall = None
    try:
        hall = _hall(args)
        return fn(hall, args)
    except _Fail as exc:
        print(f"tablecompanion record: {exc}", file=sys.stderr)
        return 2
    except RefereeError as exc:
        print(f"tablecompanion record: {exc.message}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tablecompanion record: {exc}", file=sys.stderr)
        return 2
    finally:
        if hall is not None:
            hall.close()


def run_export(args) -> int:
    def go(hall, args) -> int:
        text = _referee(hall, args.table).export_mat()
        if args.output:
            args.output.write_text(text, encoding="utf-8")
            print(f"table {args.table}: match written to {args.output}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0

    return _run(go, args)


def run_ids(args) -> int:
    def go(hall, args) -> int:
        ref = _referee(hall, args.table)
        snap = ref.snapshot(public=True)
        if args.at is None:
            out = {"at": None, "position_id": snap.get("position_id"), "match_id": snap.get("match_id"),
                   "xgid": snap.get("xgid")}
        else:
            moment = ref.ids_at(args.at)
            out = {"at": args.at, "position_id": moment.get("position_id"), "match_id": moment.get("match_id"),
                   "xgid": moment.get("xgid")}
        out["gnubg_id"] = (f"{out['position_id']}:{out['match_id']}"
                           if out.get("position_id") and out.get("match_id") else None)
        if args.json:
            print(json.dumps(out))
        else:
            when = "now" if args.at is None else f"after history entry {args.at}"
            print(f"table {args.table}, {when}:")
            print(f"  gnubg ID  {out['gnubg_id']}")
            print(f"  XGID      {out['xgid']}")
        return 0

    return _run(go, args)


def run_stats(args) -> int:
    def go(hall, args) -> int:
        stats = hall.dice_statistics()
        stats = {str(k): (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in stats.items()}
        if args.json:
            print(json.dumps(stats, indent=1))
            return 0
        if not stats:
            print("no roll recorded yet")
            return 0
        for name, s in stats.items():
            faces = " ".join(f"{v}:{s['faces'][str(v)]}" for v in range(1, 7))
            line = f"{name}: {s['throws']} throws, {s['dice']} dice  faces {faces}"
            if s.get("doubles_rate") is not None:
                line += f"  doubles {100 * s['doubles_rate']:.1f}%"
            if s.get("chi2"):
                line += f"  faces chi2={s['chi2']['statistic']:.2f} p={s['chi2']['p_value']:.3f}"
            if s.get("doubles_chi2"):
                line += f"  doubles chi2={s['doubles_chi2']['statistic']:.2f} p={s['doubles_chi2']['p_value']:.3f}"
            print(line)
        return 0

    return _run(go, args)
