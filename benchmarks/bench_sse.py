"""Live-update delay under load: many SSE listeners on one table while 20 tables play on one server.

Starts the real server (``tablecompanion serve --manual``) on a free loopback port, opens ``--clients``
event streams on table 1 and ``--others`` on each of the other tables (plus two hall streams), then plays
legal actions round-robin over all tables through the JSON API at ``--rate`` actions per second (bounded:
``--actions`` in all). For every action it measures, per listener of that table, the delay from just
before the POST is sent to the moment the update's bytes arrive at the listener (the record's durable
write included), and reports p50/p95/max. Listeners are raw sockets on one selector thread, so the client
side costs little next to the server.

Run:  python benchmarks/bench_sse.py                       (50 clients, 20 tables, 300 actions)
      python benchmarks/bench_sse.py --browser             (+ one real page: delay until it has applied)
      python benchmarks/bench_sse.py --clients 10 --tables 3 --actions 40 --json
Also: python -m pytest benchmarks/bench_sse.py --benchmark-enable (a small configuration, one round).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAD = re.compile(rb'"seq":(\d+),"table_id":"([^"]*)","n":(\d+|null),"sent":([0-9.]+)')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(base: str, method: str, path: str, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


class Listeners:
    """SSE clients on raw sockets, read by one selector thread; records (table, n) -> receive times."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sel = selectors.DefaultSelector()
        self.received: dict[tuple[str, int], list[float]] = {}
        self.fanout: list[float] = []  # server's publish time -> arrival
        self.lock = threading.Lock()
        self.open = 0
        self.bytes = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def connect(self, path: str) -> None:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        s.sendall(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        s.setblocking(False)
        self.sel.register(s, selectors.EVENT_READ, {"buf": b"", "path": path})
        self.open += 1

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self.sel.select(timeout=0.2):
                now = time.time()
                try:
                    chunk = key.fileobj.recv(1 << 18)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self.sel.unregister(key.fileobj)
                    key.fileobj.close()
                    self.open -= 1
                    continue
                self.bytes += len(chunk)
                buf = key.data["buf"] + chunk
                *blocks, rest = buf.split(b"\n\n")
                key.data["buf"] = rest
                for block in blocks:
                    if b"event: state" not in block[:80] and b"\nevent: state" not in block:
                        continue
                    m = HEAD.search(block, 0, 400)
                    if not m or m.group(3) == b"null":
                        continue
                    k = (m.group(2).decode(), int(m.group(3)))
                    with self.lock:
                        self.received.setdefault(k, []).append(now)
                        self.fanout.append(now - float(m.group(4)))


def next_action(t: dict, rng: random.Random) -> dict | None:
    """A legal action for whatever the table awaits (no cube: games run to the end)."""
    awaiting = t.get("awaiting")
    if t.get("status") == "match_over" or awaiting == "match_over":
        return None
    if awaiting in ("opening_roll", "roll", "roll_or_double"):
        return {"action": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)]}
    if awaiting == "play":
        plays = t.get("legal_plays") or [""]
        return {"action": "play", "play": rng.choice(plays)}
    if awaiting == "take_or_pass":
        return {"action": "take"}
    if awaiting == "resign_response":
        return {"action": "accept_resign"}
    return {"action": "new_game"}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


def open_browser(url: str):
    """One headless Chromium page on ``url`` (the table view), live; None when there is no browser."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    if not (os.path.exists("/usr/bin/chromium") and os.path.exists("/usr/bin/chromedriver")):
        return None
    opts = Options()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
              "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(a)
    opts.binary_location = "/usr/bin/chromium"
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    d.get(url)
    for _ in range(100):
        if d.execute_script("return !!document.querySelector('#live.on')"):
            break
        time.sleep(0.05)
    return d


PAGE_STATE = "var p = document.getElementById('table-page'); return [document.body.dataset.seq || '0', p.dataset.updated || '0'];"


def run(clients: int = 50, tables: int = 20, others: int = 2, actions: int = 300, rate: float = 20.0,
        seed: int = 1, settle_s: float = 1.0, browser: bool = False) -> dict:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    tmp = tempfile.mkdtemp(prefix="tc-bench-sse-")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tablecompanion", "serve", "--manual", "--token", "bench-token",
                             "--data-dir", tmp, "--port", str(port), "--quiet"], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    listeners = None
    driver = None
    page_delays: list[float] = []
    try:
        for _ in range(300):
            try:
                if http(base, "GET", "/api/tables")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError("the server did not start")
        tokens = {"1": "bench-token"}
        for k in range(2, tables + 1):
            status, out = http(base, "POST", "/api/tables", {"players": [f"P{k}a", f"P{k}b"], "match_length": 25,
                                                             "table_id": str(k), "token": f"tok-{k}"})
            assert status == 201, out
            tokens[out["id"]] = out["token"]
        listeners = Listeners(port)
        for _ in range(clients):
            listeners.connect("/tables/1/events")
        for k in range(2, tables + 1):
            for _ in range(others):
                listeners.connect(f"/tables/{k}/events")
        for _ in range(2):
            listeners.connect("/events")
        listeners.start()
        if browser:
            driver = open_browser(base + "/tables/1")
        time.sleep(settle_s)  # every stream has its first message

        rng = random.Random(seed)
        state = {tid: http(base, "GET", f"/api/tables/{tid}")[1] for tid in tokens}
        sent: dict[tuple[str, int], float] = {}
        post_times: list[float] = []
        ids = list(tokens)
        interval = 1.0 / rate if rate > 0 else 0.0
        seq_seen = driver.execute_script(PAGE_STATE)[0] if driver is not None else None
        t_start = time.monotonic()
        for i in range(actions):
            tid = ids[i % len(ids)]
            action = next_action(state[tid], rng)
            if action is None:
                continue
            due = t_start + i * interval
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            t0 = time.time()
            status, out = http(base, "POST", f"/api/tables/{tid}/actions", action, tokens[tid])
            post_times.append(time.time() - t0)
            if status != 200:
                state[tid] = http(base, "GET", f"/api/tables/{tid}")[1]
                continue
            state[tid] = out["table"]
            sent[(tid, out["table"]["events"])] = t0
            if driver is not None and tid == "1":
                # the page's own clock stamps when it applied the update (Date.now(), same machine clock)
                before = seq_seen
                for _ in range(200):
                    seq, updated = driver.execute_script(PAGE_STATE)
                    if seq != before and int(updated) / 1000 >= t0:
                        page_delays.append(int(updated) / 1000 - t0)
                        seq_seen = seq
                        break
                    time.sleep(0.01)
        elapsed = time.monotonic() - t_start
        time.sleep(1.0)  # the last updates arrive
        with listeners.lock:
            received = dict(listeners.received)
            fanout = list(listeners.fanout)
        expect = {tid: (clients if tid == "1" else others) for tid in tokens}
        delays = {"table1": [], "others": []}
        missing = 0
        for key, t0 in sent.items():
            got = received.get(key, [])
            missing += max(0, expect[key[0]] - len(got))
            bucket = "table1" if key[0] == "1" else "others"
            delays[bucket].extend(t - t0 for t in got)
        every = delays["table1"] + delays["others"]
        ms = lambda v: round(v * 1000, 1)  # noqa: E731
        return {
            "clients_on_table_1": clients, "tables": tables, "listeners_per_other_table": others,
            "streams_open_at_end": listeners.open, "actions": len(sent), "seconds": round(elapsed, 1),
            "actions_per_s": round(len(sent) / elapsed, 1) if elapsed else None,
            "deliveries": len(every), "missing_deliveries": missing,
            "delay_ms_table1": {"p50": ms(pct(delays["table1"], 50)), "p95": ms(pct(delays["table1"], 95)),
                                "max": ms(max(delays["table1"], default=float("nan")))},
            "delay_ms_all": {"p50": ms(pct(every, 50)), "p95": ms(pct(every, 95)),
                             "max": ms(max(every, default=float("nan")))},
            "post_ms": {"p50": ms(pct(post_times, 50)), "p95": ms(pct(post_times, 95))},
            "publish_to_client_ms": {"p50": ms(pct(fanout, 50)), "p95": ms(pct(fanout, 95))},
            "mbytes_received": round(listeners.bytes / 1e6, 1),
            "browser_page_ms": ({"updates": len(page_delays), "p50": ms(pct(page_delays, 50)),
                                 "p95": ms(pct(page_delays, 95)), "max": ms(max(page_delays))}
                                if page_delays else None),
        }
    finally:
        if driver is not None:
            driver.quit()
        if listeners is not None:
            listeners.stop()
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_sse_delay(benchmark):
    """pytest-benchmark entry: a small configuration, one round; the figures go to extra_info."""
    result = benchmark.pedantic(run, kwargs={"clients": 10, "tables": 4, "others": 1, "actions": 40, "rate": 10.0},
                                rounds=1, iterations=1)
    benchmark.extra_info.update(result)
    assert result["missing_deliveries"] == 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=50, help="listeners on table 1 (default 50)")
    p.add_argument("--tables", type=int, default=20, help="tables on the server (default 20)")
    p.add_argument("--others", type=int, default=2, help="listeners on each other table (default 2)")
    p.add_argument("--actions", type=int, default=300, help="actions in all, round-robin (default 300)")
    p.add_argument("--rate", type=float, default=20.0, help="actions per second over all tables (default 20)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--browser", action="store_true",
                   help="also keep one headless Chromium on table 1's page and time each update until the page "
                        "has applied it (slows the action loop on table 1's actions)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    result = run(args.clients, args.tables, args.others, args.actions, args.rate, args.seed,
                 browser=args.browser)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for k, v in result.items():
            print(f"{k:28} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
