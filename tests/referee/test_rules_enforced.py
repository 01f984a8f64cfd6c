"""Every rule the referee enforces, through ``Referee.act`` as the dashboard and the operator use it."""

from __future__ import annotations

import pytest

from tablecompanion.referee import RefereeError, TableSettings

from .conftest import decisions, refused


def start(ref, x_die=3, o_die=1, play="8/5 6/5"):
    """Opening roll and first play; X starts when ``x_die > o_die``."""
    ref.act({"action": "roll", "dice": [x_die, o_die]})
    ref.act({"action": "play", "play": play})


# -- opening roll --------------------------------------------------------------------------------


def test_opening_roll_higher_die_starts_with_both_numbers(make_ref):
    ref = make_ref()
    out = ref.act({"action": "roll", "dice": [2, 5]})
    assert decisions(out) == ["opening_roll"]
    snap = ref.snapshot()
    assert snap["turn"] == "O" and snap["dice"] == [5, 2] and snap["awaiting"] == "play"
    assert "13/11 13/8" in snap["legal_plays"]
    assert out[0]["message"] == "Bob starts with 5-2"


def test_opening_tie_is_rolled_again_and_recorded(make_ref):
    ref = make_ref()
    out = ref.act({"action": "roll", "dice": [4, 4]})
    assert decisions(out) == ["opening_roll_tie"]
    snap = ref.snapshot()
    assert snap["turn"] is None and snap["awaiting"] == "opening_roll" and snap["cube"]["value"] == 1
    assert snap["history"][-1]["action"] == "opening_roll" and snap["history"][-1]["tie"] is True
    assert decisions(ref.act({"action": "roll", "dice": [6, 1]})) == ["opening_roll"]
    assert ref.snapshot()["turn"] == "X"


def test_opening_roll_cannot_name_a_player(make_ref):
    ref = make_ref()
    refused(ref, {"action": "roll", "dice": [6, 1], "player": "X"}, 409, contains="one die each")


def test_money_automatic_doubles_up_to_the_limit(make_ref):
    ref = make_ref(match_length=0, automatic_doubles=1)
    out = ref.act({"action": "roll", "dice": [3, 3]})
    assert decisions(out) == ["opening_roll_tie", "automatic_double"]
    assert ref.snapshot()["cube"] == {"value": 2, "owner": None}
    out = ref.act({"action": "roll", "dice": [2, 2]})  # the limit of one is used up
    assert decisions(out) == ["opening_roll_tie"]
    assert ref.snapshot()["cube"]["value"] == 2


def test_no_automatic_doubles_in_a_match(make_ref):
    with pytest.raises(RefereeError) as err:
        make_ref(match_length=5, automatic_doubles=1)
    assert err.value.status == 400


# -- turns -----------------------------------------------------------------------------------------


def test_rolling_out_of_turn_is_refused(make_ref):
    ref = make_ref()
    start(ref)
    refused(ref, {"action": "roll", "dice": [6, 5], "player": "X"}, 409, contains="cannot roll")
    assert decisions(ref.act({"action": "roll", "dice": [6, 5], "player": "O"})) == ["roll"]


def test_rolling_again_before_playing_is_refused(make_ref):
    ref = make_ref()
    ref.act({"action": "roll", "dice": [3, 1]})
    refused(ref, {"action": "roll", "dice": [6, 5]}, 409, contains="play")


def test_playing_without_dice_is_refused(make_ref):
    ref = make_ref()
    start(ref)
    refused(ref, {"action": "play", "play": "24/18"}, 409)


def test_forced_pass_when_nothing_can_be_played(make_ref):
    ref = make_ref()
    # Bob (O) on the bar against a 6-point prime of ones and sixes: set up through the game state
    start(ref)
    game = ref.state.game
    from tablecompanion.rules import Position

    closed = [2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # X's home closed
    bob = [0] * 24 + [1]
    bob[12] = 14
    game.position = Position(bob, closed)  # O on roll
    out = ref.act({"action": "roll", "dice": [6, 5]})
    assert decisions(out) == ["roll", "no_legal_play"]
    snap = ref.snapshot()
    assert snap["turn"] == "X" and snap["history"][-1]["forced"] is True


# -- cube ------------------------------------------------------------------------------------------


def test_double_only_before_rolling_and_only_by_the_player_on_turn(make_ref):
    ref = make_ref()
    start(ref)
    refused(ref, {"action": "double", "player": "X"}, 409, contains="turn")
    ref.act({"action": "roll", "dice": [6, 5]})
    refused(ref, {"action": "double"}, 409, contains="before rolling")


def test_take_gives_the_cube_to_the_taker_who_alone_may_redouble(make_ref):
    ref = make_ref()
    start(ref)
    assert ref.snapshot()["can_double"] is True
    assert decisions(ref.act({"action": "double"})) == ["double_offered"]
    snap = ref.snapshot()
    assert snap["awaiting"] == "take_or_pass" and snap["actor"] == "X" and snap["double_offered"] is True
    refused(ref, {"action": "roll", "dice": [6, 5]}, 409, contains="take or pass")
    assert decisions(ref.act({"action": "take"})) == ["double_taken"]
    assert ref.snapshot()["cube"] == {"value": 2, "owner": "X"}
    ref.act({"action": "roll", "dice": [6, 5]})
    ref.act({"action": "play", "play": "24/13"})
    # X owns the cube: X may redouble
    ref.act({"action": "roll", "dice": [2, 1]})
    ref.act({"action": "play", "play": "13/11 6/5"})
    # O does not own it: O may not double
    refused(ref, {"action": "double"}, 409, contains="owns the cube")


def test_pass_ends_the_game_at_the_value_before_the_double(make_ref):
    ref = make_ref(match_length=5)
    start(ref)
    ref.act({"action": "double"})
    ref.act({"action": "take"})
    ref.act({"action": "roll", "dice": [6, 5]})
    ref.act({"action": "play", "play": "24/13"})
    ref.act({"action": "double"})  # X redoubles to 4
    out = ref.act({"action": "pass"})
    assert decisions(out) == ["double_passed", "game_over"]
    assert out[1]["winner"] == "X" and out[1]["points"] == 2
    snap = ref.snapshot()
    assert snap["score"] == [2, 0] and snap["status"] == "game_over" and snap["awaiting"] == "opening_roll"
    assert snap["games"][0]["how"] == "pass"
    assert snap["cube"] == {"value": 1, "owner": None}


def test_beaver_only_when_the_table_allows_it(make_ref):
    ref = make_ref(match_length=0)
    start(ref)
    ref.act({"action": "double"})
    refused(ref, {"action": "beaver"}, 409, contains="not allowed")
    ref2 = make_ref(match_length=0, beaver=True, table_id="2")
    start(ref2)
    ref2.act({"action": "double"})
    assert decisions(ref2.act({"action": "beaver"})) == ["beaver"]
    snap = ref2.snapshot()
    assert snap["awaiting"] == "take_or_pass" and snap["actor"] == "O"  # the doubler answers the beaver
    ref2.act({"action": "take"})
    assert ref2.snapshot()["cube"] == {"value": 4, "owner": "X"}


def test_no_beaver_in_a_match_setting():
    with pytest.raises(RefereeError) as err:
        TableSettings(match_length=7, beaver=True)
    assert err.value.status == 400


def test_crawford_game_has_no_doubling_and_post_crawford_has(make_ref):
    ref = make_ref(match_length=3)
    start(ref)  # X leads off, O on turn
    ref.act({"action": "double"})
    ref.act({"action": "take"})
    ref.act({"action": "roll", "dice": [6, 5]})
    ref.act({"action": "play", "play": "24/13"})
    ref.act({"action": "double"})
    ref.act({"action": "pass"})  # X wins 2: X at 2-away... 2-0 in a 3-point match
    snap = ref.snapshot()
    assert snap["score"] == [2, 0] and snap["crawford"] == "crawford"
    start(ref)
    assert ref.snapshot()["awaiting"] == "roll" and ref.snapshot()["can_double"] is False
    refused(ref, {"action": "double"}, 409, contains="crawford")
    ref.act({"action": "resign", "level": "single", "player": "X"})
    ref.act({"action": "accept_resign"})
    snap = ref.snapshot()
    assert snap["score"] == [2, 1] and snap["crawford"] == "post"
    start(ref)
    assert ref.snapshot()["can_double"] is True
    assert decisions(ref.act({"action": "double"})) == ["double_offered"]
    ref.act({"action": "take"})
    assert ref.snapshot()["can_double"] is False  # the doubler rolls now; no redouble before that
    ref.act({"action": "roll", "dice": [6, 5]})
    ref.act({"action": "play", "play": "24/13"})
    assert ref.snapshot()["can_double"] is True  # the taker owns the cube and is on roll
    ref.act({"action": "roll", "dice": [2, 1]})
    ref.act({"action": "play", "play": "13/11 6/5"})
    assert ref.snapshot()["can_double"] is False  # the cube is on the other side


# -- resignation -----------------------------------------------------------------------------------


def test_resignation_accepted_scores_the_level_times_the_cube(make_ref):
    ref = make_ref(match_length=7)
    start(ref)
    ref.act({"action": "double"})
    ref.act({"action": "take"})
    out = ref.act({"action": "resign", "level": "gammon"})
    assert decisions(out) == ["resign_offered"] and out[0]["player"] == "O"
    snap = ref.snapshot()
    assert snap["awaiting"] == "resign_response" and snap["resignation"] == {"player": "O", "level": "gammon"}
    refused(ref, {"action": "roll", "dice": [3, 2]}, 409, contains="resignation")
    out = ref.act({"action": "accept_resign"})
    assert decisions(out) == ["resign_accepted", "game_over"]
    assert out[1]["points"] == 4 and out[1]["winner"] == "X"
    assert ref.snapshot()["score"] == [4, 0]


def test_resignation_rejected_play_goes_on(make_ref):
    ref = make_ref()
    start(ref)
    ref.act({"action": "resign", "level": "backgammon"})
    ref.act({"action": "reject_resign"})
    snap = ref.snapshot()
    assert snap["awaiting"] == "roll_or_double" and snap["turn"] == "O" and snap["resignation"] is None
    refused(ref, {"action": "accept_resign"}, 409, contains="no resignation")


def test_bad_resign_level_is_a_400(make_ref):
    ref = make_ref()
    start(ref)
    refused(ref, {"action": "resign", "level": "triple"}, 400, contains="single")


# -- illegal plays ---------------------------------------------------------------------------------


def test_legal_moves_illegal_play_is_flagged_and_blocks_the_roll(make_ref):
    ref = make_ref(move_policy="legal")
    ref.act({"action": "roll", "dice": [6, 4]})
    out = ref.act({"action": "play", "play": "24/18 13/10"})
    assert decisions(out) == ["illegal_play_flagged"]
    d = out[0]
    assert d["points"] == [24, 18, 13, 10] and d["points_x"] == [24, 18, 13, 10]
    assert "13/10" in d["reason"] and d["policy"] == "legal"
    assert d["closest"] and all(p in ref.snapshot()["legal_plays"] for p in d["closest"])
    snap = ref.snapshot()
    assert snap["turn"] == "X" and snap["awaiting"] == "play" and snap["dice"] == [6, 4]
    assert snap["open_flag"]["status"] == "open"
    refused(ref, {"action": "roll", "dice": [5, 5]}, 409, contains="corrected before bob rolls")
    refused(ref, {"action": "double"}, 409, contains="corrected")
    refused(ref, {"action": "accept_illegal"}, 409, contains="legal moves")
    # a correction that is itself illegal changes nothing
    refused(ref, {"action": "correct", "play": "24/14 13/12"}, 409, contains="not legal either")
    out = ref.act({"action": "correct", "play": "24/18 13/9"})
    assert decisions(out) == ["correction_accepted"]
    snap = ref.snapshot()
    assert snap["turn"] == "O" and snap["flags"][0]["status"] == "corrected"
    assert snap["flags"][0]["correction"] == "24/18 13/9"
    assert [h["action"] for h in snap["history"]] == ["opening_roll", "play", "play"]
    assert snap["history"][1]["illegal"] is True


def test_flag_points_for_o_are_translated_to_x_numbering(make_ref):
    ref = make_ref()
    ref.act({"action": "roll", "dice": [1, 6]})  # O starts
    out = ref.act({"action": "play", "play": "13/7 8/6"})
    assert out[0]["player"] == "O"
    assert out[0]["points"] == [13, 8, 7, 6] and out[0]["points_x"] == [12, 17, 18, 19]


def test_flags_are_hidden_from_the_public_snapshot(make_ref):
    ref = make_ref()
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    assert "flags" not in ref.snapshot(public=True) and "open_flag" not in ref.snapshot(public=True)
    assert len(ref.snapshot(public=False)["flags"]) == 1


def test_responsible_moves_opponent_accepts_the_illegal_play(make_ref):
    ref = make_ref(move_policy="responsible")
    ref.act({"action": "roll", "dice": [6, 4]})
    out = ref.act({"action": "play", "play": "24/18 13/10"})
    assert decisions(out) == ["illegal_play_flagged"]
    snap = ref.snapshot()
    # the play stands for now: O is on turn and the board shows what was played
    assert snap["turn"] == "O" and snap["board"]["X"][9] == 1 and snap["board"]["X"][12] == 4
    refused(ref, {"action": "accept_illegal", "player": "X"}, 409, contains="opponent")
    assert decisions(ref.act({"action": "accept_illegal"})) == ["illegal_play_accepted"]
    snap = ref.snapshot()
    assert snap["flags"][0]["status"] == "accepted" and snap["board"]["X"][9] == 1
    ref.act({"action": "roll", "dice": [3, 1]})
    assert ref.snapshot()["turn"] == "O"
    # a late correction is refused as out of time, recorded, and changes nothing on the board
    board_before = ref.snapshot()["board"]
    out = ref.act({"action": "correct", "play": "24/18 13/9"})
    assert decisions(out) == ["correction_out_of_time"]
    snap = ref.snapshot()
    assert snap["board"] == board_before and snap["history"][-1]["action"] == "correction_out_of_time"


def test_responsible_moves_correction_in_time(make_ref):
    ref = make_ref(move_policy="responsible")
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    out = ref.act({"action": "correct", "play": "24/18 13/9"})
    assert decisions(out) == ["correction_accepted"]
    snap = ref.snapshot()
    assert snap["turn"] == "O" and snap["board"]["X"][8] == 1 and snap["board"]["X"][9] == 0
    assert snap["flags"][0]["status"] == "corrected"


def test_responsible_moves_rolling_lets_the_illegal_play_stand_and_later_correction_is_out_of_time(make_ref):
    ref = make_ref(move_policy="responsible")
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    out = ref.act({"action": "roll", "dice": [3, 1]})
    assert decisions(out) == ["illegal_play_stands", "roll"]
    snap = ref.snapshot()
    assert snap["flags"][0]["status"] == "stood" and snap["board"]["X"][9] == 1
    out = ref.act({"action": "correct", "play": "24/18 13/9"})
    assert decisions(out) == ["correction_out_of_time"]
    assert "has rolled since" in out[0]["message"]
    assert ref.snapshot()["board"]["X"][9] == 1
    # the record shows both: the illegal play and the refused correction
    acts = [h["action"] for h in ref.snapshot()["history"]]
    assert acts == ["opening_roll", "play", "illegal_play_stands", "roll", "correction_out_of_time"]


def test_responsible_moves_impossible_play_cannot_stand(make_ref):
    ref = make_ref(move_policy="responsible")
    ref.act({"action": "roll", "dice": [6, 4]})
    out = ref.act({"action": "play", "play": "22/16 13/9"})  # no checker on 22
    assert decisions(out) == ["illegal_play_flagged"]
    assert ref.snapshot()["turn"] == "X"  # nothing moved
    refused(ref, {"action": "accept_illegal"}, 409, contains="cannot stand")
    refused(ref, {"action": "roll", "dice": [2, 1]}, 409, contains="corrected")


def test_correct_without_a_flag_is_refused(make_ref):
    ref = make_ref()
    start(ref)
    refused(ref, {"action": "correct", "play": "8/5 6/5"}, 409, contains="no flagged play")


def test_unreadable_notation_is_a_400_not_a_flag(make_ref):
    ref = make_ref()
    ref.act({"action": "roll", "dice": [6, 4]})
    refused(ref, {"action": "play", "play": "13-7 banana"}, 400)
    assert ref.snapshot().get("open_flag") is None


def test_not_moving_when_a_move_exists_is_flagged(make_ref):
    ref = make_ref()
    ref.act({"action": "roll", "dice": [6, 4]})
    out = ref.act({"action": "play", "play": ""})
    assert decisions(out) == ["illegal_play_flagged"]


# -- undo ------------------------------------------------------------------------------------------


def test_undo_takes_back_the_last_action_repeatedly(make_ref):
    ref = make_ref()
    snaps = [ref.snapshot()]
    for action in ({"action": "roll", "dice": [3, 1]}, {"action": "play", "play": "8/5 6/5"},
                   {"action": "double"}, {"action": "take"}):
        ref.act(action)
        snaps.append(ref.snapshot())
    for k in range(4, 0, -1):
        out = ref.act({"action": "undo"})
        assert decisions(out) == ["undone"]
        now = ref.snapshot()
        for key in ("position_id", "match_id", "turn", "dice", "cube", "awaiting", "history", "legal_plays"):
            assert now[key] == snaps[k - 1][key], key
    refused(ref, {"action": "undo"}, 409, contains="nothing to undo")


def test_undo_across_the_end_of_a_game(make_ref):
    ref = make_ref(match_length=5)
    start(ref)
    ref.act({"action": "double"})
    ref.act({"action": "pass"})
    assert ref.snapshot()["score"] == [0, 1]
    ref.act({"action": "undo"})
    snap = ref.snapshot()
    assert snap["score"] == [0, 0] and snap["awaiting"] == "take_or_pass" and snap["games"] == []


# -- void rolls ------------------------------------------------------------------------------------


def test_void_roll_before_entry_is_recorded_and_changes_nothing_else(make_ref):
    ref = make_ref()
    start(ref)
    out = ref.act({"action": "void", "reason": "cocked die"})
    assert decisions(out) == ["void_roll"] and out[0]["player"] == "O" and out[0]["cancelled_roll"] is False
    snap = ref.snapshot()
    assert snap["awaiting"] == "roll_or_double" and snap["voids"] == 1
    assert snap["history"][-1]["reason"] == "cocked die"


def test_operator_void_takes_back_a_roll_already_entered(make_ref):
    ref = make_ref()
    start(ref)
    ref.act({"action": "roll", "dice": [6, 6]})
    out = ref.act({"action": "void", "reason": "die crossed the bar"})
    assert out[0]["cancelled_roll"] is True
    snap = ref.snapshot()
    assert snap["dice"] is None and snap["awaiting"] == "roll_or_double" and snap["turn"] == "O"
    assert [h["action"] for h in snap["history"]] == ["opening_roll", "play", "void"]


# -- match end -------------------------------------------------------------------------------------


def test_match_end_refuses_further_actions(make_ref):
    ref = make_ref(match_length=1)
    start(ref)
    ref.act({"action": "resign", "level": "single"})
    out = ref.act({"action": "accept_resign"})
    assert decisions(out) == ["resign_accepted", "game_over", "match_over"]
    snap = ref.snapshot()
    assert snap["status"] == "match_over" and snap["winner"] == "X" and snap["awaiting"] == "match_over"
    assert snap["legal_plays"] == []
    refused(ref, {"action": "roll", "dice": [3, 1]}, 409, contains="match is over")
    refused(ref, {"action": "new_game"}, 409, contains="match is over")


def test_new_game_is_acknowledged_only_between_games(make_ref):
    ref = make_ref(match_length=5)
    assert decisions(ref.act({"action": "new_game"})) == ["new_game"]
    start(ref)
    refused(ref, {"action": "new_game"}, 409, contains="in progress")


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", [
    {"action": "roll", "dice": [7, 1]},
    {"action": "roll", "dice": [1]},
    {"action": "roll", "dice": "61"},
    {"action": "roll", "dice": [True, 2]},
    {"action": "roll"},
    {"action": "fly"},
    {"dice": [1, 2]},
    {"action": "play"},
    {"action": "play", "play": 42},
    {"action": "double", "player": "Z"},
    {"action": "play", "board": {"X": [0] * 25}},
])
def test_malformed_actions_are_400_and_change_nothing(make_ref, action):
    ref = make_ref()
    refused(ref, action, 400)


def test_non_dict_action_is_400(make_ref):
    ref = make_ref()
    with pytest.raises(RefereeError) as err:
        ref.act(["roll", 6, 3])
    assert err.value.status == 400


def test_subscribers_hear_every_change_and_a_broken_one_does_not_stop_the_table(make_ref):
    ref = make_ref()
    heard = []

    def broken(note):
        raise RuntimeError("listener bug")

    ref.subscribe(broken)
    ref.subscribe(heard.append)
    ref.act({"action": "roll", "dice": [3, 1]})
    with pytest.raises(RefereeError):
        ref.act({"action": "roll", "dice": [3, 1]})
    ref.act({"action": "play", "play": "8/5 6/5"})
    assert [(n["n"], n["kind"]) for n in heard] == [(1, "roll"), (2, "play")]
    assert heard[0]["decisions"][0]["decision"] == "opening_roll"
    ref.unsubscribe(heard.append)
    ref.act({"action": "double"})
    assert len(heard) == 2


def test_snapshot_contract_fields(make_ref):
    ref = make_ref(clock={"delay_s": 12, "bank_per_point_s": 120})
    start(ref)
    snap = ref.snapshot()
    for key in ("id", "players", "position_id", "match_id", "xgid", "turn", "awaiting", "dice", "legal_plays",
                "cube", "score", "match_length", "crawford", "pips", "board", "history", "flags", "clock",
                "games", "status", "settings"):
        assert key in snap, key
    assert snap["players"] == {"X": "Alice", "O": "Bob"}
    assert snap["pips"] == [163, 167]
    assert snap["board"]["off"] == {"X": 0, "O": 0}
    assert snap["crawford"] == "pre" and snap["match_length"] == 7
    h = snap["history"][-1]
    assert {"n", "player", "dice", "play", "time"} <= set(h)
    import json

    json.dumps(snap)  # JSON-able


def test_ids_at_any_moment(make_ref):
    from tablecompanion.rules import Position

    ref = make_ref()
    start(ref)
    ids = ref.ids_at(1)  # after X's 8/5 6/5, O on roll
    assert ids["position_id"] == Position.initial().parse_play("8/5 6/5", (3, 1)).result().swapped().position_id()
    assert ids["gnubg_id"] == f"{ids['position_id']}:{ids['match_id']}"
    with pytest.raises(RefereeError):
        ref.ids_at(99)


def test_responsible_moves_opponent_asks_for_a_correction(make_ref):
    ref = make_ref(move_policy="responsible")
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    out = ref.act({"action": "correct"})
    assert decisions(out) == ["correction_requested"]
    snap = ref.snapshot()
    assert snap["turn"] == "X" and snap["awaiting"] == "play" and snap["dice"] == [6, 4]
    assert snap["board"]["X"][12] == 5  # the checkers are back where they were
    refused(ref, {"action": "roll", "dice": [2, 1]}, 409, contains="corrected")
    refused(ref, {"action": "correct"}, 409, contains="must correct")
    assert decisions(ref.act({"action": "play", "play": "24/14"})) == ["correction_accepted"]


def test_public_history_hides_flags_and_corrected_plays(make_ref):
    ref = make_ref()
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    ref.act({"action": "correct", "play": "24/18 13/9"})
    public = ref.snapshot(public=True)["history"]
    assert [h.get("play") for h in public] == [None, "24/18 13/9"]
    assert all("flag" not in h and "illegal" not in h for h in public)
    private = ref.snapshot()["history"]
    assert [h.get("play") for h in private] == [None, "24/18 13/10", "24/18 13/9"]
    # a snapshot is a copy: changing it does not change the table
    private[1]["play"] = "tampered"
    assert ref.snapshot()["history"][1]["play"] == "24/18 13/10"


def test_jacoby_gammon_counts_single_while_the_cube_is_centred(make_ref):
    ref = make_ref(match_length=0, jacoby=True)
    start(ref)
    ref.act({"action": "resign", "level": "gammon", "player": "O"})
    out = ref.act({"action": "accept_resign"})
    assert out[-1]["points"] == 1 and out[-1]["level"] == "single"
    start(ref)
    ref.act({"action": "double"})
    ref.act({"action": "take"})
    ref.act({"action": "resign", "level": "gammon", "player": "O"})
    out = ref.act({"action": "accept_resign"})
    assert out[-1]["points"] == 4  # the cube was turned: the gammon counts, at 2
    assert ref.snapshot()["score"] == [5, 0]


def test_backgammon_as_gammon(make_ref):
    ref = make_ref(match_length=7, backgammon_as_gammon=True)
    start(ref)
    ref.act({"action": "resign", "level": "backgammon", "player": "O"})
    out = ref.act({"action": "accept_resign"})
    assert out[-1]["points"] == 2 and out[-1]["level"] == "gammon"


def test_subscribers_get_public_decisions_without_flags(make_ref):
    ref = make_ref()
    notes = []
    ref.subscribe(notes.append)
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    ref.act({"action": "correct", "play": "24/18 13/9"})
    assert notes[1]["public_decisions"] == []
    pub = notes[2]["public_decisions"]
    assert [d["decision"] for d in pub] == ["play_accepted"] and "flag" not in pub[0]
    assert pub[0]["message"] == "Alice plays 6-4: 24/18 13/9"
    assert notes[2]["decisions"][0]["decision"] == "correction_accepted"


def test_responsible_moves_accepted_illegal_last_bear_off_ends_the_game(make_ref):
    """An illegal play that bears off the last checker cannot stand provisionally (there is no next turn);
    once the opponent accepts it, it ends the game and the match through the rules engine."""
    from tablecompanion.rules import Position

    ref = make_ref(move_policy="responsible", match_length=3)
    ref.act({"action": "roll", "dice": [6, 4]})
    mover = [0] * 25
    mover[5] = mover[4] = 1  # X: one checker on 6, one on 5; a 4 cannot bear off from 5
    ref._state.match.game.position = Position.from_board(tuple(mover), Position.initial().opponent)
    out = ref.act({"action": "play", "play": "6/off 5/off"})
    assert decisions(out) == ["illegal_play_flagged"]
    assert ref.snapshot()["turn"] == "X"  # nothing stands yet: the game would be over
    out = ref.act({"action": "accept_illegal"})
    assert decisions(out) == ["illegal_play_accepted", "game_over", "match_over"]
    snap = ref.snapshot()
    assert snap["score"] == [3, 0] and snap["awaiting"] == "match_over"
    assert snap["flags"][0]["status"] == "accepted"


def test_responsible_moves_offering_to_resign_lets_the_illegal_play_stand(make_ref):
    """Under Responsible Moves the opponent may go on instead of asking for a correction: a resignation
    offer goes on like a roll or a double, so the play stands and a later correction is out of time."""
    ref = make_ref(move_policy="responsible")
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    out = ref.act({"action": "resign", "level": "single"})
    assert decisions(out) == ["illegal_play_stands", "resign_offered"]
    ref.act({"action": "reject_resign"})
    out = ref.act({"action": "correct", "play": "24/18 13/9"})
    assert decisions(out) == ["correction_out_of_time"] and "offered to resign since" in out[0]["message"]
    assert ref.snapshot()["board"]["X"][9] == 1


def test_legal_moves_no_resignation_while_a_flag_is_open(make_ref):
    ref = make_ref(move_policy="legal")
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    refused(ref, {"action": "resign", "level": "single"}, 409, contains="corrected")
