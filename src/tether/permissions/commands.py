"""What tether knows about common commands, as data: which arguments are files read or
written, which options run programs or read and write files of their own, which commands are
read-only enough to run without asking, which variables change what runs.

Kept deliberately small: a command missing here is not trusted, it is asked. A read-only
command lists every option it knows (`flags` and the option sets): with any other option it
is no longer read-only, since tether cannot tell what that option does.
"""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.command_spec import CommandSpec
from tether.permissions.command_spec import names as _s
from tether.permissions.command_spec import words as _names
from tether.permissions.program_commands import PROGRAM_COMMANDS
from tether.permissions.writer_commands import WRITER_COMMANDS

_GREP_VALUED = (
    _s("-m", "-A", "-B", "-C", "-d", "-D", "--max-count", "--after-context")
    | _s("--before-context", "--context", "--include", "--exclude", "--exclude-dir", "--label")
    | _s("--binary-files", "--directories", "--devices", "--group-separator", "--color")
)
_GREP = CommandSpec(
    "pattern_read",
    valued=_GREP_VALUED | _s("--colour"),
    read_valued=_s("-f", "--file", "--exclude-from"),
    pattern_options=_s("-e", "--regexp", "-f", "--file"),
    flags="EFGPiyvwxcLloqsbHhnTZzaIrRUV",
    long_flags=_s("--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp")
    | _s("--ignore-case", "--no-ignore-case", "--invert-match", "--word-regexp", "--line-regexp")
    | _s("--count", "--files-without-match", "--files-with-matches", "--only-matching")
    | _s("--quiet", "--silent", "--no-messages", "--byte-offset", "--with-filename")
    | _s("--no-filename", "--line-number", "--initial-tab", "--null", "--null-data", "--text")
    | _s("--line-buffered", "--binary", "--no-group-separator", "--version", "--help"),
    read_only=True,
    recursive=_s("-r", "-R", "--recursive", "--dereference-recursive", "-d=recurse")
    | _s("--directories=recurse"),
    follows=_s("-R", "--dereference-recursive"),
)
_RG = CommandSpec(
    "pattern_read",
    valued=_s("-m", "-A", "-B", "-C", "-g", "-t", "-T", "-j", "-M", "-d", "-E", "--glob")
    | _s("--iglob", "--type", "--type-not", "--type-add", "--max-count", "--context")
    | _s("--after-context", "--before-context", "--threads", "--max-columns", "--max-depth")
    | _s("--encoding", "--color", "--colors", "--sort", "--sortr", "--max-filesize", "-r")
    | _s("--replace", "--context-separator", "--field-match-separator", "--path-separator")
    | _s("--type-clear", "--engine", "--dfa-size-limit", "--regex-size-limit", "--pre-glob"),
    read_valued=_s("-f", "--file", "--ignore-file"),
    pattern_options=_s("-e", "--regexp", "-f", "--file"),
    runs=_s("--pre", "--hostname-bin"),
    flags="iSsFwxvcloqnNHIUaPhuz.0bL",
    long_flags=_s("--ignore-case", "--smart-case", "--case-sensitive", "--fixed-strings")
    | _s("--word-regexp", "--line-regexp", "--invert-match", "--count", "--count-matches")
    | _s("--files-with-matches", "--files-without-match", "--only-matching", "--quiet")
    | _s("--line-number", "--no-line-number", "--with-filename", "--no-filename", "--heading")
    | _s("--no-heading", "--hidden", "--no-ignore", "--no-ignore-vcs", "--no-ignore-dot")
    | _s("--no-ignore-parent", "--no-ignore-global", "--no-ignore-exclude", "--text", "--files")
    | _s("--multiline", "--multiline-dotall", "--pcre2", "--json", "--vimgrep", "--stats")
    | _s("--column", "--no-column", "--byte-offset", "--trim", "--null", "--null-data")
    | _s("--unrestricted", "--binary", "--no-messages", "--no-config", "--type-list")
    | _s("--passthru", "--crlf", "--one-file-system", "--follow", "--search-zip", "--version")
    | _s("--help", "--glob-case-insensitive", "--ignore-file-case-insensitive"),
    read_only=True,
    # Decompressing runs programs found on PATH.
    forbidden=_s("-z", "--search-zip"),
    recursive=_s("always"),
    follows=_s("-L", "--follow"),
)
_READ = CommandSpec("read", read_only=True)
_SUMS = CommandSpec(
    "read",
    flags="btzw",
    long_flags=_s("--binary", "--text", "--zero", "--tag", "--quiet", "--status", "--strict")
    | _s("--warn", "--ignore-missing", "--help", "--version"),
    list_flags=_s("-c", "--check"),
    read_only=True,
)
_DIFF = CommandSpec(
    "read",
    valued=_s("-U", "-C", "-I", "-x", "-F", "-W", "-D", "--label", "--unified", "--context")
    | _s("--ignore-matching-lines", "--exclude", "--show-function-line", "--width", "--ifdef")
    | _s("--color", "--palette", "--tabsize", "--horizon-lines", "--line-format"),
    read_valued=_s("-X", "--exclude-from", "--from-file", "--to-file"),
    flags="qsceunyptTlrNiEZbwBadv",
    long_flags=_s("--brief", "--report-identical-files", "--normal", "--ed", "--rcs")
    | _s("--side-by-side", "--left-column", "--suppress-common-lines", "--show-c-function")
    | _s("--expand-tabs", "--initial-tab", "--suppress-blank-empty", "--paginate")
    | _s("--recursive", "--no-dereference", "--new-file", "--unidirectional-new-file")
    | _s("--ignore-file-name-case", "--no-ignore-file-name-case", "--ignore-case", "--text")
    | _s("--ignore-tab-expansion", "--ignore-trailing-space", "--ignore-space-change")
    | _s("--ignore-all-space", "--ignore-blank-lines", "--strip-trailing-cr", "--minimal")
    | _s("--speed-large-files", "--help", "--version"),
    read_only=True,
    # `-l` pipes its output through `pr`, a system program: harmless.
    recursive=_s("-r", "--recursive"),
)
_NONE_READ_ONLY = CommandSpec("none", read_only=True, any_option=True)

COMMANDS: Mapping[str, CommandSpec] = {
    # Read-only, and their files are checked as reads.
    "cat": CommandSpec(
        "read",
        flags="AbeEnstTuv",
        long_flags=_s("--show-all", "--number-nonblank", "--show-ends", "--number")
        | _s("--squeeze-blank", "--show-tabs", "--show-nonprinting", "--help", "--version"),
        read_only=True,
    ),
    "fold": CommandSpec(
        "read",
        valued=_s("-w", "--width"),
        flags="bs",
        long_flags=_s("--bytes", "--spaces", "--help", "--version"),
        read_only=True,
    ),
    "tac": CommandSpec(
        "read",
        valued=_s("-s", "--separator"),
        flags="br",
        long_flags=_s("--before", "--regex"),
        read_only=True,
    ),
    "nl": CommandSpec(
        "read",
        valued=_s("-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"),
        flags="p",
        read_only=True,
        any_option=True,
    ),
    "head": CommandSpec(
        "read",
        valued=_s("-n", "-c", "--lines", "--bytes"),
        flags="qvz0123456789",
        long_flags=_s("--quiet", "--silent", "--verbose", "--zero-terminated"),
        read_only=True,
    ),
    "tail": CommandSpec(
        "read",
        valued=_s("-n", "-c", "-s", "--lines", "--bytes", "--pid", "--sleep-interval"),
        flags="fFqvz0123456789",
        long_flags=_s("--follow", "--retry", "--quiet", "--silent", "--verbose")
        | _s("--zero-terminated", "--max-unchanged-stats"),
        read_only=True,
    ),
    "wc": CommandSpec(
        "read",
        list_valued=_s("--files0-from"),
        flags="cmlLw",
        long_flags=_s("--bytes", "--chars", "--lines", "--max-line-length", "--words", "--total"),
        read_only=True,
    ),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _RG,
    "ls": CommandSpec(
        "read",
        valued=_s("-I", "-w", "-T", "--ignore", "--hide", "--width", "--format", "--sort")
        | _s("--tabsize", "--block-size", "--time", "--time-style", "--color", "--indicator-style")
        | _s("--quoting-style"),
        flags="aAbBcCdDfFgGhHikLlmnNopqQrRsStuUvxXZ1",
        any_option=True,
        read_only=True,
        lists_cwd=True,
    ),
    "tree": CommandSpec(
        "read",
        valued=_s("-L", "-P", "-I", "-H", "-T", "--filelimit", "--charset", "--sort")
        | _s("--timefmt"),
        write_valued=_s("-o"),
        list_valued=_s("--fromfile"),
        # Not `-R`: with -H it writes an index file in every directory.
        flags="adlfxACDFghinNpqQrsStuv",
        long_flags=_s("--noreport", "--dirsfirst", "--filesfirst", "--du", "--prune", "--gitignore")
        | _s("--inodes", "--device", "--si", "--nolinks", "--matchdirs", "--ignore-case", "--help")
        | _s("--version", "--info", "--metafirst"),
        read_only=True,
        lists_cwd=True,
    ),
    "stat": CommandSpec(
        "read",
        valued=_s("-c", "--format", "--printf", "--cached"),
        flags="Lft",
        long_flags=_s("--dereference", "--file-system", "--terse"),
        read_only=True,
    ),
    "file": CommandSpec(
        "read",
        valued=_s("-F", "-e", "-P", "--separator", "--exclude", "--exclude-quiet")
        | _s("--parameter"),
        read_valued=_s("-m", "--magic-file"),
        list_valued=_s("-f", "--files-from"),
        flags="vbcEhiIkLlnNprsSzZ0",
        long_flags=_s("--brief", "--mime", "--mime-type", "--mime-encoding", "--keep-going")
        | _s("--list", "--dereference", "--no-dereference", "--no-pad", "--no-buffer", "--raw")
        | _s("--preserve-date", "--special-files", "--no-sandbox", "--uncompress")
        | _s("--uncompress-noreport", "--print0", "--extension", "--apple", "--help"),
        # Compiling writes FILE.mgc next to the magic file.
        forbidden=_s("-C", "--compile"),
        read_only=True,
    ),
    "du": CommandSpec(
        "read",
        valued=_s("-d", "-B", "-t", "--max-depth", "--exclude", "--threshold", "--block-size")
        | _s("--time", "--time-style"),
        read_valued=_s("-X", "--exclude-from"),
        list_valued=_s("--files0-from"),
        flags="0bcDHhklLmPSsx",
        long_flags=_s("--null", "--apparent-size", "--bytes", "--total", "--dereference-args")
        | _s("--human-readable", "--inodes", "--count-links", "--dereference", "--separate-dirs")
        | _s("--si", "--summarize", "--one-file-system", "--no-dereference"),
        read_only=True,
        recursive=_s("-a", "--all"),
        follows=_s("-L", "--dereference"),
        lists_cwd=True,
    ),
    "df": CommandSpec("read", valued=_s("-t", "-x", "-B"), read_only=True, any_option=True),
    "diff": _DIFF,
    "cmp": CommandSpec(
        "read",
        valued=_s("-i", "-n", "--ignore-initial", "--bytes"),
        flags="blsv",
        long_flags=_s("--print-bytes", "--verbose", "--quiet", "--silent"),
        read_only=True,
    ),
    "comm": CommandSpec(
        "read",
        valued=_s("--output-delimiter"),
        flags="123z",
        long_flags=_s("--check-order", "--nocheck-order", "--total", "--zero-terminated"),
        read_only=True,
    ),
    "cut": CommandSpec(
        "read",
        valued=_s("-b", "-c", "-d", "-f", "--output-delimiter", "--bytes", "--characters")
        | _s("--delimiter", "--fields"),
        flags="nszM",
        long_flags=_s("--complement", "--only-delimited", "--zero-terminated"),
        read_only=True,
    ),
    "sort": CommandSpec(
        "read",
        valued=_s("-k", "-t", "-S", "--key", "--field-separator", "--buffer-size", "--parallel")
        | _s("--batch-size", "--sort"),
        list_valued=_s("--files0-from"),
        read_valued=_s("--random-source"),
        write_valued=_s("-o", "--output", "-T", "--temporary-directory"),
        runs=_s("--compress-program"),
        flags="bdfgiMhnRrVcCmsuz",
        long_flags=_s("--ignore-leading-blanks", "--dictionary-order", "--ignore-case")
        | _s("--general-numeric-sort", "--ignore-nonprinting", "--month-sort", "--random-sort")
        | _s("--human-numeric-sort", "--numeric-sort", "--reverse", "--version-sort", "--check")
        | _s("--merge", "--stable", "--unique", "--zero-terminated", "--debug"),
        read_only=True,
    ),
    "uniq": CommandSpec(
        "read",
        valued=_s("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"),
        flags="cdDiuz",
        long_flags=_s("--count", "--repeated", "--all-repeated", "--ignore-case", "--unique")
        | _s("--zero-terminated", "--group"),
        read_only=True,
        written_after=1,
    ),
    "rev": _READ,
    "od": CommandSpec(
        "read",
        valued=_s("-A", "-j", "-N", "-t", "-S", "-w", "--address-radix", "--skip-bytes")
        | _s("--read-bytes", "--format", "--strings", "--width", "--endian"),
        flags="vabcdfilosx",
        long_flags=_s("--output-duplicates", "--traditional"),
        read_only=True,
    ),
    "strings": CommandSpec(
        "read",
        valued=_s("-n", "-t", "-e", "-s", "-T", "--bytes", "--radix", "--encoding")
        | _s("--output-separator", "--target", "--unicode"),
        flags="adfwo0123456789",
        long_flags=_s("--all", "--data", "--print-file-name", "--include-all-whitespace"),
        read_only=True,
    ),
    **dict.fromkeys(_names("md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum"), _SUMS),
    "cksum": _READ,
    "base64": CommandSpec(
        "read",
        valued=_s("-w", "--wrap"),
        flags="di",
        long_flags=_s("--decode", "--ignore-garbage"),
        read_only=True,
        written_after=1,
    ),
    "jq": CommandSpec(
        "jq",
        pairs=_s("--arg", "--argjson"),
        read_valued=_s("-f", "--from-file"),
        read_pairs=_s("--slurpfile", "--rawfile"),
        pattern_options=_s("-f", "--from-file"),
        # Search directories for the modules the program imports (jq_program.py).
        valued=_s("--indent", "-L", "--library-path"),
        flags="cnesrRajCMSh0",
        long_flags=_s("--compact-output", "--null-input", "--exit-status", "--slurp")
        | _s("--raw-output", "--raw-input", "--ascii-output", "--join-output", "--color-output")
        | _s("--monochrome-output", "--sort-keys", "--tab", "--raw-output0", "--seq", "--stream")
        | _s("--stream-errors", "--unbuffered", "--help", "--version", "--args", "--jsonargs"),
        read_only=True,
    ),
    # Read-only, no file arguments.
    **dict.fromkeys(
        _names(
            "echo printf pwd true false : sleep whoami id uname basename dirname which type "
            "seq tr test [ cd pushd popd dirs realpath readlink nproc command printenv "
            "expr free uptime"
        ),
        _NONE_READ_ONLY,
    ),
    # Builtins that only set variables from their input or arguments (a variable that changes
    # what runs, or a subscript, is judged where it is set: shell_variables, shell_checks).
    **dict.fromkeys(_names("read getopts"), _NONE_READ_ONLY),
    # With no command to run (wrappers.py opens up `env PROG`): prints the environment.
    "env": _NONE_READ_ONLY,
    # Process listings: what runs, as `env` shows the environment (a pid file is read); top
    # reads no keys from an input that is no terminal.
    **dict.fromkeys(_names("ps pstree pidof top"), _NONE_READ_ONLY),
    "pgrep": CommandSpec(
        "none", read_valued=_s("-F", "--pidfile"), read_only=True, any_option=True
    ),
    "column": CommandSpec(
        "read",
        valued=_s("-s", "-o", "-c", "-N", "-l", "-E", "-H", "-O", "-R", "-T", "-W", "-d", "-r")
        | _s("--separator", "--output-separator", "--output-width", "--table-columns")
        | _s("--table-columns-limit", "--table-noextreme", "--table-hide", "--table-order")
        | _s("--table-right", "--table-truncate", "--table-wrap", "--table-name", "--tree")
        | _s("--tree-id", "--tree-parent", "--output-width"),
        flags="tnxeLJh",
        long_flags=_s("--table", "--fillrows", "--keep-empty-lines", "--json", "--table-noheadings")
        | _s("--table-header-repeat", "--help", "--version"),
        read_only=True,
    ),
    "date": CommandSpec(
        "none",
        valued=_s("-d", "--date", "--rfc-3339"),
        read_valued=_s("-f", "--file", "-r", "--reference"),
        attached=_s("-I"),
        flags="uR",
        long_flags=_s("--utc", "--universal", "--rfc-email", "--iso-8601", "--debug"),
        read_only=True,
        forbidden=_s("-s", "--set"),
    ),
    # Readers, archivers, pagers, remote shells, script languages, test runners.
    **PROGRAM_COMMANDS,
    # Writers (writer_commands.py).
    **WRITER_COMMANDS,
    "git": CommandSpec("git", read_only=True),
    "sed": CommandSpec(
        "sed",
        valued=_s("-l", "--line-length"),
        read_valued=_s("-f", "--file"),
        pattern_options=_s("-e", "--expression", "-f", "--file"),
        attached=_s("-i"),
        unseen=_s("-f", "--file"),
        flags="nErsuzb",
        long_flags=_s("--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered")
        | _s("--null-data", "--binary", "--posix", "--sandbox", "--debug", "--follow-symlinks")
        | _s("--in-place", "--help", "--version"),
        read_only=True,
    ),
}
"""Commands by name (a path's last component: `/usr/bin/rm` is `rm`)."""

SYSTEM_BIN_DIRS = frozenset(
    {"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"}
)
"""`/usr/bin/rm` is `rm` for allow rules; `./rm` or `/tmp/rm` is not (for deny rules any path
counts)."""

SUBSCRIPT_NAME_BUILTINS = frozenset(
    {"read", "declare", "typeset", "local", "export", "readonly", "unset", "mapfile"}
    | {"readarray", "getopts", "wait", "let", "printf", "test", "[", "[["}
)
"""Builtins that take variable names: a name with an array subscript (`a[$(cmd)]`) makes bash
evaluate the subscript, which can run commands."""
