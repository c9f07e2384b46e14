"""The files a Bash command's simple commands read, write, load and serve, judged as the file
tools' are (bash_policy's judge, this part of it): redirections, what a known program's table
says it opens, what an unknown program's arguments name, command lines in an unknown program's
arguments, code loaded from outside the workspace or from a path chosen as it runs
(outside_code.py, interpreter_scripts.py), packages an interpreter installs, directories a
module serves. What a known program's options run, show or hide besides is bash_judge_uses'."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tether.permissions.bash_files import program_use
from tether.permissions.bash_judge_code import ANY_WRITTEN
from tether.permissions.bash_judge_globs import GlobJudge
from tether.permissions.bash_judge_scripts import script_text
from tether.permissions.bash_rules import (
    MAX_NESTING,
    is_unknown,
)
from tether.permissions.build_flags import build_flags
from tether.permissions.build_generators import generator_writes
from tether.permissions.conda_environments import prefix_writes
from tether.permissions.conda_unseen import conda_unseen
from tether.permissions.config_writers import config_writes
from tether.permissions.container_files import container_files
from tether.permissions.corepack import corepack_use
from tether.permissions.defaults import is_device
from tether.permissions.deno_permissions import deno_use
from tether.permissions.env_files import dangerous_settings, env_file_words
from tether.permissions.extractors import extraction_writes
from tether.permissions.file_targets import Target
from tether.permissions.flask_env import reads_env_app
from tether.permissions.followed_links import links_followed
from tether.permissions.git_history_check import (
    git_listed,
    pathspecs_dropped,
    tree_written,
)
from tether.permissions.js_tool_files import js_tool_run, js_tool_use
from tether.permissions.mentioned_files import mentioned_files
from tether.permissions.mocha_configs import mocha_rc_loads
from tether.permissions.name_filters import configured
from tether.permissions.node_options import node_use
from tether.permissions.npm_settings import manager_settings
from tether.permissions.outside_code import js_tool_values, loaded_code
from tether.permissions.pack_writes import pack_writes
from tether.permissions.package_indexes import index_sources
from tether.permissions.package_scripts import RUNNERS, package_run
from tether.permissions.pip_writes import pip_writes
from tether.permissions.produced_paths import PRODUCED_WORD, produced_targets
from tether.permissions.program_use import ProgramUse
from tether.permissions.python_modules import module_files
from tether.permissions.rclone_paths import REPLACES_ITSELF, RclonePlaces, rclone_places
from tether.permissions.rclone_remotes import local_roots
from tether.permissions.response_files import response_files
from tether.permissions.script import Invocation
from tether.permissions.shell_places import path_target
from tether.permissions.shell_words import (
    DYN,
    PROCESS_SUBSTITUTION_PATH,
    is_literal,
    program_name,
    readable,
)
from tether.permissions.ssh_configs import config_text
from tether.permissions.tar_members import below, member_names, plain_extraction
from tether.permissions.toolchains import toolchain_use
from tether.permissions.url_clients import client_use
from tether.permissions.vcs_programs import vcs_use
from tether.permissions.verdict import Verdict, ask
from tether.permissions.working_code import runs_working_code

_UNFOLLOWING = frozenset({"grep", "egrep", "fgrep", "rg", "tar", "bsdtar", "gtar"})
"""Recursive readers that skip the symlinks they meet below their top unless told to follow."""
_PIPE = Path(PROCESS_SUBSTITUTION_PATH)
_MOCHA = frozenset({"mocha", "_mocha"})
"""What `<(cmd)` and `>(cmd)` pass (shell_words): a pipe, not a file; any other `/dev/fd/N`
is whatever the process has open, judged as unknown."""


class FileJudge(GlobJudge):
    """The file side of bash_policy's judge; the judge supplies its state and the methods
    CodeJudge only declares."""

    def _table_words(self, inv: Invocation) -> tuple[str, ...]:
        """The words a program's table reads: the paths another program names for its
        unknown words (`grep -l x src | xargs sed -i ...`, `find -exec CMD {}`) are paths,
        not options, when each is known from the disk (produced_paths: a name starting
        with `-` leaves them unknown)."""
        if inv.produced is None or DYN not in inv.argv:
            return inv.argv
        if produced_targets(inv.produced, self.places, self.files) is None:
            return inv.argv
        return tuple(PRODUCED_WORD if word == DYN else word for word in inv.argv)

    def _rclone(self, inv: Invocation) -> RclonePlaces:
        """The local paths rclone reads and writes (rclone_paths), its configuration's local
        remotes read from where the command runs."""
        if program_name(inv.argv[0]) != "rclone":
            return RclonePlaces()
        cwds = list(self.places.cwds)
        cwd = cwds[0] if len(cwds) == 1 else None
        roots = local_roots(inv.argv[1:], inv.assignments, self.ctx.home, cwd, config_text)
        return rclone_places(inv.argv, roots, inv.assignments)

    def _env_files(self, inv: Invocation) -> list[Verdict]:
        """The variables that change what runs an env file the runtime loads sets
        (env_files.py: `node --env-file=F` whose F sets `NODE_OPTIONS`), judged as the same
        assignment on the command line is; one that cannot be read is not seen."""
        found: list[Verdict] = []
        for word in env_file_words(inv.argv, inv.assignments):
            for target in self.places.targets(word) if is_literal(word) else []:
                real = self.files.real(target) if isinstance(target, Path) else None
                if real is None or not real.exists():
                    continue  # absent: node refuses `--env-file`, skips `-if-exists`
                text = script_text(real)
                names = dangerous_settings(text) if text is not None else ["what it sets"]
                shown = readable(word)
                found += [self.unseen(f"{shown} sets {n}, which changes what runs") for n in names]
        return found

    def _files(self, inv: Invocation, explicit: bool) -> list[Verdict]:
        verdicts: list[Verdict] = []
        reads = list(inv.reads)
        writes = list(inv.writes)
        trees: list[str] = []  # read whole whatever `recursive` says (rclone's directories)
        if inv.role == "command":
            writes += [*config_writes(inv.argv), *extraction_writes(inv.argv)]
            module = module_files(inv.own_argv)
            writes += module.writes
            reads += module.reads
            verdicts.extend(self.unseen(reason) for reason in module.unseen)
            verdicts.extend(ask(reason) for reason in module.asks)
            verdicts.extend(self._served(module.serves, explicit))
            verdicts.extend(
                self._loads(
                    loaded_code(
                        inv.argv, listed=inv.produced is not None, assignments=inv.assignments
                    ),
                    inv,
                )
            )
            verdicts.extend(self._mocha_configured(inv))
            verdicts.extend(self._machine_lookups(inv))
            verdicts.extend(self._imports(inv))
            verdicts.extend(self._requirements(inv))
            verdicts.extend(self._env_files(inv))
            verdicts.extend(self._dependencies(inv))
            for flags in build_flags(inv.argv, inv.assignments, persistent=inv.persistent):
                verdicts.extend(self._program_use(flags))
                reads += flags.reads
                writes += flags.writes
            for use in (
                vcs_use(inv.argv, inv.assignments),
                *(
                    find(inv.argv)
                    for find in (
                        node_use,
                        corepack_use,
                        manager_settings,
                        conda_unseen,
                        js_tool_use,
                        index_sources,
                    )
                ),
            ):
                if use is not None:
                    verdicts.extend(self._program_use(use))
                    # What hg records (hg_recorded): every file below its words.
                    (trees if use.recursive else reads).extend(use.reads)
                    writes += use.writes
                    verdicts.extend(self._top_reads(use.top_reads, explicit))
            verdicts.extend(self._mounted(inv, explicit))
            containers = container_files(inv.argv)
            reads += containers.reads
            writes += containers.writes
            writes += [*pip_writes(inv.argv, inv.assignments), *pack_writes(inv.argv)]
            writes += prefix_writes(inv.argv)
            writes += generator_writes(inv.argv)
            verdicts.extend(self._served(containers.trees, explicit))
            verdicts.extend(self._loads(containers.loads))
            if reads_env_app(inv.argv, inv.assignments):
                verdicts.extend(self._env_apps(inv))
            if runs_working_code(inv.argv):
                verdicts.extend(self._working_code(inv.argv[0]))
            verdicts.extend(self._fetched(inv))
        recursive = False
        follows_trees = False
        for redirect in inv.redirects:
            (writes if redirect.writes else reads).append(redirect.target)
        use = program_use(self._table_words(inv)) if inv.argv and inv.role == "command" else None
        if use is not None and inv.own is None:
            members = self._extracted(inv)
            if members is not None:  # `tar -xzf dist.tgz -C build`: what dist.tgz holds
                use = replace(use, writes=members)
            listed = git_listed(use, self.plain_git, self.places, self.files)
            if listed is not None:  # git's list stands for its pathspecs
                use = replace(use, reads=pathspecs_dropped(use))
            if use.rewrites_tree and not self.ctx.bash_sandboxed and self.sole:
                stdin = [r.target for r in inv.redirects if r.op == "<"][-1:]
                use = tree_written(use, self.places, self.files, *stdin)
            if use.rewrites_tree:  # files it cannot name: any code run may be one
                self.written.add(ANY_WRITTEN)
            reads += use.reads
            writes += use.writes
            recursive = use.recursive and listed is None
            verdicts.extend(self._program_use(use, inv))
            if listed is None:
                verdicts.extend(self._top_reads(use.top_reads, explicit))
            else:
                verdicts.extend(listed)
        elif inv.argv and inv.role == "command" and use is None and inv.own is None:
            verdicts.extend(
                mentioned_files(
                    own_words(inv.argv, inv.assignments),
                    self.places,
                    self.files,
                    sandboxed=self.ctx.bash_sandboxed,
                    loaded=frozenset(js_tool_values(inv.argv)),
                )
            )
            reads += response_files(inv.argv)
            toolchain = toolchain_use(inv.argv)
            if toolchain is not None:
                verdicts.extend(self._program_use(toolchain))
                reads += toolchain.reads
            deno = deno_use(inv.argv)
            if deno is not None:  # what it may read is granted whole, as a tree
                verdicts.extend(self._program_use(deno))
                trees += deno.reads
                writes += deno.writes
            rclone = self._rclone(inv)
            reads += rclone.reads
            trees += rclone.trees
            writes += rclone.writes
            follows_trees = rclone.follows
            verdicts.extend(self._program_use(ProgramUse(runs=rclone.runs)))
            if rclone.replaces:
                verdicts.append(ask(REPLACES_ITSELF))
            client = client_use(inv.argv)
            if client is not None:
                reads += client.reads
                writes += client.writes
                # Options read from a file may be any: they matter where a rule could match.
                verdicts.extend(self.unseen(r) for r in client.unseen if self._near_rules())
            if is_unknown(inv) and self.nesting < MAX_NESTING:
                verdicts.extend(self._argument_commands(inv))
        if inv.argv and inv.role == "command":
            verdicts.extend(self._tool_globs(inv, explicit))
        file_reads = use.file_reads if use is not None and inv.own is None else ()
        only = use.only_names if use is not None and inv.own is None else ()
        only = configured(program_name(inv.argv[0]), only) if only else only
        # grep -r and rg read no symlink met below the top (-R, -L: they follow all).
        follows = not (
            use is not None and not use.follows and program_name(inv.argv[0]) in _UNFOLLOWING
        )
        for word, deep in [(w, recursive) for w in reads] + [(w, False) for w in file_reads]:
            for target in self._targets(inv, word):
                if target == _PIPE:
                    continue
                verdicts.append(
                    self.files.read(
                        target, explicit=explicit, recursive=deep, only=only, follows=follows
                    )
                )
        for word in trees:
            for target in self._targets(inv, word):
                if target == _PIPE:
                    continue
                verdicts.append(
                    self.files.read(
                        target, explicit=explicit, recursive=True, follows=follows_trees
                    )
                )
                if follows_trees and isinstance(target, Path):  # `rclone copy -L SRC DEST`
                    verdicts.extend(links_followed(self.files, target, explicit=explicit))
        for word in writes:
            for target in self._targets(inv, word):
                if target == _PIPE or (
                    isinstance(target, Path) and is_device(target.as_posix(), write=True)
                ):
                    continue
                self.read_only = False
                verdicts.append(self.files.write(target, explicit=explicit))
                real = self.files.real(target) if isinstance(target, Path) else None
                if real is not None:
                    self.written.add(real)
        # What it deletes: a rule allowing the program says nothing of deleting a tree (one
        # not there yet deletes nothing: `pytest --basetemp=build/tmp`).
        deleted = use.deletes if use is not None and inv.own is None else ()
        for word in deleted:
            for target in self._targets(inv, word):
                if target != _PIPE and self._may_exist(target):
                    found = self.files.write(target, explicit=False)
                    if found.outcome != "allow":
                        found = replace(found, reason=f"deletes {readable(word)}: {found.reason}")
                    verdicts.append(found)
        return verdicts

    def _extracted(self, inv: Invocation) -> tuple[str, ...] | None:
        """The paths a plain tar extraction writes, read from its archive (tar_members); the
        archive is then among the files read before the command runs (`code_files`)."""
        found = plain_extraction(inv.argv)
        targets = self.places.targets(found.archive) if found is not None else []
        if found is None or len(targets) != 1 or not isinstance(targets[0], Path):
            return None
        real = self.files.real(targets[0])
        names = member_names(real) if real is not None else None
        if real is None or not names:
            return None
        what = f"extracts the members of {readable(found.archive)} read before it ran"
        self.code_files.append((real, what))
        return tuple(below(found.directory, name) for name in names)

    def _may_exist(self, target: Target) -> bool:
        """Whether there may be something at `target` now (its directory lists its name, or
        cannot say)."""
        real = self.files.real(target) if isinstance(target, Path) else None
        if real is None:
            return True
        names = self.ctx.list_directory(real.parent)
        return names is None or real.name in names

    def _mocha_configured(self, inv: Invocation) -> list[Verdict]:
        """The modules mocha's configuration files make it load (mocha_configs.py), from
        each directory the shell may be in: code run, judged as `mocha -r PATH` is."""
        tool = js_tool_run(program_name(inv.argv[0]), inv.argv[1:], _MOCHA) if inv.argv else None
        if tool is None:
            return []
        found: list[Verdict] = []
        for cwd in self.places.cwds:
            real = self.files.real(cwd) if cwd is not None else None
            if real is None:
                continue
            config = mocha_rc_loads(real, tool[1], script_text)
            if config.paths == ("$",):
                found.append(self.unseen("mocha's configuration here cannot be read"))
                continue
            # node's options mocha hands on are read as node's own (`--require=X`)
            node = loaded_code(("node", *config.node_options))
            loads = (*config.paths, *(_from(real, word) for word in node))
            found += self._loads(loads, inv, what="mocha's configuration loads code from")
        return found

    def _top_reads(self, words: tuple[str, ...], explicit: bool) -> list[Verdict]:
        """Files below the repository's top that git stages (git_pathspecs), the top taken
        to be the workspace's (git_policy reads them from git's own directory too, should the
        repository be another)."""
        return [
            self.files.read(
                path_target(self.ctx.workspace, word, word, self.places.options),
                explicit=explicit,
                recursive=True,
            )
            for word in words
        ]


def _from(directory: Path, word: str) -> str:
    """`word` as a path from `directory` when written as one relative to where it runs."""
    relative = word.startswith(("./", "../")) or word in (".", "..")
    return str(directory / word) if relative else word


def own_words(argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The words a program may open files by: a package manager running scripts passes the
    words after `--` on to them and opens none itself; they are judged in the script's text
    (`npm test -- --config jest.config.js` is `jest --config jest.config.js`, which reads
    its configuration: script_arguments.py)."""
    name = program_name(argv[0])
    if name in RUNNERS and "--" in argv:
        run = package_run(name, argv[1:], assignments)
        if run is not None and run.scripts:
            return argv[1 : argv.index("--")]
    return argv[1:]
