"""What a known program's options do beyond its files, judged (bash_policy's judge, this part
of it): the commands and pagers they run, judged as typed; what they show from elsewhere or
from git's history; the code they load; the repositories they use outside the workspace; what
they hide (program_use.ProgramUse). FileJudge builds on it for the files themselves."""

from __future__ import annotations

from pathlib import Path

from tether.permissions.access import PROTECTED_NOTE
from tether.permissions.bash_files import program_use
from tether.permissions.bash_judge_projects import ProjectJudge
from tether.permissions.file_targets import Target
from tether.permissions.git_history_check import history_verdicts
from tether.permissions.git_repository import repository_reasons
from tether.permissions.mentioned_files import mentioned_files
from tether.permissions.paths import is_below
from tether.permissions.produced_paths import PRODUCED_WORD, produced_targets
from tether.permissions.program_use import ProgramUse
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import DYN, is_literal, program_name, readable
from tether.permissions.verdict import Verdict, allow, ask

_SHOWING_PAGERS = frozenset({"less", "more"})
"""Pagers outside the read-only allowlist (their options and `+` commands may write or run,
`program_commands.py`) that, given only options that do neither, show their input."""


def showing_pager(inv: Invocation) -> bool:
    """`less -R` as a pager: only options, none that writes, reads or runs."""
    argv = inv.argv
    if inv.role != "command" or inv.inner or inv.redirects or inv.assignments or not argv:
        return False
    if program_name(argv[0]) not in _SHOWING_PAGERS or argv[0] != program_name(argv[0]):
        return False
    if not all(is_literal(word) and word.startswith("-") for word in argv[1:]):
        return False
    use = program_use(argv)
    return use is not None and use.read_only and not use.reads


class UseJudge(ProjectJudge):
    """The program-use side of bash_policy's judge."""

    def _targets(self, inv: Invocation, word: str) -> list[Target]:
        """The paths a word stands for; an unknown word another program names (find's `{}`)
        is each path it names now (produced_paths.py), when that is known."""
        if word in (DYN, PRODUCED_WORD) and inv.produced is not None:
            found = produced_targets(inv.produced, self.places, self.files)
            if found is not None:
                return found
            word = DYN
        return self.places.targets(word)

    def _program_use(self, use: ProgramUse, inv: Invocation | None = None) -> list[Verdict]:
        """What a known program's options run, show from elsewhere, or hide (program_use);
        `inv`: the invocation whose words `use` reads (find's `{}` is each path found)."""
        verdicts = [self.unseen(reason) for reason in use.unseen]
        verdicts.extend(ask(reason) for reason in use.asks)
        # git shows what it names from its objects (and its writes are its tables').
        verdicts.extend(
            mentioned_files(
                use.mentions,
                self.places,
                self.files,
                sandboxed=self.ctx.bash_sandboxed,
                unknown=use.shows_unknown,
                opens=not use.shows_unknown,
            )
        )
        verdicts.extend(self._loads(use.loads))
        verdicts.extend(self._repositories(use, inv))
        verdicts.extend(
            history_verdicts(
                use.shows_objects,
                use.finds_repository,
                self.places,
                self.files,
                use.shows_only,
                use.git_show_args if self.tree_stays else (),
            )
        )
        for code in use.runs:
            verdicts.extend(self.commands_run(code))
        for code in use.pagers:
            verdicts.extend(self.commands_run(code, pager=True))
        near = self.ctx.rules.of("deny", "Read") or self.ctx.rules.of("ask", "Read")
        if use.follows and near:
            # Hard: a link may lead to the very files the rule names (`grep -R x` to ~/.ssh).
            verdicts.append(
                ask(
                    "follows symlinks while searching, which may reach files "
                    f"{near[0].text} covers",
                    near[0].text,
                    hard=True,
                )
            )
        if use.rewrites_tree and not self.ctx.bash_sandboxed:
            # The sandbox keeps protected files read-only; without it, what the commit holds
            # is written, `.claude/settings.json` and `.git/hooks` included.
            verdicts.append(
                ask(
                    f"{use.rewrites_tree}, which may be files that change what later "
                    f"sessions run or allow ({PROTECTED_NOTE}; the sandbox is off)"
                )
            )
        if not use.read_only:
            self.read_only = False
        return verdicts

    def commands_run(self, code: str, *, pager: bool = False) -> list[Verdict]:
        """A shell command a program runs (an option's or a setting's value), judged as if
        typed: what it runs, and whether it only reads. A `pager` is given the program's
        output: `less` or `more` with options that only show it is as read-only as `cat`."""
        if not is_literal(code):
            self.read_only = False
            return [self.unseen("runs a command that is not a literal")]
        script = parse_command(code)
        if script.problems:
            self.read_only = False
        verdicts = [self.unseen(problem) for problem in script.problems]
        self.globbing.foresee(script.invocations)
        for sub in script.invocations:
            read_only = self.read_only
            verdict = self.invocation(sub)
            if pager and showing_pager(sub):
                self.read_only = read_only
                if verdict.outcome == "none":
                    verdict = allow("a pager that only shows what it is given")
            verdicts.append(verdict)
        return verdicts

    def _repositories(self, use: ProgramUse, inv: Invocation | None) -> list[Verdict]:
        """git reading a repository that is not the project's (git_repository.py); svn, hg
        and cvs using one outside the workspace (vcs_programs.py). A word another program
        names (`find OUT -exec git -C {} status`) is each path it names, or not known."""

        def targets(word: str) -> list[Target]:
            return self._targets(inv, word) if inv is not None else self.places.targets(word)

        found = [self.unseen(why) for why in repository_reasons(use, targets, self.files)]
        for word in use.repositories:
            for target in self.places.targets(word):
                real = self.files.real(target) if isinstance(target, Path) else None
                if real is None or not is_below(real, self.ctx.write_roots):
                    where = "outside the workspace" if is_literal(word) else "chosen as it runs"
                    # `cd DIR && hg status`: the directory it runs in.
                    shown = target if word in (".", "./") else readable(word)
                    if not isinstance(target, Path) and word in (".", "./"):
                        shown, where = "it finds where it runs", "a directory not known"
                    what = f"uses the repository {shown}, {where}"
                    found.append(self.unseen(f"{what}, whose configuration and hooks run code"))
        return found
