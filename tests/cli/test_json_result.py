"""`--output-format json` prints the same result object as stream-json's last line: the
per-model spend (`modelUsage`) included, which Claude Code prints in both."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult


def _result(model: FakeModelServer, tether: Callable[..., CliResult], *fmt: str) -> Any:
    model.script(reply(tool_use("Bash", command="true")), reply(text("done")))
    result = tether("-p", "go", "--output-format", *fmt)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_json_result_has_the_model_usage_stream_json_reports(
    model_env: FakeModelServer, tether: Callable[..., CliResult]
) -> None:
    streamed = _result(model_env, tether, "stream-json", "--verbose")
    printed = _result(model_env, tether, "json")
    # Separate runs hit the prompt cache differently: the figures are each run's own.
    model = model_env.requests[-1].body["model"]
    usage = printed["usage"]
    assert printed["modelUsage"] == {
        model: {
            **streamed["modelUsage"][model],
            "inputTokens": usage["input_tokens"],
            "outputTokens": usage["output_tokens"],
            "cacheReadInputTokens": usage["cache_read_input_tokens"],
            "cacheCreationInputTokens": usage["cache_creation_input_tokens"],
            "cacheCreationEphemeral5mInputTokens": usage["cache_creation"][
                "ephemeral_5m_input_tokens"
            ],
            "costUSD": printed["total_cost_usd"],
        }
    }
