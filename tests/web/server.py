"""Start ``tablecompanion serve`` as a real process on a free loopback port (for the serve and browser tests)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, args: list[str], env: dict | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.args = args
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 30.0) -> "Server":
        cmd = [sys.executable, "-m", "tablecompanion", "serve", *self.args, "--port", str(self.port), "--quiet"]
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited with {self.proc.returncode}: {self.proc.stdout.read()}")
            try:
                self.get("/api/tables")
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("serve did not answer in time")

    def request(self, method: str, path: str, body=None, token: str | None = None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def get(self, path: str):
        status, body = self.request("GET", path)
        if status != 200:
            raise AssertionError(f"GET {path}: {status} {body}")
        return body

    def act(self, body: dict, token: str, table_id: str = "1"):
        status, out = self.request("POST", f"/api/tables/{table_id}/actions", body, token)
        if status != 200:
            raise AssertionError(f"{body}: {status} {out}")
        return out

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()  # SIGKILL: no clean shutdown at all
            self.proc.wait(10)

    def stop(self) -> str:
        out = ""
        if self.proc:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(10)
            out = self.proc.stdout.read() if self.proc.stdout else ""
            self.proc.stdout and self.proc.stdout.close()
        return out
