"""Properties over random matches: undo restores every earlier state, and a written .mat replays
to the same games. Random but legal play: dice, plays, cube decisions and resignations."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablecompanion.rules.actions import (
    AcceptResign,
    Beaver,
    Double,
    OpeningRoll,
    Pass,
    PlayAction,
    RejectResign,
    Resign,
    Roll,
    Take,
)
from tablecompanion.rules.match import Match
from tablecompanion.rules.matfile import match_from_mat, parse_mat, write_mat


def random_action(match: Match, rng: random.Random):
    g = match.game
    a = g.awaiting
    if a == "opening_roll":
        return OpeningRoll(rng.randint(1, 6), rng.randint(1, 6))
    if a in ("roll", "roll_or_double", "play", "take_or_pass") and rng.random() < 0.01:
        return Resign(rng.choice(["single", "gammon", "backgammon"]))
    if a == "roll_or_double":
        return Double() if rng.random() < 0.15 else Roll(rng.randint(1, 6), rng.randint(1, 6))
    if a == "roll":
        return Roll(rng.randint(1, 6), rng.randint(1, 6))
    if a == "play":
        plays = g.legal_plays()
        return PlayAction(rng.choice(plays) if plays else None)
    if a == "take_or_pass":
        r = rng.random()
        if match.beaver and not g._beaver and r < 0.1:
            return Beaver()
        return Take() if r < 0.75 else Pass()
    if a == "resign_response":
        return AcceptResign() if rng.random() < 0.6 else RejectResign()
    raise AssertionError(a)


def play_random(match: Match, rng: random.Random, limit: int) -> list[tuple]:
    states = [(match.gnubg_id(), dict(match.score), len(match.games))]
    while not match.is_over and len(states) <= limit:
        match.apply(random_action(match, rng))
        states.append((match.gnubg_id(), dict(match.score), len(match.games)))
    return states


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), length=st.sampled_from([0, 1, 3, 5]))
def test_undo_walks_back_through_every_state(seed, length):
    rng = random.Random(seed)
    m = Match(length, beaver=length == 0, jacoby=length == 0)
    states = play_random(m, rng, 120)
    for expected in reversed(states[:-1]):
        m.undo()
        assert (m.gnubg_id(), dict(m.score), len(m.games)) == expected


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), length=st.sampled_from([1, 3, 5, 7]))
def test_written_match_replays_to_the_same_games(seed, length):
    rng = random.Random(seed)
    m = Match(length, ("Ann", "Ben"))
    play_random(m, rng, 1500)
    again, report = match_from_mat(parse_mat(write_mat(m)))
    assert report.ok, report.errors
    assert [(g.winner, g.points, g.level, g.how, g.score_before) for g in again.games] == [
        (g.winner, g.points, g.level, g.how, g.score_before) for g in m.games
    ]
