"""Judging a Bash command: every simple command it would run must be allowed.

Each invocation (shell.py) is matched against deny, ask and allow rules, as written and with
its program's directory dropped (`/usr/bin/rm` is `rm`); wrappers are allowed when what they
run is; a command no rule allows may still be a built-in read-only one (commands.py). Files it
reads or writes, redirections included, go through the same checks as the file tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tether.permissions.access import FileAccess, GlobPath, Target
from tether.permissions.arguments import split_arguments
from tether.permissions.bash_files import file_arguments, path_target, path_tokens
from tether.permissions.commands import (
    ACCEPT_EDITS_COMMANDS,
    COMMANDS,
    SYSTEM_BIN_DIRS,
    is_dangerous_variable,
)
from tether.permissions.context import PermissionContext
from tether.permissions.defaults import is_device
from tether.permissions.git_policy import git_is_read_only
from tether.permissions.paths import ANY, ONE, Token, globs_overlap
from tether.permissions.rules import Rule, canonical_command
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import (
    DYN,
    HOME,
    MARKERS,
    is_literal,
    plain,
    program_name,
    readable,
    shown,
)
from tether.permissions.shell_words import ONE as ONE_MARK
from tether.permissions.shell_words import STAR as STAR_MARK
from tether.permissions.verdict import Verdict, allow, ask, deny, none, worst

_CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd"})
_READ_ONLY_REASON = "read-only command"


@dataclass(frozen=True)
class BashJudgement:
    verdict: Verdict
    read_only: bool
    """Nothing in it writes or runs anything beyond the built-in read-only commands (what plan
    mode accepts)."""


def judge_bash(command: str, ctx: PermissionContext) -> BashJudgement:
    judge = _Judge(ctx, FileAccess(ctx))
    whole = judge.whole_command(command)
    if whole is not None and whole.outcome == "deny":
        return BashJudgement(whole, read_only=False)
    script = parse_command(command)
    parts = [ask(problem) for problem in script.problems]
    if whole is not None:
        parts.append(whole)
        judge.read_only = False
    if script.problems:
        judge.read_only = False
    parts.extend(judge.invocation(inv) for inv in script.invocations)
    return BashJudgement(worst(parts), judge.read_only)


def judge_invocation(inv: Invocation, ctx: PermissionContext, *, own: bool = False) -> Verdict:
    """One invocation on its own (what "always allow" would have to cover); with `own`, only
    the program itself, not its files, assignments or what it runs."""
    judge = _Judge(ctx, FileAccess(ctx))
    return judge.own(inv) if own else judge.invocation(inv)


@dataclass
class _Judge:
    ctx: PermissionContext
    files: FileAccess
    read_only: bool = True
    cwds: list[Path | None] = field(default_factory=list[Path | None])
    """Where later relative paths may start (None: somewhere unknown, after `cd $X`). Only
    grows: a `cd` inside a subshell or a branch may or may not apply."""

    def __post_init__(self) -> None:
        self.cwds.append(self.ctx.cwd)

    def whole_command(self, command: str) -> Verdict | None:
        """Deny and ask rules against the command line as a whole (`Bash(curl * | sh)`, a seed
        regex over the text)."""
        collapsed = " ".join(command.split())
        for kind in ("deny", "ask"):
            for rule in self.ctx.rules.of(kind, "Bash"):
                if rule.regex is not None:
                    hit = rule.regex.search(command) is not None
                else:
                    hit = rule.command is None or rule.command.fullmatch(collapsed) is not None
                if hit:
                    return _rule_verdict(kind, rule, collapsed)
        return None

    def invocation(self, inv: Invocation) -> Verdict:
        parts: list[Verdict] = []
        for name, _ in inv.assignments:
            if is_dangerous_variable(name):
                parts.append(ask(f"sets {name}, which changes what programs run or load"))
                self.read_only = False
        parts.extend(ask(problem) for problem in inv.problems)
        if inv.problems:
            self.read_only = False
        own = self.own(inv)
        parts.append(own)
        explicit = own.outcome == "allow" and own.rule is not None
        if inv.argv and own.reason != _READ_ONLY_REASON and inv.role == "command":
            self.read_only = False
        if inv.role == "privileged":
            self.read_only = False
        for sub in inv.inner:
            verdict = self.invocation(sub)
            if inv.role == "privileged" and explicit and verdict.outcome == "none":
                verdict = allow(rule=own.rule)
            parts.append(verdict)
        parts.extend(self._files(inv, explicit))
        self._track_directory(inv)
        return worst(parts)

    def own(self, inv: Invocation) -> Verdict:
        if not inv.argv:
            return allow("no program runs")
        texts = _texts(inv.argv, for_allow=False)
        found = self._deny_or_ask(texts)
        if found is None and inv.unparsed_from is not None:
            tails = [
                " ".join(shown(w) for w in inv.argv[k:])
                for k in range(inv.unparsed_from, len(inv.argv))
            ]
            found = self._deny_or_ask(tails)
        if found is not None:
            return found
        if inv.role == "wrapper":
            return allow("runs only what it wraps")
        allowed = self._allow_rule(
            _texts(inv.argv if inv.role == "privileged" else inv.own_argv, for_allow=True)
        )
        if allowed is not None:
            return allow(rule=allowed.text)
        if inv.role == "privileged":
            return none(
                f"`{readable(texts[0])}` runs as another user; only a rule naming it allows it"
            )
        if _read_only(inv):
            return allow(_READ_ONLY_REASON)
        name = program_name(inv.argv[0])
        if self.ctx.mode == "acceptEdits" and name in ACCEPT_EDITS_COMMANDS and _system(inv):
            return allow("acceptEdits mode: file commands in the workspace")
        return none(f"no rule allows `{readable(texts[0])}`")

    def _deny_or_ask(self, texts: list[str]) -> Verdict | None:
        canonical = [" ".join(canonical_command(t.split(" "))) for t in texts]
        for kind in ("deny", "ask"):
            for rule in self.ctx.rules.of(kind, "Bash"):
                for text, same in zip(texts, canonical, strict=True):
                    if _rule_matches(rule, text) or _canonical_matches(rule, same):
                        return _rule_verdict(kind, rule, text)
                    if _may_match(rule, text):
                        return ask(f"`{readable(text)}` may match {kind} rule {rule.text}")
        return None

    def _allow_rule(self, texts: list[str]) -> Rule | None:
        for rule in self.ctx.rules.of("allow", "Bash"):
            if any(_rule_matches(rule, text) for text in texts):
                return rule
        return None

    def _files(self, inv: Invocation, explicit: bool) -> list[Verdict]:
        verdicts: list[Verdict] = []
        reads = list(inv.reads)
        writes = list(inv.writes)
        recursive = False
        for redirect in inv.redirects:
            (writes if redirect.writes else reads).append(redirect.target)
        spec = COMMANDS.get(program_name(inv.argv[0])) if inv.argv else None
        if inv.argv and inv.role == "command" and spec is not None and inv.own is None:
            more_reads, more_writes, recursive = file_arguments(inv.argv, spec)
            reads += more_reads
            writes += more_writes
        elif inv.argv and inv.role == "command" and spec is None and inv.own is None:
            verdicts.extend(self._mentions(inv.argv[1:]))
        for word in reads:
            for target in self._targets(word):
                verdicts.append(self.files.read(target, explicit=explicit, recursive=recursive))
        for word in writes:
            for target in self._targets(word):
                if isinstance(target, Path) and is_device(target.as_posix(), write=True):
                    continue
                self.read_only = False
                verdicts.append(self.files.write(target, explicit=explicit))
        return verdicts

    def _mentions(self, args: tuple[str, ...]) -> list[Verdict]:
        """Arguments of a command tether knows nothing about that name a denied file
        (`git show HEAD:.env`, `curl -d @.env`): asked, since it may read them."""
        found: list[Verdict] = []
        if not self.ctx.rules.of("deny", "Read"):
            return found
        for arg in args:
            if not is_literal(arg) or (arg.startswith("-") and "=" not in arg):
                continue
            candidates = {arg, arg.partition("=")[2], arg.rpartition(":")[2], arg.lstrip("@")}
            for candidate in candidates - {""}:
                for target in self._targets(candidate):
                    rule = self.files.denied_read(target) if isinstance(target, Path) else None
                    if rule is not None:
                        found.append(ask(f"may read {candidate}, denied by {rule.text}"))
        return found

    def _targets(self, word: str) -> list[Target]:
        if not word:
            return []
        if word.startswith(HOME):
            return [path_target(self.ctx.home, word[1:].lstrip("/"), word)]
        if word.startswith("/"):
            return [path_target(Path("/"), word, word)]
        if word.startswith(DYN):
            return [GlobPath(readable(word), path_tokens(word), None)]
        targets: list[Target] = []
        for cwd in self.cwds:
            if cwd is None:
                targets.append(GlobPath(readable(word), (ANY, "/", *path_tokens(word)), None))
            else:
                targets.append(path_target(cwd, word, word))
        return targets

    def _track_directory(self, inv: Invocation) -> None:
        if not inv.argv or program_name(inv.argv[0]) not in _CHANGES_DIRECTORY:
            return
        args = [a for a in inv.argv[1:] if not a.startswith("-") or a == "-"]
        target = args[0] if args else HOME
        if program_name(inv.argv[0]) == "popd" or not is_literal(target) or target == "-":
            if None not in self.cwds:
                self.cwds.append(None)
            return
        for found in self._targets(target):
            directory = found if isinstance(found, Path) else None
            if directory not in self.cwds:
                self.cwds.append(directory)


def _text_tokens(text: str) -> tuple[Token, ...]:
    """A command's text as tokens: unknown parts and globs may become any text (a glob can
    expand to several words)."""
    out: list[Token] = []
    for c in text:
        if c in (DYN, STAR_MARK):
            out.append(ANY)
        elif c == ONE_MARK:
            out.append(ONE)
        else:
            out.append("~" if c == HOME else c)
    return tuple(out)


def _texts(argv: tuple[str, ...], *, for_allow: bool) -> list[str]:
    """The command as rules see it; for a program given by path, also with the bare name
    (for allow rules only when the path is a system directory: `./rm` is not `rm`)."""
    full = " ".join(shown(w) for w in argv)
    program = shown(argv[0])
    if "/" not in program:
        return [full]
    directory = str(PurePosixPath(program).parent)
    if for_allow and directory not in SYSTEM_BIN_DIRS:
        return [full]
    return [full, " ".join([program_name(argv[0]), *(shown(w) for w in argv[1:])])]


def _system(inv: Invocation) -> bool:
    program = shown(inv.argv[0])
    return "/" not in program or str(PurePosixPath(program).parent) in SYSTEM_BIN_DIRS


def _rule_matches(rule: Rule, text: str) -> bool:
    if rule.regex is not None:
        return rule.regex.search(text) is not None or (
            rule.kind != "allow" and rule.regex.search(plain(text)) is not None
        )
    return rule.command is None or rule.command.fullmatch(text) is not None


def _canonical_matches(rule: Rule, canonical: str) -> bool:
    pattern = rule.command_canonical or rule.command
    return pattern is not None and pattern.fullmatch(canonical) is not None


def _may_match(rule: Rule, text: str) -> bool:
    """Whether the unknown parts of `text` could make it match `rule`."""
    if not rule.command_tokens or not any(m in text for m in MARKERS):
        return False
    return globs_overlap(_text_tokens(text), rule.command_tokens)


def _rule_verdict(kind: str, rule: Rule, text: str) -> Verdict:
    why = f": {rule.reason}" if rule.reason else ""
    if kind == "deny":
        return deny(f"`{readable(text)}` is denied by {rule.text}{why}", rule.text)
    return ask(f"`{readable(text)}` needs confirmation ({rule.text}){why}", rule.text, hard=True)


def _read_only(inv: Invocation) -> bool:
    """Whether the built-in allowlist covers the program itself (its files are checked apart)."""
    argv = inv.own_argv
    if inv.writes or not _system(inv):
        return False
    name = program_name(argv[0])
    if name == "git":
        return git_is_read_only(argv[1:])
    spec = COMMANDS.get(name)
    if spec is None or not spec.read_only:
        # find's own words (its -exec commands are judged apart; -delete and -fprint are
        # writes, seen above).
        return name == "find"
    args = split_arguments(argv[1:], spec)
    if spec.forbidden and (args.unknown_option or args.has(spec.forbidden)):
        return False
    return spec.max_files is None or len(args.positionals) <= spec.max_files
