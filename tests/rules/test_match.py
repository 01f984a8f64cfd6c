"""Matches: score, Crawford exactly once, match over, undo by replay, Match ID / XGID of any state."""

from __future__ import annotations

import json
from pathlib import Path

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
from tablecompanion.rules.ids import MatchState
from tablecompanion.rules.match import Match
from tablecompanion.rules.position import Position
from tablecompanion.rules.xgid import Xgid
from tests.rules.conftest import need

SCORING = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "rules" / "gnubg_scoring_dev.jsonl"


def win_by_drop(m: Match, winner: str) -> None:
    """One short game: the winner doubles at his first turn and the other passes."""
    m.apply(OpeningRoll(3, 1) if winner == "O" else OpeningRoll(1, 3))
    m.apply(PlayAction("8/5 6/5"))
    if m.game.awaiting == "roll_or_double":
        m.apply(Double())
        m.apply(Pass())
    else:  # Crawford game: resign a single instead
        m.apply(Resign("single", player="X" if winner == "O" else "O"))
        m.apply(AcceptResign())


def test_crawford_game_comes_exactly_once():
    m = Match(3, ("Ann", "Ben"))
    assert m.crawford_state == "pre"
    win_by_drop(m, "X")
    win_by_drop(m, "X")
    assert m.score == {"X": 2, "O": 0} and m.crawford_state == "crawford" and m.game.crawford
    m.apply(OpeningRoll(5, 2))
    m.apply(PlayAction("13/11 13/8"))
    with pytest.raises(ActionError, match="no doubling in the Crawford game"):
        m.apply(Double())
    m.apply(Resign("single", player="X"))
    m.apply(AcceptResign())
    assert m.score == {"X": 2, "O": 1} and m.crawford_state == "post" and not m.game.crawford
    assert m.games[-1].crawford is True
    win_by_drop(m, "O")  # post-Crawford: doubling allowed again, 2-2
    assert m.crawford_state == "post" and not m.is_over and m.games[-1].crawford is False
    win_by_drop(m, "O")
    assert m.is_over and m.winner == "O" and m.score == {"X": 2, "O": 3}
    with pytest.raises(ActionError, match="the match is over: O won 2-3"):
        m.apply(OpeningRoll(1, 2))


def test_no_crawford_when_rule_off_or_money():
    m = Match(3, crawford=False)
    win_by_drop(m, "X")
    win_by_drop(m, "X")
    assert m.crawford_state is None and not m.game.crawford
    assert Match(0).crawford_state is None


def test_one_point_match_is_post_crawford_from_the_start():
    m = Match(1)
    assert m.crawford_state == "post" and not m.game.crawford
    win_by_drop(m, "X")
    assert m.is_over and m.winner == "X" and m.games[0].crawford is False


def test_points_are_not_capped():
    m = Match(3, score=(1, 0))
    m.set_position(_gammon_position(), "X", cube_value=2, cube_owner="O")
    m.apply(Roll(2, 1))
    m.apply(PlayAction("1/off"))
    assert m.games[-1].points == 4 and m.score == {"X": 5, "O": 0} and m.is_over


def _gammon_position() -> Position:
    me = [0] * 25
    me[0] = 1
    opp = [0] * 25
    opp[5] = 15
    return Position(me, opp)


def test_money_session_never_ends_and_keeps_options():
    m = Match(0, jacoby=True, beaver=True)
    for _ in range(3):
        win_by_drop(m, "X")
    assert m.score == {"X": 3, "O": 0} and not m.is_over and m.winner is None
    with pytest.raises(ActionError):
        Match(5, jacoby=True)


def test_undo_replays_and_crosses_game_boundaries():
    m = Match(5)
    m.apply(OpeningRoll(3, 1))
    m.apply(PlayAction("8/5 6/5"))
    m.apply(Double())
    before_pass = (m.game.position, m.game.awaiting, m.match_id())
    m.apply(Pass())
    assert m.score == {"X": 0, "O": 1} and m.game.awaiting == "opening_roll"
    assert isinstance(m.undo(), Pass)
    assert (m.game.position, m.game.awaiting, m.match_id()) == before_pass
    assert m.score == {"X": 0, "O": 0} and m.games == []
    assert isinstance(m.undo(), Double)
    assert m.game.awaiting == "roll_or_double"
    m.apply(Roll(6, 4))
    assert [type(a).__name__ for a in m.actions] == ["OpeningRoll", "PlayAction", "Roll"]
    for _ in range(3):
        m.undo()
    with pytest.raises(ActionError, match="nothing to undo"):
        m.undo()


def test_undo_after_match_end():
    m = Match(1)
    win_by_drop(m, "O")
    assert m.is_over
    m.undo()
    assert not m.is_over and m.game.awaiting == "take_or_pass"


def test_bad_match_settings_are_typed_errors():
    for kwargs in ({"length": -1}, {"length": 3, "score": (3, 0)}, {"length": 3, "players": ("a",)}):
        with pytest.raises(ActionError):
            Match(**kwargs)
    m = Match(3)
    m.apply(OpeningRoll(3, 1))
    with pytest.raises(ActionError, match="before the game's first action"):
        m.set_position(Position.initial(), "X")


def test_match_id_states_decode_back():
    m = Match(7, ("Ann", "Ben"), score=(2, 5))
    m.apply(OpeningRoll(6, 2))
    st = MatchState.from_match_id(m.match_id())
    assert (st.dice, st.player_on_roll, st.score, st.match_length, st.game_state) == ((6, 2), 0, (2, 5), 7, "playing")
    m.apply(PlayAction("24/18 13/11"))
    m.apply(Double())
    st = MatchState.from_match_id(m.match_id())
    assert st.double_offered and st.player_on_roll == 1 and st.turn == 0 and st.cube == 1
    m.apply(Take())
    st = MatchState.from_match_id(m.match_id())
    assert (st.cube, st.cube_owner, st.turn, st.double_offered) == (2, 0, 1, False)
    m.apply(Resign("gammon"))
    st = MatchState.from_match_id(m.match_id())
    assert st.resignation == "gammon" and st.turn == 0


def test_xgid_of_a_state_parses_back_to_it():
    m = Match(5, score=(1, 3))
    m.apply(OpeningRoll(2, 4))
    x = Xgid.parse(m.xgid())
    assert (x.turn, x.dice, x.score, x.match_length, x.position) == ("O", (4, 2), (1, 3), 5, m.game.position)
    m.apply(PlayAction("8/4 6/4"))
    m.apply(Double())
    x = Xgid.parse(m.xgid())
    assert x.cube_action == "double" and x.turn == "X" and x.dice == (0, 0)


def test_from_xgid_sets_up_the_same_state():
    m = Match(7, score=(6, 3))
    assert m.game.crawford
    m.apply(OpeningRoll(4, 2))
    m.apply(PlayAction("8/4 6/4"))
    m.apply(Roll(6, 6))
    again = Match.from_xgid(m.xgid())
    assert again.xgid() == m.xgid() and again.game.crawford and again.crawford_state == "crawford"
    assert again.match_id() == m.match_id()
    post = Match(7, score=(6, 3), post_crawford=True)
    post.apply(OpeningRoll(4, 2))
    post.apply(PlayAction("8/4 6/4"))
    post.apply(Double())
    again = Match.from_xgid(post.xgid())
    assert again.crawford_state == "post" and again.game.awaiting == "take_or_pass"
    assert again.xgid() == post.xgid()
    with pytest.raises(ActionError, match="exactly one player"):
        Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:2:4:1:7:10")


def _scoring_cases() -> list[dict]:
    if not SCORING.exists():
        return []
    return [json.loads(line) for line in SCORING.read_text().splitlines() if line.strip()]


def test_gnubg_ids_of_set_up_states_match_gnubgs():
    """Set up each oracle case with gnubg's player numbering: our PositionID:MatchID is gnubg's."""
    need(SCORING)
    owner_map = {"centered": None}
    checked = 0
    for case in _scoring_cases():
        if "gnubg_id_before" not in case:  # the drop cases carry no ID
            continue
        on_roll = "X" if case["turn"] == 0 else "O"
        opp = "O" if on_roll == "X" else "X"
        score = {on_roll: case["score_on_roll"], opp: case["score_opponent"]}
        m = Match(
            case["match_length"],
            jacoby=case["jacoby"],
            score=(score["X"], score["O"]),
            post_crawford=case["phase"] == "post_crawford",
        )
        owner = owner_map.get(case["cube_owner"], on_roll if case["cube_owner"] == "on_roll" else opp)
        m.set_position(Position.from_position_id(case["position_id"]), on_roll, cube_value=case["cube_value"], cube_owner=owner)
        if case["ending"] == "bearoff":
            m.apply(Roll(*case["dice"]))
        assert m.gnubg_id() == case["gnubg_id_before"], case["id"]
        checked += 1
    assert checked == 264


def test_match_copy_is_independent_and_undo_covers_standing_plays():
    from tablecompanion.rules.actions import StandingPlay

    m = Match(5)
    m.apply(OpeningRoll(3, 1))
    twin = m.copy()
    wrong = Position(m.game.position.on_roll[:6] + (1,) + m.game.position.on_roll[7:12] + (4,) + m.game.position.on_roll[13:], m.game.position.opponent)
    m.apply(StandingPlay(wrong, "13/7"))
    assert m.game.turn == "O" and twin.game.turn == "X" and twin.game.awaiting == "play"
    win_by_drop_twin = twin.copy()
    win_by_drop_twin.apply(PlayAction("8/5 6/5"))
    assert len(twin.game.history) == 1
    assert isinstance(m.undo(), StandingPlay) and m.game.awaiting == "play"
    m.apply(StandingPlay(wrong))
    assert m.game.position == wrong.swapped()


def test_as_dict_is_json_ready_and_follows_the_state():
    m = Match(3, ("Ann", "Ben"))
    win_by_drop(m, "O")
    m.apply(OpeningRoll(5, 2))
    d = json.loads(json.dumps(m.as_dict()))
    assert d["score"] == [0, 1] and d["game"]["number"] == 2 and d["game"]["awaiting"] == "play"
    assert d["game"]["turn"] == "X" and d["game"]["dice"] == [5, 2]
    assert d["game"]["board"]["X"][23] == 2 and sum(d["game"]["board"]["O"]) == 15
    assert d["games"][0]["winner"] == "O" and d["games"][0]["how"] == "pass"
    assert d["xgid"] == m.xgid() and d["match_id"] == m.match_id()


def test_a_refused_action_changes_nothing_and_ids_always_encode():
    """Random (mostly wrong) actions on matches and money sessions with every option: each refusal
    is an ActionError with a message and leaves the state as it was; every state has IDs."""
    import random

    from tablecompanion.rules.actions import Beaver, RejectResign

    rng = random.Random(5)
    refused = finished = 0
    for trial in range(30):
        options = [
            {"length": rng.choice([1, 3, 5])},
            {"length": 0, "jacoby": True, "beaver": True, "automatic_doubles": 2},
            {"length": 0, "cube_limit": 8, "backgammon_as_gammon": True},
        ][trial % 3]
        m = Match(**options)
        for _ in range(400):
            if m.is_over:
                break
            who = rng.choice([None, "X", "O"])
            plays = m.game.legal_plays()
            action = rng.choice([
                OpeningRoll(rng.randint(1, 6), rng.randint(1, 6)),
                Roll(rng.randint(1, 6), rng.randint(1, 6), player=who),
                PlayAction(rng.choice(plays) if plays and rng.random() < 0.9 else "8/5 6/5", player=who),
                PlayAction(rng.choice(plays) if plays else None, player=who),
                Double(player=who), Take(player=who), Pass(player=who), Beaver(player=who),
                Resign(rng.choice(["single", "gammon", "backgammon"]), player=who),
                AcceptResign(player=who), RejectResign(player=who),
            ])
            g = m.game
            before = (g.awaiting, g.turn, g.dice, g.cube_value, g.cube_owner, g.position, m.score, len(m.games),
                      m.match_id(), m.xgid())
            try:
                m.apply(action)
            except ActionError as exc:
                refused += 1
                assert str(exc)
                g = m.game
                assert before == (g.awaiting, g.turn, g.dice, g.cube_value, g.cube_owner, g.position, m.score,
                                  len(m.games), m.match_id(), m.xgid()), action
        finished += len(m.games)
    assert refused > 1000 and finished > 100
