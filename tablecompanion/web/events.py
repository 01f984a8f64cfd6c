"""Live updates by Server-Sent Events: every change at a table reaches every open page without reload.

One :class:`Broker` per application subscribes to each referee (``ref.subscribe``). A referee's
callback only drops a note in the broker's inbox, so the referee never waits on the network and never
re-enters itself; one worker thread then renders each update once (snapshot, SVG board, HTML
fragments) and hands the same bytes to every listener's bounded queue. Each stream is a generator on
its own server thread, sending that queue plus heartbeat comments.
"""

from __future__ import annotations

import collections
import itertools
import json
import logging
import threading
import time

from flask import Blueprint, Response, abort, current_app, request

from .state import web_state

log = logging.getLogger(__name__)

bp = Blueprint("events", __name__)

VARIANTS = ("full", "public")  # table view (with flags) / display view (no flags)
HALL = ("hall",)


def sse_message(kind: str, payload: dict, seq: int | None = None) -> bytes:
    """One SSE message; the JSON stays on one ``data:`` line."""
    head = f"id: {seq}\n" if seq is not None else ""
    data = json.dumps(payload, separators=(",", ":"), default=str)
    return f"{head}event: {kind}\ndata: {data}\n\n".encode()


class Listener:
    """One open stream's queue. Bounded: a listener that falls behind loses the oldest messages, which
    is harmless because every message carries the whole state of its table."""

    __slots__ = ("_q", "_cv", "closed")

    def __init__(self, maxsize: int) -> None:
        self._q: collections.deque = collections.deque(maxlen=max(1, maxsize))
        self._cv = threading.Condition()
        self.closed = False

    def put(self, msg: bytes) -> None:
        with self._cv:
            self._q.append(msg)
            self._cv.notify()

    def get(self, timeout: float) -> bytes | None:
        with self._cv:
            if not self._q and not self.closed:
                self._cv.wait(timeout)
            return self._q.popleft() if self._q else None

    def close(self) -> None:
        with self._cv:
            self.closed = True
            self._cv.notify()


class Broker:
    """Fans referee events out to SSE listeners: per table and variant, and one channel for the hall."""

    def __init__(self, app, hall) -> None:
        self.app = app
        self.hall = hall
        self._lock = threading.Lock()
        self._listeners: dict[tuple, set[Listener]] = collections.defaultdict(set)
        self._attached: dict[str, tuple[int, object]] = {}
        self._inbox: collections.deque = collections.deque()
        self._wake = threading.Event()
        self._worker: threading.Thread | None = None
        self._seq = itertools.count(1)
        self.delivered = 0  # messages handed to listeners (for tests and the benchmark)

    # -- referees -------------------------------------------------------------------------------

    def attach(self, table_id: str, ref) -> None:
        """Follow ``ref``'s changes (idempotent; a table whose referee was replaced is re-followed)."""
        table_id = str(table_id)
        with self._lock:
            known = self._attached.get(table_id)
            if known is not None and known[0] == id(ref):
                return
            callback = _Callback(self, table_id)
            self._attached[table_id] = (id(ref), (ref, callback))
        if known is not None:
            old_ref, old_cb = known[1]
            try:
                old_ref.unsubscribe(old_cb)
            except Exception:  # noqa: BLE001
                pass
        ref.subscribe(callback)

    def attach_all(self) -> None:
        for ref in list(self.hall.tables()):
            tid = _table_id(ref)
            if tid is not None:
                self.attach(tid, ref)

    def notify(self, table_id: str, event) -> None:
        """Called from any thread (the referee's callback): queue the change for the worker."""
        self._inbox.append((str(table_id), event))
        self._ensure_worker()
        self._wake.set()

    # -- listeners ------------------------------------------------------------------------------

    def listen(self, key: tuple) -> Listener:
        listener = Listener(self.app.config.get("SSE_QUEUE", 32))
        with self._lock:
            self._listeners[key].add(listener)
        return listener

    def forget(self, key: tuple, listener: Listener) -> None:
        with self._lock:
            group = self._listeners.get(key)
            if group is not None:
                group.discard(listener)
                if not group:
                    del self._listeners[key]

    def listener_count(self, key: tuple | None = None) -> int:
        with self._lock:
            if key is not None:
                return len(self._listeners.get(key, ()))
            return sum(len(v) for v in self._listeners.values())

    def close_all(self) -> None:
        """End every open stream (server shutdown)."""
        with self._lock:
            groups = [set(g) for g in self._listeners.values()]
        for group in groups:
            for listener in group:
                listener.close()

    # -- messages -------------------------------------------------------------------------------

    def next_seq(self) -> int:
        return next(self._seq)

    def table_message(self, ref, variant: str, events: list | None = None, seq: int | None = None) -> bytes:
        from .views import table_payload

        seq = self.next_seq() if seq is None else seq
        body = table_payload(ref, public=(variant == "public"))
        # small keys first, so a client can read which update this is without parsing the whole message
        payload = {"seq": seq, "table_id": str(body["table"].get("id")), "n": body["table"].get("events"),
                   "sent": time.time()}
        payload.update(body)
        payload["events"] = [_clean_event(e, public=(variant == "public")) for e in events or []]
        return sse_message("state", payload, seq)

    def hall_message(self, ref, seq: int | None = None) -> bytes:
        from .views import hall_card_payload

        seq = self.next_seq() if seq is None else seq
        payload = hall_card_payload(ref)
        payload["seq"] = seq
        payload["sent"] = time.time()
        return sse_message("table", payload, seq)

    def table_added(self, table_id: str) -> None:
        """A new table: follow it and tell the hall."""
        ref = web_state().table(table_id) if _has_app() else self.hall.get(table_id)
        if ref is not None:
            self.attach(table_id, ref)
            self.notify(table_id, {"type": "table_created"})

    # -- the worker -----------------------------------------------------------------------------

    def _ensure_worker(self) -> None:
        if self._worker is not None and self._worker.is_alive():
            return
        with self._lock:
            if self._worker is not None and self._worker.is_alive():
                return
            self._worker = threading.Thread(target=self._run, name="sse-broker", daemon=True)
            self._worker.start()

    def _run(self) -> None:
        while True:
            self._wake.wait(5.0)
            self._wake.clear()
            if not self._inbox:
                continue
            pending: dict[str, list] = {}
            while self._inbox:
                table_id, event = self._inbox.popleft()
                pending.setdefault(table_id, []).append(event)
            for table_id, events in pending.items():
                try:
                    self._publish(table_id, events)
                except Exception:  # noqa: BLE001 - one bad table must not stop every page's updates
                    log.exception("could not publish the update of table %s", table_id)

    def _publish(self, table_id: str, events: list) -> None:
        with self._lock:
            groups = {v: list(self._listeners.get(("table", table_id, v), ())) for v in VARIANTS}
            hall_group = list(self._listeners.get(HALL, ()))
        if not any(groups.values()) and not hall_group:
            return
        try:
            ref = self.hall.get(table_id)
        except Exception:  # noqa: BLE001
            return
        seq = self.next_seq()
        # a bare request context so the fragments can build URLs (never a real request's session)
        with self.app.test_request_context("/"):
            for variant, group in groups.items():
                if group:
                    msg = self.table_message(ref, variant, events, seq)
                    for listener in group:
                        listener.put(msg)
                    self.delivered += len(group)
            if hall_group:
                msg = self.hall_message(ref, seq)
                for listener in hall_group:
                    listener.put(msg)
                self.delivered += len(hall_group)


class _Callback:
    """What a referee calls after each change; hashable so ``unsubscribe`` finds it again."""

    __slots__ = ("broker", "table_id")

    def __init__(self, broker: Broker, table_id: str) -> None:
        self.broker = broker
        self.table_id = table_id

    def __call__(self, event=None, *args, **kwargs) -> None:
        self.broker.notify(self.table_id, event)


def _has_app() -> bool:
    from flask import has_app_context

    return has_app_context()


def _table_id(ref) -> str | None:
    tid = getattr(ref, "table_id", None) or getattr(ref, "id", None)
    if tid is None:
        try:
            tid = ref.snapshot(public=True).get("id")
        except Exception:  # noqa: BLE001
            return None
    return str(tid)


def _clean_event(event, public: bool) -> dict:
    """A referee's note as the page sees it: JSON-safe; the display gets only the public decisions."""
    if not isinstance(event, dict):
        return {"kind": str(event)} if event is not None else {}
    out = {k: event[k] for k in ("table", "n", "kind", "time", "type") if k in event}
    decisions = event.get("public_decisions" if public else "decisions")
    if decisions is None:
        decisions = event.get("decisions") or []
        if public:
            decisions = [d for d in decisions if isinstance(d, dict)
                         and not str(d.get("decision", "")).startswith("illegal_play")]
    out["decisions"] = [{k: v for k, v in d.items() if k != "evidence"} if isinstance(d, dict) else d
                        for d in decisions]
    return out


# -- routes -------------------------------------------------------------------------------------


def _stream(key: tuple, first: bytes) -> Response:
    state = web_state()
    broker = state.broker
    heartbeat = float(current_app.config.get("SSE_HEARTBEAT_S") or 15.0)
    max_s = current_app.config.get("SSE_MAX_S")
    listener = broker.listen(key)

    def generate():
        deadline = time.monotonic() + float(max_s) if max_s else None
        try:
            yield b"retry: 2000\n\n" + first
            while not listener.closed:
                wait = heartbeat
                if deadline is not None:
                    wait = min(wait, deadline - time.monotonic())
                    if wait <= 0:
                        return
                msg = listener.get(wait)
                yield msg if msg is not None else b": ping\n\n"
        finally:
            broker.forget(key, listener)

    # no stream_with_context: the generator needs no request, and interleaved streams in one thread
    # (tests, some servers) would pop each other's contexts
    resp = Response(generate(), mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


@bp.get("/tables/<table_id>/events")
@bp.get("/api/tables/<table_id>/events")
def table_events(table_id: str):
    """The table's live stream: one ``state`` message now, then one after every change.

    ``?view=display`` gives the public variant (no flags), as the display view uses.
    """
    state = web_state()
    ref = state.table(table_id)
    if ref is None:
        abort(404)
    state.broker.attach(table_id, ref)
    variant = "public" if request.args.get("view") in ("display", "public") else "full"
    first = state.broker.table_message(ref, variant)
    return _stream(("table", str(table_id), variant), first)


@bp.get("/events")
@bp.get("/api/events")
def hall_events():
    """The hall's live stream: a ``table`` message per table now, then one per change at any table."""
    state = web_state()
    state.broker.attach_all()
    first = b"".join(state.broker.hall_message(ref) for ref in state.tables())
    return _stream(HALL, first)
