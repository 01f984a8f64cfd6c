"""The JSON API under ``/api/``: read any table, act on one with its operator token, start matches.

Every refusal is a JSON ``{"error": message, "status": code}`` with a 4xx status, decided before the
referee is asked to change anything, so a bad request never changes a table. See docs/api.md.
"""

from __future__ import annotations

import secrets

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from tablecompanion.referee.errors import RefereeError

from . import presenter
from .state import web_state

bp = Blueprint("api", __name__, url_prefix="/api")

ACTIONS = {
    "roll": {"dice"},
    "play": {"play"},
    "double": set(),
    "take": set(),
    "pass": set(),
    "drop": set(),
    "beaver": set(),
    "resign": {"level"},
    "accept_resign": set(),
    "reject_resign": set(),
    "undo": set(),
    "correct": set(),
    "accept_illegal": set(),
    "void": {"proposal"},  # optional: the dice a camera read but could not accept (a die touching a checker)
    "new_game": set(),
    # words a client may use for the answer to whatever is on offer (resolved against the table's state)
    "accept": set(),
    "reject": set(),
    "decline": set(),
}
ANSWERS = {("accept", "take_or_pass"): "take", ("accept", "resign_response"): "accept_resign",
           ("reject", "take_or_pass"): "pass", ("reject", "resign_response"): "reject_resign",
           ("decline", "take_or_pass"): "pass", ("decline", "resign_response"): "reject_resign"}
OPTIONAL_FIELDS = {"dice", "play", "level", "reason", "position_id", "note", "player", "board", "to", "member"}
RESIGN_LEVELS = ("single", "gammon", "backgammon")
MAX_BODY = 16 * 1024
LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1", "localhost"}


class ApiError(Exception):
    """A refusal with an HTTP status and a message a person understands."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@bp.errorhandler(ApiError)
def _api_error(exc: ApiError):
    return jsonify(error=exc.message, status=exc.status), exc.status


@bp.errorhandler(RefereeError)
def _referee_error(exc: RefereeError):
    status = int(getattr(exc, "status", 400) or 400)
    message = getattr(exc, "message", None) or str(exc)
    return jsonify(error=message, status=status), status


# -- helpers shared with the HTML views ---------------------------------------------------------


def get_table(table_id: str):
    ref = web_state().table(table_id)
    if ref is None:
        raise ApiError(404, f"no table {table_id!r} on this server")
    return ref


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def require_operator(table_id: str) -> None:
    token = bearer_token()
    if token is None:
        raise ApiError(401, "this needs the table's operator token: send 'Authorization: Bearer <token>'")
    if not web_state().check_token(table_id, token):
        raise ApiError(403, f"wrong operator token for table {table_id!r}")


def json_body() -> dict:
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
    data = request.get_json(silent=True, force=True)
    if data is None:
        raise ApiError(400, "the body must be JSON, e.g. {\"action\": \"roll\", \"dice\": [6, 3]}")
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def _is_die(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6


def validate_action(body: dict) -> dict:
    """The action with its fields checked (types and ranges); what the rules allow now is the referee's."""
    action = body.get("action")
    if not isinstance(action, str) or not action:
        raise ApiError(400, "missing 'action' (one of: " + ", ".join(ACTIONS) + ")")
    if action not in ACTIONS:
        raise ApiError(400, f"unknown action {action!r} (one of: " + ", ".join(ACTIONS) + ")")
    unknown = set(body) - {"action"} - ACTIONS[action] - OPTIONAL_FIELDS
    if unknown:
        raise ApiError(400, f"unknown field(s) for {action!r}: {', '.join(sorted(unknown))}")
    if action == "roll" or "dice" in body:
        dice = body.get("dice")
        if not (isinstance(dice, list) and len(dice) == 2 and all(_is_die(d) for d in dice)):
            raise ApiError(400, "'dice' must be two whole numbers from 1 to 6, e.g. [6, 3]")
    if "proposal" in body:
        proposal = body["proposal"]
        if not (isinstance(proposal, list) and len(proposal) == 2 and all(_is_die(d) for d in proposal)):
            raise ApiError(400, "'proposal' must be two whole numbers from 1 to 6, e.g. [6, 3]")
    if action == "play":
        play = body.get("play")
        if not isinstance(play, str) or len(play) > 200:
            raise ApiError(400, "'play' must be the play in notation, e.g. \"24/18 13/10\"")
    if action == "resign":
        level = body.get("level", "single")
        if level not in RESIGN_LEVELS:
            raise ApiError(400, f"'level' is one of {', '.join(RESIGN_LEVELS)}, not {level!r}")
    for name in ("reason", "note", "member"):
        if name in body and not isinstance(body[name], str):
            raise ApiError(400, f"'{name}' must be text")
    return dict(body)


def resolve_answer(ref, action: dict) -> dict:
    """``accept`` / ``reject`` / ``decline``: the answer to the double or the resignation on offer."""
    kind = action.get("action")
    if kind not in ("accept", "reject", "decline"):
        return action
    awaiting = ref.snapshot(public=True).get("awaiting")
    real = ANSWERS.get((kind, awaiting))
    if real is None:
        raise ApiError(409, f"there is no double or resignation to {kind} now")
    return {**action, "action": real}


def perform(ref, table_id: str, action: dict, source: str) -> dict:
    """Send a checked action to the referee; its refusal becomes an ApiError with the referee's status."""
    action = resolve_answer(ref, action)
    try:
        decisions = ref.act(action, source=source)
    except RefereeError as exc:
        raise ApiError(int(getattr(exc, "status", 400) or 400), getattr(exc, "message", None) or str(exc))
    return {"decisions": decisions or [], "table": ref.snapshot(public=False)}


def is_loopback() -> bool:
    return (request.remote_addr or "") in LOOPBACK


def require_admin() -> None:
    """Creating tables: the server's admin token, or (with none configured) a request from loopback."""
    state = web_state()
    if current_app.config.get("ADMIN_TOKEN"):
        token = bearer_token()
        if token is None:
            raise ApiError(401, "starting a match needs the server's admin token: 'Authorization: Bearer <token>'")
        if not state.check_admin(token):
            raise ApiError(403, "wrong admin token")
        return
    if not is_loopback():
        raise ApiError(403, "starting a match is open only from this machine (127.0.0.1) unless the server "
                            "has an admin token (serve --admin-token)")


def create_table(body: dict, source: str) -> tuple[str, str, object]:
    """Start a match at a new table (or at ``table_id`` when free); returns (id, token, referee)."""
    from tablecompanion.referee.settings import TableSettings

    body = dict(body)
    table_id = body.pop("table_id", None)
    token = body.pop("token", None)
    if table_id is not None and (not isinstance(table_id, str) or not table_id.strip()
                                 or len(table_id) > 40 or not table_id.replace("-", "").replace("_", "").isalnum()):
        raise ApiError(400, "'table_id' must be a short name of letters, digits, '-' or '_'")
    if token is not None and (not isinstance(token, str) or len(token) < 4 or len(token) > 200):
        raise ApiError(400, "'token' must be text of 4 to 200 characters")
    settings = body.pop("settings", None)
    if settings is None:
        settings = body
    elif body:
        raise ApiError(400, f"unknown field(s) next to 'settings': {', '.join(sorted(body))}")
    if isinstance(settings, dict) and "length" in settings and "match_length" not in settings:
        settings = dict(settings)
        settings["match_length"] = settings.pop("length")
    if isinstance(settings, dict) and settings.get("money") is True:
        settings = dict(settings)
        settings.pop("money")
        settings["match_length"] = 0
    elif isinstance(settings, dict) and "money" in settings:
        settings = dict(settings)
        settings.pop("money")
    try:
        ts = TableSettings.from_dict(settings)
    except RefereeError as exc:
        raise ApiError(400, getattr(exc, "message", str(exc)))
    hall = web_state().hall
    if table_id is not None and web_state().table(table_id) is not None:
        raise ApiError(409, f"table {table_id!r} already exists")
    token = token or secrets.token_urlsafe(12)
    kwargs = {"token": token}
    if table_id is not None:
        kwargs["table_id"] = table_id
    try:
        ref, token = hall.create_table(ts, **kwargs)
    except RefereeError as exc:
        raise ApiError(int(getattr(exc, "status", 400) or 400), getattr(exc, "message", str(exc)))
    new_id = str(ref.snapshot(public=True).get("id"))
    web_state().broker.table_added(new_id)
    return new_id, token, ref


# -- routes -------------------------------------------------------------------------------------


@bp.get("/tables")
def list_tables():
    """Every table at a glance: ``[{"id", "players", "score", "match_length", "cube", "status", ...}]``."""
    return jsonify([presenter.summary(ref.snapshot(public=True)) for ref in web_state().tables()])


@bp.post("/tables")
def start_match():
    """Start a match at a new table; returns its id and operator token (shown once)."""
    require_admin()
    body = json_body()
    table_id, token, ref = create_table(body, source="api")
    snap = ref.snapshot(public=False)
    return jsonify(id=table_id, token=token, url=url_for("tables.table", table_id=table_id),
                   table=snap), 201


@bp.get("/tables/<table_id>")
def table(table_id: str):
    """The table's snapshot; ``?public=1`` leaves out flags; ``?at=N`` adds the IDs after history entry N."""
    ref = get_table(table_id)
    public = request.args.get("public") in ("1", "true", "yes")
    snap = ref.snapshot(public=public)
    if "at" in request.args:
        snap = dict(snap)
        snap["at"] = ids_at(ref, snap, request.args.get("at"))
    return jsonify(snap)


@bp.get("/tables/<table_id>/ids")
def ids(table_id: str):
    """The gnubg Position ID, Match ID and XGID now, or after history entry ``?at=N``."""
    ref = get_table(table_id)
    snap = ref.snapshot(public=True)
    if "at" in request.args:
        return jsonify(ids_at(ref, snap, request.args.get("at")))
    return jsonify(at=None, position_id=snap.get("position_id"), match_id=snap.get("match_id"),
                   xgid=snap.get("xgid"), gnubg_id=_gnubg(snap))


def _gnubg(d: dict) -> str | None:
    if d.get("position_id") and d.get("match_id"):
        return f"{d['position_id']}:{d['match_id']}"
    return None


def ids_at(ref, snap: dict, at: str | None) -> dict:
    """The IDs after history entry ``at`` (0 = first; negative counts from the end)."""
    history = snap.get("history") or []
    try:
        n = int(at)
    except (TypeError, ValueError):
        raise ApiError(400, "'at' must be a whole number: the index of a history entry (0 = first)")
    if not -len(history) <= n < len(history):
        raise ApiError(404, f"no history entry {at} (the history has {len(history)})")
    n %= len(history)
    fn = getattr(ref, "ids_at", None)
    if callable(fn):
        try:
            moment = dict(fn(n))
        except RefereeError as exc:
            raise ApiError(int(getattr(exc, "status", 400) or 400), getattr(exc, "message", str(exc)))
    else:
        moment = history[n] if isinstance(history[n], dict) else {}
    out = {"at": n}
    for key in ("n", "position_id", "match_id", "xgid"):
        if key in moment or key != "n":
            out[key] = moment.get(key)
    out["gnubg_id"] = _gnubg(out)
    return out


@bp.post("/tables/<table_id>/actions")
def act(table_id: str):
    """Act at the table with its operator token; 200 with the decisions and the new snapshot."""
    ref = get_table(table_id)
    require_operator(table_id)
    action = validate_action(json_body())
    return jsonify(perform(ref, table_id, action, source="operator"))


@bp.get("/dice")
def dice_stats():
    """Dice statistics per dice set across every match of this server: ``{set: {"faces", "frequencies",
    "doubles_rate", "chi2": {"statistic", "df", "p_value"}, ...}}``."""
    from .views import dice_statistics

    return jsonify(dice_statistics(web_state().hall))


@bp.get("/tables/<table_id>/export.mat")
def export_mat(table_id: str):
    """The match so far as a ``.mat`` file (GNU Backgammon's text format)."""
    ref = get_table(table_id)
    text = export_text(ref)
    return Response(text, mimetype="text/plain",
                    headers={"Content-Disposition": f'attachment; filename="table-{table_id}.mat"'})


def export_text(ref) -> str:
    """The referee's .mat export; "nothing to export yet" is a 409 (not allowed now), not a crash."""
    from tablecompanion.record.errors import RecordError

    fn = getattr(ref, "export_mat", None)
    if not callable(fn):
        raise ApiError(501, "this server's referee cannot export .mat files")
    try:
        return fn()
    except RefereeError as exc:
        raise ApiError(int(getattr(exc, "status", 400) or 400), getattr(exc, "message", None) or str(exc))
    except RecordError as exc:
        raise ApiError(409, str(exc))
