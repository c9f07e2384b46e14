"""A real SDK server over stdio whose tools ask the client, through the SDK's resolvers
(standalone requests on older protocols, input-required rounds on 2026-07-28): a form for
the user (elicitation), a completion from its model (sampling), and its roots."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.types import (
    CreateMessageResult,
    ListRootsResult,
    NotificationParams,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel

server = MCPServer("asking", log_level="WARNING")
told = {"roots changed": 0}


async def on_roots_changed(context: object, params: object) -> None:
    told["roots changed"] += 1


server._lowlevel_server.add_notification_handler(  # the SDK has no public hook for it
    "notifications/roots/list_changed", NotificationParams, on_roots_changed
)


class Colour(BaseModel):
    colour: str


def ask_colour() -> Elicit[Colour]:
    return Elicit("What is your favourite colour?", Colour)


def ask_summary(text: str) -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=text))
    return Sample([message], max_tokens=50, system_prompt="Summarise in three words.")


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
async def favourite(answer: Annotated[Colour, Resolve(ask_colour)]) -> str:
    """Asks the user for their favourite colour."""
    return f"colour={answer.colour}"


@server.tool()
async def summarise(text: str, result: Annotated[CreateMessageResult, Resolve(ask_summary)]) -> str:
    """Has the client's model summarise `text`."""
    said = result.content.text if isinstance(result.content, TextContent) else "?"
    return f"summary={said} model={result.model}"


@server.tool()
async def roots(listed: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """The client's roots, and how often it said they changed."""
    uris = " ".join(str(root.uri) for root in listed.roots)
    return f"{uris} changed={told['roots changed']}"


if __name__ == "__main__":
    server.run("stdio")
