"""The dashboard: a Flask application factory serving the hall, table and display views, a JSON API and
live updates by Server-Sent Events, all for the tables of one :class:`~tablecompanion.referee.Hall`.

The hall (every referee of the server) is injected, never imported as a global: ``create_app(hall=...)``
or, without one, a hall resumed from ``DATA_DIR``. Blueprints: ``api`` (``/api/...``), ``tables``
(HTML views and operator forms), ``events`` (SSE streams).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask, jsonify, request

from .state import WebState

__all__ = ["create_app", "default_data_dir"]


def default_data_dir() -> Path:
    """Where a server keeps its record when none is given: ``$TABLECOMPANION_DATA`` or the XDG data dir."""
    env = os.environ.get("TABLECOMPANION_DATA")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tablecompanion"


def _secret_key(data_dir: Path) -> str:
    """A session key kept next to the record, so operators stay signed in across a restart."""
    path = data_dir / "web-secret-key"
    try:
        key = path.read_text().strip()
        if len(key) >= 32:
            return key
    except OSError:
        pass
    key = secrets.token_hex(32)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(key)
    except OSError:
        pass  # read-only data dir: sessions then last as long as the process
    return key


def create_app(test_config: dict | None = None, hall=None) -> Flask:
    """Build the dashboard application.

    ``test_config`` overrides the defaults (``DATA_DIR``, ``SECRET_KEY``, ``ADMIN_TOKEN``,
    ``SSE_HEARTBEAT_S``, ``SSE_MAX_S``...). ``hall`` is the set of tables to serve; without one, a
    :class:`~tablecompanion.referee.Hall` is opened on ``DATA_DIR`` (resuming its recorded tables).
    """
    app = Flask(__name__)
    app.config.from_mapping(
        DATA_DIR=str(default_data_dir()),
        SECRET_KEY=None,
        # Server admin token for creating tables through the API; None = only from loopback.
        ADMIN_TOKEN=None,
        # Operator tokens given to the server itself ({table_id: token}), e.g. by 'serve --token';
        # checked besides the hall's own (hashed) tokens.
        TABLE_TOKENS={},
        SSE_HEARTBEAT_S=15.0,  # comment lines that keep proxies and dead-peer detection going
        SSE_MAX_S=None,  # end each stream after this long (tests); browsers reconnect by themselves
        SSE_QUEUE=32,  # messages kept per slow listener before the oldest is dropped
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        MODE="manual",  # shown in the header: manual / demo / camera
    )
    if test_config:
        app.config.from_mapping(test_config)
    data_dir = Path(app.config["DATA_DIR"])
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = _secret_key(data_dir)
    if hall is None:
        from tablecompanion.referee import Hall

        hall = Hall(data_dir)

    app.json.sort_keys = False  # snapshots read best in the referee's own order
    state = WebState(app, hall)
    app.extensions["tablecompanion"] = state

    from . import api, events, views

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(events.bp)

    @app.errorhandler(404)
    def not_found(exc):
        if request.path.startswith("/api/"):
            return jsonify(error="no such resource: " + request.path, status=404), 404
        return views.error_page(404, "Nothing here", "There is no page at this address."), 404

    @app.errorhandler(405)
    def not_allowed(exc):
        if request.path.startswith("/api/"):
            return jsonify(error=f"{request.method} is not allowed on {request.path}", status=405), 405
        return views.error_page(405, "Not allowed", f"{request.method} is not allowed here."), 405

    @app.after_request
    def security_headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        return resp

    return app
