"""A partial judgement, combined across the parts of a call: the worst part decides."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Outcome = Literal["allow", "none", "ask", "deny"]
"""`none`: no rule allows it, so the mode decides (ask, or deny in dontAsk)."""
_SEVERITY: dict[Outcome, int] = {"allow": 0, "none": 1, "ask": 2, "deny": 3}


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    rule: str | None = None
    reason: str = ""
    hard: bool = False
    """An ask that stands in bypassPermissions too (an explicit ask rule, a protected path)."""


ALLOW = Verdict("allow")


def allow(reason: str = "", rule: str | None = None) -> Verdict:
    return Verdict("allow", rule, reason)


def ask(reason: str, rule: str | None = None, *, hard: bool = False) -> Verdict:
    return Verdict("ask", rule, reason, hard)


def deny(reason: str, rule: str | None = None) -> Verdict:
    return Verdict("deny", rule, reason)


def none(reason: str) -> Verdict:
    return Verdict("none", None, reason)


def _outranks(a: Verdict, b: Verdict) -> bool:
    if a.outcome == b.outcome == "ask":
        return a.hard and not b.hard
    return _SEVERITY[a.outcome] > _SEVERITY[b.outcome]


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """The most severe verdict; among allows, the rules that allowed are listed together. Among
    asks, a hard one wins, so that bypassPermissions cannot skip it."""
    found: Verdict | None = None
    rules: list[str] = []
    reasons: list[str] = []
    for v in verdicts:
        if v.outcome == "allow" and v.rule and v.rule not in rules:
            rules.append(v.rule)
        if v.outcome == "allow" and v.reason and not v.rule and v.reason not in reasons:
            reasons.append(v.reason)
        if found is None or _outranks(v, found):
            found = v
    if found is None:
        return allow("nothing to check")
    if found.outcome == "allow":
        said = f"allowed by {', '.join(rules)}" if rules else reasons[0] if reasons else ""
        return Verdict("allow", ", ".join(rules) or None, said)
    return found
