"""Every checker play of the 200 real matches in ../shared/data/matches parses and is legal.

The files mix two dialects (see SOURCES.md there): Galaxy (``25/21``, ``6/0``, no ``*``, repeats
written out) and Studio (``bar/21``, ``6/off``, ``*``, ``(2)``, one checker's dice combined). The
reader here only pulls rolls and plays out of move lines; the real .mat module is rules part 2's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablecompanion.rules import Position

_ROLL = re.compile(r"(?<![\d/])([1-6])([1-6]):")
_GAME = re.compile(r"^\s*Game\s+\d+")
_HEADER = re.compile(r"^\s*(\S.*?)\s*:\s*\d+\s+(\S.*?)\s*:\s*\d+\s*$")


def read_plays(path: Path):
    """Yield ``(game_no, player, dice, text)`` for every roll of a .mat file, in order.

    ``player`` is 0 for the left column (player 1), 1 for the right.
    """
    game = 0
    split = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if _GAME.match(line):
            game += 1
            split = None
            continue
        if split is None:
            m = _HEADER.match(line)
            if m and game:
                split = m.start(2)
            continue
        if not re.match(r"^\s*\d+\)", line):
            continue
        rolls = list(_ROLL.finditer(line))
        for k, m in enumerate(rolls):
            # a long play may run up to the next column's roll with a single space between
            rest = line[m.end(): rolls[k + 1].start() if k + 1 < len(rolls) else None]
            rest = rest[1:] if rest.startswith(" ") else rest
            # the play runs to the column gap; a gap right after the roll means no play
            text = "" if rest[:1].isspace() else re.split(r"\s{2,}", rest, maxsplit=1)[0]
            player = 0 if m.start() < split else 1
            yield game, player, (int(m.group(1)), int(m.group(2))), text.strip()


def replay(path: Path) -> int:
    """Parse and apply every play of the file; return how many plays were checked."""
    pos = None
    on_roll = None
    current_game = None
    checked = 0
    for game, player, dice, text in read_plays(path):
        if game != current_game:
            current_game, pos, on_roll = game, Position.initial(), player
        assert player == on_roll, f"{path.name} game {game}: turn order broken at {dice} {text!r}"
        play = pos.parse_play(text, dice)
        legal = pos.legal_plays(dice)
        if legal:
            assert play in legal
        else:
            assert play.is_pass()
        pos = pos.apply(play) if not play.is_pass() else pos.swapped()
        on_roll = 1 - on_roll
        checked += 1
    return checked


@pytest.mark.slow
def test_every_play_of_the_real_matches_parses_and_is_legal(match_files):
    files = match_files
    assert len(files) == 200
    total = 0
    failures = []
    for path in files:
        try:
            total += replay(path)
        except Exception as exc:  # collect them all: one message per file
            failures.append(f"{path.name}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures[:20])
    assert total > 20000  # the 865 games hold tens of thousands of rolls


def test_the_reader_sees_both_dialects(match_files):
    files = match_files
    galaxy = next(p for p in files if p.name.startswith("match"))
    studio = next(p for p in files if "Studio" in p.name)
    g = list(read_plays(galaxy))
    s = list(read_plays(studio))
    assert any("25/" in t or "/0" in t for *_, t in g)
    assert any("bar/" in t or "(2)" in t or "*" in t for *_, t in s)
