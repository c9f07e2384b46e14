"""MCP's JSON-RPC as plain JSON, for the client tether speaks itself (`client_channel`): its
errors, and the shapes of the answers it reads, checked field by field, without the MCP SDK
(whose types take most of a second to import)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

CONNECTION_CLOSED = -32000
"""The JSON-RPC error code of a connection that closed (as the MCP SDK uses it)."""
INTERNAL_ERROR = -32603


class RpcError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class Malformed(Exception):
    """An answer whose shape is not what MCP says: where in it, and what is wrong."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where or 'the result'}: {problem}")
        self.where = where
        self.problem = problem


def rpc_error(error: object) -> RpcError:
    """The exception for a JSON-RPC `error` member."""
    if isinstance(error, dict):
        fields = cast(dict[str, Any], error)
        code, message = fields.get("code"), fields.get("message")
        if isinstance(code, int) and isinstance(message, str):
            return RpcError(code, message, fields.get("data"))
    raise Malformed("error", "Input should be an object with a code and a message")


def obj(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Malformed(where, "Input should be a valid dictionary")
    return cast(dict[str, Any], value)


def items(value: object, where: str) -> list[dict[str, Any]]:
    """A list of objects."""
    if not isinstance(value, list):
        raise Malformed(where, "Input should be a valid list")
    return [obj(item, f"{where}.{i}") for i, item in enumerate(cast(list[object], value))]


def string(fields: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = fields.get(key)
    if value is None:
        if required:
            raise Malformed(_at(where, key), "Field required")
        return None
    if not isinstance(value, str):
        raise Malformed(_at(where, key), "Input should be a valid string")
    return value


def content_block(block: dict[str, Any], where: str) -> dict[str, Any]:
    """One content block, its fields as its type needs them."""
    kind = string(block, "type", where)
    match kind:
        case "text":
            string(block, "text", where)
        case "image" | "audio":
            string(block, "data", where)
            string(block, "mimeType", where)
        case "resource":
            resource_contents(
                obj(block.get("resource"), _at(where, "resource")), _at(where, "resource")
            )
        case "resource_link":
            string(block, "uri", where)
            string(block, "name", where)
        case _:
            raise Malformed(
                _at(where, "type"),
                "Input tag should be 'text', 'image', 'audio', 'resource_link' or 'resource'",
            )
    return block


def resource_contents(contents: dict[str, Any], where: str) -> dict[str, Any]:
    string(contents, "uri", where)
    if "text" in contents:
        string(contents, "text", where)
    else:
        string(contents, "blob", where)
    string(contents, "mimeType", where, required=False)
    return contents


def call_result(raw: object) -> dict[str, Any]:
    """A `tools/call` result, checked: its content blocks, `isError`, `structuredContent`."""
    result = obj(raw, "")
    for i, block in enumerate(items(result.get("content"), "content")):
        content_block(block, f"content.{i}")
    if result.get("isError") is not None and not isinstance(result.get("isError"), bool):
        raise Malformed("isError", "Input should be a valid boolean")
    structured = result.get("structuredContent")
    if structured is not None and not isinstance(structured, dict):
        raise Malformed("structuredContent", "Input should be a valid dictionary")
    return result


def prompt_result(raw: object) -> dict[str, Any]:
    """A `prompts/get` result: its messages, each a role and one content block."""
    result = obj(raw, "")
    for i, message in enumerate(items(result.get("messages"), "messages")):
        where = f"messages.{i}"
        if message.get("role") not in ("user", "assistant"):
            raise Malformed(_at(where, "role"), "Input should be 'user' or 'assistant'")
        content_block(obj(message.get("content"), _at(where, "content")), _at(where, "content"))
    return result


def read_result(raw: object) -> list[dict[str, Any]]:
    """A `resources/read` result's contents."""
    contents = items(obj(raw, "").get("contents"), "contents")
    return [resource_contents(item, f"contents.{i}") for i, item in enumerate(contents)]


def _at(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key
