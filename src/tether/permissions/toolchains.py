"""Programs tether has no table for whose options run a program or load code: compilers
(under any cross or versioned name), crypto and key tools, build runners.

`gcc -wrapper /bin/sh,-c,CMD x.c` runs CMD (the driver starts each of its programs through
the wrapper); `-fplugin=x.so`, clang's `-fpass-plugin=`, `-Xclang -load`, and a linker's
`-plugin` load a shared object into the compiler; `-B DIR`, `--ld-path=`, a `-fuse-ld=`
path pick the programs it runs; `-specs=` files can run programs of their own. `openssl
-engine`, `-provider`, `engine -pre SO_PATH:x.so` load modules (a `-config` naming engines
may too: left to the sandbox, since it is how certificate requests are written);
`ssh-keygen -D`/`-w`, `ssh-add -s`/`-S` load PKCS#11 or FIDO libraries; `ninja -f` runs the
rules of a build file given (code from anywhere); `run-parts DIR` runs what DIR holds. A
wrapper is a command of its own (judged as one, a deny rule on it denies); the rest is code
the engine cannot see.
"""

from __future__ import annotations

from tether.permissions.command_spec import words as _names
from tether.permissions.escapes import (
    GDBS,
    TRACERS,
    gdb_use,
    lldb_use,
    option_files,
    tracer_use,
)
from tether.permissions.fetched_sources import cargo_sources, go_sources
from tether.permissions.go_generate import go_global
from tether.permissions.program_use import ProgramUse
from tether.permissions.response_files import response_unseen
from tether.permissions.shell_words import DYN, is_literal, program_name

COMPILERS = frozenset(
    _names(
        "gcc g++ cc c++ cpp gfortran gccgo gdc gm2 gnat clang clang++ clang-cl clang-cpp "
        "tcc icc icx icpx nvcc emcc em++ zig"
    )
)
"""Compiler drivers, also under cross and versioned names (`x86_64-linux-gnu-gcc-12`,
`clang-17`, `aarch64-linux-gnu-g++`)."""

_COMPILER_UNSEEN = (
    ("-fplugin", "loads a compiler plugin"),
    ("-fpass-plugin", "loads a compiler plugin"),
    ("-B", "runs its programs from a directory it is given"),
    ("--prefix", "runs its programs from a directory it is given"),
    ("-specs", "reads spec files, which can run programs"),
    ("--specs", "reads spec files, which can run programs"),
    ("--ld-path", "runs the linker it is given"),
    ("-fuse-ld=/", "runs the linker it is given"),
)
_LINKER_PLUGIN = ("-plugin", "--plugin", "-load", "-add-plugin")

PROGRAM_UNSEEN: dict[str, tuple[tuple[str, str], ...]] = {
    "openssl": (
        ("-engine", "loads an engine"),
        ("-keyengine", "loads an engine"),
        ("-ssl_client_engine", "loads an engine"),
        ("-pre", "loads an engine"),
        ("-post", "loads an engine"),
        ("-provider", "loads a provider"),
    ),
    "ssh-keygen": (("-D", "loads a PKCS#11 library"), ("-w", "loads a FIDO middleware library")),
    "ssh-add": (("-s", "loads a PKCS#11 library"), ("-S", "loads a FIDO middleware library")),
    "ninja": (("-f", "runs the rules of the build file it is given"),),
    "run-parts": (("", "runs every program in the directory it is given"),),
    # Any `--config` (`KEY=VALUE` in any TOML spelling, or a file) may set a runner, a
    # linker or a rustc wrapper: `build.rustc-wrapper="x"`, `target.'cfg(all())'.runner`.
    "cargo": (("--config", "takes settings that may name programs it runs"),),
    "go": (
        ("-toolexec", "runs its tools through the program it is given"),
        ("--toolexec", "runs its tools through the program it is given"),
        ("-exec", "runs the binaries through the program it is given"),
        ("--exec", "runs the binaries through the program it is given"),
        ("-vettool", "runs the vet tool it is given"),
        ("--vettool", "runs the vet tool it is given"),
        ("-gccgoflags", "passes gccgo options, which may name programs it runs (-wrapper)"),
        ("--gccgoflags", "passes gccgo options, which may name programs it runs (-wrapper)"),
    ),
}
"""Options (a word starting so: `-engine`, `-Dlib.so`) with which a program loads or runs
code; `""`: any use of the program, but `--test`, `--list` (run-parts only lists then)."""

_ONLY_LISTS = frozenset({"--test", "--list", "--help", "--version"})

BINUTILS_PLUGIN: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_names("nm ar ranlib objdump gcc-nm gcc-ar gcc-ranlib"), ("--plugin",)),
    **dict.fromkeys(_names("ld ld.bfd ld.gold"), _LINKER_PLUGIN),
}
"""binutils that load a shared object given with these options (a plugin's constructor runs
in them), also under cross and versioned names (`x86_64-linux-gnu-ld.gold`, `llvm-nm`)."""

_CODE_IN_RESPONSES = "reads arguments from a response file (@FILE), which may load code"


def is_compiler(name: str) -> bool:
    """A compiler driver under its name, a versioned one or a cross one."""
    bare = name.rstrip("0123456789.").removesuffix("-") or name
    return name in COMPILERS or bare in COMPILERS or bare.rpartition("-")[2] in COMPILERS


def toolchain_use(argv: tuple[str, ...]) -> ProgramUse | None:
    """The commands such a program runs, the files it reads from lists, and why it runs code
    not seen (escapes.py too); None for others."""
    name = program_name(argv[0]) if argv else ""
    words = argv[1:]
    if name in GDBS:
        return gdb_use(words)
    if name in TRACERS:
        return tracer_use(words)
    if name == "lldb":
        return lldb_use(words)
    lists, configs = option_files(name, words)
    if lists or configs:
        return ProgramUse(
            reads=(*(f for f in lists if f), DYN)[: len(lists) + 1] if lists else (),
            unseen=tuple(configs),
        )
    responses = _responses(name, words)
    if is_compiler(name):
        use = _compiler(words)
        return ProgramUse(runs=use.runs, unseen=(*use.unseen, *responses))
    plugin = _binutils_plugin(name)
    if plugin:
        loads = any(_given((w,), option) for w in words for option in plugin)
        found = (f"{name} loads a plugin",) if loads else ()
        return ProgramUse(unseen=(*found, *responses))
    if name == "cargo":
        cargo = cargo_use(words)
        if cargo.runs or cargo.loads or cargo.unseen:
            return cargo

    table = PROGRAM_UNSEEN.get(name)
    if table is None:
        return ProgramUse(unseen=responses) if responses else None
    if any(option == "" for option, _ in table):
        reasons = [] if _ONLY_LISTS & set(words) else [f"{name} {table[0][1]}"]
    else:
        reasons = [f"{name} {why}" for option, why in table if _given(words, option)]
        if name == "go" and _external_linker(words):
            reasons.append("go runs the external linker its -ldflags name (-extld)")
    loads = go_loads(words) if name == "go" else ()
    return ProgramUse(unseen=tuple(dict.fromkeys(reasons)), loads=loads)


def _external_linker(words: tuple[str, ...]) -> bool:
    """`go build -ldflags=all=-extld=x`, `-ldflags '-extld x'`: the linker go runs."""
    for i, word in enumerate(words):
        if word.lstrip("-").startswith("ldflags"):
            value = word if "=" in word else words[i + 1] if i + 1 < len(words) else ""
            if "extld" in value:
                return True
    return False


def _binutils_plugin(name: str) -> tuple[str, ...]:
    bare = name.rstrip("0123456789.").removesuffix("-") or name
    for candidate in (name, bare, bare.rpartition("-")[2], bare.removeprefix("llvm-")):
        if candidate in BINUTILS_PLUGIN:
            return BINUTILS_PLUGIN[candidate]
    return ()


def _responses(name: str, words: tuple[str, ...]) -> tuple[str, ...]:
    """Why a response file may hide code-loading options: the program's own `@FILE`
    (response_files' `response_unseen`, one table for every program that reads one: judged
    here too for the options make's variables give, `CFLAGS=@FILE`), and a compiler's passed
    to its linker, assembler or preprocessor (`-Wl,@FILE`, `-Xlinker @FILE`)."""
    own = response_unseen((name, *words))
    passed = is_compiler(name) and any(
        (w.startswith(("-Wl,", "-Wa,", "-Wp,")) and any(p.startswith("@") for p in w.split(",")))
        or (w in _PASSING and i + 1 < len(words) and words[i + 1].startswith("@"))
        for i, w in enumerate(words)
    )
    if own is not None:
        return (own,)
    return (f"{name} {_CODE_IN_RESPONSES}",) if passed else ()


_PASSING = frozenset({"-Xlinker", "-Xassembler", "-Xpreprocessor"})


def _compiler(words: tuple[str, ...]) -> ProgramUse:
    runs: list[str] = []
    unseen: list[str] = []
    for i, word in enumerate(words):
        if word in ("-wrapper", "--wrapper") and i + 1 < len(words):
            # `-wrapper PROG,ARG,...`: each program the driver starts runs through it.
            runs.append(" ".join(_quoted(part) for part in words[i + 1].split(",")))
        for option, why in _COMPILER_UNSEEN:
            if _given((word,), option):
                unseen.append(f"the compiler {why}")
        if _linker_plugin(words, i):
            unseen.append("the compiler loads a plugin into its linker or front end")
    return ProgramUse(runs=tuple(runs), unseen=tuple(dict.fromkeys(unseen)))


def _linker_plugin(words: tuple[str, ...], i: int) -> bool:
    """`-Wl,-plugin,x.so`, `-Wl,--plugin=x.so`, `-Xlinker -plugin`, `-Xclang -load`."""
    word = words[i]
    if word.startswith("-Wl,"):
        return any(part.split("=")[0] in _LINKER_PLUGIN for part in word[4:].split(","))
    if word in ("-Xlinker", "-Xclang") and i + 1 < len(words):
        return words[i + 1].split("=")[0] in _LINKER_PLUGIN
    return False


def _given(words: tuple[str, ...], option: str) -> bool:
    """The option in one of `words`: as a word, with `=VALUE` or its value attached; an
    option ending `=/` only with a path (`-fuse-ld=./ld`, not `-fuse-ld=lld`)."""
    if option.endswith("=/"):
        return any(w.startswith(option[:-1]) and "/" in w for w in words)
    return any(w.startswith(option) for w in words)


def _quoted(part: str) -> str:
    return "'" + part.replace("'", "'\\''") + "'"


_CARGO_PLACES = frozenset({"--manifest-path", "-C", "--path"})
"""cargo options naming the package it builds (`--manifest-path`, `-C DIR`, `install
--path`): its build script and procedural macros run as it builds."""
_RUSTC_UNSEEN = (
    ("link-arg", "passes linker options, which may name programs it runs (-fuse-ld, -B)"),
    ("link-args", "passes linker options, which may name programs it runs (-fuse-ld, -B)"),
    ("codegen-backend", "loads a code generator backend"),
    ("llvm-args", "passes options to LLVM, which may load plugins"),
    ("passes", "runs LLVM passes, which may be plugins"),
    ("linker-plugin-lto", "loads a linker plugin"),
)


def cargo_use(words: tuple[str, ...]) -> ProgramUse:
    """What `cargo` runs besides the workspace's code: the package another option names
    (its build script: asked outside the workspace, `loads`), and the rustc options of
    `cargo rustc`/`rustdoc ... -- ARGS` (and in `RUSTFLAGS`-like places the engine sees as
    words): `-C linker=PROG` runs PROG (a command of its own), `link-arg(s)`,
    `codegen-backend`, `-Z` options and `@FILE` are code not seen."""
    loads: list[str] = []
    runs: list[str] = []
    unseen: list[str] = []
    tail = words[words.index("--") + 1 :] if "--" in words else ()
    head = words[: len(words) - len(tail) - (1 if tail else 0)]
    for i, word in enumerate(head):
        key, eq, value = word.partition("=")
        if key in _CARGO_PLACES:
            value = value if eq else head[i + 1] if i + 1 < len(head) else ""
            if value:
                loads.append(value.removesuffix("Cargo.toml").rstrip("/") or ".")
        elif word.startswith("-C") and len(word) > 2 and not word.startswith("--"):
            loads.append(word[2:])
    for i, word in enumerate(tail):
        setting = ""
        if word in ("-C", "--codegen", "-Z") and i + 1 < len(tail):
            setting = tail[i + 1]
            kind = word
        elif word.startswith(("--codegen=", "-C", "-Z")):
            kind = "-Z" if word.startswith("-Z") else "-C"
            setting = word.partition("=")[2] if word.startswith("--") else word[2:]
        elif word.startswith("@"):
            unseen.append("cargo passes rustc a response file (@FILE), which may load code")
            continue
        else:
            continue
        key, _, value = setting.partition("=")
        if kind == "-Z" and key.replace("_", "-") in ("codegen-backend", "codegen_backend"):
            unseen.append("cargo's rustc loads a code generator backend (-Z codegen-backend)")
        elif key.replace("_", "-") == "linker" and value:
            runs.append(value)
        elif any(key.replace("_", "-") == name for name, _ in _RUSTC_UNSEEN):
            why = next(why for name, why in _RUSTC_UNSEEN if key.replace("_", "-") == name)
            unseen.append(f"cargo's rustc {why}")
        elif not is_literal(setting):
            unseen.append("cargo passes rustc a codegen option known only as it runs")
    more = cargo_sources(head, tail)
    return ProgramUse(
        loads=(*loads, *more.loads),
        runs=(*runs, *more.runs),
        unseen=tuple(dict.fromkeys((*unseen, *more.unseen))),
    )


_GO_BUILDS = frozenset({"build", "run", "test", "install", "vet", "generate", "list", "get"})
_GO_PLACES = ("-C", "-overlay", "-modfile", "-pgo")
"""go options naming where code or the module's description comes from (`-C DIR` first
changes to DIR; `-overlay` maps source files to others; `-modfile` an alternate go.mod;
`-pgo` a profile, read only: listed for its path)."""


def go_loads(words: tuple[str, ...]) -> tuple[str, ...]:
    """Where `go` takes code from besides the workspace's module: the directory `-C` names,
    `-overlay`/`-modfile` files, a `.go` file or a path named as the package to build or
    run (`go run /x/main.go`, `go build ../x`), the modules `go work init|use` adds and `go
    mod edit -replace` points to: asked outside the workspace (ProgramUse.loads)."""
    loads: list[str] = list(go_global(words)[0])
    words = go_global(words)[1]  # `go -C DIR build ../x`: the subcommand after DIR
    command = words[0] if words else ""
    for i, word in enumerate(words):
        option = word.lstrip("-")
        for place in _GO_PLACES:
            key = place.lstrip("-")
            if word.startswith("-") and option == key and i + 1 < len(words):
                loads.append(words[i + 1])
            elif word.startswith("-") and option.startswith(key + "="):
                loads.append(option[len(key) + 1 :])
        if word.startswith("-replace") or word.startswith("--replace"):
            target = word.partition("=")[2].partition("=")[2]
            if target.startswith((".", "/", "~")) or not is_literal(target):
                loads.append(target)
    positionals = [w for w in words[1:] if not w.startswith("-")]
    if command in _GO_BUILDS or (command == "work" and positionals[:1] in (["init"], ["use"])):
        for word in positionals[1:] if command == "work" else positionals:
            if word.endswith(".go") or word.startswith((".", "/", "~")) or not is_literal(word):
                loads.append(word)
    loads += go_sources(words)
    return tuple(dict.fromkeys(w for w in loads if w))
