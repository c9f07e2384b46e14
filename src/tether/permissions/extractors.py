"""Programs that write the paths named inside their input: archives and patches (`patch`,
`unzip`, `cpio -i`, `7z x`, `jar xf`, `ar x`, `python3 -m zipfile -e`...).

Their words name the archive or the patch, not what it holds, and what it holds may be
`.git/hooks/pre-commit`, `.claude/settings.json` or `../../.bashrc`. Such a command writes a
path that may be anywhere (`DYN`, as `tar -x` does): asked like a write of a protected file
(in every mode but bypassPermissions, whatever the rules allow), denied in plan mode, a hard
ask where an Edit deny rule exists. `tar` and `git apply`/`git am` have tables of their own
(program_commands.py, git_tree_writes.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tether.permissions.shell_words import DYN, program_name

Test = Callable[[tuple[str, ...]], bool]


def _unless(*flags: str) -> Test:
    """Extracts unless a word is one of `flags`, or a short bundle holds one of its letters
    (`unzip -lv`: lists)."""
    letters = {f[1] for f in flags if len(f) == 2 and f[0] == "-"}

    def test(words: tuple[str, ...]) -> bool:
        for word in words:
            if word in flags:
                return False
            if word[:1] == "-" and word[1:2] != "-" and letters & set(word[1:]):
                return False
        return True

    return test


def _flag(*flags: str) -> Test:
    """Extracts when a word is one of `flags` (long ones also with `=`), or a short bundle
    holds one of the short flags' letters (`cpio -idv`)."""
    letters = {f[1] for f in flags if len(f) == 2 and f[0] == "-"}

    def test(words: tuple[str, ...]) -> bool:
        for word in words:
            if word == "--":
                return False
            if word.split("=", 1)[0] in flags:
                return True
            if word[:1] == "-" and word[1:2] != "-" and letters & set(word[1:]):
                return True
        return False

    return test


def _command(*letters: str, dash: bool = False) -> Test:
    """Extracts when the first word is a command letter (`7z x`, `unrar e`) or, with `dash`, a
    bundle of letters holding one, with or without a dash (`jar xf`, `ar -xv`)."""

    def test(words: tuple[str, ...]) -> bool:
        first = next((w for w in words if not (w.startswith("-") and not dash)), "")
        if not dash:
            return first in letters
        return any(letter in first.lstrip("-") for letter in letters) and not first.startswith("--")

    return test


def _jar(words: tuple[str, ...]) -> bool:
    return _command("x", dash=True)(words) or any(w == "--extract" for w in words)


EXTRACTORS: Mapping[str, Test] = {
    "patch": _unless("--dry-run", "--version", "--help", "-v"),
    "unzip": _unless("-l", "-t", "-v", "-z", "-Z", "-p", "-c", "--help"),
    "cabextract": _unless("-l", "-t", "--list", "--test", "-p", "--pipe"),
    "unsquashfs": _unless("-l", "-ls", "-lls", "-s", "-stat", "-cat"),
    "uudecode": _unless("--help", "--version"),
    "unar": _unless("--help", "-h"),
    **dict.fromkeys(("cpio", "bsdcpio"), _flag("-i", "-p", "--extract", "--pass-through")),
    "pax": _flag("-r"),
    **dict.fromkeys(("7z", "7za", "7zr", "7zz"), _command("x", "e")),
    **dict.fromkeys(("unrar", "rar", "lha", "lhasa", "arj"), _command("x", "e")),
    "ar": _command("x", dash=True),
    "jar": _jar,
    "dpkg-deb": _flag("-x", "-X", "-R", "--extract", "--vextract", "--raw-extract"),
}
"""Per program, whether its words make it write what its input names."""

_PYTHON_MODULES: Mapping[str, Test] = {
    "zipfile": _flag("-e", "--extract"),
    "tarfile": _flag("-e", "--extract"),
}
"""`python -m zipfile -e ARCHIVE DIR`, `python -m tarfile -e ARCHIVE`."""


def extraction_writes(argv: tuple[str, ...]) -> tuple[str, ...]:
    """`(DYN,)` when the command writes paths named inside its input, else `()`."""
    if not argv:
        return ()
    name, words = program_name(argv[0]), argv[1:]
    test = EXTRACTORS.get(name)
    if name.startswith(("python", "pypy")):
        at = _module_at(words)
        test = None if at is None else _PYTHON_MODULES.get(words[at + 1])
        words = () if at is None else words[at + 2 :]
    return (DYN,) if test is not None and test(words) else ()


def _module_at(words: tuple[str, ...]) -> int | None:
    """Where `-m MODULE` stands among the interpreter's own options (`python3 -I -m x`)."""
    for i, word in enumerate(words[:-1]):
        if word == "-m":
            return i
        if not word.startswith("-") or word == "-c":
            return None
    return None
