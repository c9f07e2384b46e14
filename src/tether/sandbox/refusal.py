"""The refusal of a command whose boundary could not be made whole: a search the sandbox
depends on (the files the `Read` deny rules name, their hard links, the git sweep's walk) was
cut by its bounds. Running the command anyway would expose what the search did not reach, so
the command is not run (fail closed); the model is told which bound cut which search, where,
and the ways out.
"""

from __future__ import annotations

from tether.protocol import ToolError

WAYS_OUT = (
    "Run it again: what was searched is kept while unchanged, so the search goes on from "
    "there. If it stops again, the tree there is too large or changes at every command (build "
    "output): remove or move that directory out of the writable places (the workspace, "
    "sandbox.writable, --add-dir), or narrow the Read deny rules (a path rather than a name "
    "matched anywhere)."
)


class SearchCut(ToolError):
    """A command not run because a search of the boundary was cut (the message says which)."""

    def __init__(self, cut: str) -> None:
        super().__init__(f"The sandbox did not run this command. {cut.rstrip('.')}. {WAYS_OUT}")
        self.cut = cut
