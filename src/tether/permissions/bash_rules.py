"""Matching a command's words against Bash rules, and what a program tether knows nothing
about may run.

A rule sees a command as its words joined by blanks, quotes removed, and with a program given
by path also under its bare name. Unknown parts (shell_words markers) may make a deny rule
match (`may_match`); the caller decides what that means.

A program with no entry in the tables (`chrt`, `mytool`) may run any of its later arguments as
a command (`mytool --retry 3 rm -rf x`): every tail of its words is tried against the deny and
ask rules (`later_commands`, in one pass: tail_rules.py), and so is every argument that reads
as a command line (`mytool -c 'make; rm -rf x'`), parsed as shell.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from tether.permissions import steps
from tether.permissions.command_options import OptionForm, option_form
from tether.permissions.commands import COMMANDS, SYSTEM_BIN_DIRS
from tether.permissions.paths import ANY, ONE, Token, globs_overlap
from tether.permissions.rules import Rule, RuleSet
from tether.permissions.script import Invocation, Script
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
from tether.permissions.tail_rules import first_tail_match, tails_of
from tether.permissions.verdict import Verdict, ask, deny

ParseCommand = Callable[[str], Script]

RUNS_NOTHING = frozenset(
    {"export", "declare", "typeset", "local", "readonly", "unset", "shift", "exit", "return"}
    | {"break", "continue", "wait", "jobs", "shopt", "umask", "getopts", "let", "read", "set"}
    | {"kill", "ulimit", "times", "help", "caller"}
)
"""Builtins outside the tables whose arguments are never run (names, numbers, options)."""
_DECLARING = frozenset({"export", "declare", "typeset", "readonly"})
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def only_assigns(argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...]) -> bool:
    """`export NAME=VALUE...` (`declare`, `readonly`) with only names: it runs nothing, and
    each value is judged where it is set (a pager as the command it runs, a variable that
    changes what programs run as unseen)."""
    if not argv or argv[0] not in _DECLARING or not assignments:
        return False
    return all(_VARIABLE.fullmatch(word) for word in argv[1:])


_COMMAND_LINE = frozenset(" \t\n;|&()<>`$")
"""An argument holding one of these may be a command line given to the program."""
MAX_NESTING = 4
"""How many levels of command lines inside arguments are read (`a -c 'b -c "c ..."'`)."""


def texts_of(argv: tuple[str, ...], *, for_allow: bool) -> list[str]:
    """The command as rules see it; for a program given by path, also with the bare name
    (for allow rules only when the path is a system directory: `./rm` is not `rm`)."""
    full = shown(" ".join(argv))  # one pass in C: a tail's text costs no Python per word
    program = shown(argv[0])
    if "/" not in program:
        return [full]
    directory = str(PurePosixPath(program).parent)
    if for_allow and directory not in SYSTEM_BIN_DIRS:
        return [full]
    return [full, program_name(argv[0]) + full[len(program) :]]


def rule_matches(rule: Rule, text: str) -> bool:
    if rule.regex is not None:
        return rule.regex.search(text) is not None or (
            rule.kind != "allow" and rule.regex.search(plain(text)) is not None
        )
    return rule.command is None or rule.command.fullmatch(text)


def options_match(rule: Rule, form: OptionForm | None) -> bool:
    """The rule with the command's options taken as a set (command_options.py)."""
    return (
        rule.command_options is not None
        and form is not None
        and (rule.command_options.matches(form))
    )


def may_match(rule: Rule, text: str) -> bool:
    """Whether the unknown parts of `text` could make it match `rule`."""
    if not rule.command_tokens or not any(m in text for m in MARKERS):
        return False
    return globs_overlap(_text_tokens(text), rule.command_tokens)


def may_run(kind: str, rule: Rule, what: str) -> Verdict:
    """`what` may turn out to be something `rule` covers, which the parser cannot rule out."""
    if kind == "deny":
        return deny(
            f"{what} may run what deny rule {rule.text} forbids; write the command plainly",
            rule.text,
        )
    return ask(f"{what} may run what ask rule {rule.text} covers", rule.text, hard=True)


def rule_verdict(kind: str, rule: Rule, text: str) -> Verdict:
    why = f": {rule.reason}" if rule.reason else ""
    if kind == "deny":
        return deny(f"`{readable(text)}` is denied by {rule.text}{why}", rule.text)
    return ask(f"`{readable(text)}` needs confirmation ({rule.text}){why}", rule.text, hard=True)


def whole_command(rules: RuleSet, command: str) -> Verdict | None:
    """Deny and ask rules against the command line as a whole (`Bash(curl * | sh)`, a seed
    regex over the text)."""
    collapsed = " ".join(command.split())
    for kind in ("deny", "ask"):
        for rule in rules.of(kind, "Bash"):
            if rule.regex is not None:
                hit = rule.regex.search(command) is not None
            else:
                hit = rule.command is None or rule.command.fullmatch(collapsed)
            if hit:
                return rule_verdict(kind, rule, collapsed)
    return None


def whole_command_allowed(rules: RuleSet, command: str) -> Rule | None:
    """An allow rule naming the whole command line exactly, as Claude Code suggests one for
    a compound asked about whole (`Bash(rm -rf build && echo hi)`): it allows what it names
    and no other text (a rule with a wildcard stays a rule of one simple command). The text
    is compared as written, only spaces, tabs and newlines at its ends set aside: a newline
    inside is a command separator and a no-break space part of a word to bash, so neither
    may stand for the rule's space (deny and ask rules collapse them: matching more is their
    safe side, not an allow's)."""
    written = command.strip(" \t\n")
    for rule in rules.of("allow", "Bash"):
        pattern = rule.command
        if pattern is not None and not pattern.alternatives and pattern.pieces == (written,):
            return rule
    return None


def startup_verdict(rules: RuleSet, name: str, files: tuple[str, ...]) -> Verdict:
    """A shell's start-up files are code the engine does not read (nor could judge when
    the command writes them first): asked, in bypassPermissions mode too when a Bash deny
    or ask rule could match what they run."""
    what = f"{name} first runs {', '.join(files)}, code that tether does not read"
    for kind in ("deny", "ask"):
        found = rules.of(kind, "Bash")
        if found:
            covers = f"{what}; it may run what {kind} rule {found[0].text} covers"
            return ask(covers, found[0].text, hard=True)
    return ask(what)


_WORDS = re.compile(r"[\s()]+|:\*")
"""What separates a rule's words (`Bash(sh ./x.sh:*)`)."""


def script_verdict(
    rules: RuleSet, name: str, script: str, *, bypass: bool = False, why: str = ""
) -> Verdict | None:
    """A script file a shell runs holds commands the engine does not read (`why` says why
    not, when it tried): where a Bash deny or ask rule exists, asked (a rule allowing the
    shell does not say what the script may run), unless an allow rule names the script
    itself (`Bash(sh ./build.sh)`: a word of it, not a part of one, as `.` is of
    `Bash(python3 x.py)`). In bypassPermissions mode deny rules still hold against what is
    not read: denied there; an ask rule's ask stands there too."""
    if any(script in _WORDS.split(rule.text) for rule in rules.of("allow", "Bash")):
        return None
    what = f"{name} runs {readable(shown(script))}, {why or 'whose commands tether does not read'}"
    found = rules.of("deny", "Bash")
    if found and bypass:
        return deny(f"{what}; they may run what deny rule {found[0].text} forbids", found[0].text)
    if found:
        return ask(f"{what}; they may run what deny rule {found[0].text} covers")
    found = rules.of("ask", "Bash")
    if found:
        covers = f"{what}; they may run what ask rule {found[0].text} covers"
        return ask(covers, found[0].text, hard=True)
    return None


def deny_or_ask(rules: RuleSet, texts: list[str], *, unknowns: bool = True) -> Verdict | None:
    """The first deny, then ask, rule that matches one of `texts`; with `unknowns`, also one
    that their unknown parts could match."""
    found = _first_match(rules, texts, unknowns=unknowns)
    if found is None:
        return None
    kind, rule, text, sure = found
    return rule_verdict(kind, rule, text) if sure else may_run(kind, rule, f"`{readable(text)}`")


def _first_match(
    rules: RuleSet, texts: list[str], *, unknowns: bool
) -> tuple[str, Rule, str, bool] | None:
    """(kind, rule, text, whether the rule surely matches) for the first rule concerned."""
    concerned = (*rules.of("deny", "Bash"), *rules.of("ask", "Bash"))
    if not concerned:
        return None
    # A rule's pattern runs over each text: work in proportion to their length.
    size = len(texts) + sum(len(t) for t in texts) // _CHARACTERS_PER_STEP
    steps.spend(size + sum(t.count(" ") for t in texts) // 4)  # their words, as option sets
    # A rule in option-set form names its program: only a text run by one of those programs
    # needs its options taken apart (for every tail of a long command, that was the square).
    heads = {r.command_options.head[0] for r in concerned if r.command_options is not None}
    forms = [
        option_form(t.split(" ")) if t.partition(" ")[0].rsplit("/", 1)[-1] in heads else None
        for t in texts
    ]
    # Whether a text has unknown parts at all: asked once per text, not once per rule.
    hidden = [unknowns and any(m in t for m in MARKERS) for t in texts]
    for kind in ("deny", "ask"):
        for rule in rules.of(kind, "Bash"):
            steps.spend(size)
            for text, form, unknown in zip(texts, forms, hidden, strict=True):
                if rule_matches(rule, text) or options_match(rule, form):
                    return kind, rule, text, True
                if unknown and may_match(rule, text):
                    return kind, rule, text, False
    return None


_CHARACTERS_PER_STEP = 256
"""Text a rule's pattern reads in about the time of one step (steps.py)."""
_CHARACTERS_PER_TOKEN_STEP = 8
"""Text made glob tokens, one character at a time, in about the time of one step."""


def is_unknown(inv: Invocation) -> bool:
    """A program the tables say nothing about: what it does with its arguments is not known."""
    if inv.role != "command" or inv.inner or inv.own is not None or not inv.argv:
        return False
    if not is_literal(inv.argv[0]) or inv.unparsed_from is not None:
        return False
    name = program_name(inv.argv[0])
    return name not in COMMANDS and name not in RUNS_NOTHING


def later_commands(
    rules: RuleSet, inv: Invocation, parse: ParseCommand, nesting: int = 0
) -> Verdict | None:
    """What an unknown program may run: a deny (or ask) rule matching a tail of its words
    denies (asks), one its unknown parts could match asks; so does one matching a command
    in an argument that reads as a command line. None when no rule could be concerned."""
    if not rules.of("deny", "Bash") and not rules.of("ask", "Bash"):
        return None
    name = readable(shown(inv.argv[0]))
    # A word partly unknown (`sent$X`, a glob) may be spelling a program; one wholly unknown
    # (`$X`, what xargs appends) is taken for data, or no unknown program could take files.
    found = first_tail_match(rules, tails_of(inv.argv, 1), unknowns=True, spelled=True)
    if found is not None:
        return _later(name, *found)
    if nesting >= MAX_NESTING:
        return None
    for text in (t for arg in inv.argv[1:] for t in command_lines(arg)):
        for sub in all_invocations(parse(text).invocations):
            if not sub.argv:
                continue
            match = _first_match(rules, texts_of(sub.argv, for_allow=False), unknowns=True)
            if match is not None:
                return _later(name, *match)
            inside = later_commands(rules, sub, parse, nesting + 1) if is_unknown(sub) else None
            if inside is not None:
                return inside
    return None


def tail_verdict(
    rules: RuleSet,
    argv: tuple[str, ...],
    first: int,
    stop: int | None = None,
    *,
    unknowns: bool = True,
) -> Verdict | None:
    """`deny_or_ask` for every tail of `argv` from word `first` (to `stop`), in one pass."""
    found = first_tail_match(rules, tails_of(argv, first, stop), unknowns=unknowns, spelled=False)
    if found is None:
        return None
    kind, rule, text, sure = found
    return rule_verdict(kind, rule, text) if sure else may_run(kind, rule, f"`{readable(text)}`")


def _later(name: str, kind: str, rule: Rule, text: str, sure: bool) -> Verdict:
    """A deny rule that surely matches what `name` may run denies; one that could match (its
    unknown parts), and any ask rule, ask, in bypassPermissions mode too."""
    what = f"{name} may run `{readable(text)}`"
    if kind == "deny" and sure:
        return deny(f"{what}, which deny rule {rule.text} forbids", rule.text)
    if kind == "deny":
        return ask(f"{what}, which deny rule {rule.text} may forbid", rule.text, hard=True)
    return ask(f"{what}, which ask rule {rule.text} covers", rule.text, hard=True)


def all_invocations(invocations: tuple[Invocation, ...]) -> Iterator[Invocation]:
    """Each invocation, then what it runs, depth first."""
    for inv in invocations:
        yield inv
        yield from all_invocations(inv.inner)


def command_lines(arg: str) -> list[str]:
    """The command lines an argument of an unknown program may be: the word, when it reads as
    one (`-c 'make; rm -rf x'`, `hyperfine 'CMD'`), and an option's value (`--exec='rm x'`)."""
    if not is_literal(arg) or not any(c in _COMMAND_LINE for c in arg):
        return []
    name, eq, value = arg.partition("=")
    if arg.startswith("-") and eq and any(c in _COMMAND_LINE for c in value):
        return [arg, value] if any(c in _COMMAND_LINE for c in name) else [value]
    return [arg]


def _text_tokens(text: str) -> tuple[Token, ...]:
    """A command's text as tokens: unknown parts and globs may become any text (a glob can
    expand to several words)."""
    steps.spend(len(text) // _CHARACTERS_PER_TOKEN_STEP)
    out: list[Token] = []
    for c in text:
        if c in (DYN, STAR_MARK):
            out.append(ANY)
        elif c == ONE_MARK:
            out.append(ONE)
        else:
            out.append("~" if c == HOME else c)
    return tuple(out)
