"""`tether --help` tells a new user what there is: every subcommand, and the model a run uses
when none is named (the README's)."""

from __future__ import annotations

import subprocess
import sys

from tether.cli.commands import SUBCOMMANDS
from tether.models.resolve import DEFAULT_MODEL


def _help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tether", "--help"], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_help_lists_every_subcommand_and_each_runs() -> None:
    listed = _help()
    for name in (*SUBCOMMANDS, "demo"):
        assert f"\n  tether {name} " in listed, name
    for name in SUBCOMMANDS:  # the table names modules that exist and answer --help
        done = subprocess.run(
            [sys.executable, "-m", "tether", name, "--help"], capture_output=True, text=True
        )
        assert (done.returncode, done.stderr) == (0, ""), name
        assert done.stdout.startswith("usage: tether"), name


def test_help_names_the_default_model() -> None:
    assert f"(default {DEFAULT_MODEL})" in _help()
