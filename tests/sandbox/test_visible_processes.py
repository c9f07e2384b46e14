"""What the processes a command can see inside the sandbox hold: bwrap is pid 1 there, and
the environment a process was started with stays readable in /proc/<pid>/environ whatever it
unsets later. No process in sight, and no file pid 1 holds open, carries a value the command's
own environment may not (measured: bwrap's environ held every API key it unset)."""

from __future__ import annotations

import pytest

from tether.tools.context import ToolContext

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context
from .test_denied_reads import context

SECRETS = {
    "OPENAI_API_KEY": "sk-visible-proc-one-0123456789",
    "GITHUB_TOKEN": "gh-visible-proc-two",
    "PGPASSWORD": "visible-proc-three",
    "TETHER_HOME": "/visible-proc-four",
    "ANY_NAME": "https://user:visible-proc-five@db.example/x",
}

READ_ALL = (
    "for p in /proc/[0-9]*; do echo \"== $p\"; tr '\\0' '\\n' < $p/environ; "
    "tr '\\0' '\\n' < $p/cmdline; done 2>&1; "
    'for f in /proc/1/fd/*; do echo "== $f"; [ -f "$f" ] && cat "$f"; done 2>&1; '
    "echo '== self'; env"
)


@needs_bwrap
async def test_no_process_inside_holds_a_withheld_value(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(command=READ_ALL)
    seen = outcome.content
    assert isinstance(seen, str)
    # It did look: pid 1 (bwrap) and its environment and command line were read.
    assert "== /proc/1\n" in seen
    assert "PATH=" in seen
    assert "--args" in seen
    leaked = [name for name, value in SECRETS.items() if value in seen]
    assert leaked == []


@needs_bwrap
async def test_the_settings_env_is_withheld_like_the_process_env(boundary: Layout) -> None:
    """A secret the settings' `env` table gives commands is withheld as one tether has."""
    ctx: ToolContext = sandboxed_context(boundary)
    ctx.env = {"DEPLOY_TOKEN": "settings-visible-proc-six", "PLAIN_SETTING": "shown"}
    outcome = await bash_runner(ctx)(command=READ_ALL)
    assert isinstance(outcome.content, str)
    assert "settings-visible-proc-six" not in outcome.content
    assert "PLAIN_SETTING=shown" in outcome.content


@needs_bwrap
async def test_a_kept_secret_reaches_the_command(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRETS["OPENAI_API_KEY"])
    run = bash_runner(sandboxed_context(boundary, env=("OPENAI_API_KEY",)))
    outcome = await run(command='echo "$OPENAI_API_KEY"')
    assert outcome.content == SECRETS["OPENAI_API_KEY"]


@needs_bwrap
async def test_no_process_inside_shows_the_mount_layout(boundary: Layout) -> None:
    """bwrap's options (what it hides, covers and binds) are read from a descriptor, not its
    command line: pid 1's cmdline names nothing of the layout, and the descriptor is closed."""
    home = boundary.home
    for secret in (".ssh-layout-probe", ".netrc"):
        (home / secret).write_text("hidden\n")
    (boundary.workspace / "private-notes").mkdir()
    (boundary.workspace / "private-notes" / "key.pem").write_text("KEY-DATA\n")
    boundary.hand_over()
    run = bash_runner(context(boundary, "Read(./private-notes/**)"))
    cut = "echo S$((6*7))S"
    outcome = await run(
        command=f"tr '\\0' '\\n' < /proc/1/cmdline; {cut}; ls -l /proc/1/fd; {cut}; "
        f"cat private-notes/key.pem; {cut}"
    )
    seen = outcome.content
    assert isinstance(seen, str)
    cmdline, fds, read, _ = seen.split("S42S")
    # bwrap's own arguments, before the command's (which the command knows anyway).
    options = cmdline.strip().split("\n")
    options = options[: options.index("--")]
    assert "--args" in options  # (the unprivileged layout sets HOME on it too)
    for word in ("private-notes", ".netrc", "--tmpfs", "--ro-bind", "--seccomp", "--chdir"):
        assert not any(word in option for option in options), word
    assert "KEY-DATA" not in read  # the rule did hide it
    # bwrap read its options and closed their descriptor (reopened through /proc it would
    # give them all).
    assert "ls: " not in fds
    assert "tether-bwrap-args" not in fds
