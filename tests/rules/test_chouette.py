"""Chouette: order from the rolls, team and box doubles, droppers, per-member results, rotation."""

from __future__ import annotations

import pytest

from tablecompanion.rules.actions import (
    AcceptResign,
    ActionError,
    Double,
    OpeningRoll,
    Pass,
    PlayAction,
    Resign,
    Roll,
    Take,
)
from tablecompanion.rules.chouette import Chouette


def four() -> Chouette:
    return Chouette.from_rolls({"Ann": 6, "Ben": (2, 5), "Cat": 4, "Dan": (2, 3)})


def box_to_move(ch: Chouette) -> None:
    """Box opens, team plays one roll: the box is on turn, before rolling."""
    ch.apply(OpeningRoll(3, 1))
    ch.apply(PlayAction("8/5 6/5"))
    ch.apply(Roll(6, 4))
    ch.apply(PlayAction("24/14"))


def test_order_from_the_rolls_with_tie_breaks():
    ch = four()
    assert (ch.box, ch.team, ch.captain) == ("Ann", ["Cat", "Ben", "Dan"], "Cat")
    with pytest.raises(ActionError, match="tied at 2: both roll again"):
        Chouette.from_rolls({"Ann": 6, "Ben": 2, "Cat": 2})
    with pytest.raises(ActionError, match="three players"):
        Chouette.from_rolls({"Ann": 6, "Ben": 2})
    with pytest.raises(ActionError):
        Chouette.from_rolls({"Ann": 7, "Ben": 2, "Cat": 1})


def test_box_double_each_member_answers_droppers_pay_at_once():
    ch = four()
    box_to_move(ch)
    ch.apply(Double())
    assert ch.awaiting == "members_respond" and ch.waiting_for == ["Cat", "Ben", "Dan"]
    with pytest.raises(ActionError, match="must take or pass first"):
        ch.apply(Roll(3, 2))
    with pytest.raises(ActionError, match="which team member"):
        ch.apply(Take())
    ch.apply(Pass(), member="Ben")
    with pytest.raises(ActionError, match="already answered"):
        ch.apply(Take(), member="Ben")
    with pytest.raises(ActionError, match="not playing"):
        ch.apply(Take(), member="Ann")
    ch.apply(Take(), member="Cat")
    assert ch.scores["Ben"] == 0  # not settled until everyone has answered
    ch.apply(Pass(), member="Dan")
    assert ch.scores == {"Ann": 2, "Ben": -1, "Cat": 0, "Dan": -1}
    assert ch.active == ["Cat"] and ch.game.cube_value == 2 and ch.game.cube_owner == "O"
    assert ch.awaiting == "roll"  # the box rolls after the take
    # the box wins the game: Cat resigns a single at 2
    ch.apply(Resign("single", player="O"))
    ch.apply(AcceptResign())
    rec = ch.games[-1]
    assert [(r.member, r.points, r.how) for r in rec.results] == [
        ("Ben", -1, "dropped"),
        ("Dan", -1, "dropped"),
        ("Cat", -2, "resign"),
    ]
    assert rec.box_won and rec.box_points == 4 and ch.scores == {"Ann": 4, "Ben": -1, "Cat": -2, "Dan": -1}
    # box won: box stays, captain goes to the end of the line
    assert (ch.box, ch.team) == ("Ann", ["Ben", "Dan", "Cat"])


def test_everyone_drops_ends_the_game_for_the_box():
    ch = four()
    box_to_move(ch)
    ch.apply(Double())
    for m in ("Cat", "Ben", "Dan"):
        ch.apply(Pass(), member=m)
    assert ch.scores["Ann"] == 3 and len(ch.games) == 1 and ch.games[0].box_won
    assert ch.game.awaiting == "opening_roll" and ch.active == ["Ben", "Dan", "Cat"]


def test_team_doubles_together_and_box_passes_to_everyone():
    ch = four()
    ch.apply(OpeningRoll(3, 1))
    ch.apply(PlayAction("8/5 6/5"))
    ch.apply(Double())  # the captain doubles for the team
    assert ch.game.awaiting == "take_or_pass" and ch.game.actor == "X"
    ch.apply(Pass())  # the box refuses: pays 1 to each member
    assert ch.scores == {"Ann": -3, "Ben": 1, "Cat": 1, "Dan": 1}
    # team won: the captain becomes the box, the old box goes to the end, next member captains
    assert (ch.box, ch.team) == ("Cat", ["Ben", "Dan", "Ann"])


def test_only_the_captain_acts_for_the_team():
    ch = four()
    ch.apply(OpeningRoll(1, 3))  # the captain opens
    with pytest.raises(ActionError, match="Ben is not the captain: Cat acts"):
        ch.apply(PlayAction("8/5 6/5"), member="Ben")
    ch.apply(PlayAction("8/5 6/5"), member="Cat")


def test_captain_who_drops_hands_over_and_the_next_member_becomes_box_on_a_team_win():
    ch = four()
    box_to_move(ch)
    ch.apply(Double())
    ch.apply(Pass(), member="Cat")
    ch.apply(Take(), member="Ben")
    ch.apply(Take(), member="Dan")
    assert ch.captain == "Ben"
    ch.apply(Resign("gammon", player="X"))  # the box gives up a gammon on the 2-cube
    ch.apply(AcceptResign())
    assert ch.scores == {"Ann": 1 - 8, "Ben": 4, "Cat": -1, "Dan": 4}
    assert (ch.box, ch.team) == ("Ben", ["Cat", "Dan", "Ann"])


def test_random_sessions_stay_zero_sum_and_rotate_by_the_rules():
    """Random (often wrong) actions from random members: refused ones are ActionErrors, scores always
    sum to zero, nobody appears or vanishes, and each finished game rotates as RULES.md says."""
    import random

    rng = random.Random(8)
    finished = 0
    for _ in range(25):
        names = ["Ann", "Ben", "Cat", "Dan", "Eve"][: rng.randint(3, 5)]
        ch = Chouette(names[0], names[1:], jacoby=rng.random() < 0.5, automatic_doubles=rng.choice([0, 1]))
        for _ in range(500):
            box, team, played = ch.box, list(ch.team), len(ch.games)
            captain = ch.captain
            k = rng.randrange(9)
            plays = ch.game.legal_plays()
            action = [
                OpeningRoll(rng.randint(1, 6), rng.randint(1, 6)),
                Roll(rng.randint(1, 6), rng.randint(1, 6)),
                PlayAction(rng.choice(plays) if plays else None),
                PlayAction(rng.choice(plays) if plays else None),
                Double(), Take(), Pass(), Resign(rng.choice(["single", "gammon"])), AcceptResign(),
            ][k]
            try:
                ch.apply(action, member=rng.choice([None, *names]))
            except ActionError:
                pass
            assert sum(ch.scores.values()) == 0
            assert sorted([ch.box, *ch.team]) == sorted(names)
            if len(ch.games) > played:
                finished += 1
                rec = ch.games[-1]
                if rec.box_won:
                    assert (ch.box, ch.team) == (box, team[1:] + team[:1])
                else:
                    assert ch.box == captain and ch.team[-1] == box
    assert finished >= 50
