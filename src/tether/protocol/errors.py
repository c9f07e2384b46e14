"""The two kinds of error: told to the model, or stopping the turn."""


class ToolError(Exception):
    """A tool failed in a way the model should hear about; becomes an is_error tool_result
    (its text after `Error: `)."""


class BareToolError(ToolError):
    """A failure whose text is the whole result, as Claude Code gives it (a command's `Exit
    code N` and its output: the model reads no `Error: ` before it)."""


class HarnessError(Exception):
    """Something the model cannot fix: stops the turn and is shown to the user."""


class ConfigError(HarnessError):
    """Configuration is missing or broken (no API key, unreadable settings file...)."""


class ModelError(HarnessError):
    """The model endpoint failed: unreachable, bad key, rejected request, broken stream.

    `retryable` says whether the same request may succeed later. `unreachable` marks a request
    that never got an HTTP answer (the loop retries those fewer times). `retry_after_s` is the
    wait the endpoint asked for, if it named one. `retry_once` marks a failure that is not
    retryable but earns one immediate, unannounced second try (an error event inside a 200
    stream: Claude Code then asks once more before it takes the error as final).
    `in_stream` marks an error event inside a 200 stream (Claude Code asks again without an
    `api_retry` line).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        unreachable: bool = False,
        retry_after_s: float | None = None,
        error_type: str | None = None,
        api_message: str | None = None,
        retry_once: bool = False,
        in_stream: bool = False,
    ):
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        """The API's own name for the error (`invalid_request_error`...), when it gave one."""
        self.api_message = api_message
        """What the API's answer said, alone (Claude Code's `API Error: STATUS <this>`)."""
        self.retryable = retryable
        self.unreachable = unreachable
        self.retry_after_s = retry_after_s
        self.retry_once = retry_once
        self.in_stream = in_stream
