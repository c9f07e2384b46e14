"""A file that an `Edit` deny rule names, made new by a command (a script the rules allow),
is moved aside when the command ends, for every shape of rule: a name anywhere, an extension
at the root, a directory whole, a literal path, an absolute one. Nothing is lost: it is renamed,
and the model is told which rule named it."""

from __future__ import annotations

from .conftest import Layout, bash_runner, end_session, needs_bwrap
from .test_edit_denied import context

pytestmark = needs_bwrap

SCRIPT = """
import os, sys
for path in sys.argv[1:]:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write("planted\\n")
print("written")
"""


async def test_new_files_matching_edit_denials_are_moved_aside(boundary: Layout) -> None:
    ws = boundary.workspace
    (ws / "src" / "q").mkdir(parents=True)
    (ws / "config").mkdir()
    (ws / "plant.py").write_text(SCRIPT)
    boundary.hand_over()
    rules = (
        "Edit(**/*.pem)",
        "Edit(*.TXT)",
        "Edit(newdir/**)",
        "Edit(config/prod.yml)",
        f"Edit(/{ws}/abs/**)",
    )
    ctx = context(boundary, *rules)
    run = bash_runner(ctx)
    denied = ["new.pem", "src/q/new.pem", "other.TXT", "newdir/x", "newdir/d/y"]
    denied += ["config/prod.yml", "abs/k"]
    ordinary = ["src/q/new.txt", "notes.md", "config/dev.yml"]
    out = await run(command=f"python3 plant.py {' '.join(denied + ordinary)}")
    assert out.content.startswith("written"), out.content
    assert "Edit deny rules" in out.content, out.content
    for path in denied:
        assert not (ws / path).exists(), path
    for name in ("new.pem", "src/q/new.pem", "other.TXT", "config/prod.yml"):
        assert (ws / (name + ".tether-disabled")).read_text() == "planted\n"
    assert (ws / "newdir.tether-disabled" / "d" / "y").read_text() == "planted\n"
    for path in ordinary:
        assert (ws / path).read_text() == "planted\n", path
    await end_session(ctx)


async def test_a_denied_file_made_while_no_command_ran_stays_read_only(
    boundary: Layout,
) -> None:
    """The user's own, made outside between commands: bound read-only, not moved."""
    ws = boundary.workspace
    boundary.hand_over()
    ctx = context(boundary, "Edit(**/*.pem)")
    run = bash_runner(ctx)
    await run(command="true")
    (ws / "user.pem").write_text("mine\n")
    boundary.hand_over()
    out = await run(command="echo x >> user.pem 2>/dev/null || echo refused; ls *.pem")
    assert "refused" in out.content, out.content
    assert (ws / "user.pem").read_text() == "mine\n"
    await end_session(ctx)
