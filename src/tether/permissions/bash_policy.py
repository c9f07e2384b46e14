"""Judging a Bash command: every simple command it would run must be allowed.

Each invocation (shell.py) is matched against deny, ask and allow rules, as written and with
its program's directory dropped (`/usr/bin/rm` is `rm`); wrappers are allowed when what they
run is; a command no rule allows may still be a built-in read-only one (commands.py). Files it
reads or writes, redirections included, go through the same checks as the file tools.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from tether.permissions import steps
from tether.permissions.access import FileAccess
from tether.permissions.bash_invocation_kinds import (
    allowlisted,
    may_generate,
    named_by_path,
    regenerator,
)
from tether.permissions.bash_judge_files import FileJudge
from tether.permissions.bash_judge_rules import READ_ONLY_REASON, RuleJudge
from tether.permissions.bash_rules import (
    all_invocations,
    may_run,
    startup_verdict,
    whole_command,
    whole_command_allowed,
)
from tether.permissions.context import PermissionContext
from tether.permissions.corepack_variables import CorepackSetting, corepack_setting
from tether.permissions.dangerous_variables import (
    is_dangerous_variable,
    is_pager_variable,
)
from tether.permissions.framework_code import framework_code
from tether.permissions.git_history_check import (
    only_plain_git,
    tree_stays,
)
from tether.permissions.git_remote_hosts import Pending
from tether.permissions.glob_vanishing import TOO_MANY_VANISHING, vanishing_forms
from tether.permissions.inline_verdicts import code_verdicts
from tether.permissions.interpreter_code import CodeUse, code_use
from tether.permissions.launchers import launches
from tether.permissions.node_options import inert_node_options
from tether.permissions.path_variable import workspace_path_entries
from tether.permissions.process_programs import process_program
from tether.permissions.response_files import response_unseen
from tether.permissions.runners import REMOTE_RUNNERS
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_chains import cd_goes_where_named, cd_stays_logical, runs_alone
from tether.permissions.shell_globbing import DEFERRING, GlobState
from tether.permissions.shell_places import ShellPlaces
from tether.permissions.shell_steady import builtins_stay, for_builtin_alone, steady_pwd
from tether.permissions.shell_words import (
    is_literal,
    program_name,
    readable,
)
from tether.permissions.shells import script_file, startup_files
from tether.permissions.steps import TOO_MUCH_WORK, OutOfSteps
from tether.permissions.verdict import Verdict, allow, ask, worst

_UNSEEN_TOOLS = ("Bash", "Read", "Edit")
_INPUT_SIGNS = ("|", "<", "coproc", "exec", "$'")
"""What gives a command's input something to read: a pipe, an input redirection or heredoc,
a coprocess, `exec` (its redirections last), and `$'...'`, which may spell `|` or `<` in code
a shell reads again. Without any of them in the text every command reads the Bash tool's
input, which is empty (`/dev/null`)."""
_INVOCATION_STEPS = 15
"""The work of judging one simple command apart from its files and its rules' matching, in
steps (steps.py)."""


@dataclass(frozen=True)
class BashJudgement:
    verdict: Verdict
    read_only: bool
    """Nothing in it writes or runs anything beyond the built-in read-only commands (what plan
    mode accepts)."""


def judge_bash(command: str, ctx: PermissionContext) -> BashJudgement:
    """The verdict on `command`, and whether it only reads. Past the decision's steps
    (steps.py), too large to judge: what it runs is not known."""
    judge = _Judge(ctx, FileAccess(ctx), cdpath="CDPATH" in command)
    judge.quiet_input = not any(sign in command for sign in _INPUT_SIGNS)
    whole = whole_command(ctx.rules, command)
    if whole is not None and whole.outcome == "deny":
        return BashJudgement(whole, read_only=False)
    try:
        judged = _judge_script(judge, command, whole)
    except OutOfSteps:
        return BashJudgement(judge.unseen(TOO_MUCH_WORK), read_only=False)
    named = whole_command_allowed(ctx.rules, command) if judged.verdict.outcome == "none" else None
    # Only what no rule allowed: a deny or an ask (a rule's, code not seen) still stands.
    found = allow(f"allowed by {named.text}", named.text) if named is not None else None
    return BashJudgement(found, read_only=False) if found is not None else judged


def _judge_script(judge: _Judge, command: str, whole: Verdict | None) -> BashJudgement:
    script = parse_command(command)
    parts = [judge.unseen(problem) for problem in script.problems]
    if whole is not None:
        parts.append(whole)
        judge.read_only = False
    if script.problems:
        judge.read_only = False
    judge.globbing.foresee(script.invocations)
    judge.plain_git = only_plain_git(script.invocations)
    judge.sole = len(list(all_invocations(script.invocations))) == 1
    judge.generating = may_generate(script.invocations)
    judge.regenerator = regenerator(script.invocations)
    judge.tree_stays = tree_stays(script.invocations)
    judge.steady_pwd = steady_pwd(command, all_invocations(script.invocations))
    judge.places.back = judge.steady_pwd
    judge.places.logical = cd_stays_logical(command)
    judge.places.settled = runs_alone(command)
    judge.builtins_stay = builtins_stay(command, all_invocations(script.invocations))
    chains = judge.builtins_stay and cd_goes_where_named(command)
    for inv in script.invocations:
        judge.places.follow(inv, chains=chains)
        parts.append(judge.invocation(inv))
    parts.extend(judge.late_code())
    return BashJudgement(worst(parts), judge.read_only)


def unseen_verdict(ctx: PermissionContext, problem: str) -> Verdict:
    """What the parser cannot see may run any program and touch any file, so any deny rule
    could match it: denied in every mode when one exists, a hard ask when an ask rule exists,
    otherwise an ask that bypassPermissions may skip."""
    for kind in ("deny", "ask"):
        for tool in ("Bash", "Read", "Edit"):
            rules = ctx.rules.of(kind, tool)
            if rules:
                return may_run(kind, rules[0], f"{problem}: it")
    return ask(problem)


def judge_invocation(inv: Invocation, ctx: PermissionContext, *, own: bool = False) -> Verdict:
    """One invocation on its own (what "always allow" would have to cover); with `own`, only
    the program itself, not its files, assignments or what it runs."""
    judge = _Judge(ctx, FileAccess(ctx))
    return judge.own(inv) if own else judge.invocation(inv)


@dataclass
class _Judge(RuleJudge):
    ctx: PermissionContext
    files: FileAccess
    read_only: bool = True
    cdpath: bool = False
    """The command may set CDPATH (shell_places)."""
    nesting: int = 0
    """How many command lines inside an unknown program's arguments this judge is in."""
    quiet_input: bool = False
    """Every command reads the Bash tool's empty input (`_INPUT_SIGNS`): an interpreter given
    no script (`python3`, `node`, `make -f -`) reads no code."""
    sole: bool = False
    generating: bool = False
    regenerator: str | None = None
    """Another command than the runner may write files (`cmake -B b && ninja -C b`)."""
    tree_stays: bool = False
    """The command is one simple command: what git writes is asked of the repository as it
    is now (git_tree_probe), which no earlier part has changed."""
    steady_pwd: bool = False
    builtins_stay: bool = False
    """A builtin's name in the command runs bash's builtin (shell_steady)."""
    """`$PWD` and `$(pwd)` in the command are the directory the shell is in (shell_steady)."""
    plain_git: bool = False
    """Every command is git writing no file of the working tree, so none changes which files
    git ignores before another reads (git_listing)."""
    written: set[Path] = field(default_factory=set[Path])
    code_files: list[tuple[Path, str]] = field(default_factory=list[tuple[Path, str]])
    package_bins: bool = False
    remotes: Pending = field(default_factory=list[tuple[str, str]])
    """The git remotes the command configured so far (git_remote_hosts)."""
    places: ShellPlaces = field(init=False)
    globbing: GlobState = field(default_factory=GlobState)
    """The glob options the command may have turned on (shell_globbing)."""

    def __post_init__(self) -> None:
        self.places = ShellPlaces(self.files, self.cdpath)

    def invocation(self, inv: Invocation, *, late: bool = False, vary: bool = True) -> Verdict:
        """`inv` and what it runs; `late` when it may run after the commands that follow it
        (shell_globbing); `vary` unless it is already a form nullglob may leave of one."""
        steps.spend(_INVOCATION_STEPS)
        late = late or inv.late
        options = self.globbing.enter(inv, late=late)
        parts: list[Verdict] = []
        vanishing = vanishing_forms(inv) if vary and "nullglob" in options else []
        for form in vanishing:
            if form is None:
                parts.append(self.unseen(TOO_MANY_VANISHING))
            else:
                parts.append(self.invocation(form, late=late, vary=False))
        for name, value in inv.assignments:
            if not is_literal(name):
                parts.append(self.unseen("sets a variable whose name is not a literal"))
                self.read_only = False
            elif self.builtins_stay and for_builtin_alone(inv, name):
                continue  # `IFS=, read -r a b`
            elif is_pager_variable(name) and is_literal(value):
                parts.extend(self.commands_run(value, pager=True))  # `GIT_PAGER=cat git log`
            elif name == "PATH" and workspace_path_entries(value, self.places.inside):
                what = "the workspace's directories, whose programs may shadow others"
                parts.append(ask(f"puts on PATH {what}: {readable(value)}", hard=True))
                self.read_only = False
            elif name == "NODE_OPTIONS" and inert_node_options(value):
                continue  # `NODE_OPTIONS=--max-old-space-size=4096 npm run build`
            elif (setting := corepack_setting(name, value)) is not None:
                parts.extend(self._corepack_setting(name, value, setting))
            elif is_dangerous_variable(name) and not self.own_module_path(name, value):
                parts.append(self.unseen(f"sets {name}, which changes what programs run or load"))
                self.read_only = False
        parts.extend(self.unseen(problem) for problem in inv.problems)
        if inv.problems:
            self.read_only = False
        parts.extend(self._program_place(inv))
        configured = self._configured(inv)
        own = self.own(inv, configured.hosts)
        parts.append(own)
        startup = self.startup_code(inv, own.reason == READ_ONLY_REASON)
        parts.extend(startup)
        self.read_only = self.read_only and not startup
        parts.extend(v for code in configured.runs for v in self.commands_run(code))
        parts.extend(ask(reason) for reason in configured.asks)
        for word in configured.reads:  # a repository git reads here
            parts.extend(self.files.read(t, recursive=True) for t in self.places.targets(word))
        parts.extend(self._code(inv))
        responses = response_unseen(inv.argv) if inv.role == "command" else None
        if responses is not None:  # their arguments: options no allow rule has judged
            parts.append(self.unseen(responses))
            self.read_only = False
        explicit = own.outcome == "allow" and own.rule is not None
        # Read-only is what the command does, not which rule allowed it: `ls` allowed by
        # `Bash(ls *)` still only reads (plan mode runs it).
        if (
            inv.argv
            and inv.role == "command"
            and own.reason != READ_ONLY_REASON
            and not allowlisted(inv)
        ):
            self.read_only = False
        if inv.role == "privileged":
            self.read_only = False
        # A rule naming a privileged or remote command covers what it runs there (deny and ask
        # rules still apply to it): `Bash(ssh box uptime)` allows `uptime` on the box.
        # So does a rule naming a launcher (`Bash(uv run *)`) for a program found by its name,
        # where no rule decides: deny and ask rules, and what is asked for itself, still hold.
        launcher = launches(inv)
        covers = (
            inv.role == "privileged"
            or (bool(inv.argv) and program_name(inv.argv[0]) in REMOTE_RUNNERS)
            or launcher
        )
        deferred = late or (bool(inv.argv) and program_name(inv.argv[0]) in DEFERRING)
        for sub in inv.inner:
            with self.places.elsewhere() if sub.elsewhere else nullcontext():
                verdict = self.invocation(sub, late=deferred, vary=vary and not vanishing)
            if (
                covers
                and explicit
                and verdict.outcome == "none"
                and not (launcher and named_by_path(sub))
            ):
                verdict = allow(rule=own.rule)
            parts.append(verdict)
        startup = startup_files(inv.argv) if inv.role == "command" else ()
        if startup:
            parts.append(startup_verdict(self.ctx.rules, program_name(inv.argv[0]), startup))
        script = script_file(inv.argv) if inv.role == "command" else None
        if script is not None:
            parts.extend(self._script(inv, script))
        parts.extend(self._run_file(inv))
        parts.extend(self.runner_bins(inv))
        parts.extend(self._project(inv))
        parts.extend(self._unnamed(inv))
        self.places.options = options
        parts.extend(self._files(inv, explicit))
        self.places.track(inv)
        return worst(parts)

    def _corepack_setting(self, name: str, value: str, setting: CorepackSetting) -> list[Verdict]:
        """corepack's variable judged as what it changes (corepack_variables)."""
        if setting == "inert":
            return []
        self.read_only = False
        if setting == "registry":
            what = f"corepack downloads the package managers it runs from {readable(value)}"
            return [ask(f"{name}: {what}: not seen")]
        # Where it keeps the package managers it downloads and runs them from: code there, and
        # a write of it.
        what = f"{name}: corepack runs the package managers it keeps in"
        found = self._loads((value,), what=what)
        found += [self.files.write(target) for target in self.places.targets(value)]
        return found

    def _program_place(self, inv: Invocation) -> list[Verdict]:
        """A program run by a path into a process's directory (process_programs.py)."""
        program = inv.argv[0] if inv.argv and inv.role == "command" else ""
        why = process_program(program, self.places, self.files)
        return [self.unseen(why)] if why else []

    def _code(self, inv: Invocation) -> list[Verdict]:
        """Code an interpreter runs inline or from its input (inline_verdicts.py)."""
        use = None
        if inv.role == "command":
            use = code_use(inv.own_argv) or framework_code(inv.own_argv)
        if use is None or (use.code is None and use.only_input and self.quiet_input):
            return []
        return self.inline_code(inv, use)

    def inline_code(self, inv: Invocation, use: CodeUse) -> list[Verdict]:
        return code_verdicts(self, inv, use)

    def near_rules(self) -> bool:
        return self._near_rules()

    def nested(self, cdpath: bool) -> FileJudge:
        inner = _Judge(self.ctx, self.files, cdpath=cdpath, nesting=self.nesting + 1)
        inner.written, inner.code_files = self.written, self.code_files
        inner.package_bins = self.package_bins
        inner.remotes = self.remotes
        inner.places.back = self.places.back
        return inner

    def unseen(self, problem: str) -> Verdict:
        return unseen_verdict(self.ctx, problem)

    def _near_rules(self) -> bool:
        """Whether a deny or ask rule exists that what cannot be seen could meet."""
        return any(
            self.ctx.rules.of(kind, tool) for kind in ("deny", "ask") for tool in _UNSEEN_TOOLS
        )
