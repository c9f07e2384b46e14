"""An MCP server written by hand, line by line of JSON-RPC over stdio, to say what no SDK
server would: a tool with an invalid schema, a malformed result, a JSON-RPC error, an exit in
the middle of a call. Speaks the 2025-11-25 handshake; answers `server/discover` with
"method not found", as servers before 2026 do.

Options: `--fail-listing` (tools/list answers an error), `--paged` (two tools a page).
With RAW_SERVER_LOG set, each start and each tool call is appended to that file, with the pid.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {
        "name": "ok",
        "description": "Answers ok.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    },
    {"name": "no_schema", "description": "Has no input schema at all."},
    {"name": "bad_schema", "description": "A string schema.", "inputSchema": {"type": "string"}},
    {"name": "garbage", "inputSchema": {"type": "object"}},
    {"name": "rpc_error", "inputSchema": {"type": "object"}},
    {"name": "crash", "inputSchema": {"type": "object"}},
    {"name": "pid", "inputSchema": {"type": "object"}},
    {"name": "where", "inputSchema": {"type": "object"}},
]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    if method == "tools/list":
        if "--fail-listing" in sys.argv:
            raise LookupError("the tool database is locked")
        if "--paged" in sys.argv:  # two tools a page
            start = int(params.get("cursor") or 0)
            page: dict[str, Any] = {"tools": TOOLS[start : start + 2]}
            if start + 2 < len(TOOLS):
                page["nextCursor"] = str(start + 2)
            return page
        return {"tools": TOOLS}
    if method == "tools/call":
        _log(f"call {params.get('name')}")
        match params.get("name"):
            case "ok" | "no_schema":
                return {"content": [{"type": "text", "text": "ok"}]}
            case "garbage":
                return {"content": "this is not a list of blocks"}
            case "rpc_error":
                raise LookupError("the tool exploded")
            case "crash":
                print("crashing on purpose", file=sys.stderr, flush=True)
                os._exit(1)
            case "pid":
                return {"content": [{"type": "text", "text": str(os.getpid())}]}
            case "where":
                print("where was asked", file=sys.stderr, flush=True)
                asked = (params.get("arguments") or {}).get("names", [])
                seen = {"cwd": os.getcwd(), **{n: os.environ.get(n) for n in asked}}
                return {"content": [{"type": "text", "text": json.dumps(seen)}]}
    raise NotImplementedError(method)


def _log(what: str) -> None:
    path = os.environ.get("RAW_SERVER_LOG")
    if path:
        with open(path, "a") as log:
            log.write(f"{what} {os.getpid()}\n")


def main() -> None:
    _log("start")
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            reply["result"] = answer(message)
        except NotImplementedError as exc:
            reply["error"] = {"code": -32601, "message": f"method not found: {exc}"}
        except LookupError as exc:
            reply["error"] = {"code": -32603, "message": str(exc)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
