"""Judging generated commands: the engine's decisions under each policy, bash's verdict from the
sandbox, the bypasses (allowed, yet the sentinel ran) made as small as they stay bypasses, and
a report that lists each class once."""

from __future__ import annotations

import traceback
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.permissions import Decision, Mode, PermissionContext, decide, load_rules

from .sentinel_commands import Sample, render, smaller
from .sentinel_sandbox import Sandbox

Policies = Mapping[str, tuple[Mapping[str, Any] | None, Mode]]


def contexts(policies: Policies, workspace: Path, home: Path) -> dict[str, PermissionContext]:
    made: dict[str, PermissionContext] = {}
    for name, (settings, mode) in policies.items():
        layers = [(workspace / ".claude" / "settings.json", settings)] if settings else []
        rules = load_rules(layers, seed_yaml=None)
        made[name] = PermissionContext(mode, rules, workspace, workspace, home=home)
    return made


@dataclass(frozen=True)
class Crash:
    site: str
    """The exception's type and the engine's innermost frame: one per defect."""
    command: str
    error: str


def crash_of(command: str, error: Exception) -> Crash:
    # walk_tb, not extract_tb: a RecursionError has a thousand frames, and their source lines
    # are not needed.
    frames = [
        (frame.f_code.co_filename, line)
        for frame, line in traceback.walk_tb(error.__traceback__)
        if "/tether/" in frame.f_code.co_filename
    ]
    where = f"{Path(frames[-1][0]).name}:{frames[-1][1]}" if frames else "?"
    return Crash(f"{type(error).__name__} at {where}", command, f"{error!r}"[:200])


def shortest_per_site(crashes: list[Crash]) -> list[Crash]:
    first: dict[str, Crash] = {}
    for crash in sorted(crashes, key=lambda c: len(c.command)):
        first.setdefault(crash.site, crash)
    return list(first.values())


@dataclass(frozen=True)
class Finding:
    policy: str
    decision: Decision
    sample: Sample
    runs: tuple[str, ...]

    def describe(self) -> str:
        return (
            f"[{self.policy}] {self.decision.behavior}: {self.decision.reason}\n"
            f"    positions: {' > '.join(self.sample.tags)}\n"
            f"    command:   {self.sample.command!r}\n"
            f"    sentinel:  {list(self.runs)}"
        )


@dataclass
class Judge:
    sandbox: Sandbox
    ctxs: Mapping[str, PermissionContext]
    findings: list[Finding] = field(default_factory=list[Finding])
    crashes: list[Crash] = field(default_factory=list[Crash])
    harmless: Counter[str] = field(default_factory=Counter[str])
    _runs: dict[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])

    def decisions(self, command: str) -> dict[str, Decision] | None:
        try:
            return {
                name: decide("Bash", {"command": command}, ctx) for name, ctx in self.ctxs.items()
            }
        except Exception as error:  # a finding of its own, reported with the bypasses
            self.crashes.append(crash_of(command, error))
            return None

    def run(self, command: str) -> tuple[str, ...]:
        if command not in self._runs:
            self._runs[command] = self.sandbox.run(command)
        return self._runs[command]

    def judge_all(self, batch: list[Sample], workers: int) -> None:
        """Judges every sample, running several sandboxes at once."""
        decided = [(sample, self.decisions(sample.command)) for sample in batch]
        commands = [sample.command for sample, d in decided if d is not None]
        with ThreadPoolExecutor(workers) as pool:
            self._runs.update(zip(commands, pool.map(self.sandbox.run, commands), strict=True))
        for sample, decisions in decided:
            if decisions is not None:
                self._count(sample, decisions, self._runs[sample.command])

    def judge(self, sample: Sample) -> None:
        decided = self.decisions(sample.command)
        if decided is not None:
            self._count(sample, decided, self.run(sample.command))

    def _count(self, sample: Sample, decided: dict[str, Decision], runs: tuple[str, ...]) -> None:
        if not runs:
            self.harmless["total"] += 1
            self.harmless.update(name for name, d in decided.items() if d.behavior == "allow")
            return
        self.findings += [
            Finding(name, d, sample, runs) for name, d in decided.items() if d.behavior == "allow"
        ]

    def minimised(self, finding: Finding) -> Finding:
        """The finding with positions dropped while it stays a bypass of the same policy."""
        if finding.sample.tags == ("example",):
            return finding
        ctx = self.ctxs[finding.policy]
        bin_dir = str(self.sandbox.bin)
        progress = True
        while progress:
            progress = False
            for tags in smaller(finding.sample.tags):
                command = render(tags, bin_dir)
                try:
                    decision = decide("Bash", {"command": command}, ctx)
                except Exception:  # the crash is reported by the example that found it
                    continue
                if decision.behavior == "allow" and (runs := self.run(command)):
                    finding = Finding(finding.policy, decision, Sample(command, tags), runs)
                    progress = True
                    break
        return finding

    def report(self, policies: Policies, minimise_at_most: int) -> str:
        lines = [f"{len(self.findings)} commands ran the sentinel and were allowed"]
        by_policy = Counter(f.policy for f in self.findings)
        lines += [f"  under {policy}: {count}" for policy, count in sorted(by_policy.items())]
        total = self.harmless["total"]
        lines.append(f"harmless commands (the sentinel did not run): {total}")
        lines += [f"  allowed under {p}: {self.harmless[p]}/{total}" for p in policies]
        if self.crashes:
            sites = shortest_per_site(self.crashes)
            lines.append(
                f"{len(self.crashes)} commands made the engine raise, at {len(sites)} sites:"
            )
            lines += [f"  {c.site}: {c.error}\n    command: {c.command!r}" for c in sites]
        # Smallest first, each made smaller still unless a class found already covers it: a
        # class (policy and positions) per entry, with how many findings it covers.
        classes: dict[tuple[str, tuple[str, ...]], tuple[Finding, int]] = {}
        minimised = 0
        for found in sorted(self.findings, key=lambda f: len(f.sample.command)):
            key = next((k for k in classes if _covers(k, found)), None)
            if key is None:
                small = found
                if minimised < minimise_at_most:
                    small, minimised = self.minimised(found), minimised + 1
                key = (small.policy, small.sample.tags)
                classes.setdefault(key, (small, 0))
            small, count = classes[key]
            classes[key] = (small, count + 1)
        lines.append(f"{len(classes)} distinct bypasses (policy, positions), minimised:")
        entries = sorted(classes.values(), key=lambda e: (e[0].policy, len(e[0].sample.command)))
        lines += [f"({count}x) {small.describe()}" for small, count in entries]
        return "\n".join(lines)


def _covers(key: tuple[str, tuple[str, ...]], finding: Finding) -> bool:
    """Whether a class's positions are a subsequence of the finding's (a plain name in the
    class standing for any spelling)."""
    policy, tags = key
    if policy != finding.policy or tags == ("example",):
        return False
    rest = iter(finding.sample.tags)
    for tag in tags:
        want = "name:" if tag == "name:plain" else tag
        if not any(t == tag or (want == "name:" and t.startswith(want)) for t in rest):
            return False
    return True
