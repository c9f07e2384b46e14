"""`AnyArguments`: the input model of a tool whose schema the tool checks itself (an MCP
server's tool, a client's, a built-in tool described ahead of its code). Imported at the first
call of such a tool (`tether.tools.base.ANY_ARGUMENTS` names it), not with every start."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class AnyArguments(BaseModel):
    """The input model of a tool whose schema is checked by the tool itself (`Tool.schema`):
    the arguments are in `model_extra`. Built at its first use: every session defines tools
    over it, few call one before their first request."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    def arguments(self) -> dict[str, Any]:
        return dict(self.model_extra or {})
