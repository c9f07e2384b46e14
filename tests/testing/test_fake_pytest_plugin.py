"""The `fake_model` and `model_env` fixtures, run inside a nested pytest session."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

INNER_TESTS = """
import json
import os
import urllib.error
import urllib.request

import pytest

from tether.testing import text


def post(server, body):
    request = urllib.request.Request(
        server.url + "/v1/messages",
        data=json.dumps(body).encode(),
        headers={"x-api-key": "k"},
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


EMPTY = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": ""}]}
GOOD = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}


def test_refused_request_fails(fake_model):
    assert post(fake_model, EMPTY) == 400


def test_expected_refusal_passes(fake_model):
    fake_model.expect_rejections = True
    assert post(fake_model, EMPTY) == 400


def test_failing_test_shows_refusals_too(fake_model):
    post(fake_model, EMPTY)
    assert False, "own failure"


def test_valid_request_passes(fake_model):
    fake_model.script(text("hi"))
    assert post(fake_model, GOOD) == 200


def test_model_env(model_env, tmp_path):
    assert os.environ["ANTHROPIC_BASE_URL"] == model_env.url
    assert os.environ["OPENAI_BASE_URL"] == model_env.openai_base_url
    assert os.environ["ANTHROPIC_API_KEY"] == os.environ["OPENAI_API_KEY"] == "test-key"
    assert os.environ["TETHER_HOME"] == str(tmp_path / "home")
    assert (tmp_path / "home").is_dir()
    assert "TETHER_MODEL" not in os.environ
"""


def test_fixtures_fail_tests_with_refused_requests(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_MODEL", "from-the-outer-environment")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_inner=INNER_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-rN")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*FakeModelServer refused 1 request(s):*",
            "*#0 anthropic /v1/messages -> HTTP 400: messages.0: all messages must have "
            "non-empty content*",
        ]
    )
    output = result.stdout.str()
    assert "own failure" in output
    assert output.count("FakeModelServer refused 1 request(s)") == 2
