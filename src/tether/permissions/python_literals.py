"""The literal parts of inline Python's syntax python_code.py reads: strings, argument
vectors, `open` modes, whether any path is written."""

from __future__ import annotations

import ast

from tether.permissions.python_tables import PATH_WRITE_METHODS, RISKY_PREFIXES


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
