"""What becomes of a settings value that cannot be used: the one table, read the SAFER way.

A value that only grants or decorates (an allow rule, an additional directory, a hook's
statusMessage, timeout or once) is left out alone: the hook keeps running without it, a bad
timeout takes the default. A value that guards (a deny or ask rule, a hook's type, command or
matcher, the sandbox's switches that restrict) must never be weakened by a slip: either it is
read the strict way (a malformed `failClosed` fails closed) or the start is refused naming the
file and the key, as a file that is not JSON is. Claude Code refuses the whole file in these
cases; leaving out only the guard would keep the allow rules beside it in force.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from tether.config.numbers import ANY
from tether.config.setting_shapes import HOOK


class Remedy(Enum):
    """What is done with a value that cannot be used, with how the warning says it."""

    DROP = "ignored, as if the file did not set it"
    """It only grants or decorates: that key or list item alone is left out."""
    FAIL_CLOSED = "read as true: the hook fails closed"
    """A hook's failure policy: read as the strict one."""
    REFUSE = "it guards what the file allows, so tether does not start without it"
    """It guards: going on without it would widen what runs."""


REMEDIES: Mapping[tuple[str | int, ...], Remedy] = {
    # Top-level blocks that hold guards: of the wrong type, their guards would all be gone.
    ("permissions",): Remedy.REFUSE,
    ("hooks",): Remedy.REFUSE,
    ("sandbox",): Remedy.REFUSE,
    # Permission rules: a deny or ask rule (or the list) that cannot be read refuses the start;
    # an allow rule or a directory that cannot be read is only not granted.
    ("permissions", "deny"): Remedy.REFUSE,
    ("permissions", "deny", ANY): Remedy.REFUSE,
    ("permissions", "ask"): Remedy.REFUSE,
    ("permissions", "ask", ANY): Remedy.REFUSE,
    ("permissions", "disableBypassPermissionsMode"): Remedy.REFUSE,
    # The sandbox's switches that restrict; what it lets through (writable, excludedCommands,
    # allowUnsandboxedCommands, autoAllowBashIfSandboxed, ...) is only not granted.
    ("sandbox", "enabled"): Remedy.REFUSE,
    ("sandbox", "required"): Remedy.REFUSE,
    ("sandbox", "failIfUnavailable"): Remedy.REFUSE,
    ("sandbox", "network"): Remedy.REFUSE,
    # A hook: what it runs and on what; its failure policy is read the strict way.
    ("hooks", ANY, ANY, "matcher"): Remedy.REFUSE,
    (*HOOK, "type"): Remedy.REFUSE,
    (*HOOK, "command"): Remedy.REFUSE,
    (*HOOK, "prompt"): Remedy.REFUSE,
    (*HOOK, "url"): Remedy.REFUSE,
    (*HOOK, "headers"): Remedy.REFUSE,
    (*HOOK, "allowedEnvVars"): Remedy.REFUSE,
    (*HOOK, "allowedEnvVars", ANY): Remedy.REFUSE,
    (*HOOK, "failClosed"): Remedy.FAIL_CLOSED,
    (*HOOK, "onFailure"): Remedy.FAIL_CLOSED,
}
"""The remedy of each value by its place (`ANY` for any key or list item); a value not
listed only grants or decorates, and is dropped (`Remedy.DROP`)."""


def remedy_at(place: tuple[str | int, ...]) -> Remedy:
    """The remedy for the value at `place` (its keys and list indexes)."""
    for pattern, remedy in REMEDIES.items():
        if len(pattern) == len(place) and all(
            want in (ANY, step) for want, step in zip(pattern, place, strict=True)
        ):
            return remedy
    return Remedy.DROP
