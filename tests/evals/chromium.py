"""Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
JSON messages ended by NUL on descriptors 3 and 4), so no WebSocket client is needed. Opens
a page, collects what the console and the browser's log say at error level, and evaluates an
expression in the page once it has loaded."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageVisit:
    value: Any
    """What the expression evaluated to (by value)."""
    errors: list[str] = field(default_factory=list[str])
    """Console errors, uncaught exceptions, error entries of the browser's log."""


def visit(page: Path, expression: str, timeout_s: float = 60) -> PageVisit:
    program = find_chromium()
    assert program is not None
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def descriptors() -> None:  # the browser reads commands on 3, writes answers on 4
        reading, writing = os.dup(to_browser_r), os.dup(from_browser_w)  # neither is 3 and 4
        os.dup2(reading, 3)
        os.dup2(writing, 4)

    with tempfile.TemporaryDirectory(prefix="tether-chromium-") as profile:
        process = subprocess.Popen(
            [program, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=descriptors,
            pass_fds=(3, 4),  # kept open after `descriptors` runs
            start_new_session=True,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        link = _Pipe(to_browser_w, from_browser_r, process, timeout_s)
        try:
            return _visit(link, page, expression)
        finally:
            link.close()


def _visit(link: _Pipe, page: Path, expression: str) -> PageVisit:
    target = link.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = link.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Page"):
        link.call(f"{domain}.enable", session=session)
    link.call("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
    link.wait_for("Page.loadEventFired")
    answer = link.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
    )
    if "exceptionDetails" in answer:
        link.errors.append(f"evaluating the check: {answer['exceptionDetails']}")
    return PageVisit(answer["result"].get("value"), link.errors)


class _Pipe:
    def __init__(self, out: int, into: int, process: subprocess.Popen[bytes], timeout_s: float):
        self.out, self.process, self.timeout_s = out, process, timeout_s
        self.reader = os.fdopen(into, "rb")
        self.next_id = 0
        self.errors: list[str] = []
        self.seen: list[str] = []

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def wait_for(self, event: str) -> None:
        while event not in self.seen:
            self._read()

    def _read(self) -> dict[str, Any]:
        chunks = bytearray()
        while True:
            byte = self.reader.read(1)
            if not byte:
                raise RuntimeError(f"chromium closed the pipe (exit {self.process.poll()})")
            if byte == b"\0":
                break
            chunks += byte
        message: dict[str, Any] = json.loads(chunks)
        method = message.get("method")
        if method is not None:
            self.seen.append(method)
            self._note(method, message.get("params", {}))
        return message

    def _note(self, method: str, params: dict[str, Any]) -> None:
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Runtime.exceptionThrown":
            self.errors.append(f"uncaught: {params.get('exceptionDetails')}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(f"log: {params['entry'].get('text')}")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.out, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        try:
            self.process.wait(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        os.close(self.out)
        self.reader.close()
