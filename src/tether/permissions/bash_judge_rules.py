"""Judging a Bash command's program itself against the rules (bash_policy's judge builds on
it): its words as written and in the forms that run the same (equivalents, what a wrapper or
git runs, a configured remote's program), deny and ask rules first, then an allow rule naming
it, the built-in read-only commands, acceptEdits' file commands."""

from __future__ import annotations

from dataclasses import replace

from tether.permissions.bash_invocation_kinds import allowlisted, delegated, system_program
from tether.permissions.bash_judge_files import FileJudge
from tether.permissions.bash_rules import (
    deny_or_ask,
    is_unknown,
    later_commands,
    only_assigns,
    rule_matches,
    tail_verdict,
    texts_of,
)
from tether.permissions.equivalents import Equivalent, equivalent, equivalent_reason
from tether.permissions.git_remote_hosts import NOTHING, Configured, Pending, configured_remotes
from tether.permissions.launchers import unknown_module
from tether.permissions.path_kinds import KindOf, kind_on_disk, unknown_kind
from tether.permissions.rules import Rule
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import DYN, program_name, readable
from tether.permissions.ssh_configs import config_hosts
from tether.permissions.verdict import Verdict, allow, none
from tether.permissions.writer_commands import ACCEPT_EDITS_COMMANDS

READ_ONLY_REASON = "read-only command"


class RuleJudge(FileJudge):
    """The rules' side of one judge; `bash_policy._Judge` supplies the state and the walk."""

    remotes: Pending
    """The git remotes the command configured so far (git_remote_hosts)."""

    def own(self, inv: Invocation, configured: Equivalent | None = None) -> Verdict:
        if not inv.argv:
            return allow("no program runs")
        texts = texts_of(inv.argv, for_allow=False)
        found = deny_or_ask(self.ctx.rules, texts)
        if found is None and inv.unparsed_from is not None:
            found = self._unparsed(inv, inv.unparsed_from)
        if found is None and inv.role != "command":
            found = self._before_command(inv)
        if found is None and is_unknown(inv):
            found = later_commands(self.ctx.rules, inv, parse_command)
        module = unknown_module(inv) if found is None else None
        if module is not None:
            found = later_commands(self.ctx.rules, replace(inv, argv=module), parse_command)
        delegate = delegated(inv)
        if found is None and delegate is not None:
            found = deny_or_ask(self.ctx.rules, texts_of(delegate[1], for_allow=False))
        same = equivalent(inv, self._kind_of(inv))
        if found is None and same is not None:
            forms = [text for form in same.forms for text in texts_of(form, for_allow=False)]
            found = deny_or_ask(self.ctx.rules, forms)
            if found is not None:
                found = replace(found, reason=equivalent_reason(same, found))
        if found is None and configured is not None:
            forms = [text for form in configured.forms for text in texts_of(form, for_allow=False)]
            found = deny_or_ask(self.ctx.rules, forms)
            if found is not None:
                found = replace(found, reason=equivalent_reason(configured, found))
        if found is not None:
            return found
        if inv.role == "wrapper":
            # A rule naming the wrapper covers the files it opens itself (`flock LOCK`,
            # `time -o FILE`), as `Bash(touch *)` covers touch's: what it runs is judged apart.
            named = self._allow_rule(texts_of(inv.argv, for_allow=True)) if inv.writes else None
            return allow(rule=named.text) if named else allow("runs only what it wraps")
        if delegate is not None:
            allowed = self._allow_rule(texts_of(delegate[1], for_allow=True))
            allowed = allowed or self._naming_rule(inv.own_argv, delegate[0])
        else:
            argv = inv.argv if inv.role == "privileged" else inv.own_argv
            allowed = self._allow_rule(texts_of(argv, for_allow=True))
            if allowed is None and inv.assignments and inv.role == "command":
                # A rule naming the assignments too (`Bash(FOO=1 make)`, Claude Code's
                # suggestion for a command they lead) covers it with them.
                assigned = tuple(f"{name}={value}" for name, value in inv.assignments)
                allowed = self._allow_rule(texts_of((*assigned, *argv), for_allow=True))
        if allowed is not None:
            return allow(rule=allowed.text)
        if inv.role == "privileged":
            return none(
                f"`{readable(texts[0])}` runs as another user; only a rule naming it allows it"
            )
        if allowlisted(inv):
            return allow(READ_ONLY_REASON)
        if only_assigns(inv.own_argv, inv.assignments) and not inv.writes:
            return allow("only sets variables (each judged above)")
        name = program_name(inv.argv[0])
        if self.ctx.mode == "acceptEdits" and name in ACCEPT_EDITS_COMMANDS and system_program(inv):
            return allow("acceptEdits mode: file commands in the workspace")
        if delegate is not None:
            return none(
                f"`{readable(texts[0])}` runs `{readable(delegate[1][0])}`, which git finds on "
                "PATH (not one of git's own commands; or an alias): only a rule naming it "
                "allows it"
            )
        return none(f"no rule allows `{readable(texts[0])}`")

    def _kind_of(self, inv: Invocation) -> KindOf:
        """What a path the command names is on disk from where it runs (path_kinds); not
        known when a variable moves git's work tree (`GIT_WORK_TREE=/x git checkout -- f`)."""
        if any(name in ("GIT_WORK_TREE", "GIT_DIR") for name, _ in inv.assignments):
            return unknown_kind
        return lambda word: kind_on_disk(self.places, self.files, word)

    def _unparsed(self, inv: Invocation, start: int) -> Verdict | None:
        """A rule matching any tail of the words from `start` (an option the parser could not
        place may be where a command begins)."""
        return tail_verdict(self.ctx.rules, inv.argv, start)

    def _before_command(self, inv: Invocation) -> Verdict | None:
        """A wrapper's words between its name and the command it runs (options, their values,
        `timeout`'s duration), each tail tried against deny and ask rules as written: should
        the option grammar be wrong, the command may start at one of them."""
        if not inv.inner or not inv.inner[0].argv:
            return None
        command = inv.inner[0].argv
        start = len(inv.argv) - len(command)
        if start <= 1 or inv.argv[start:] != command:
            return None
        return tail_verdict(self.ctx.rules, inv.argv, 1, start, unknowns=False)

    def _configured(self, inv: Invocation) -> Configured:
        """git reaching remotes by the repository's configuration (git_remote_hosts), an
        ssh-family program the hosts its own files name (ssh_configs)."""
        if inv.role != "command" or not inv.own_argv:
            return NOTHING
        cwds = list(self.places.cwds)
        if program_name(inv.own_argv[0]) != "git":
            cwd = cwds[0] if len(cwds) == 1 else None
            hosts = config_hosts(inv.own_argv, inv.assignments, self.ctx.home, cwd)
            return Configured(hosts, (), ()) if hosts is not None else NOTHING
        return configured_remotes(inv.own_argv, cwds, self.files, self.remotes)

    def _allow_rule(self, texts: list[str]) -> Rule | None:
        for rule in self.ctx.rules.of("allow", "Bash"):
            if any(rule_matches(rule, text) for text in texts):
                return rule
        return None

    def _naming_rule(self, argv: tuple[str, ...], index: int) -> Rule | None:
        """An allow rule that covers `argv` because of the word at `index`, not whatever it
        is: `Bash(git lfs *)` names `git lfs pull`; `Bash(git *)` covers any word there, so it
        does not allow a program git finds on PATH."""
        other = (*argv[:index], DYN, *argv[index + 1 :])
        texts, others = texts_of(argv, for_allow=True), texts_of(other, for_allow=True)
        for rule in self.ctx.rules.of("allow", "Bash"):
            if any(rule_matches(rule, t) for t in texts) and not any(
                rule_matches(rule, t) for t in others
            ):
                return rule
        return None
