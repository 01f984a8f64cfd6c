"""Real matches (Backgammon Studio .mat files) played through the referee reach the file's final score."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecompanion.referee import Referee
from tablecompanion.referee.matplay import play_mat, settings_for
from tablecompanion.rules.matfile import check_mat, parse_mat

MATCHES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "matches"


def _files() -> list[Path]:
    return sorted(MATCHES.glob("*.mat")) if MATCHES.exists() else []


def _replay(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    mat = parse_mat(text)
    report = check_mat(mat)
    if not report.ok:
        pytest.skip(f"{path.name}: the rules checker rejects the file: {report.errors[:1]}")
    ref = Referee("1", settings_for(mat))
    play_mat(ref, mat)
    snap = ref.snapshot()
    assert tuple(snap["score"]) == tuple(report.final_score), path.name
    assert [(g["winner"], g["points"]) for g in snap["games"]] == [
        (g.winner, g.points) for g in report.games if g.winner is not None][:len(snap["games"])]
    if mat.length and max(snap["score"]) >= mat.length:
        assert snap["status"] == "match_over"


def test_sample_of_real_matches():
    files = _files()
    if not files:
        pytest.skip(f"match files not found: {MATCHES}")
    for path in files[::40]:
        _replay(path)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(0, 200))
def test_every_real_match(index):
    files = _files()
    if index >= len(files):
        pytest.skip(f"no match file #{index} in {MATCHES}")
    _replay(files[index])
