"""The literal parts of inline Python's syntax python_code.py reads: strings, argument
vectors, `open` modes, whether any path is written."""

from __future__ import annotations

import ast

from tether.permissions.python_tables import (
    PATH_TARGET_METHODS,
    PATH_WRITE_METHODS,
    RISKY_PREFIXES,
)


def is_internal(name: str) -> bool:
    return name.startswith(RISKY_PREFIXES) and not name.startswith("sys.path.")


def text_of(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def words_of(node: ast.AST) -> list[str | None] | None:
    if isinstance(node, ast.List | ast.Tuple):
        return [text_of(e) for e in node.elts]
    literal = text_of(node)
    return [literal] if literal is not None else None


def may_write(node: ast.Call) -> bool:
    """Whether `open(...)` may write: a mode that is not a literal without `w`, `a`, `x`, `+`."""
    mode = node.args[1] if len(node.args) > 1 else None
    for keyword in node.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
        elif keyword.arg is None:
            return True
    if mode is None:
        return False
    text = text_of(mode)
    return text is None or any(c in text for c in "wax+")


def writes_paths(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in PATH_WRITE_METHODS:
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "open"
            and may_write(node)
        ):
            return True
    return False


def symlink_target(args: list[ast.expr], positions: tuple[int, int]) -> str | None:
    """`os.symlink(TARGET, NAME)`: the target, written through the link once made, as a
    path from where the command runs; None when either is not a literal."""
    target, name = (text_of(args[p]) if p < len(args) else None for p in positions)
    return None if target is None or name is None else _from_directory_of(name, target)


def method_target(path: list[ast.expr], method: str, args: list[ast.expr]) -> str | None:
    """`Path(A).rename(B)`, `.replace(B)`, `.symlink_to(B)`, `.hardlink_to(B)`: B, written
    (through the link, for a link); None when a part is not a literal."""
    text = text_of(args[0]) if args else None
    parts = [text_of(a) for a in path]
    if text is None or any(p is None for p in parts):
        return None
    if not PATH_TARGET_METHODS[method]:
        return text
    return _from_directory_of("/".join(p for p in parts if p is not None), text)


def _from_directory_of(name: str, target: str) -> str:
    """A link's target from where the command runs: an absolute or `~` one as written, a
    relative one from the link's own directory (the kernel's reading)."""
    if target.startswith(("/", "~")):
        return target
    directory = name.rpartition("/")[0]
    return f"{directory}/{target}" if directory else target


def argv_words(name: str, args: list[ast.expr]) -> list[str | None] | None:
    """The argument vector a function that runs a program gets (`subprocess.run([...])`,
    `os.execl(PATH, ARG0, ...)`, `os.spawnv(MODE, PATH, [...])`): for `os` functions the
    program is the file named first, whatever argv[0] says. None when not a literal list."""
    args = args[1:] if name.startswith("os.spawn") else args
    if not name.startswith("os."):
        return words_of(args[0]) if args else None
    if name.startswith(("os.execl", "os.spawnl")):
        listed: list[str | None] | None = [text_of(a) for a in args[1:]]
    else:
        listed = words_of(args[1]) if len(args) > 1 else None
    return None if not args or listed is None else [text_of(args[0]), *listed[1:]]
