"""The environment a bench session runs in: the fake model server, and a home of its own."""

from __future__ import annotations

from pathlib import Path

from tether.testing import FakeModelServer


def fake_env(server: FakeModelServer, home: Path, **extra: str) -> dict[str, str]:
    """Talk to `server`; keep settings, sessions and scratch files under `home`."""
    return {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "bench",
        "TETHER_HOME": str(home),
        "HOME": str(home),
        **extra,
    }
