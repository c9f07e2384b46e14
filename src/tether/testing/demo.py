"""`tether demo`: a scripted session to watch before configuring any model.

A fake model server replays a fixed script (run the tests, read the module, fix it, re-run);
everything else is real: the agent loop, the Anthropic SDK talking to the server, the tools
running in a throwaway project, and the terminal renderer.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.text import Text

from tether.cli.ledger_setup import close_process_ledger
from tether.cli.render import EventRenderer
from tether.cli.setup import RunOptions, build_session
from tether.models.resolve import DEFAULT_MODEL
from tether.protocol import ConfigError, UserInput
from tether.testing.script import Reply, reply, text, tool_use
from tether.testing.server import FakeModelServer

PROMPT = "The tests in this project fail. Find out why and fix it."
STREAM_DELAY_S = 0.02
"""Pause between streamed events, so the scripted text arrives the way a model's does."""

MODULE = '''\
"""Small text statistics."""


def word_count(text):
    """Number of whitespace-separated words in `text`."""
    return len(text.split())


def average_word_length(text):
    """Mean length of the words in `text`; 0.0 when there are none."""
    words = text.split()
    if not words:
        return 0.0
    return sum(len(word) for word in words) / len(words)


def longest_words(text, n):
    """The `n` longest words of `text`, longest first."""
    words = sorted(text.split(), key=len, reverse=True)
    return words[: n - 1]
'''

TESTS = """\
import unittest

from textstats import average_word_length, longest_words, word_count


class TextStatsTest(unittest.TestCase):
    def test_word_count(self):
        self.assertEqual(word_count("the quick brown fox"), 4)

    def test_average_word_length(self):
        self.assertEqual(average_word_length("ab abcd"), 3.0)

    def test_longest_words(self):
        self.assertEqual(longest_words("a bbb cc dddd", 2), ["dddd", "bbb"])


if __name__ == "__main__":
    unittest.main()
"""

BUG = "    return words[: n - 1]\n"
FIX = "    return words[:n]\n"

SUMMARY = """\
All three tests pass now.

**The bug:** `longest_words` returned `words[: n - 1]`, one word fewer than asked for, so
`longest_words("a bbb cc dddd", 2)` gave `["dddd"]` instead of `["dddd", "bbb"]`.

**The fix:** slice `words[:n]` in `textstats.py`. Nothing else needed to change."""

NEXT_STEPS = """\
That was a scripted demo: no model was called. To use a real one, pick a model
and run tether in your project (the README lists more providers):

  export ANTHROPIC_API_KEY=sk-ant-...                # Claude, the default
  export OPENAI_API_KEY=sk-... TETHER_MODEL=openai/gpt-4.1
  export OPENAI_BASE_URL=http://localhost:8000/v1    # any OpenAI-compatible
  export TETHER_MODEL=<model-name>                   #   server, with its model
  export TETHER_MODEL=ollama/qwen2.5-coder:7b        # a local model (Ollama)

  {tether}                          # interactive
  {tether} -p "fix the tests"       # one task, headless"""


def next_steps() -> str:
    """What to run next, naming tether as the user can start it."""
    return NEXT_STEPS.format(tether=launcher())


def launcher() -> str:
    """How the user starts this tether: `tether` when that is the command on the PATH; else
    the checkout's `scripts/tether` that ran it (a newcomer's first command: its `.venv` is
    on no PATH, and a bare `tether` would not be found); else the command as it was run."""
    ran = Path(sys.argv[0])
    if ran.name != "tether":  # not started as the command (a test, `python -m`)
        return "tether"
    found = shutil.which("tether")
    if found is not None and Path(found).resolve() == ran.resolve():
        return "tether"
    parents = ran.resolve().parents  # <checkout>/.venv/bin/tether
    script = parents[2] / "scripts" / "tether" if len(parents) > 2 else None
    return shlex.quote(str(script if script is not None and script.is_file() else ran))


def main(argv: list[str], *, console: Console | None = None) -> int:
    """Run the demo; 0 when the project's tests pass at the end, 1 otherwise."""
    parser = argparse.ArgumentParser(
        prog="tether demo",
        description="Watch tether fix a failing test in a throwaway project. Scripted: no "
        "model or API key is needed.",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the demo project and print where it is"
    )
    args = parser.parse_args(argv)
    console = console or Console()
    repo = Path(tempfile.mkdtemp(prefix="tether-demo-"))
    home = Path(tempfile.mkdtemp(prefix="tether-demo-home-"))
    try:
        write_project(repo)
        _print_banner(console, repo)
        ran = asyncio.run(_run_session(repo, home, console))
        if not ran:
            return 1
        passed = tests_pass(repo)
        console.line()
        mark = Text("✓ ", style="bold green") if passed else Text("✗ ", style="bold red")
        mark.append("The project's tests pass." if passed else "The project's tests still fail.")
        console.print(mark)
        console.line()
        console.print(next_steps(), markup=False, highlight=False, soft_wrap=True)
        return 0 if passed else 1
    except KeyboardInterrupt:
        console.print(Text("Demo interrupted.", style="yellow"))
        return 130
    finally:
        shutil.rmtree(home, ignore_errors=True)
        if args.keep:
            console.print(
                Text(f"\nThe demo project is kept in {repo}", style="dim"), soft_wrap=True
            )
        else:
            shutil.rmtree(repo, ignore_errors=True)


def write_project(repo: Path) -> None:
    """The tiny project with an off-by-one bug that one test catches."""
    (repo / "textstats.py").write_text(MODULE)
    (repo / "test_textstats.py").write_text(TESTS)


def tests_pass(repo: Path) -> bool:
    """Run the project's tests for real, outside the session."""
    done = subprocess.run(
        [sys.executable, "-m", "unittest", "-q"],
        cwd=repo,
        capture_output=True,
        check=False,
        timeout=120,
    )
    return done.returncode == 0


def demo_script(repo: Path, test_command: str) -> list[Reply]:
    """The model's side of the session, one reply per model call."""
    module = str(repo / "textstats.py")
    delay = STREAM_DELAY_S
    return [
        reply(
            text("I'll start by running the test suite to see what fails."),
            tool_use("Bash", command=test_command, description="Run the tests"),
            delay_s=delay,
        ),
        reply(
            text(
                "`test_longest_words` fails: asked for the 2 longest words, it got only one. "
                "Let me read the function."
            ),
            tool_use("Read", file_path=module),
            delay_s=delay,
        ),
        reply(
            text(
                "Found it: `words[: n - 1]` keeps `n - 1` words, an off-by-one. "
                "The slice should stop at `n`."
            ),
            tool_use("Edit", file_path=module, old_string=BUG, new_string=FIX),
            delay_s=delay,
        ),
        reply(
            text("Now the tests again."),
            tool_use("Bash", command=test_command, description="Run the tests again"),
            delay_s=delay,
        ),
        reply(text(SUMMARY), delay_s=delay),
    ]


def unittest_command() -> str:
    """How the scripted model runs the tests: the interpreter a user would type, if found."""
    for name in ("python3", "python"):
        if shutil.which(name):
            return f"{name} -m unittest -q"
    return f"{shlex.quote(sys.executable)} -m unittest -q"


async def _run_session(repo: Path, home: Path, console: Console) -> bool:
    server = FakeModelServer().start()
    try:
        test_command = unittest_command()
        server.script(*demo_script(repo, test_command))
        env = {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "demo",
            "TETHER_MODEL": DEFAULT_MODEL,
            "TETHER_HOME": str(home),
        }
        try:
            # What a user would allow for this job: edits in the project, and the test command.
            session = build_session(
                RunOptions(
                    cwd=repo,
                    env=env,
                    permission_mode="acceptEdits",
                    allowed_tools=(f"Bash({test_command})",),
                )
            )
        except ConfigError as e:
            console.print(Text(f"tether demo: {e}", style="red"))
            return False
        warm = getattr(session.agent.model, "warm", None)
        if callable(warm):
            with console.status("Loading the model client…"):
                await asyncio.to_thread(warm)
        renderer = EventRenderer(console, workspace=repo)
        renderer.render(session.started())
        console.print(Text(f"> {PROMPT}", style="bold"))
        console.line()
        try:
            async for event in session.submit(UserInput(text=PROMPT)):
                renderer.render(event)
        finally:
            renderer.close()
            # The whole session, and the ledger's writer (its thread writes in `home` until
            # it is closed): the home is removed next.
            await session.aclose()
            await asyncio.to_thread(close_process_ledger)
        return True
    finally:
        server.stop()


def _print_banner(console: Console, repo: Path) -> None:
    title = Text("✻ tether demo", style="bold cyan")
    title.append(" · SCRIPTED: no model is called", style="bold yellow")
    console.print(title)
    console.print(
        Text(
            "A fake model server replays a fixed script. The loop, the tools, the files and the "
            "test runs are real.",
            style="dim",
        )
    )
    console.print(Text(f"Project: {repo} (textstats.py, test_textstats.py)", style="dim"))
    console.line()
