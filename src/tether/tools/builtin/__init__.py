"""The tools tether ships: shell (and its background commands), files, search, undo and the
plan."""

from __future__ import annotations

from tether.tools.base import Tool
from tether.tools.builtin.background import bash_output, kill_shell
from tether.tools.builtin.bash import bash
from tether.tools.builtin.edit import edit
from tether.tools.builtin.glob import glob
from tether.tools.builtin.grep import grep
from tether.tools.builtin.read import read
from tether.tools.builtin.revert import revert
from tether.tools.builtin.todo import todo_write
from tether.tools.builtin.write import write


def builtin_tools() -> list[Tool]:
    """The built-in tools, in the order the model is offered them."""
    return [bash, bash_output, kill_shell, read, write, edit, glob, grep, revert, todo_write]


__all__ = ["builtin_tools"]
