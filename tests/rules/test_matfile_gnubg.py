"""Round trip through real GNU Backgammon: import a .mat, export it with our writer, let gnubg import it.

gnubg must read our file without warnings and find the same games, winners, points, resignations
and scores as our replay. Needs ``/usr/games/gnubg`` (Debian package ``gnubg``): skipped where it
is missing, a failure when ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tablecompanion.rules.actions import (
    AcceptResign,
    Beaver,
    Double,
    OpeningRoll,
    Pass,
    PlayAction,
    Resign,
    Roll,
    Take,
)
from tablecompanion.rules.match import Match
from tablecompanion.rules.matfile import match_from_mat, parse_mat, write_mat

MATCHES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "matches"
# files that must be among them: Studio notation with bar/off/(2) and Cannot Move, Galaxy 25/0
# notation, resignations read from a Wins line, Losses lines, drops, Crawford and post-Crawford games
FILES = [
    "Bulgakov_-_Llabba_13pt_Backgammon_Studio_2023_09_12_13_54_06.mat",
    "match10041414.mat",
    "match12069224.mat",
    "match11829855.mat",
]
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)

SCRIPT = r"""
import gnubg, json, sys
for path in PATHS:
    gnubg.command("import mat " + path)
    m = gnubg.match(0, 0, 0, 0)
    games = [g["info"] for g in m["games"]]
    print("RESULT " + json.dumps({"path": path, "length": m["match-info"]["match-length"], "games": games}))
"""


def _need_gnubg() -> str:
    if GNUBG is None:
        if os.environ.get("CI") == "true":
            pytest.fail("gnubg is required in CI (Debian package gnubg, /usr/games/gnubg)")
        pytest.skip("gnubg not installed (Debian package gnubg, /usr/games/gnubg)")
    return GNUBG


def _gnubg_import(paths: list[Path], tmp_path: Path) -> tuple[dict[str, dict], str]:
    gnubg = _need_gnubg()
    script = tmp_path / "import_all.py"
    script.write_text(f"PATHS = {json.dumps([str(p) for p in paths])}\n" + SCRIPT)
    proc = subprocess.run(
        [gnubg, "-t", "-q", "-r", "-p", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    out = proc.stdout + proc.stderr
    results = {}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[7:])
            results[r["path"]] = r
    assert len(results) == len(paths), f"gnubg did not report every file:\n{out[-3000:]}"
    return results, out


def _ours(match: Match) -> list[tuple]:
    return [(g.winner, g.points, g.resigned, g.score_before) for g in match.games]


def _theirs(games: list[dict]) -> list[tuple]:
    return [(g["winner"], g["points-won"], g["resigned"], (g["score-X"], g["score-O"])) for g in games]


@pytest.mark.slow
def test_exported_files_import_into_gnubg_unchanged(tmp_path):
    """Every one of the 200 real matches: read, replay, write, and gnubg reads the same games."""
    _need_gnubg()
    missing = [f for f in FILES if not (MATCHES / f).exists()]
    if missing:
        message = f"match files not found: {MATCHES / missing[0]}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    names = sorted(p.name for p in MATCHES.glob("*.mat"))
    assert len(names) == 200 and set(FILES) <= set(names)
    exported = []
    ours = {}
    for name in names:
        mat = parse_mat((MATCHES / name).read_text(encoding="utf-8"))
        match, report = match_from_mat(mat)
        assert report.ok, report.errors
        path = tmp_path / name
        path.write_text(write_mat(match, {"Site": "TableCompanion test"}))
        exported.append(path)
        ours[str(path)] = match
        # our own reader reads our writer's output back to the same games
        again, report2 = match_from_mat(parse_mat(path.read_text()))
        assert report2.ok, report2.errors
        assert _ours(again) == _ours(match)
    results, log = _gnubg_import(exported, tmp_path)
    assert "Invalid move" not in log and "Unrecognised" not in log, log[-2000:]
    for path, match in ours.items():
        r = results[path]
        assert r["length"] == match.length
        assert _theirs(r["games"]) == _ours(match), path


def test_engine_made_match_with_cube_and_resignation_round_trips(tmp_path):
    """A game our engine made (not read from a file): cube turned, then a gammon resigned."""
    _need_gnubg()
    m = Match(5, ("Ann", "Ben"))
    m.apply(OpeningRoll(3, 1))
    m.apply(PlayAction("8/5 6/5"))
    m.apply(Double())  # O doubles at once
    m.apply(Take())
    m.apply(Roll(6, 6))
    m.apply(PlayAction(m.game.legal_plays()[0]))
    m.apply(Roll(2, 1))
    m.apply(PlayAction("13/11 6/5"))
    m.apply(Resign("gammon"))  # O (on turn) gives up a gammon on a 2-cube: 4 points to X
    m.apply(AcceptResign())
    assert m.games[-1].points == 4 and m.games[-1].winner == "X"
    m.apply(OpeningRoll(2, 5))  # game 2: O wins a single by X's resignation after O's roll
    m.apply(PlayAction("13/11 13/8"))
    m.apply(Roll(6, 5))
    m.apply(Resign("single"))
    m.apply(AcceptResign())
    money = Match(0, ("Ann", "Ben"), beaver=True)  # a money game with a beaver
    money.apply(OpeningRoll(3, 1))
    money.apply(PlayAction("8/5 6/5"))
    money.apply(Double())
    money.apply(Beaver())
    money.apply(Take())
    money.apply(Roll(6, 5))
    money.apply(PlayAction("24/13"))
    money.apply(Double())
    money.apply(Pass())
    assert (money.games[0].winner, money.games[0].points) == ("X", 4)
    paths = {tmp_path / "made.mat": m, tmp_path / "money.mat": money}
    for path, match in paths.items():
        path.write_text(write_mat(match))
    results, log = _gnubg_import(list(paths), tmp_path)
    assert "Invalid move" not in log and "Unrecognised" not in log
    for path, match in paths.items():
        assert _theirs(results[str(path)]["games"]) == _ours(match), path.name


EXPORT_SCRIPT = r"""
import gnubg, json
for src, out in PAIRS:
    gnubg.command("import mat " + src)
    gnubg.command('export match mat "' + out + '"')
print("EXPORTED")
"""


@pytest.mark.slow
def test_gnubgs_own_export_of_every_match_checks_the_same(tmp_path):
    """GNU Backgammon's own .mat writer (single-die steps, 25/0 style, and descriptions such as
    '7/1 1/0' that are only legal as a result) read by our checker: all 200 files replay legally and
    agree with gnubg_results.jsonl on every game's winner and points and the final score."""
    gnubg = _need_gnubg()
    results = MATCHES / "gnubg_results.jsonl"
    if not results.exists():
        message = f"match files not found: {results}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    expected = {r["file"]: r for r in map(json.loads, results.read_text(encoding="utf-8").splitlines()) if r}
    pairs = [(str(MATCHES / name), str(tmp_path / name)) for name in sorted(expected)]
    script = tmp_path / "export_all.py"
    script.write_text(f"PAIRS = {json.dumps(pairs)}\n" + EXPORT_SCRIPT)
    proc = subprocess.run([gnubg, "-t", "-q", "-r", "-p", str(script)], capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    assert "EXPORTED" in proc.stdout, (proc.stdout + proc.stderr)[-2000:]
    from tablecompanion.rules.matfile import check_text  # noqa: PLC0415

    wrong = []
    for name, exp in expected.items():
        report = check_text((tmp_path / name).read_text(encoding="utf-8"), name)
        games = [{"winner": g.winner, "points": g.points} for g in report.games]
        want = [{"winner": g["winner"], "points": g["points"]} for g in exp["per_game"]]
        if not report.ok or games != want or list(report.final_score) != exp["final_score"]:
            wrong.append((name, report.errors[:1]))
    assert len(expected) == 200 and not wrong, wrong[:3]
