"""SDK clients pointed at the `fake_model` server, shared by the fake server's tests."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import openai
import pytest

from tether.testing import FakeModelServer


@pytest.fixture
def claude(fake_model: FakeModelServer) -> Iterator[anthropic.Anthropic]:
    """An Anthropic client for `fake_model`, without SDK retries."""
    with anthropic.Anthropic(base_url=fake_model.url, api_key="k", max_retries=0) as client:
        yield client


@pytest.fixture
def gpt(fake_model: FakeModelServer) -> Iterator[openai.OpenAI]:
    """An OpenAI client for `fake_model`, without SDK retries."""
    with openai.OpenAI(base_url=fake_model.openai_base_url, api_key="k", max_retries=0) as client:
        yield client
