"""The HTML views (blueprint ``tables``): the hall, a table for players and its operator, the display for a
tournament screen; plus the operator's sign-in and the form/JS endpoint for actions (CSRF-protected).

Operators sign in once per table with the table's token; the token is kept in the signed session and
re-checked against the hall on every action, so a view without it is read-only.
"""

from __future__ import annotations

import hmac
import secrets

from flask import (Blueprint, abort, current_app, flash, jsonify, redirect, render_template, request, session,
                   url_for)

from markupsafe import Markup, escape

from . import presenter
from .api import ApiError, create_table, export_text, is_loopback, perform, validate_action
from .board_svg import render_board
from .state import web_state

bp = Blueprint("tables", __name__)

CSRF_KEY = "csrf"
OPS_KEY = "operator_tokens"


# -- CSRF and the operator session ------------------------------------------------------------------


def csrf_token() -> str:
    token = session.get(CSRF_KEY)
    if not token:
        token = secrets.token_urlsafe(24)
        session[CSRF_KEY] = token
    return token


@bp.before_app_request
def _check_csrf():
    """Every POST to the HTML side carries the session's CSRF token (form field or X-CSRF-Token).

    The JSON API under /api/ is exempt: it authenticates with a Bearer token, never with cookies."""
    if request.method != "POST" or request.path.startswith("/api/"):
        return None
    sent = request.form.get("csrf_token") or request.headers.get("X-CSRF-Token") or ""
    expected = session.get(CSRF_KEY) or ""
    if not expected or not hmac.compare_digest(str(sent), str(expected)):
        message = "This form has expired or did not come from this site (CSRF check failed). Reload the page."
        if _wants_json():
            return jsonify(error=message, status=400), 400
        return error_page(400, "Form expired", message), 400
    return None


def operator_of(table_id: str) -> bool:
    tokens = session.get(OPS_KEY) or {}
    return web_state().check_token(table_id, tokens.get(str(table_id)))


def _remember_operator(table_id: str, token: str) -> None:
    tokens = dict(session.get(OPS_KEY) or {})
    tokens[str(table_id)] = token
    session[OPS_KEY] = tokens


def _wants_json() -> bool:
    return request.is_json or request.accept_mimetypes.best == "application/json"


@bp.app_context_processor
def _globals():
    return {"csrf_token": csrf_token, "mode": current_app.config.get("MODE", "manual"),
            "name_of": presenter.player_name, "on_turn": presenter.on_turn}


def error_page(status: int, title: str, message: str):
    return render_template("error.html", status=status, title=title, message=message)


# -- what the templates and the live updates render -------------------------------------------------


def _seating(snap: dict) -> tuple[str, str]:
    settings = snap.get("settings") or {}
    return settings.get("bottom_player", "X"), settings.get("home", "right")


def table_context(ref, public: bool) -> dict:
    snap = ref.snapshot(public=public)
    model = presenter.board_model(snap)
    bottom, home = _seating(snap)
    turn = snap.get("turn")
    svg = render_board(snap, model, bottom=bottom, home=home, labels_for=turn if turn in ("X", "O") else bottom,
                       title=f"Table {snap.get('id')}")
    return {
        "t": snap,
        "svg": svg,
        "bottom": bottom,
        "top": presenter.OTHER.get(bottom, "O"),
        "plays": presenter.play_steps(snap),
        "crawford_label": presenter.crawford_label(snap),
        "status_line": status_line(snap),
        "history_rows": (rows := history_rows(snap, evidence_for=None if public else snap.get("id"))),
        "history_items": history_items(rows),
        "game_rows": game_rows(snap),
        "history_game": history_game(snap),
        "clock": clock_view(snap),
        "flags": [] if public else flag_rows(snap, evidence_for=snap.get("id")),
        "last_line": last_line(snap),
        "off": {"X": model.off("X"), "O": model.off("O")},
        "mover_board": _mover_board(model, turn),
        "public": public,
    }


def _mover_board(model, turn) -> list[int] | None:
    """The mover's checkers as [off, point 1..24, bar], the numbering of the play steps."""
    if turn not in ("X", "O"):
        return None
    side = model.side(turn)
    return [model.off(turn), *side[:24], side[24]]


def table_payload(ref, public: bool) -> dict:
    """One live update: the snapshot plus the page's fragments, rendered once for every listener."""
    ctx = table_context(ref, public)
    if public:
        html = {"board": str(ctx["svg"]), "panel": render_template("_display_panel.html", **ctx)}
    else:
        html = {"board": str(ctx["svg"]),
                "panel": render_template("_panel.html", **ctx),
                "plays": render_template("_plays.html", **ctx),
                "history": render_template("_history.html", **ctx),
                "flags": render_template("_flags.html", **ctx)}
    table = {k: v for k, v in ctx["t"].items() if k != "history"}  # GET /api/tables/<id> has it all
    table["history_len"] = len(ctx["t"].get("history") or [])
    table["last"] = (ctx["t"].get("history") or [None])[-1]
    return {"table": table, "plays": [] if public else ctx["plays"], "mover": ctx["t"].get("turn"),
            "mover_board": None if public else ctx["mover_board"], "html": html, "status": ctx["status_line"]}


def hall_card_payload(ref) -> dict:
    snap = ref.snapshot(public=True)
    return {"table": presenter.summary(snap),
            "html": render_template("_hall_card.html", s=snap, status_line=status_line(snap),
                                    crawford_label=presenter.crawford_label(snap))}


AWAITING_TEXT = {
    "opening_roll": "Opening roll",
    "roll": "{actor} to roll",  # after a take: the doubler rolls, no redouble now
    "roll_or_double": "{actor} to roll or double",
    "play": "{actor} to play {dice}",
    "take_or_pass": "{actor} to take or pass",
    "resign_response": "{actor} to accept or reject the resignation",
    "members_respond": "The team answers the box's double: take or pass, member by member",
    "game_over": "Game over",
    "match_over": "Match over",
}


def status_line(snap: dict) -> str:
    """What the table is waiting for, in words: "Alice to play 6-3"."""
    status = snap.get("status")
    awaiting = snap.get("awaiting")
    if status in ("match_over", "over", "finished") or awaiting == "match_over":
        winner = snap.get("winner")
        timeout = snap.get("timeout")
        if isinstance(timeout, dict) and timeout.get("winner"):
            return (f"Match over · {presenter.player_name(snap, timeout['winner'])} wins on time "
                    f"({presenter.player_name(snap, timeout.get('loser'))} ran out of time)")
        if winner:
            return f"Match over · {presenter.player_name(snap, winner)} wins"
        return "Match over"
    games = snap.get("games") or []
    if status == "game_over" and games and isinstance(games[-1], dict):
        g = games[-1]
        level = g.get("level") if g.get("level") in ("gammon", "backgammon") else ""
        return (f"{presenter.game_winner_name(snap, g)} won game {g.get('number')} "
                f"({level + ', ' if level else ''}{g.get('points')} pt{'s' if g.get('points') != 1 else ''})"
                " · opening roll next")
    actor = snap.get("actor") or snap.get("turn")
    dice = snap.get("dice")
    dice_text = f"{dice[0]}-{dice[1]}" if isinstance(dice, (list, tuple)) and len(dice) == 2 else ""
    template = AWAITING_TEXT.get(awaiting)
    if awaiting == "roll_or_double" and snap.get("can_double") is False:
        template = AWAITING_TEXT["roll"]  # Crawford game, the opponent's cube, or the cube at its limit
    if template is None:
        return str(awaiting or status or "").replace("_", " ").capitalize()
    return template.format(actor=presenter.player_name(snap, actor) or "?", dice=dice_text).strip()


def evidence_url(table_id, rel) -> str:
    """The table view's link to an evidence frame (a void roll's or a flagged play's picture)."""
    if not rel or table_id is None:
        return ""
    return url_for("tables.evidence", table_id=str(table_id), rel=str(rel))


def history_rows(snap: dict, evidence_for=None) -> list[dict]:
    """The current game's history entries as rows, oldest first (earlier games: :func:`game_rows`).
    ``evidence_for`` (the table id; never on the public display) links each evidence frame.

    Only one game is rendered so a live update stays small however long the match; the whole match
    is in the API's snapshot and the .mat export."""
    history = snap.get("history") or []
    game = history_game(snap)
    rows = []
    for i, entry in enumerate(history):
        if isinstance(entry, str):
            rows.append({"n": i, "who": "", "name": "", "text": entry, "kind": "", "flagged": False, "gnubg_id": ""})
            continue
        if not isinstance(entry, dict) or (game is not None and entry.get("game", game) != game):
            continue
        who = entry.get("player") or entry.get("actor") or ""
        gid = f"{entry['position_id']}:{entry['match_id']}" if entry.get("position_id") and entry.get("match_id") else ""
        name = entry.get("member") or presenter.player_name(snap, who)  # a chouette member answering a double
        rows.append({"n": i, "who": who, "name": name, "text": history_text(entry),
                     "gnubg_id": gid, "xgid": entry.get("xgid") or "",
                     "kind": entry.get("action") or entry.get("type") or "",
                     "flagged": bool(entry.get("illegal") or entry.get("flagged")),
                     "evidence": evidence_url(evidence_for, entry.get("evidence")) if evidence_for else ""})
    return rows


def history_game(snap: dict) -> int | None:
    """The game whose history is shown: the one being played, or the one that just ended."""
    game = snap.get("game_number")
    if game is not None and snap.get("status") == "game_over":
        history = snap.get("history") or []
        game = max((e.get("game") or 0 for e in history if isinstance(e, dict)), default=game)
    return game


def history_items(rows: list[dict]) -> Markup:
    """The rows as ``<li>`` items, newest first; plain Python because a long game has hundreds of them
    and this runs on every live update."""
    out = []
    for r in reversed(rows):
        cls = f"h-{escape(r['kind'])}" + (" flagged" if r["flagged"] else "")
        who = (f'<span class="chip chip-{escape(r["who"])} small"></span><span class="h-who">{escape(r["name"])}</span> '
               if r["who"] else "")
        pic = (f' <a class="evidence" href="{escape(r["evidence"])}" target="_blank" title="the camera\'s frame">'
               f'frame</a>' if r.get("evidence") else "")
        ids = " · ".join(x for x in (f"GNUBG ID {r['gnubg_id']}" if r.get("gnubg_id") else "",
                                     r.get("xgid") or "") if x)
        title = f' title="after this: {escape(ids)}"' if ids else ""
        out.append(f'<li class="{cls}"{title}>{who}<span class="h-text">{escape(r["text"])}</span>{pic}</li>')
    return Markup("".join(out))


def last_line(snap: dict) -> str:
    """The last thing that happened, for spectators: "Alice 6-3: 24/18 13/10" (never a flagged play)."""
    for entry in reversed(snap.get("history") or []):
        if not isinstance(entry, dict) or entry.get("illegal") or str(entry.get("action", "")).startswith("illegal"):
            continue
        if entry.get("action") in ("accept_illegal", "correction_out_of_time", "roll"):
            continue  # a roll is already in the status line
        who = presenter.player_name(snap, entry.get("player"))
        return f"{who} {history_text(entry)}".strip()
    return ""


def game_rows(snap: dict) -> list[dict]:
    """Each finished game in one line: "Game 2 · Bob wins 2 (gammon)"."""
    rows = []
    for g in snap.get("games") or []:
        if not isinstance(g, dict):
            continue
        how = {"pass": "double passed", "resign": f"resigned {g.get('level', '')}"}.get(
            g.get("how"), g.get("level") or "")
        rows.append({"number": g.get("number"), "winner": g.get("winner"),
                     "text": f"{presenter.game_winner_name(snap, g)} wins {g.get('points')}"
                             + (f" ({how})" if how else "")})
    return rows


def history_text(entry: dict) -> str:
    if entry.get("text"):
        return str(entry["text"])
    action = entry.get("action") or entry.get("type") or ""
    dice = entry.get("dice")
    d = f"{dice[0]}-{dice[1]}" if isinstance(dice, (list, tuple)) and len(dice) == 2 else ""
    if action in ("play", "move"):
        play = entry.get("play") or ("no move" if entry.get("forced") or entry.get("play") == "" else "")
        text = f"{d}: {play}" if d else str(play)
        return text + (" — illegal, flagged" if entry.get("illegal") else "")
    if action == "opening_roll":
        if entry.get("tie"):
            return f"opening roll {d}: tie, roll again"
        return f"wins the opening roll {d}"
    if action == "roll":
        return f"rolls {d}"
    if action == "double":
        return f"doubles to {entry.get('cube') or entry.get('value') or ''}".strip()
    if action == "take":
        return "takes"
    if action in ("pass", "drop"):
        return "passes"
    if action == "beaver":
        return f"beavers to {entry.get('cube') or ''}".strip()
    if action == "resign":
        return f"resigns {entry.get('level', '')}".strip()
    if action == "void":
        return f"roll void: {entry.get('reason') or 'void'}"
    words = {"accept_resign": "accepts the resignation", "reject_resign": "rejects the resignation",
             "accept_illegal": "accepts the illegal play", "illegal_play_stands": "illegal play stands",
             "correction_out_of_time": "correction too late", "timeout": "runs out of time", "undo": "undo"}
    return words.get(action, action.replace("_", " "))


def flag_rows(snap: dict, evidence_for=None) -> list[dict]:
    """Flags for players and the director (never on the display): open ones first."""
    rows = []
    for flag in snap.get("flags") or []:
        if isinstance(flag, str):
            rows.append({"text": flag, "kind": "open", "open": True})
            continue
        if not isinstance(flag, dict):
            continue
        who = presenter.player_name(snap, flag.get("player"))
        dice = flag.get("dice")
        dice_text = f" {dice[0]}-{dice[1]}" if isinstance(dice, (list, tuple)) and len(dice) == 2 else ""
        play = flag.get("play")
        head = f"{who}{dice_text}: {play}" if play else f"{who}{dice_text}"
        reason = flag.get("reason") or flag.get("message") or ""
        if play and reason.startswith(f"{play}: "):
            reason = reason[len(play) + 2:]  # the rules engine's reason repeats the play
        status = flag.get("status") or "open"
        text = f"{head} — {reason}" if reason else head
        if flag.get("closest"):
            text += " (perhaps: " + ", ".join(map(str, flag["closest"][:3])) + ")"
        note = ""
        if status == "open":
            opponent = presenter.player_name(snap, presenter.OTHER.get(flag.get("player")))
            if flag.get("stands_for_now"):
                note = (f"Responsible Moves: it stands for now. {opponent} may accept it or ask for a correction; "
                        f"rolling or doubling lets it stand.")
            else:
                note = f"{who} must correct it before {opponent} rolls."
        rows.append({"text": text, "kind": status, "open": status == "open", "note": note,
                     "can_accept": bool(flag.get("can_accept")),
                     "evidence": evidence_url(evidence_for, flag.get("evidence"))})
    rows.sort(key=lambda r: not r["open"])
    return rows


def _mmss(seconds) -> str:
    try:
        s = max(0, int(round(float(seconds))))
    except (TypeError, ValueError):
        return "–"
    return f"{s // 60}:{s % 60:02d}"


def clock_view(snap: dict) -> dict | None:
    """Each player's bank as m:ss plus what the page needs to count down between updates."""
    clock = snap.get("clock")
    if not isinstance(clock, dict):
        return None
    bank = clock.get("remaining") or clock.get("bank") or {}
    running = clock.get("running") or clock.get("active")
    out = {"running": running, "delay_s": clock.get("delay_s"), "delay_left": clock.get("delay_left") or 0,
           "seconds": {}}
    for p in ("X", "O"):
        v = bank.get(p) if isinstance(bank, dict) else None
        out[p] = _mmss(v) if v is not None else "–"
        out["seconds"][p] = float(v) if isinstance(v, (int, float)) else None
    return out


# -- pages --------------------------------------------------------------------------------------


@bp.get("/")
def hall():
    state = web_state()
    cards = []
    for ref in state.tables():
        snap = ref.snapshot(public=True)
        cards.append({"s": snap, "status_line": status_line(snap),
                      "crawford_label": presenter.crawford_label(snap)})
    can_create = bool(current_app.config.get("ADMIN_TOKEN")) or is_loopback()
    return render_template("hall.html", cards=cards, can_create=can_create)


@bp.get("/tables/new")
def new_table():
    needs_token = bool(current_app.config.get("ADMIN_TOKEN"))
    if not needs_token and not is_loopback():
        return error_page(403, "Not from here", "Matches can be started only on the server's own machine."), 403
    prefill = {k: request.args[k] for k in ("player_x", "player_o", "match_length") if k in request.args}
    return render_template("new_table.html", needs_token=needs_token, form=prefill)


@bp.post("/tables")
def create_table_form():
    needs_token = bool(current_app.config.get("ADMIN_TOKEN"))
    form = request.form
    if needs_token:
        if not web_state().check_admin(form.get("admin_token")):
            flash("Wrong admin token.", "error")
            return render_template("new_table.html", needs_token=True, form=form), 403
    elif not is_loopback():
        abort(403)
    try:
        settings = settings_from_form(form)
        body = {"settings": settings}
        if form.get("table_id", "").strip():
            body["table_id"] = form["table_id"].strip()
        if form.get("token", "").strip():
            body["token"] = form["token"].strip()
        table_id, token, _ = create_table(body, source="operator")
    except ApiError as exc:
        flash(exc.message, "error")
        return render_template("new_table.html", needs_token=needs_token, form=form), exc.status
    _remember_operator(table_id, token)
    flash(f"Table {table_id} started. Operator token: {token} (keep it to run this table from another device).",
          "ok")
    return redirect(url_for("tables.table", table_id=table_id))


def settings_from_form(form) -> dict:
    def flag(name):
        return form.get(name) in ("on", "1", "true", "yes")

    def whole(name, default):
        raw = (form.get(name) or "").strip()
        if not raw:
            return default
        try:
            return int(raw)
        except ValueError:
            raise ApiError(400, f"{name.replace('_', ' ')} must be a whole number, not {raw!r}")

    chouette = form.get("kind") == "chouette"
    money = form.get("kind") == "money" or chouette
    settings = {
        "players": [(form.get("player_x") or "").strip(), (form.get("player_o") or "").strip()],
        "match_length": 0 if money else whole("match_length", 7),
        "crawford": flag("crawford") if not money else False,
        "jacoby": flag("jacoby") if money else False,
        "beaver": flag("beaver") if money else False,
        "automatic_doubles": whole("automatic_doubles", 0) if money else 0,
        "backgammon_as_gammon": flag("backgammon_as_gammon"),
        "move_policy": form.get("move_policy") or "legal",
        "bottom_player": form.get("bottom_player") or "X",
        "home": form.get("home") or "right",
    }
    if chouette:
        names = [n.strip() for n in (form.get("chouette_players") or "").split(",") if n.strip()]
        if len(names) < 3:
            raise ApiError(400, "a chouette needs at least three names, box first, separated by commas")
        settings["chouette"] = names
        settings["players"] = names[:2]
        settings["beaver"] = False
    dice_sets = [(form.get("dice_set_x") or "").strip(), (form.get("dice_set_o") or "").strip()]
    if any(dice_sets):
        if not all(dice_sets):
            raise ApiError(400, "name both dice sets (each player's), or neither")
        settings["dice_sets"] = dice_sets
    limit = whole("cube_limit", None)
    if limit:
        settings["cube_limit"] = limit
    if flag("clock"):
        clock = {"delay_s": whole("clock_delay", 12), "bank_per_point_s": whole("clock_bank_min", 2) * 60}
        if money:
            clock["bank_s"] = whole("clock_bank_min", 2) * 60 * 10
        settings["clock"] = clock
    return settings


def _table_or_404(table_id: str):
    ref = web_state().table(table_id)
    if ref is None:
        abort(404)
    return ref


@bp.get("/tables/<table_id>")
def table(table_id: str):
    ref = _table_or_404(table_id)
    ctx = table_context(ref, public=False)
    return render_template("table.html", operator=operator_of(table_id), table_id=table_id, **ctx)


@bp.get("/tables/<table_id>/display")
def display(table_id: str):
    ref = _table_or_404(table_id)
    ctx = table_context(ref, public=True)
    return render_template("display.html", table_id=table_id, **ctx)


@bp.get("/tables/<table_id>/board.svg")
def board_svg(table_id: str):
    ref = _table_or_404(table_id)
    svg = table_context(ref, public=True)["svg"]
    css = current_app.open_resource("static/board.css").read().decode()
    body = str(svg).replace(">", f"><style>{css}</style>", 1)
    return current_app.response_class(body, mimetype="image/svg+xml")


@bp.get("/tables/<table_id>/export.mat")
def export(table_id: str):
    ref = _table_or_404(table_id)
    try:
        text = export_text(ref)
    except ApiError as exc:
        return error_page(exc.status, "No export", exc.message), exc.status
    return current_app.response_class(
        text, mimetype="text/plain",
        headers={"Content-Disposition": f'attachment; filename="table-{table_id}.mat"'})


@bp.post("/tables/<table_id>/operator")
def sign_in(table_id: str):
    _table_or_404(table_id)
    token = (request.form.get("token") or "").strip()
    if web_state().check_token(table_id, token):
        _remember_operator(table_id, token)
        flash("Signed in as this table's operator.", "ok")
    else:
        flash("Wrong operator token for this table.", "error")
    return redirect(url_for("tables.table", table_id=table_id))


@bp.post("/tables/<table_id>/operator/leave")
def sign_out(table_id: str):
    tokens = dict(session.get(OPS_KEY) or {})
    tokens.pop(str(table_id), None)
    session[OPS_KEY] = tokens
    return redirect(url_for("tables.table", table_id=table_id))


def _action_from_form(form) -> dict:
    action = {"action": (form.get("action") or "").strip()}
    dice_text = (form.get("dice") or "").replace(",", " ").replace("-", " ").split()
    if len(dice_text) == 1 and len(dice_text[0]) == 2:
        dice_text = list(dice_text[0])
    if form.get("die1") or form.get("die2"):
        dice_text = [form.get("die1") or "", form.get("die2") or ""]
    if dice_text:
        try:
            action["dice"] = [int(d) for d in dice_text]
        except ValueError:
            raise ApiError(400, "dice are two numbers from 1 to 6, e.g. 6 3")
    for name in ("play", "level", "member"):
        if form.get(name) is not None and (form.get(name) or "").strip() != "":
            action[name] = form[name].strip()
    if action["action"] == "play" and "play" not in action:
        action["play"] = ""
    return action


@bp.post("/tables/<table_id>/actions")
def act(table_id: str):
    """The operator's controls: a JSON body (from the page script, with X-CSRF-Token) or a plain form."""
    ref = web_state().table(table_id)
    as_json = _wants_json()
    try:
        if ref is None:
            raise ApiError(404, f"no table {table_id!r} on this server")
        if not operator_of(table_id):
            raise ApiError(403, "only this table's operator can do that: sign in with the operator token")
        if request.is_json:
            body = request.get_json(silent=True)
            if not isinstance(body, dict):
                raise ApiError(400, "the body must be a JSON object")
        else:
            body = _action_from_form(request.form)
        action = validate_action(body)
        result = perform(ref, table_id, action, source="operator")
    except ApiError as exc:
        if as_json:
            return jsonify(error=exc.message, status=exc.status), exc.status
        flash(exc.message, "error")
        return redirect(url_for("tables.table", table_id=table_id)) if ref is not None else (
            error_page(exc.status, "No such table", exc.message), exc.status)
    if as_json:
        return jsonify(result)
    return redirect(url_for("tables.table", table_id=table_id))


@bp.get("/tables/<table_id>/evidence/<path:rel>")
def evidence(table_id: str, rel: str):
    """An evidence frame of this table (for players and the director; the display never links one)."""
    from flask import send_file

    from tablecompanion.record.errors import RecordError

    _table_or_404(table_id)
    record = getattr(web_state().hall, "record", None)
    missing = error_page(404, "No such frame", "This table has no evidence frame by that name."), 404
    if record is None or not rel.startswith(f"evidence/{table_id}/") or ".." in rel.split("/"):
        return missing
    try:
        path = record.evidence_path(rel)
    except RecordError:
        return missing
    if not path.is_file() or path.suffix.lower() not in (".jpg", ".jpeg"):
        return missing
    return send_file(path, mimetype="image/jpeg", max_age=3600)


def dice_statistics(hall) -> dict:
    """Per dice set: rolls, value frequencies, doubles rate and chi-square tests (the hall's record)."""
    fn = getattr(hall, "dice_statistics", None)
    if not callable(fn):
        return {}
    stats = fn() or {}
    return {str(k): (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in stats.items()}


@bp.get("/director/dice")
def dice_page():
    """Dice fairness evidence for tournament directors: per dice set across every match of this server."""
    from flask import render_template

    return render_template("dice.html", stats=dice_statistics(web_state().hall))


from . import calibration_page as _calibration_page  # noqa: E402,F401 - its routes are on this blueprint
