"""Legal plays cross-checked on positions of our own: against a plain reference generator and
against GNU Backgammon's (the ``gnubg`` PyPI binding), on the awkward kinds of position (several
checkers on the bar, partial entry, closed boards, primes, bear-offs with and without contact, the
last checkers coming home) and on random self-play games.

The dev file has 500 gnubg cases; a held-out set is made the same way, so the engine is also held
to gnubg on positions it has never seen.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from tablecompanion.rules import Position
from tests.rules.reference_moves import KINDS, random_position, reference_results

ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def _results(pos: Position, dice) -> set:
    out = set()
    for play in pos.legal_plays(dice):
        after = play.result()
        out.add((after.on_roll, after.opponent))
    return out


def test_reference_generator_agrees_with_gnubg_dev_file(legal_cases):
    """The reference itself is right: it gives gnubg's result set on every dev case."""
    for case in legal_cases:
        pos = Position.from_position_id(case["position_id"])
        got = {Position.from_board(*r).position_id() for r in reference_results(pos.on_roll, pos.opponent, case["dice"])}
        assert got == {e["mover_view_position_id"] for e in case["legal"]}, case["id"]


@pytest.mark.parametrize("kind", KINDS)
def test_engine_agrees_with_the_reference_generator(kind):
    rng = random.Random(f"crosscheck-{kind}")
    checked = 0
    for _ in range(300):
        pos = Position.from_board(*random_position(rng, kind))
        for dice in rng.sample(ALL_ROLLS, 4):
            assert _results(pos, dice) == reference_results(pos.on_roll, pos.opponent, dice), (
                kind, pos.position_id(), dice)
            checked += 1
    assert checked == 1200


def test_random_positions_cover_the_awkward_cases():
    """The generator really produces what the checks above claim to cover."""
    rng = random.Random(3)
    seen = Counter()
    for i in range(800):
        kind = KINDS[i % len(KINDS)]
        pos = Position.from_board(*random_position(rng, kind))
        for dice in ALL_ROLLS:
            plays = pos.legal_plays(dice)
            if pos.bar[0] >= 2:
                seen["bar_multi"] += 1
            if plays and plays[0].result().bar[0]:  # some entered, the rest stay on the bar
                seen["partial_entry"] += 1
            if not plays:
                seen["no_move"] += 1
            if any(p.bears_off for p in plays):
                seen["bear_off"] += 1
            if plays and dice[0] != dice[1] and plays[0].dice_used == 1:
                seen["one_die"] += 1
                if all(p.dice_played == (max(dice),) for p in plays):
                    seen["higher_die"] += 1
            if dice[0] == dice[1] and plays and plays[0].dice_used in (1, 2, 3):
                seen["doubles_partly"] += 1
            if any(p.hits for p in plays):
                seen["hit"] += 1
    for what in ("bar_multi", "partial_entry", "no_move", "bear_off", "one_die", "higher_die",
                 "doubles_partly", "hit"):
        assert seen[what] >= 20, (what, seen)


# ------------------------------------------------------------------------------------------
# GNU Backgammon's own generator (the PyPI binding) as oracle


def _gnubg():
    try:
        import gnubg  # noqa: PLC0415
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("the gnubg binding (pip extra 'oracle') is required under CI")
        pytest.skip("gnubg binding not installed (pip install gnubg)")
    return gnubg


def _apply_steps(pos: Position, flat) -> Position:
    """Apply gnubg's ``(from, to, from, to, ...)`` (mover's numbering, 25 bar), independently."""
    me, opp = list(pos.on_roll), list(pos.opponent)
    for i in range(0, len(flat), 2):
        src, dst = flat[i], flat[i + 1]
        me[src - 1] -= 1
        if dst > 0:
            if opp[24 - dst] == 1:
                opp[24 - dst] = 0
                opp[24] += 1
            me[dst - 1] += 1
    return Position.from_board(me, opp)


def _one_to_one(plays, entries, gnubg) -> bool:
    """True when gnubg's plays and ours pair off one to one, each pair reaching the same position.

    The binding cuts a move tuple at the first checker borne off (its "off" is the -1 that also
    ends the list), so a bear-off play is identified by its 0-ply equity instead: gnubg's score of
    the play must equal gnubg's evaluation of our resulting position.
    """
    cube, ctx = gnubg.cube_info(), gnubg.eval_context()
    equity: dict[int, float] = {}

    def fits(j: int, entry) -> bool:
        play = plays[j]
        flat = tuple(entry["move"])
        if len(flat) % 2 == 0:
            return play.result() == _apply_steps(play.position, flat)
        if not play.bears_off:
            return False
        if j not in equity:
            nxt = play.position.apply(play)
            equity[j] = -gnubg.evaluate((nxt.opponent, nxt.on_roll), cube, ctx)[5]
        return abs(equity[j] - entry["score"]) < 2e-3

    options = [[j for j in range(len(plays)) if fits(j, e)] for e in entries]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set) -> bool:
        for j in options[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(entries)))


@pytest.mark.slow
def test_legal_plays_pair_off_with_the_gnubg_binding():
    gnubg = _gnubg()
    cube, ctx = gnubg.cube_info(), gnubg.eval_context()
    rng = random.Random(2026)
    cases = []
    for i in range(480):
        pos = Position.from_board(*random_position(rng, KINDS[i % len(KINDS)]))
        cases.extend((pos, dice) for dice in rng.sample(ALL_ROLLS, 2))
    pos = Position.initial()
    for _ in range(400):  # one long random self-play line, restarted when a game ends
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        cases.append((pos, dice))
        plays = pos.legal_plays(dice)
        pos = pos.apply(rng.choice(plays)) if plays else pos.swapped()
        if pos.winner():
            pos = Position.initial()
    wrong = []
    for pos, dice in cases:
        plays = pos.legal_plays(dice)
        entries = gnubg.find_best_moves((pos.opponent, pos.on_roll), cube, ctx, dice)
        if len(plays) != len(entries) or not _one_to_one(plays, entries, gnubg):
            wrong.append((pos.position_id(), dice, len(plays), len(entries)))
    assert not wrong, f"{len(wrong)} of {len(cases)} position-rolls differ from gnubg, e.g. {wrong[:3]}"
