"""What tether knows about programs outside the read-only allowlist whose options run other
programs, read files of their own or write: pagers, editors, manuals, remote shells, archivers,
script languages (awk, ed), test runners. Their files are checked like any command's; what their
options run must be allowed itself; what they load from elsewhere is asked."""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.command_spec import CommandSpec
from tether.permissions.command_spec import names as _s
from tether.permissions.command_spec import words as _names
from tether.permissions.input_code import SQLITE_VALUED
from tether.permissions.vcs_programs import SVN_HARMLESS_SETTINGS

_AWK = CommandSpec(
    "awk",
    valued=_s("-F", "-v", "--field-separator", "--assign", "-W"),
    read_valued=_s("-f", "--file", "-E", "--exec"),
    pattern_options=_s("-f", "--file", "-E", "--exec", "-e", "--source"),
    attached=_s("-d", "-D", "-o", "-p", "-L"),
    unseen=_s("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load", "-W")
    | _s("-D", "--debug"),
    flag_writes={"-d": "awkvars.out", "--dump-variables": "awkvars.out"}
    | {"-p": "awkprof.out", "--profile": "awkprof.out"}
    | {"-o": "awkprof.out", "--pretty-print": "awkprof.out"},
    # Read-only when its program plainly only reads and prints (awk_program.py).
    flags="bcCgMnNOPrsStVh",
    long_flags=_s("--characters-as-bytes", "--traditional", "--copyright", "--gen-pot")
    | _s("--bignum", "--non-decimal-data", "--use-lc-numeric", "--optimize", "--posix")
    | _s("--re-interval", "--no-optimize", "--sandbox", "--lint-old", "--version", "--help"),
    read_only=True,
)
_PYTEST = CommandSpec(
    "mentions",
    valued=_s("-k", "-m", "-r", "--tb", "--maxfail", "--deselect", "--ignore", "--ignore-glob")
    | _s("--durations", "--durations-min", "--import-mode", "--capture", "--log-level")
    | _s("--log-format", "--log-cli-level", "--junit-prefix", "-n", "--numprocesses", "--dist")
    | _s("--timeout", "--color", "--code-highlight", "-W", "--pythonwarnings", "--count")
    # pytest-cov: what it measures and how it reports (not `--cov-config`, a file of settings).
    | _s("--cov", "--cov-report", "--cov-fail-under", "--cov-context"),
    write_valued=_s("--junitxml", "--junit-xml", "--basetemp", "--resultlog", "--result-log")
    | _s("--report-log", "--log-file", "--debug", "--html", "--json-report-file"),
    read_valued=_s("-c", "--config-file", "--inifile"),
    # Each of these loads code, or settings that name files and code, from elsewhere.
    unseen=_s("-p", "-c", "--config-file", "--inifile", "-o", "--override-ini", "--rootdir")
    | _s("--confcutdir", "--pastebin", "--pyargs", "--cov-config")
    # `--pdbcls=MODULE:CLASS` imports MODULE; pytest-xdist's `--tx`/`--px` start the Python
    # (or ssh) a spec names.
    | _s("--pdbcls", "--tx", "--px"),
    harmless_values={"-p": ("no:",)},
    # `-W action:message:category:module:lineno` imports a dotted category's module.
    module_fields={"-W": 2, "--pythonwarnings": 2},
    # pytest-cov's `--cov-report=TYPE:DEST` writes its report there (`term:...` prints).
    write_prefixed={
        "--cov-report": (
            *("html:", "xml:", "json:", "lcov:", "annotate:", "markdown:"),
            "markdown-append:",
        )
    },
    collects=True,
    # Text files whose names match are read for doctests, in every directory collected.
    name_globs=_s("--doctest-glob"),
    flag_writes={"--cache-clear": ".pytest_cache"},
    # It deletes the directory it is given (and what is in it) before the run.
    deletes_valued=_s("--basetemp"),
    optional_valued=_s("--cov"),
)
_PYTHON = CommandSpec("mentions", modules={"pytest": "pytest", "py.test": "pytest"})

_VIM_INERT = {"-u": frozenset({"NONE", "NORC", "DEFAULTS"}), "-U": frozenset({"NONE"})}
"""vim's `-u`/`-U` values that load no vimrc or gvimrc (`NORC` still loads the plugins a
plain `vim` loads)."""

_HG_HARMLESS = (
    *("ui.username", "ui.verbose", "ui.quiet", "ui.debug", "ui.interactive", "ui.paginate"),
    *("ui.color", "ui.tweakdefaults", "ui.merge=:", "color.", "diff.", "commands."),
    *("phases.", "format.", "progress.", "experimental.", "devel."),
)
"""hg settings that tune output, identity and storage only (`ui.merge=:merge3`: a built-in
merge)."""

PROGRAM_COMMANDS: Mapping[str, CommandSpec] = {
    "less": CommandSpec(
        "read",
        valued=_s("-p", "-x", "-y", "-z", "-b", "-h", "-j", "-P", "-t", "-T", "-D"),
        read_valued=_s("-k", "--lesskey-file", "--lesskey-src"),
        write_valued=_s("-o", "-O", "--log-file", "--LOG-FILE"),
        # `+cmd` runs less commands, which include `!shell-command`.
        unseen=_s("-k", "--lesskey-file", "--lesskey-src"),
        plus_commands=True,
    ),
    "more": CommandSpec("read", plus_commands=True),
    "bat": CommandSpec(
        "read",
        valued=_s("-l", "-r", "-H", "--language", "--line-range", "--highlight-line"),
        runs=_s("--pager"),
    ),
    **dict.fromkeys(
        _names("vim vi view nvim vimdiff gvim"),
        CommandSpec(
            "read",
            valued=_s("-t", "-T", "-r"),
            # `-q FILE`: the error file, read and shown.
            read_valued=_s("-s", "-u", "-U", "-S", "-q"),
            # `-i FILE` is the viminfo file: read at start and written on exit; `-VFILE`
            # (its level's digits taken off: input_code.editor_words), `--log` and
            # `--startuptime` name files it appends to.
            write_valued=_s("-w", "-W", "-i", "-V", "--log", "--startuptime"),
            attached=_s("-V"),
            unseen=_s("-c", "--cmd", "-s", "-u", "-S", "-U"),
            inert_values=_VIM_INERT,
            plus_commands=True,
        ),
    ),
    "man": CommandSpec(
        "mentions",
        valued=_s("-L", "-m", "-M", "-S", "-s", "-e", "-E", "-r", "-R", "--locale", "--sections"),
        runs=_s("-P", "--pager", "-H", "--html"),
        unseen=_s("-C", "--config-file", "-p", "--preprocessor"),
    ),
    "xxd": CommandSpec(
        "read",
        valued=_s("-c", "-g", "-l", "-s", "-o", "-n", "-R", "-cols", "-len", "-seek", "-name")
        | _s("-groupsize"),
        flags="abCEeipruvdh",
        word_options=True,
        written_after=1,
        read_only=True,
    ),
    "hexdump": CommandSpec("read", valued=_s("-n", "-s", "-e"), read_valued=_s("-f")),
    **dict.fromkeys(_names("ed"), CommandSpec("read", valued=_s("-p"), runs_input=True)),
    # ex reads Ex commands from its input, and sqlite3 its SQL and dot commands: code from
    # the input when there is any (input_code.py).
    "ex": CommandSpec(
        "read",
        valued=_s("-t", "-T", "-r"),
        read_valued=_s("-u", "-U", "-S", "-q"),
        write_valued=_s("-w", "-W", "-i", "-V", "--log", "--startuptime"),
        attached=_s("-V"),
        unseen=_s("-c", "--cmd", "-u", "-S", "-U"),
        inert_values=_VIM_INERT,
        plus_commands=True,
    ),
    "sqlite3": CommandSpec("mentions", valued=SQLITE_VALUED),
    **dict.fromkeys(_names("mapfile readarray compgen"), CommandSpec("none", runs=_s("-C"))),
    **dict.fromkeys(_names("awk gawk mawk nawk busybox-awk"), _AWK),
    "source": CommandSpec("read"),
    ".": CommandSpec("read"),
    "ag": CommandSpec(
        "pattern_read",
        valued=_s("-A", "-B", "-C", "-G", "-g", "-m", "--ignore", "--ignore-dir", "--depth"),
        read_valued=_s("-p", "--path-to-ignore"),
        recursive=_s("always"),
        follows=_s("-f", "--follow"),
        # Searching compressed files runs nothing, but ag's pager does.
        runs=_s("--pager"),
    ),
    "ack": CommandSpec(
        "pattern_read",
        valued=_s("-A", "-B", "-C", "-m", "-t", "--type", "--ignore-dir", "--ignore-file"),
        read_valued=_s("--ackrc"),
        list_valued=_s("--files-from"),
        recursive=_s("always"),
        follows=_s("--follow"),
        runs=_s("--pager"),
        unseen=_s("--ackrc"),
    ),
    "scp": CommandSpec(
        "copy",
        valued=_s("-P", "-i", "-c", "-l", "-J", "-o", "-D", "-X"),
        runs=_s("-S", "-o=ProxyCommand", "-o=LocalCommand", "-o=KnownHostsCommand"),
        unseen=_s("-F", "-o=Include", "-o=Match"),
    ),
    # `-S PROG` and `-D PROG` run PROG instead of ssh; a batch file's `!CMD` lines run CMD.
    "sftp": CommandSpec(
        "none",
        valued=_s("-B", "-c", "-i", "-J", "-l", "-o", "-P", "-R", "-s", "-X"),
        runs=_s("-S", "-D", "-o=ProxyCommand", "-o=LocalCommand", "-o=KnownHostsCommand"),
        unseen=_s("-b", "-F", "-o=Include", "-o=Match"),
    ),
    "ssh": CommandSpec(
        "none",
        valued=_s("-b", "-c", "-D", "-e", "-I", "-J", "-L", "-l", "-m", "-O", "-p", "-Q", "-R")
        | _s("-S", "-W", "-w", "-B", "-P"),
        read_valued=_s("-i"),
        write_valued=_s("-E"),
        runs=_s("-o=ProxyCommand", "-o=LocalCommand", "-o=KnownHostsCommand"),
        unseen=_s("-F", "-o=Include", "-o=Match", "-o=PKCS11Provider", "-o=SecurityKeyProvider")
        | _s("-o=RemoteCommand", "-I"),
    ),
    # hg's `--config SECTION.NAME=VALUE` (any prefix: `--conf`): `ui.ssh` is the command it
    # reaches a remote with; hooks, extensions, aliases (`!CMD`), merge tools, editors and the
    # remote's command run code; settings that only tune output or identity do not.
    "hg": CommandSpec(
        "none",
        valued=_s("-R", "--repository", "--cwd", "-r", "--rev", "-b", "--branch", "-m", "-u"),
        # `-e CMD` (ssh's command) only where hg reaches a remote: vcs_programs.py.
        runs=_s("--config=ui.ssh", "--ssh"),
        unseen=_s("--config", "--remotecmd"),
        harmless_values={"--config": _HG_HARMLESS},
    ),
    # svn's `--config-option FILE:SECTION:OPTION=VALUE`: `config:tunnels:NAME` is the command
    # `svn+NAME://` starts, `config:helpers:*` run editors and diff and merge tools, as
    # `--diff-cmd`, `--diff3-cmd` and `--editor-cmd` do (the rest of svn: vcs_programs.py).
    "svn": CommandSpec(
        "none",
        valued=_s("-r", "--revision", "-m", "--message", "--username", "--password", "-c"),
        runs=_s("--diff-cmd", "--diff3-cmd", "--editor-cmd"),
        unseen=_s("--config-option", "--config-dir"),
        harmless_values={"--config-option": SVN_HARMLESS_SETTINGS},
    ),
    "rsync": CommandSpec(
        "copy",
        valued=_s("--exclude", "--include", "--filter", "-f", "--chmod", "--chown", "-B")
        | _s("--max-size", "--min-size", "--timeout", "--port", "--bwlimit", "--suffix"),
        read_valued=_s("--exclude-from", "--include-from", "--password-file", "--read-batch"),
        # `--link-dest=DIR` hard-links the copies to DIR's files: writing one writes DIR's.
        write_valued=_s("--log-file", "--write-batch", "--only-write-batch", "--backup-dir")
        | _s("--partial-dir", "--temp-dir", "-T", "--link-dest"),
        list_valued=_s("--files-from"),
        runs=_s("-e", "--rsh"),
        # A daemon's configuration runs its `pre-xfer exec`/`post-xfer exec` commands.
        unseen=_s("--rsync-path", "-M", "--remote-option", "--config", "--dparam"),
        recursive=_s("always"),
        follows=_s("-L", "--copy-links", "-k", "--copy-dirlinks"),
    ),
    **dict.fromkeys(
        _names("tar bsdtar gtar"),
        CommandSpec(
            "read",
            valued=_s(
                "-b", "-H", "-K", "-L", "-N", "-V", "-C", "--directory", "--format", "--exclude"
            )
            | _s("--owner", "--group", "--mode", "--mtime", "--transform", "--xform")
            | _s("--strip-components"),
            read_valued=_s("-f", "--file", "-X", "--exclude-from"),
            write_valued=_s("-f", "--file", "-g", "--listed-incremental", "--index-file"),
            removes=_s("--remove-files"),
            list_valued=_s("-T", "--files-from"),
            runs=_s("-I", "--use-compress-program", "--to-command", "-F", "--info-script")
            | _s("--new-volume-script", "--rsh-command", "--rmt-command")
            | _s("--checkpoint-action=exec"),
            extracts=_s("-x", "--extract", "--get"),
            archive_writes=_s("-c", "--create", "-r", "--append", "-u", "--update", "-A")
            | _s("--catenate", "--concatenate", "--delete"),
            archive_creates=_s("-c", "--create"),
            chdir=_s("-C", "--directory"),
            bundle_first=True,
            recursive=_s("always"),
            follows=_s("-h", "--dereference"),
        ),
    ),
    "zip": CommandSpec(
        "read",
        valued=_s("-b", "-n", "-t", "-tt", "-x", "-i", "-P", "--password"),
        write_valued=_s("-O", "--output-file"),
        runs=_s("-TT", "--unzip-command"),
        removes=_s("-m", "--move"),
        recursive=_s("-r", "--recurse-paths", "-R", "--recurse-patterns"),
        writes_first=True,
    ),
    "split": CommandSpec(
        "read",
        valued=_s("-a", "-b", "-C", "-l", "-n", "-t", "--suffix-length", "--bytes")
        | _s("--line-bytes", "--lines", "--number", "--separator", "--additional-suffix"),
        runs=_s("--filter"),
        written_after=1,
        written_prefixes=True,
        default_writes=("x",),
    ),
    "csplit": CommandSpec(
        "read",
        valued=_s("-b", "-n", "--suffix-format", "--digits"),
        write_valued=_s("-f", "--prefix"),
        written_prefixes=True,
        default_writes=("xx",),
    ),
    # Test runners and interpreters: what their code does is trusted as far as the rule that
    # allowed them; their options that write or load code from elsewhere are not.
    "pytest": _PYTEST,
    "py.test": _PYTEST,
    **dict.fromkeys(_names("python python3"), _PYTHON),
}
"""Merged into `COMMANDS` (commands.py)."""
