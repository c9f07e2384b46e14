"""svn, hg and cvs as git is seen (git_commands.py, git_repository.py), one place for the three:
the options that name a program they run, judged as that command is (`svn diff --diff-cmd
CMD`, `--diff3-cmd`, `--editor-cmd`; `hg pull -e CMD`, `hg extdiff -p CMD`, `hg bisect -c
CMD`, `hg merge --tool CMD`; `cvs -e CMD`); the repositories they use outside the workspace,
whose configuration and hooks run code no rule has seen, judged as the repository `git -C
DIR` finds there is (`hg -R DIR`, `hg --cwd DIR`, `cd DIR && hg`, hg's local peers:
hg_peers.py, a local cvs root from `-d` or `$CVSROOT`, an svn `file://` URL); and the
working copies and repositories they write (`svn export SRC DEST`, `svn checkout URL DEST`,
`svn commit WC`, `svnadmin create DIR`) or read (`svn cat FILE`, `svn diff FILE`: the file
or its pristine copy, a read as `git show HEAD:FILE` is). The variables naming programs
they start (`HGEDITOR`, `CVSEDITOR`, `CVS_SERVER`, `HGMERGE`, `SVN_MERGE`) and hg's
`HGRCPATH` are dangerous_variables'."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tether.permissions.file_urls import local_url_path
from tether.permissions.hg_files import hg_files
from tether.permissions.hg_history import hg_history
from tether.permissions.hg_peers import hg_peers
from tether.permissions.hg_recorded import hg_recorded
from tether.permissions.hg_serve import serve_exposure
from tether.permissions.option_names import (
    OptionGrammar,
    first_operand,
    option_pairs,
    option_values,
)
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import PATH_STARTS, is_literal, program_name, tilde_expanded
from tether.permissions.svnmucc_actions import svnmucc_actions

Argv = tuple[str, ...]
Assignments = tuple[tuple[str, str], ...]

_HG_VALUED = ("-R", "--repository", "--cwd", "--config", "--encoding", "--encodingmode")
_HG_FLAGS = (
    *("-y", "--noninteractive", "-q", "--quiet", "-v", "--verbose", "--debug", "--time"),
    *("--debugger", "--traceback", "--profile", "--version", "-h", "--help", "--hidden"),
)
HG_GLOBAL = OptionGrammar(
    (*_HG_VALUED, "--color", "--pager"),
    grouped=True,
    prefixes=True,
    known=_HG_FLAGS,
)
"""hg's global options, before or after its command, as its parser (fancyopts, getopt's)
reads them: a long one by any unambiguous prefix (`--repos`, `--cw`, `--conf`), short ones
packed (`-qR DIR`, `-yqRDIR`); those listed take a value, `known` are its flags."""
_HG_PLACES = OptionGrammar(("-R", "--repository", "--cwd"), grouped=True, prefixes=True)
"""Those naming the repository it reads (and whose `.hg/hgrc` hooks run) or the directory it
starts in."""
_HG_TOOL = ("-t", "--tool")
_HG_SSH = ("-e", "--ssh")
_HG_RUNS: dict[tuple[str, ...], tuple[str, ...]] = {
    **dict.fromkeys(
        (("push",), ("clone",), ("incoming", "in"), ("outgoing", "out"), ("bundle",)),
        _HG_SSH,
    ),
    ("identify", "id"): _HG_SSH,
    ("pull",): (*_HG_SSH, *_HG_TOOL),  # the rebase extension's `pull --rebase --tool`
    ("fetch",): _HG_SSH,
    **dict.fromkeys(
        (("lfpull",), ("qclone",), ("email",), ("debugdiscovery",), ("debugwireargs",)),
        _HG_SSH,
    ),
    ("debugwireproto",): _HG_SSH,
    ("transplant",): ("--filter",),
    ("extdiff",): ("-p", "--program"),
    ("bisect",): ("-c", "--command"),
    **dict.fromkeys(
        (("merge",), ("resolve",), ("rebase",), ("graft",), ("backout",), ("unshelve",)),
        _HG_TOOL,
    ),
    ("update", "up", "checkout", "co"): _HG_TOOL,
}
"""hg commands, by their names and aliases (hg's table: `co` is update), whose options name a
program run: the ssh command of those reaching a remote (`-e CMD`; `commit -e` edits), the
fetch and transplant extensions' (`--filter CMD`), extdiff's diff program, bisect's test
command, a merge tool (one not configured under that name is the program of that name). hg
takes any unambiguous prefix of a name or alias (`chec`), and the command's short options
packed (`resolve -at CMD`)."""
_HG_BUILTIN_TOOL = re.compile(r"(?::|internal:)")
"""hg's own merge tools (`:merge3`, `internal:local`): no program."""

_SVN_VALUED = frozenset(
    {"-r", "--revision", "-m", "--message", "--username", "--password", "-c", "--change"}
    | {"--config-option", "--config-dir", "--depth", "--set-depth", "-F", "--file"}
    | {"--targets", "--encoding", "-x", "--extensions", "--diff-cmd", "--diff3-cmd"}
    | {"--editor-cmd", "--accept", "--cl", "--changelist", "-l", "--limit", "--native-eol"}
    | {"--search", "--search-and", "--show-item", "--old", "--new", "--with-revprop"}
    | {"--strip"}
)
_SVN_WRITES = frozenset(
    {"add", "checkout", "co", "cleanup", "commit", "ci", "copy", "cp", "delete", "del"}
    | {"remove", "rm", "export", "lock", "merge", "mkdir", "move", "mv", "rename", "ren"}
    | {"patch", "propdel", "pdel", "pd", "propedit", "pedit", "pe", "propset", "pset", "ps"}
    | {"relocate", "resolve", "resolved", "revert", "switch", "sw", "unlock", "update", "up"}
    | {"upgrade", "changelist", "cl"}
)
"""svn commands that write their working-copy operands (and the repository they commit to)."""
_SVN_SENDS = frozenset({"commit", "ci", "import"})
_SVN_READS = frozenset(
    {*_SVN_SENDS, "cat", "diff", "di", "blame", "praise", "annotate", "ann", "log", "export"}
)
"""svn commands that read their working-copy operands' text, or their pristine copies (`svn
cat .env`, `svn diff .env`, `svn export .env out`: the last operand of two or more is where
export writes), or send them; `--old`/`--new` name what diff compares."""
_SVN_PEG = re.compile(r"@[^/]*$")
"""A peg revision after an operand (`.env@BASE`): the path is before it."""
_HERE = frozenset({".", "./"})
_SVN_NEW_COPY = frozenset({"checkout", "co", "export"})
"""Of those, the ones whose last operand is the copy made from the ones before."""
_SVNADMIN_READS = frozenset(
    {"dump", "dump-revprops", "info", "lslocks", "lstxns", "verify", "help", "list-dblogs"}
    | {"list-unused-dblogs", "youngest"}
)

_CVS_GLOBAL = OptionGrammar(("-d", "-e", "-s", "-T", "-z"), grouped=True)
"""cvs's global options taking a value (getopt's: packed, `-Qd ROOT`, `-qe CMD`)."""
_CVS_METHOD_PROGRAMS = re.compile(r"(?:cvs_rsh|cvs_server)=([^;]*)", re.I)
"""The method options of a root naming the program cvs starts (`:ext;CVS_RSH=CMD:h:/r`)."""
_CVS_LOCAL = re.compile(r":(?:local|fork)(?:;[^:]*)?:(.*)", re.I | re.S)
"""A cvs root on this machine (`:local:/r`, `:fork:/r`; a root with no method nor host is one
too)."""


def vcs_use(argv: Argv, assignments: Assignments = ()) -> ProgramUse | None:
    """What svn, svnadmin, hg or cvs runs, loads and writes beyond their table
    (program_commands.py); None for other programs."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    args = argv[1:]
    if name in ("hg", "chg"):
        return _hg(args)
    if name == "svn":
        return _svn(args)
    if name == "svnadmin":
        return _svnadmin(args)
    if name == "cvs":
        return _cvs(args, assignments)
    if name in _SVN_TOOLS:
        return _svn_tool(name, args)
    return None


def _command_at(args: Sequence[str], valued: frozenset[str]) -> int:
    """Where the command word is, after the global options before it; len(args) for none."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return i + 1
        if not arg.startswith("-") or arg == "-":
            return i
        i += 2 if arg in valued else 1
    return i


def _operands(args: Sequence[str], valued: frozenset[str]) -> list[str]:
    """The words after the command that are no option nor an option's separate value."""
    found: list[str] = []
    skip = ended = False
    for arg in args:
        if skip:
            skip = False
        elif ended or not arg.startswith("-") or arg == "-":
            found.append(arg)
        elif arg == "--":
            ended = True
        else:
            skip = arg in valued
    return found


def _hg(args: Argv) -> ProgramUse:
    # Without `-R` or `--cwd`, the repository it finds from where it runs (`cd DIR && hg`).
    loads = option_values(args, _HG_PLACES) or ["."]
    peers = hg_peers(args, HG_GLOBAL)
    at = first_operand(args, HG_GLOBAL)
    word = args[at] if at < len(args) else ""
    runs: list[str] = []
    for names, options in _HG_RUNS.items():
        # A prefix of several commands is refused by hg: taken as any of them.
        if word and any(name.startswith(word) for name in names):
            grammar = OptionGrammar(options, grouped=True, prefixes=True)
            runs += [v for v in option_values(args[at + 1 :], grammar) if v not in runs]
    runs = [v for v in runs if not _HG_BUILTIN_TOOL.match(v)]
    files = hg_files(args, HG_GLOBAL)
    exposure = serve_exposure(word, args[at + 1 :], HG_GLOBAL) if is_literal(word) else None
    history = hg_history(args, HG_GLOBAL)
    recorded = hg_recorded(args, HG_GLOBAL)
    return ProgramUse(
        asks=(*files.asks, *(() if exposure is None else (exposure,))),
        runs=tuple(runs),
        repositories=(*loads, *peers.repositories),
        writes=(*peers.writes, *files.writes),
        reads=(*files.reads, *history.copied, *recorded.words),
        recursive=bool(recorded.words),
        top_reads=(".",) if recorded.everything else (),
        unseen=files.unseen,
        shows_objects="hg" if history.prints else "",
        rewrites_tree=files.rewrites_tree,
    )


def _svn(args: Argv) -> ProgramUse:
    at = _command_at(args, _SVN_VALUED)
    command = args[at] if at < len(args) else ""
    operands = _operands(args[at + 1 :], _SVN_VALUED)
    urls = [w for w in operands if "://" in w]
    loads = [local_url_path(w) for w in urls if w[:7].lower() == "file://"]
    writes: list[str] = []
    if command in _SVN_NEW_COPY:
        if len(operands) > 1 and "://" not in operands[-1]:
            writes.append(operands[-1])
    elif command in _SVN_WRITES:
        # `.` is the working copy it works on when given none (`svn commit`, `svn up`).
        writes += [w for w in operands if "://" not in w and _path_like(w) and w not in _HERE]
    # What it reads or sends: a file named (`svn cat .env`), a directory's versioned files.
    read = operands[:-1] if command in _SVN_NEW_COPY and len(operands) > 1 else operands
    reads = [_SVN_PEG.sub("", w) for w in read if "://" not in w] if command in _SVN_READS else []
    compared = option_values(args[at + 1 :], OptionGrammar(("--old", "--new"), prefixes=True))
    reads += [_SVN_PEG.sub("", w) for w in compared if "://" not in w]
    return ProgramUse(repositories=tuple(loads), writes=tuple(writes), reads=tuple(reads))


def _path_like(word: str) -> bool:
    """An operand that names a file rather than a property's name or value: svn's `propset
    NAME VALUE PATH` operands are all positional; only those with a `/` or `.` start, or a
    word not literal, are taken as paths where svn writes."""
    return not is_literal(word) or word.startswith(PATH_STARTS) or "/" in word


def _svnadmin(args: Argv) -> ProgramUse:
    at = _command_at(args, frozenset({"--config-dir"}))
    command = args[at] if at < len(args) else ""
    operands = _operands(args[at + 1 :], frozenset({"-r", "--revision", "-F", "--file", "-M"}))
    if command in _SVNADMIN_READS:
        return ProgramUse(repositories=tuple(operands[:1]))
    return ProgramUse(writes=tuple(operands))


_SVN_TOOLS = frozenset({"svnmucc", "svnsync", "svnrdump", "svnlook", "svnserve"})
_FILE_URL = re.compile(r"file://", re.I)
_SVN_TOOL_VALUED = frozenset(
    {"-m", "--message", "-F", "--file", "-u", "--username", "-p", "--password", "-U"}
    | {"--root-url", "-r", "--revision", "-X", "--extra-args", "--config-dir", "-t"}
    | {"--config-option", "--with-revprop", "--transaction", "-l", "--limit", "-x"}
    | {"--extensions", "--log-file", "--pid-file", "--config-file", "--listen-port"}
    | {"--listen-host", "--memory-cache-size", "-M", "-c", "--threads", "--root"}
)
"""Their options taking a separate value (svnmucc's, svnrdump's, svnlook's, svnserve's)."""
_SVN_URL_TOOLS = frozenset({"svnmucc", "svnsync", "svnrdump"})
"""Those whose operands (and svnmucc's `-U`) are URLs: svnlook's and svnserve's are paths."""
_SVN_TOOL_CONFIG = OptionGrammar(("--config-dir", "--config-option"))
"""Their configuration: a directory (its `config` file's `[tunnels]` run `svn+NAME://`,
`[helpers]` editors), or one setting of it."""
SVN_HARMLESS_SETTINGS = ("config:miscellany:", "servers:global:http-timeout")
"""svn's `--config-option` settings that run nothing."""
_SVN_TOOL_UNUSED = tuple(
    f"config:helpers:{name}" for name in ("diff-cmd", "diff3-cmd", "merge-tool-cmd")
)
"""Helpers svn's diff and merge run, which these tools never start."""


def _svn_tool(name: str, args: Argv) -> ProgramUse:
    """svnmucc, svnsync, svnrdump, svnlook and svnserve: a repository on this machine
    (`file://` anywhere in a word, as an operand or an option's value: `-Ufile:///r`, or
    svnlook's `REPOS_PATH`, svnserve's `-r ROOT`, all of the machine without one) is one whose
    hooks run (a commit, a revision property set, a load) or whose files are read; the files
    they read (`svnmucc put FILE URL`, `-F`, `svnrdump load -F`, svnserve's `--config-file`)
    and write (`svnrdump dump -F FILE`, svnserve's `--log-file`, `--pid-file`). A URL known
    only as it runs (`svnsync sync $URL`) may be a `file://` one; a `--config-dir` names programs
    they run (outside the workspace: code not seen), as a `--config-option` not known harmless
    does."""
    repositories = [
        local_url_path(arg[found.start() :]) for arg in args if (found := _FILE_URL.search(arg))
    ]
    operands = _operands(args, _SVN_TOOL_VALUED)
    if name in _SVN_URL_TOOLS:
        # `svnsync sync $URL`, `svnmucc -U "$U"`: a URL known only as it runs may be a
        # `file://` one, as hg's `pull $X` may be a local peer.
        roots = option_values(args, OptionGrammar(("-U", "--root-url")))
        repositories += [w for w in (*operands, *roots) if not is_literal(w)]
    config = option_pairs(args, _SVN_TOOL_CONFIG)
    unseen = [
        "--config-option sets a configuration whose tunnels and helpers run programs"
        for option, value in config
        if option == "--config-option"
        and not value.lower().startswith((*SVN_HARMLESS_SETTINGS, *_SVN_TOOL_UNUSED))
    ]
    # A configuration directory's tunnels and helpers are code where it is: outside the
    # workspace, code not seen.
    loads = [value for option, value in config if option == "--config-dir"]
    files = option_values(args, OptionGrammar(("-F", "--file"), prefixes=True))
    reads: list[str] = []
    writes: list[str] = []
    if name == "svnmucc":
        extra = option_values(args, OptionGrammar(("-X", "--extra-args")))
        actions = svnmucc_actions(operands, extra)
        reads += [*files, *extra, *actions.reads]
        unseen += actions.unseen
    elif name == "svnrdump":
        (writes if operands[:1] == ["dump"] else reads).extend(files)
    elif name == "svnlook":
        repositories += operands[1:2]
    elif name == "svnserve" and not {"--version", "--help", "-h", "--?"} & set(args):
        served = option_values(args, OptionGrammar(("-r", "--root"), grouped=True))
        repositories += served or ["/"]  # without a root, every repository of the machine
        reads += option_values(args, OptionGrammar(("--config-file",), prefixes=True))
        logs = OptionGrammar(("--log-file", "--pid-file"), prefixes=True)
        writes += option_values(args, logs)
    return ProgramUse(
        repositories=tuple(repositories),
        reads=tuple(r for r in reads if r != "-"),
        writes=tuple(writes),
        unseen=tuple(dict.fromkeys(unseen)),
        loads=tuple(loads),
    )


def _cvs(args: Argv, assignments: Assignments) -> ProgramUse:
    """cvs's global options (before its command): `-e EDITOR` runs EDITOR; the root of `-d`
    (or `$CVSROOT`) on this machine is a repository whose CVSROOT scripts run."""
    pairs = option_pairs(args[: first_operand(args, _CVS_GLOBAL)], _CVS_GLOBAL)
    runs = [value for option, value in pairs if option == "-e"]
    roots = [value for option, value in pairs if option == "-d"]
    if not roots:
        roots = [value for key, value in assignments if key == "CVSROOT"][-1:]
    loads: list[str] = []
    for root in roots:
        method = root.partition(":")[2].partition(":")[0] if root.startswith(":") else ""
        runs += _CVS_METHOD_PROGRAMS.findall(method)
        found = _CVS_LOCAL.fullmatch(root)
        if found is not None:
            loads.append(tilde_expanded(found.group(1)))  # cvs's own `~` (`:local:~/r`)
        elif ":" not in root or root.startswith(PATH_STARTS) or not is_literal(root):
            loads.append(root)  # no method nor host: a directory here (`~/r`, `../r`)
    return ProgramUse(runs=tuple(runs), repositories=tuple(loads))
