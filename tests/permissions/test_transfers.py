"""cp, mv, ln and install in every operand form: the file each source lands as is written and
each source is read, so a link to a denied file is denied however the command names where the
link goes (`ln --target-directory=src secrets/key`, `ln secrets/key`, `ln --targ=src .env`)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, decide, load_rules

from .conftest import ContextFactory, build_tree

POLICY = {
    "permissions": {
        "deny": ["Read(./.env)", "Read(./secrets/**)", "Edit(./.github/**)"],
        "allow": ["Bash(ln *)", "Bash(cp *)", "Bash(mv *)", "Bash(install *)", "Bash(cat *)"],
    }
}
_PROGRAMS = {
    "ln": ("-f", "-b", "-v", "-n", "-s", "-L", "-P", "--force", "--backup", "--symbolic"),
    "cp": ("-f", "-v", "-p", "-l", "-s", "--link", "--preserve", "--force"),
    "mv": ("-f", "-v", "-n", "--force", "--no-clobber"),
    "install": ("-v", "-p", "-D", "--verbose"),
}
_TARGET_FORMS = (
    "-t {d}",
    "-t{d}",
    "--target-directory={d}",
    "--target-directory {d}",
    "--target={d}",
    "--targ {d}",
    "--t={d}",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> PermissionContext:
    tree = build_tree(tmp_path_factory.mktemp("transfers"))
    rules = load_rules([(tree.ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    return PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


_FUZZ = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
_denied = st.sampled_from([".env", "secrets/api.key", "./secrets/key.pem", "src/../.env"])
_benign = st.sampled_from(["README.md", "src/app.py", "config/app.toml"])


@st.composite
def _transfer(draw: st.DrawFn) -> str:
    """A command moving, copying or linking a denied file, in one of coreutils' forms."""
    program = draw(st.sampled_from(sorted(_PROGRAMS)))
    options = draw(st.lists(st.sampled_from(_PROGRAMS[program]), max_size=3))
    denied = draw(_denied)
    sources = draw(st.permutations([denied, *draw(st.lists(_benign, max_size=2))]))
    form = draw(
        st.sampled_from(["target", "last", "one"] if program == "ln" else ["target", "last"])
    )
    directory = draw(st.sampled_from(["src", "src/", ".", "config"]))
    if form == "target":
        words = [*options, draw(st.sampled_from(_TARGET_FORMS)).format(d=directory), *sources]
    elif form == "last":
        words = [*options, *sources, directory]
    else:
        words = [*options, denied]
    if form != "target" and draw(st.booleans()):
        words = [*options, "--", *(w for w in words if not w.startswith("-"))]
    return " ".join([program, *words])


@_FUZZ
@given(command=_transfer())
def test_a_denied_source_is_denied_in_every_form(command: str, ctx: PermissionContext) -> None:
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", (command, decision)


def test_where_each_source_lands_is_written(make_ctx: ContextFactory) -> None:
    """The file a source becomes is the one written: below `-t DIR`, below a last operand that
    is a directory, or (ln's single operand) in the current directory."""
    ctx = make_ctx(POLICY)
    for command in (
        "ln -t .github/workflows src/app.py",
        "ln --target-directory=.github src/workflows",
        "cp --targ .github/workflows README.md",
        "mv -t .github/workflows README.md",
        "install --target-directory .github/workflows src/app.py",
        "cp README.md src/app.py .github/workflows",
        "cd .github/workflows && ln ../../src/app.py",
    ):
        decision = decide("Bash", {"command": command}, ctx)
        assert decision.behavior == "deny", (command, decision)
        assert "Edit(./.github/**)" in decision.reason, (command, decision)


def test_a_symbolic_link_reads_its_target_from_its_directory(make_ctx: ContextFactory) -> None:
    """`ln -s ../secrets/api.key src/` makes src/api.key -> ../secrets/api.key: the link's
    target is named from src, where the kernel will resolve it."""
    ctx = make_ctx(POLICY)
    for command in (
        "ln -s ../secrets/api.key src/",
        "ln -s ../secrets/api.key src",
        "ln -st src ../.env",
        "ln -s ../../.env src/x/",
        "cp -s ../.env src/",
    ):
        decision = decide("Bash", {"command": command}, ctx)
        assert decision.behavior == "deny", (command, decision)
    for command in ("ln -s app.py src/x", "ln -s ../README.md src/", "ln src/app.py src/b.py"):
        decision = decide("Bash", {"command": command}, ctx)
        assert decision.behavior == "allow", (command, decision)
