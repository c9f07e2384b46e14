"""`http` hooks: the hook input POSTed as JSON to the hook's `url`, the answer read as a command
hook's stdout, as in Claude Code.

A 2xx answer with an empty body is a success with nothing to say; a 2xx with a JSON object is
read exactly as a command hook's JSON output (decisions, context, `continue`...); any other
body, a status outside 2xx, a connection failure or the timeout is a hook that did not run to a
normal end: an error shown to the user, the event going ahead, unless the hook is fail-closed
(`onFailure: "block"`). Header values may name environment variables (`$VAR`, `${VAR}`), filled
only for those the hook lists in `allowedEnvVars`; any other reference becomes an empty string,
so a settings file cannot send a secret the user did not name. Redirects are not followed.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping

from tether.hooks.command import MAX_OUTPUT_BYTES, HookRun
from tether.hooks.spec import HookSpec

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def header_values(spec: HookSpec, env: Mapping[str, str]) -> dict[str, str]:
    """The hook's headers, `$VAR` and `${VAR}` filled for the variables it allows."""
    allowed = set(spec.allowed_env)

    def fill(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return {name: _REFERENCE.sub(fill, value) for name, value in spec.headers}


async def run_http(spec: HookSpec, stdin: bytes, env: Mapping[str, str]) -> HookRun:
    """POST `stdin` (the hook input) to the hook's url; the run as a command's would be: exit
    0 with the JSON object answered as stdout, or a failure saying what went wrong."""
    import httpx2  # only when an http hook runs: start-up does not pay for it

    assert spec.url is not None
    headers = {"Content-Type": "application/json", **header_values(spec, env)}
    try:
        # The timeout is the whole answer's: httpx's own is per read, which a body that keeps
        # coming a byte at a time never exceeds. The body is read up to the output bound.
        async with asyncio.timeout(spec.timeout_s):
            async with (
                httpx2.AsyncClient(timeout=spec.timeout_s, follow_redirects=False) as client,
                client.stream("POST", spec.url, content=stdin, headers=headers) as response,
            ):
                raw = bytearray()
                async for chunk in response.aiter_bytes():
                    raw += chunk
                    if len(raw) > MAX_OUTPUT_BYTES:
                        break
    except (httpx2.TimeoutException, TimeoutError):
        return HookRun(None, "", "", f"timed out after {spec.timeout_s:g} s", timed_out=True)
    except httpx2.HTTPError as e:
        return HookRun(None, "", "", f"could not be reached: {e or type(e).__name__}")
    body = bytes(raw[:MAX_OUTPUT_BYTES]).decode("utf-8", errors="replace")
    if not 200 <= response.status_code < 300:
        return HookRun(None, "", body, f"answered HTTP {response.status_code}")
    text = body.strip()
    if text and not _is_object(text):
        return HookRun(None, "", body, "answered with a body that is not a JSON object")
    return HookRun(0, text, "")


def _is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
