"""node's own options (up to its script, `-`, or `--`), each as what it does: files and
directories it writes (`--redirect-warnings=F`, `--tls-keylog=F`, `--logfile=F`,
`--diagnostic-dir`, `--report-dir`/`--report-directory`/`--report-filename`, `--cpu-prof-dir`,
`--heap-prof-dir`, their `-name`s joined to them as node joins them, `--localstorage-file`,
`--test-reporter-destination`, `--trace-event-file-pattern`; and what `--prof`, `--cpu-prof`,
`--heap-prof`, `--report-on-*`, `--heapsnapshot-*`, `--trace-events-enabled`,
`--build-snapshot` write where it runs or in the diagnostic directory), addresses a debugger
listens on (`--inspect[-brk|-wait]=HOST:PORT`, `--inspect-port`, `--debug-port`: a host other
than loopback opens it to the network, asked), code it imports over the network
(`--experimental-network-imports`), and options it does not know (asked: a V8 option may do
anything). Options loading code or reading files are judged elsewhere (outside_code,
env_files, interpreter_scripts); they are known here. node takes `_` for `-` in a name."""

from __future__ import annotations

import re
from collections.abc import Mapping

from tether.permissions.command_spec import words
from tether.permissions.node_option_words import node_option_readings
from tether.permissions.node_runners import NODE_RUNNERS, node_words
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name, readable

_FLAGS = frozenset(
    words(
        "--abort-on-uncaught-exception --allow-addons --allow-child-process --allow-wasi "
        "--allow-worker --check --completion-bash --enable-fips --force-fips "
        "--enable-source-maps --entry-url --experimental-addon-modules "
        "--experimental-eventsource --experimental-import-meta-resolve "
        "--experimental-print-required-tla --experimental-require-module "
        "--experimental-shadow-realm --experimental-sqlite --experimental-strip-types "
        "--experimental-transform-types --experimental-vm-modules --experimental-wasm-modules "
        "--experimental-webstorage --experimental-test-coverage --experimental-test-module-mocks "
        "--experimental-test-snapshots --experimental-permission --permission "
        "--experimental-detect-module --experimental-websocket --experimental-global-navigator "
        "--experimental-async-context-frame --experimental-report --experimental-json-modules "
        "--experimental-top-level-await --experimental-wasi-unstable-preview1 "
        "--experimental-repl-await --experimental-global-customevent "
        "--experimental-global-webcrypto --experimental-fetch --experimental-worker "
        "--experimental-abortcontroller --experimental-modules --experimental-network-inspection "
        "--experimental-test-isolation --expose-gc "
        "--force-context-aware --force-node-api-uncaught-exceptions-policy --frozen-intrinsics "
        "--insecure-http-parser --interactive --jitless --addons --deprecation --warnings "
        "--extra-info-on-fatal-exception --force-async-hooks-checks --global-search-paths "
        "--network-family-autoselection --node-memory-debug --pending-deprecation "
        "--preserve-symlinks --preserve-symlinks-main --report-compact "
        "--report-exclude-network --report-exclude-env --test --test-only --test-force-exit "
        "--test-update-snapshots --throw-deprecation --tls-max-v1.2 --tls-max-v1.3 "
        "--tls-min-v1.0 --tls-min-v1.1 --tls-min-v1.2 --tls-min-v1.3 --trace-deprecation "
        "--trace-exit --trace-sigint --trace-sync-io --trace-tls --trace-uncaught "
        "--trace-warnings --trace-require-module --trace-atomics-wait --track-heap-objects "
        "--use-bundled-ca --use-openssl-ca --use-system-ca --v8-options --version --help "
        "--watch --watch-preserve-output --zero-fill-buffers --openssl-legacy-provider "
        "--disable-wasm-trap-handler --verify-base-objects "
        "--experimental-sea-config-check --harmony --harmony-shadow-realm "
        "--disallow-code-generation-from-strings --interpreted-frames-native-stack "
        "--huge-max-old-generation-size --expose-internals"
    )
)
"""Flags that write, listen or load nothing; `--no-X` turns one off."""
_VALUED = frozenset(
    words(
        "--title --input-type --conditions --stack-trace-limit --max-http-header-size "
        "--max-old-space-size --max-semi-space-size --stack-size --v8-pool-size "
        "--unhandled-rejections --dns-result-order --disable-warning --disable-proto "
        "--secure-heap --secure-heap-min --tls-cipher-list --use-largepages "
        "--experimental-default-type --inspect-publish-uid --security-revert "
        "--network-family-autoselection-attempt-timeout --report-signal --watch-kill-signal "
        "--test-name-pattern --test-skip-pattern --test-concurrency --test-shard "
        "--test-timeout --test-isolation --test-coverage-include --test-coverage-exclude "
        "--test-coverage-branches --test-coverage-functions --test-coverage-lines "
        "--cpu-prof-interval --heap-prof-interval --trace-event-categories "
        "--allow-fs-read --allow-fs-write --policy-integrity "
        "--watch-path --experimental-specifier-resolution"
    )
)
"""Options whose value is no file written, no address and no code (`--allow-fs-read`
narrows what node may read; `--watch-path` only watches)."""
_READS = frozenset({"--icu-data-dir"})
"""Options whose value is a directory of data it reads."""
_JUDGED_ELSEWHERE = frozenset(
    words(
        "--eval --print --require --import --loader --experimental-loader --env-file "
        "--env-file-if-exists --openssl-config --experimental-config-file --snapshot-blob "
        "--test-reporter --test-global-setup --run"
    )
)
"""Options whose value is code or a file of settings, judged as code loaded (outside_code,
env_files, data_urls, project_scripts)."""
_LOADS_SETTINGS = {
    "--experimental-default-config-file": "node.config.json, which may name code it imports",
    "--openssl-shared-config": "the system OpenSSL configuration, which may load an engine",
    "--experimental-policy": "a policy, which may redirect the modules it loads",
}
"""Options with which node reads settings from a file that may load code: asked."""
_SHORT = {"-e": "--eval", "-p": "--print", "-r": "--require", "-C": "--conditions"}
_SHORT_FLAGS = {"-c": "--check", "-i": "--interactive", "-v": "--version", "-h": "--help"}
_WRITES_FILE = frozenset(
    words(
        "--redirect-warnings --tls-keylog --logfile --localstorage-file "
        "--test-reporter-destination --trace-event-file-pattern"
    )
)
_DIRECTORIES = {
    "--diagnostic-dir": "--diagnostic-dir",
    "--report-dir": "--report-directory",
    "--report-directory": "--report-directory",
    "--cpu-prof-dir": "--cpu-prof-dir",
    "--heap-prof-dir": "--heap-prof-dir",
}
_NAMES: Mapping[str, tuple[str, str]] = {
    "--report-filename": ("--report-directory", "report.json"),
    "--cpu-prof-name": ("--cpu-prof-dir", "CPU.cpuprofile"),
    "--heap-prof-name": ("--heap-prof-dir", "Heap.heapprofile"),
}
"""A file name option, the directory option it is joined to, and the name by default."""
_FLAG_WRITES: Mapping[str, tuple[str, str]] = {
    "--prof": ("", "isolate-v8.log"),
    "--cpu-prof": ("--cpu-prof-dir", "CPU.cpuprofile"),
    "--heap-prof": ("--heap-prof-dir", "Heap.heapprofile"),
    "--report-on-signal": ("--report-directory", "report.json"),
    "--report-uncaught-exception": ("--report-directory", "report.json"),
    "--report-on-fatalerror": ("--report-directory", "report.json"),
    "--heapsnapshot-signal": ("--diagnostic-dir", "Heap.heapsnapshot"),
    "--heapsnapshot-near-heap-limit": ("--diagnostic-dir", "Heap.heapsnapshot"),
    "--trace-events-enabled": ("", "node_trace.1.log"),
    "--build-snapshot": ("", "snapshot.blob"),
}
"""Options with which node writes a file of its own: in the directory an option names, else
in the diagnostic directory (reports, profiles, snapshots), else where it runs."""
_VALUED_WRITES = frozenset({"--heapsnapshot-signal", "--heapsnapshot-near-heap-limit"})
NODE_VALUED_OPTIONS = frozenset(
    _VALUED
    | _JUDGED_ELSEWHERE
    | _WRITES_FILE
    | _VALUED_WRITES
    | _READS
    | {"--inspect-port", "--debug-port", "--experimental-sea-config", "--experimental-policy"}
    | _DIRECTORIES.keys()
    | _NAMES.keys()
)
"""node's options (long names) taking the next word as their value (node 20's `node --help`
lists each as `--name=...`)."""
_LISTENS = frozenset({"--inspect", "--inspect-brk", "--inspect-wait"})
"""A debugger on `[HOST:]PORT`, the value only after `=`."""
_PORTS = frozenset({"--inspect-port", "--debug-port"})
_LOOPBACK = re.compile(r"(127(\.[0-9]+){0,3}|localhost|\[?::1\]?|\[?::ffff:127\.[0-9.]+\]?)")
_NAMES_NODE = re.compile(r"(node|nodejs)[0-9.]*")
_RUNNERS = frozenset({"npm", "pnpm", "yarn", "yarnpkg", "npx", "pnpx"})
"""Package runners whose `--node-options` every node they start takes."""


def node_use(argv: tuple[str, ...]) -> ProgramUse | None:
    """What node's options do beyond loading code, given to node or as a package runner's
    `--node-options` (every node its scripts start takes them); None for another program, or
    when they write, read, listen and ask nothing."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    if _NAMES_NODE.fullmatch(name):
        found = _Found()
        _read_options(argv[1:], found)
    elif name in NODE_RUNNERS:
        found = _Found()
        _read_options(_runner_node_words(name, argv[1:], found), found)
    elif name in _RUNNERS:
        found = _Found()
        for value in _runner_node_options(argv[1:]):
            readings = node_option_readings(value) if is_literal(value) else None
            if readings is None:
                found.asks.append(f"node is given the options {readable(value)}, not read")
            for words in readings or ():
                _read_options((*words, "--"), found, given=True)
    else:
        return None
    if not found.writes and not found.asks and not found.reads:
        return None
    return ProgramUse(
        reads=tuple(found.reads), writes=tuple(found.writes), asks=tuple(found.asks), changes=True
    )


class _Found:
    def __init__(self) -> None:
        self.writes: list[str] = []
        self.reads: list[str] = []
        self.asks: list[str] = []


def _runner_node_options(args: tuple[str, ...]) -> list[str]:
    """The values of `--node-options` among a package runner's words (before `--`)."""
    found: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        if name == "--node-options":
            found.append(value if eq else args[i + 1] if i + 1 < len(args) else "")
    return found


def _read_options(args: tuple[str, ...], found: _Found, *, given: bool = False) -> None:
    """node's options in `args`, up to its script; with `given`, every word is one (the
    value of `--node-options`, where a word not an option is not understood)."""
    values: dict[str, str] = {}
    flags: list[tuple[str, str]] = []  # (option, its value) that write a file of their own
    writes, reads, asks = found.writes, found.reads, found.asks
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--" or arg == "-" or not arg.startswith("-"):
            if given and arg != "--":
                asks.append(f"node is given the option word {readable(arg)}, not understood")
            break
        name, eq, value = _spelled(arg)
        following = args[i + 1] if i + 1 < len(args) else None
        if _takes_value(name) and not eq:
            if following is None:
                break
            value, i = following, i + 1
        i += 1
        if not is_literal(name):
            asks.append(f"node takes an option known only as it runs ({readable(arg)})")
        elif name in _WRITES_FILE:
            if not (name == "--test-reporter-destination" and value in ("stdout", "stderr")):
                writes.append(value)
        elif name in _DIRECTORIES:
            values[_DIRECTORIES[name]] = value
            writes.append(value)
        elif name in _NAMES or name in _FLAG_WRITES:
            if value not in ("stdout", "stderr"):  # `--report-filename=stdout` prints it
                flags.append((name, value))
        elif name in _LISTENS | _PORTS:
            asks += _listening(name, value if eq or name in _PORTS else "")
        elif name in _READS:
            reads.append(value)
        elif name == "--experimental-sea-config":
            asks.append("node --experimental-sea-config writes the blob its configuration names")
        elif name == "--experimental-default-config-file" and not given:
            continue  # the workspace's node.config.json, judged as code there (runtime_files)
        elif name in _LOADS_SETTINGS:
            asks.append(f"node {readable(arg)} reads {_LOADS_SETTINGS[name]}")
        elif name == "--experimental-network-imports":
            asks.append("node --experimental-network-imports imports code over the network")
        elif name in _JUDGED_ELSEWHERE and given:
            asks.append(f"node is given {readable(arg)}, code or settings not read")
        elif name in _VALUED | _JUDGED_ELSEWHERE:
            continue
        elif eq or not _known_flag(name):
            asks.append(f"node option {readable(arg)} is not one tether knows")
    writes += [_own_file(name, value, values) for name, value in flags]


def takes_node_value(arg: str) -> bool:
    """Whether node's option `arg`, as written (`-r`, `--require`), takes the next word."""
    return _takes_value(_spelled(arg)[0])


def _takes_value(name: str) -> bool:
    """Whether node's option `name` (as `_spelled` names it) takes the next word as its value."""
    return name in NODE_VALUED_OPTIONS


def node_takes_value(word: str) -> bool:
    """Whether the word `word` of node's command line (any spelling: `-r`, `--max_x`) takes
    the next word as its value: the one table every reader of node's line asks, so none
    reads a value (`--title x`, `--input-type module`) as the script."""
    name, eq, _value = _spelled(word)
    return not eq and _takes_value(name)


def _runner_node_words(name: str, args: tuple[str, ...], found: _Found) -> tuple[str, ...]:
    """A TypeScript runner's words as the node it starts reads them (node_runners.py); a
    module its own options load (`ts-node --compiler X`) is code not read."""
    read = node_words(name, args, takes_node_value)
    for option, value in read.loads:
        found.asks.append(f"{name} {option} {readable(value)} loads code not read")
    return read.words


def _known_flag(name: str) -> bool:
    return name in _FLAGS or (name.startswith("--no-") and f"--{name[5:]}" in _FLAGS)


def _spelled(arg: str) -> tuple[str, str, str]:
    """(option as node names it, `=` or "", value): `-e` is `--eval`, `--max_old_space_size`
    is `--max-old-space-size`, `-pe` is `--print --eval`."""
    name, eq, value = arg.partition("=")
    if name == "-pe":
        return "--eval", eq, value
    if not name.startswith("--"):
        if name[:2] in _SHORT and len(name) > 2 and not eq:
            return _SHORT[name[:2]], "=", name[2:]  # `-rX`: the value attached
        return _SHORT.get(name) or _SHORT_FLAGS.get(name) or name, eq, value
    return "--" + name[2:].replace("_", "-"), eq, value


def _own_file(name: str, value: str, values: Mapping[str, str]) -> str:
    """The file `name` writes: a name option's value (or a flag's file) in its directory,
    else the diagnostic directory, else where node runs; an absolute name stands alone."""
    directory, default = _NAMES.get(name) or _FLAG_WRITES[name]
    base = value if name in _NAMES else default
    place = values.get(directory) or values.get("--diagnostic-dir") or "."
    return base if base.startswith("/") else f"{place.rstrip('/') or '/'}/{base}"


def _listening(name: str, value: str) -> list[str]:
    """Why a debugger on `value` (`[HOST:]PORT`, `HOST`) is asked: a host not loopback."""
    if not is_literal(value):
        return [f"node {name} listens on an address known only as it runs"]
    host = value
    if value.isdigit() or not value:
        return []
    if value.startswith("["):
        host = value[: value.find("]") + 1] if "]" in value else value
    elif value.count(":") == 1:
        host = value.partition(":")[0]
    if _LOOPBACK.fullmatch(host):
        return []
    where = f"node {name}={readable(value)}"
    return [f"{where} opens a debugger to the network: whoever reaches it runs code"]


def inert_node_options(value: str) -> bool:
    """Whether `NODE_OPTIONS=value` changes nothing about what node runs, loads, writes, reads
    or listens on: every word one of node's options that does none of these, read with the
    same table as node's command line (`--max-old-space-size=4096 --enable-source-maps`)."""
    if not value or not is_literal(value):
        return False
    readings = node_option_readings(value)
    if not readings or any(not words or "--" in words for words in readings):
        return False
    found = _Found()
    for option_words in readings:  # node_option_words: node's splitting, not a shell's
        _read_options((*option_words, "--"), found, given=True)
    return not found.writes and not found.reads and not found.asks
