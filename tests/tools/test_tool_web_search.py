"""WebSearch over the wire: on the Anthropic provider, one request to the session's model
offering only the `web_search` server tool, its results given back as Claude Code gives them;
on another provider the tool is not offered and naming it is told. A tool named in `--tools` or
`--allowedTools` that the session does not have is one warning on stderr, never silent."""

from __future__ import annotations

import json
from collections.abc import Callable

from tether.testing import FakeModelServer, reply, text, tool_use, web_search
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

SEARCH_REPLY = reply(
    web_search(
        "tether 2.0 release",
        ("Tether 2.0 released", "https://example.com/t2"),
        ("Changelog", "https://example.com/changes"),
    ),
    text("Tether 2.0 came out in May."),
)


def test_a_search_runs_through_the_models_server_tool(
    tether: Run, model_env: FakeModelServer
) -> None:
    model_env.script(
        tool_use("WebSearch", query="tether 2.0 release", allowed_domains=["example.com"]),
        SEARCH_REPLY,
        text("It came out in May."),
    )
    done = tether(
        "-p", "when did tether 2.0 come out?", "--output-format", "stream-json", "--verbose"
    )
    assert done.exit_code == 0, done.stderr
    search = model_env.requests[1].body
    assert search["tools"] == [
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": 8,
            "allowed_domains": ["example.com"],
        }
    ]
    assert search["messages"] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "Perform a web search for the query: tether 2.0 release",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        }
    ]
    [result] = model_env.requests[2].tool_results()
    assert result == (
        'Web search results for query: "tether 2.0 release"\n\n'
        'Links: [{"title": "Tether 2.0 released", "url": "https://example.com/t2"}, '
        '{"title": "Changelog", "url": "https://example.com/changes"}]\n\n'
        "Tether 2.0 came out in May.\n\n"
        "REMINDER: You MUST include the sources above in your response to the user using "
        "markdown hyperlinks."
    )
    [user_line] = [
        line for line in done.json_lines() if line["type"] == "user" and "tool_use_result" in line
    ]
    structured = user_line["tool_use_result"]
    assert {k: v for k, v in structured.items() if k != "durationSeconds"} == {
        "query": "tether 2.0 release",
        "results": [
            {
                "tool_use_id": "srvtoolu_1",
                "content": [
                    {"title": "Tether 2.0 released", "url": "https://example.com/t2"},
                    {"title": "Changelog", "url": "https://example.com/changes"},
                ],
            },
            "Tether 2.0 came out in May.",
        ],
        "searchCount": 1,
    }


def test_websearch_is_asked_by_default(tether: Run, model_env: FakeModelServer) -> None:
    model_env.script(tool_use("WebSearch", query="anything"), text("ok"))
    done = tether("-p", "search", "--permission-mode", "default")
    assert done.exit_code == 0, done.stderr
    assert len(model_env.requests) == 2  # no search request was sent
    [result] = model_env.requests[1].tool_results()
    assert "Web search results" not in json.dumps(result)


def test_on_another_provider_websearch_is_not_offered_and_naming_it_is_told(
    tether: Run, model_env: FakeModelServer
) -> None:
    model_env.script(text("ok"))
    done = tether(
        "-p",
        "hi",
        "--model",
        "openai/gpt-4.1",
        "--tools",
        "Read,WebSearch,NotebookEdit",
        "--allowedTools",
        "WebSearch",
    )
    assert done.exit_code == 0, done.stderr
    assert model_env.requests[0].tool_names() == ["Read", "NotebookEdit"]
    reason = "WebSearch is the Anthropic API's server-side web search; openai (gpt-4.1) has none"
    warnings = [line for line in done.stderr.splitlines() if "WebSearch" in line]
    assert warnings == [
        f'tether: warning: --tools: this session has no "WebSearch" tool ({reason}); it is '
        "not offered"
    ]


def test_tools_tether_lacks_are_told_once_each(tether: Run, model_env: FakeModelServer) -> None:
    model_env.script(text("ok"))
    done = tether(
        "-p",
        "hi",
        "--tools",
        "Read,MultiEdit,Nonesuch,WebSearch",
        "--allowedTools",
        "ExitPlanMode,Read",
    )
    assert done.exit_code == 0, done.stderr
    assert model_env.requests[0].tool_names() == ["Read", "WebSearch"]
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == [
        'tether: warning: --tools: this session has no "MultiEdit" tool (a Claude Code tool '
        "tether does not have); it is not offered",
        'tether: warning: --tools: unknown tool "Nonesuch"; it is not offered',
        'tether: warning: --allowedTools: this session has no "ExitPlanMode" tool (a Claude '
        "Code tool tether does not have); the rule allows nothing",
    ]


def test_domain_lists_go_out_in_the_one_spelling_of_their_hosts(
    tether: Run, model_env: FakeModelServer
) -> None:
    model_env.script(
        tool_use("WebSearch", query="notes", blocked_domains=["Spam.Example.", "bücher.example/x"]),
        reply(text("nothing")),
        tool_use("WebSearch", query="notes", allowed_domains=["exa mple.com"]),
        text("done"),
    )
    done = tether("-p", "search")
    assert done.exit_code == 0, done.stderr
    [server_tool] = model_env.requests[1].body["tools"]
    assert server_tool["blocked_domains"] == ["spam.example", "xn--bcher-kva.example/x"]
    assert model_env.requests[3].tool_results() == [
        "Error: 'exa mple.com' in allowed_domains is not a domain (like example.com)."
    ]
