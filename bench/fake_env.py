"""The environment a bench session runs in: the fake model server, and a home of its own."""

from __future__ import annotations

from pathlib import Path

from tether.testing import FakeModelServer


def fake_env(server: FakeModelServer | str, home: Path, **extra: str) -> dict[str, str]:
    """Talk to `server` (or the one at that URL); keep settings, sessions and scratch files
    under `home`."""
    return {
        "ANTHROPIC_BASE_URL": server if isinstance(server, str) else server.url,
        "ANTHROPIC_API_KEY": "bench",
        "TETHER_HOME": str(home),
        "HOME": str(home),
        **extra,
    }
