"""Judging code an interpreter runs that is no file of the user's (interpreter_code.py), one
capability however it is given: deny and ask rules see it as `PROGRAM -c CODE`; a file a Read
rule denies named anywhere in inline code is denied; code from the input, a file or an editor
is not seen; inline Python is read with Python's parser (python_code.py: the commands it runs
judged as Bash commands, the files it opens by literal names by the file rules, what cannot
be shown harmless not seen or asked where a rule could be bypassed); inline code of other
languages asks there, unless it only prints literals (printed_code.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from tether.permissions.access import FileAccess
from tether.permissions.bash_rules import deny_or_ask, texts_of
from tether.permissions.context import PermissionContext
from tether.permissions.interpreter_code import CodeUse, named_words
from tether.permissions.printed_code import only_prints
from tether.permissions.python_code import python_use
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_places import ShellPlaces
from tether.permissions.shell_words import DYN, is_literal, readable, shown
from tether.permissions.verdict import Verdict, ask

UNREAD_LANGUAGES = frozenset(
    {"node", "perl", "ruby", "php", "Rscript", "lua", "bun", "deno", "elixir"}
)
"""Interpreters whose inline code tether has no parser for."""


class Judge(Protocol):
    ctx: PermissionContext
    files: FileAccess
    places: ShellPlaces
    read_only: bool
    quiet_input: bool

    def unseen(self, problem: str) -> Verdict: ...
    def near_rules(self) -> bool: ...
    def invocation(self, inv: Invocation, *, late: bool = False, vary: bool = True) -> Verdict: ...


def code_verdicts(judge: Judge, inv: Invocation, use: CodeUse) -> list[Verdict]:
    name = readable(shown(inv.argv[0]))
    as_inline = (inv.argv[0], use.flag, DYN if use.code is None else use.code)
    found = deny_or_ask(judge.ctx.rules, texts_of(as_inline, for_allow=False))
    verdicts = [] if found is None else [found]
    if use.code is None:
        source = "its input" if use.source is None else readable(use.source)
        return [*verdicts, judge.unseen(f"{name} runs code from {source}, not seen")]
    if use.also_input and not judge.quiet_input:
        verdicts.append(judge.unseen(f"{name} -i runs code from its input after {use.flag}"))
    if not is_literal(use.code):
        # Built as the command runs (`-c "$(cat F)"`, `-c "$X"`): whatever the language,
        # the code that will run is not the code read here.
        verdicts.append(judge.unseen(f"{name}'s {use.flag} code is built as it runs, not seen"))
    elif use.language == "python":
        verdicts.extend(_python(judge, name, use.code))
    elif (
        use.language in UNREAD_LANGUAGES
        and judge.near_rules()
        and not only_prints(use.language, use.code)
    ):
        # No parser for the language here: what the code runs or opens is not known.
        verdicts.append(
            ask(
                f"{name}'s inline code is not read by tether ({use.language} is not "
                "parsed here), so it may run programs or open files the rules forbid",
                hard=True,
            )
        )
    for word in named_words(use.code):
        for target in judge.places.targets(word):
            v = judge.files.read(target)
            if v.outcome == "deny" or (v.outcome == "ask" and v.hard):
                verdicts.append(replace(v, reason=f"{name}'s code names {word}: {v.reason}"))
    return verdicts


def _python(judge: Judge, name: str, code: str) -> list[Verdict]:
    use = python_use(code)
    verdicts: list[Verdict] = []
    if judge.near_rules():
        verdicts += [judge.unseen(f"{name}'s code {reason}") for reason in use.unseen]
        verdicts += [
            ask(
                f"{name}'s code {reason}, so it may run programs or open files the rules forbid",
                hard=True,
            )
            for reason in use.unknown
        ]
    for line in use.commands:
        script = parse_command(line)
        verdicts.extend(judge.unseen(problem) for problem in script.problems)
        verdicts.extend(judge.invocation(sub) for sub in script.invocations)
    for word, write in [(w, False) for w in use.reads] + [(w, True) for w in use.writes]:
        for target in judge.places.targets(word):
            v = judge.files.write(target) if write else judge.files.read(target)
            if v.outcome != "allow":
                verdicts.append(replace(v, reason=f"{name}'s code opens {word}: {v.reason}"))
    if use.commands or use.writes:
        judge.read_only = False
    return verdicts
