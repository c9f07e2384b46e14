"""Where cargo and go take code from besides the workspace, beyond the package paths their
build options name (`toolchains.py`): a git repository or a package index given as a local
URL or path (`cargo install --git file:///x`, `--index file:///x`: the crate's build script
runs as it builds), a script nightly cargo runs (`-Zscript FILE`), rustc's and rustdoc's
options that run or load other programs (`-- --test-builder X`, `-Z llvm-plugins=X`,
`--extern name=LIB` a procedural macro), and the modules `go work edit -use`/`-replace` and
`go mod edit -replace` point the build at. Places outside the workspace are asked
(`ProgramUse.loads`); programs named are judged as commands (`ProgramUse.runs`)."""

from __future__ import annotations

from dataclasses import dataclass

from tether.permissions.file_urls import local_url_path
from tether.permissions.option_names import OptionGrammar, option_pairs
from tether.permissions.shell_words import is_literal

_LOCAL_SCHEMES = ("file:", "sparse+file:", "registry+file:", "git+file:")
_SOURCE_OPTIONS = frozenset({"--git", "--index", "--registry"})
"""`cargo install|add|search|publish` options naming where crates come from."""
_RUSTC_RUNS = frozenset(
    {"--test-builder", "--test-builder-wrapper", "--test-runtool", "--runtool", "--linker"}
)
"""rustc/rustdoc options naming a program they run."""
_RUSTC_LOADS = frozenset({"--extern", "-L", "--sysroot", "--extern-location", "--codegen-backend"})
"""rustc/rustdoc options naming code they load (a procedural macro runs as it compiles)."""


_CARGO_OPTIONS = OptionGrammar((*sorted(_SOURCE_OPTIONS), "-Z"), stops=False)
_RUSTC_OPTIONS = OptionGrammar((*sorted(_RUSTC_RUNS | _RUSTC_LOADS), "-Z"), stops=False)

_HARMLESS_UNSTABLE = frozenset({"unstable-options", "build-std", "build-std-features", "timings"})
"""Unstable options that load nothing but the toolchain's own code (`cargo test -- -Z
unstable-options --format json`)."""


def _named(setting: str, name: str) -> bool:
    return setting.partition("=")[0].replace("_", "-") == name


def _unstable(setting: str) -> bool:
    """Whether a `-Z` setting may load code: any but the harmless ones."""
    return not any(_named(setting, name) for name in _HARMLESS_UNSTABLE)


@dataclass(frozen=True)
class Sources:
    loads: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    unseen: tuple[str, ...] = ()


def _local(url: str) -> str | None:
    """The path a local source names (`file:///x` -> `/x`, a plain path); None for a remote
    one; the word itself when it is known only as it runs."""
    if not is_literal(url):
        return url
    for scheme in _LOCAL_SCHEMES:
        if url.startswith(scheme):
            return local_url_path(url)
    if "://" in url or url.startswith("git@") or ":" in url.partition("/")[0]:
        return None
    return url if url.startswith((".", "/", "~")) else None


def cargo_sources(head: tuple[str, ...], tail: tuple[str, ...]) -> Sources:
    """`head`: cargo's words before `--`; `tail`: those it passes to rustc, rustdoc or the
    test binary after it."""
    loads: list[str] = []
    runs: list[str] = []
    unseen: list[str] = []
    for option, value in option_pairs(head, _CARGO_OPTIONS):
        if option in _SOURCE_OPTIONS and option != "--registry":
            path = _local(value)
            loads += [path] if path else []
        elif option == "--registry" and ("install" in head or not is_literal(value)):
            unseen.append("cargo installs from a registry whose index the configuration names")
        elif option == "-Z" and _unstable(value):
            setting = value
            unseen.append(f"cargo's unstable option -Z {setting} may load code (script, plugins)")
    for word in head:
        if word.startswith("+") and ("/" in word or not is_literal(word)):
            loads.append(word[1:])  # a toolchain given as a directory
    if any(w == "-Z" or w.startswith("-Z") for w in head):
        # `-Zscript FILE`: the script is the package cargo builds and runs.
        loads += [w for w in head if w.endswith(".rs") and not w.startswith("-")]
    for option, value in option_pairs(tail, _RUSTC_OPTIONS):
        if option in _RUSTC_RUNS and value:
            runs.append(value)
        elif option in _RUSTC_LOADS and value:
            loads.append(value.partition("=")[2] if option == "--extern" else value)
        elif option == "-Z" and _unstable(value) and not _named(value, "codegen-backend"):
            unseen.append(f"cargo passes rustc -Z {value}, an unstable option that may load code")
    return Sources(tuple(w for w in loads if w), tuple(runs), tuple(dict.fromkeys(unseen)))


_GO_USE = ("-use", "-replace", "-dropuse")


def go_sources(words: tuple[str, ...]) -> tuple[str, ...]:
    """`go work edit -use=DIR`, `-replace=OLD=NEW` and `go mod edit -replace OLD=NEW` in
    either spelling (the value attached or the next word): the directories the build then
    takes code from, when they are paths; `go tool PATH`, a program by path."""
    if words[:1] == ("tool",) and len(words) > 1:
        # `go tool NAME` runs a tool of the toolchain or the module; a path is a program.
        name = words[1]
        return (name,) if "/" in name or not is_literal(name) else ()
    if words[:2] not in (("work", "edit"), ("mod", "edit")):
        return ()
    found: list[str] = []
    for i, word in enumerate(words[2:], start=2):
        option, eq, value = word.lstrip("-").partition("=")
        if not word.startswith("-") or f"-{option}" not in _GO_USE or option == "dropuse":
            continue
        value = value if eq else words[i + 1] if i + 1 < len(words) else ""
        target = value.partition("=")[2] if option == "replace" else value
        target = target.rpartition("@")[0] if "@" in target and "/" not in target else target
        if target.startswith((".", "/", "~")) or not is_literal(target):
            found.append(target)
    return tuple(found)
