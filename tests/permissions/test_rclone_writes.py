"""What rclone writes besides its operands: `--cache-dir` and `--temp-dir` (as `--backup-dir`
and `--log-file`), each flag also given as its variable (`RCLONE_CACHE_DIR`), and `selfupdate`,
which replaces the rclone program (asked as a write outside the workspace; `--output` writes
there instead), and `config create|update|touch|...`, which writes the configuration
`--config` or `RCLONE_CONFIG` names (the home's without). A copy into the workspace's root
says why it is asked. Its options are read by the one option reader (option_names): `--` ends
them and a lone `-` is an operand, as for the other programs that use it (`uv venv`)."""

from __future__ import annotations

import pytest

from tether.permissions import decide
from tether.permissions.option_names import plain_operands
from tether.permissions.pip_writes import uv_venv_places
from tether.permissions.rclone_paths import rclone_places

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(rclone *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        # Allowed before: the cache and temporary directories were not writes.
        "rclone --cache-dir {home}/.config/x ls r:",
        "rclone --cache-dir={outside}/c ls r:",
        "rclone ls r: --temp-dir {outside}/t",
        "rclone --temp-dir={home}/.ssh copy r:a b",
        "RCLONE_CACHE_DIR={outside}/c rclone ls r:",
        "RCLONE_TEMP_DIR={home}/t rclone copy r:a b",
        "env RCLONE_TEMP_DIR={home}/t rclone copy r:a b",
        "RCLONE_LOG_FILE={outside}/log rclone ls r:",
        "RCLONE_BACKUP_DIR={outside}/b rclone sync r:a b",
        "rclone selfupdate",
        "rclone selfupdate --stable --check",
        "rclone selfupdate --output {outside}/rclone",
        # Allowed before: `config VERB` after `--config FILE` was not seen as a write.
        "rclone --config {outside}/r.conf config create y local",
        "rclone --config={outside}/r.conf config touch",
        "rclone -v --config {home}/r.conf config update r key v",
        "rclone config create x local",
        "RCLONE_CONFIG={outside}/r.conf rclone config touch",
        # A value-taking flag the engine does not know hid what followed it.
        "rclone --tpslimit 1 copy r: {outside}/d",
        "rclone --bwlimit-file x copy r: {outside}/d",
        "rclone --s3-chunk-size 5M copy r: {outside}/d",
        "rclone copy --drive-scope drive r: {outside}/d",
        # So did an unknown short one, alone or in a cluster, and a mix of unknown flags
        # (only the reading where `-X` takes a value and `-Y` does not writes outside).
        "rclone -X 1 copy r: {outside}/d",
        "rclone -vX 1 copy r: {outside}/d",
        "rclone copy r:a -X {outside}/d -Y data",
        "rclone copy r:a --x1 {outside}/d -Y data",
        # Other writers.
        "rclone --cpuprofile {outside}/p version",
        "rclone --memprofile={outside}/p version",
        "RCLONE_CPUPROFILE={outside}/p rclone version",
        "rclone md5sum r: --output-file {outside}/sums",
        "rclone hashsum md5 r: --output-file={outside}/sums",
        "rclone tree r: -o {outside}/t",
        "rclone tree --output {outside}/t r:",
        "rclone completion bash {outside}/c",
        "rclone completion bash",
        "rclone genautocomplete bash {outside}/c",
        "rclone gendocs {outside}/docs",
        "rclone test makefiles {outside}/m",
        # Variables exported earlier on the line, as inline ones.
        "export RCLONE_CACHE_DIR={outside}/c; rclone ls r:",
        "export RCLONE_CACHE_DIR={outside}/c && rclone ls r:",
        "export X=1 RCLONE_LOG_FILE={outside}/l; rclone version",
        "RCLONE_TEMP_DIR={outside}/t; export RCLONE_TEMP_DIR; rclone ls r:",
    ],
)
def test_writes_outside_the_workspace_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("RCLONE_CONFIG=.git/config rclone config touch", ".git/config"),
        ("rclone --config .mcp.json config create x s3", ".mcp.json"),
    ],
)
def test_the_configuration_written_is_the_one_named(
    command: str, named: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    # Before: `RCLONE_CONFIG=.git/config` was asked as a write of the home's configuration.
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask"
    assert named in (verdict.reason or ""), verdict.reason


def test_selfupdate_says_it_replaces_rclone(tree: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": "rclone selfupdate"}, make_ctx(RULES))
    assert "replaces the rclone program" in (verdict.reason or "")


@pytest.mark.parametrize(
    "command",
    [
        "rclone --cache-dir .cache ls r:",
        "rclone --temp-dir=build/tmp copy r:a b",
        "RCLONE_CACHE_DIR=.cache rclone ls r:",
        "rclone selfupdate --output ./bin/rclone",
        "rclone copy r:a data",
        # Asked before, as a write of the home's configuration.
        "RCLONE_CONFIG=r.conf rclone config touch",
        "rclone config touch --config=r.conf",
        "rclone config show",
        "rclone --tpslimit 10 copy r:a data",
        "rclone copy --s3-chunk-size 5M r:a data",
        "rclone -vP copy r:a data",
        "rclone copy -X 2 r:a data",
        "rclone md5sum r: --output-file sums.txt",
        "rclone gendocs docs",
        "rclone tree r: -o tree.txt",
        "rclone version",
    ],
)
def test_writes_inside_the_workspace_are_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize("command", ["rclone copy remote:b/data.csv .", "rclone sync r:b ./"])
def test_a_copy_into_the_workspace_root_says_why_it_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask"
    assert ".git/hooks" in (verdict.reason or ""), verdict.reason
    assert "the workspace's own configuration" in (verdict.reason or "")


@pytest.mark.parametrize(
    ("argv", "reads", "writes"),
    [
        (("rclone", "copy", "a", "b"), (), ("b",)),
        (("rclone", "copy", "--transfers", "4", "a", "b"), (), ("b",)),
        (("rclone", "copy", "--transfers=4", "a", "--", "-b"), (), ("-b",)),
        (("rclone", "--config", "c.conf", "ls", "x"), ("c.conf", "x"), ()),
        (("rclone", "--log-file=l", "rcat", "-"), (), ("l", "-")),
        (("rclone", "delete", "--", "--x"), (), ("--x",)),
        (("rclone", "--backup-dir", "b", "--exclude", "*.tmp", "sync", "s", "d"), (), ("b", "d")),
    ],
)
def test_rclone_options_are_read_as_before(
    argv: tuple[str, ...], reads: tuple[str, ...], writes: tuple[str, ...]
) -> None:
    places = rclone_places(argv, {})
    assert (places.reads, places.writes) == (reads, writes)


@pytest.mark.parametrize(
    ("args", "operands"),
    [
        (("-o", "x", "a", "--", "-b", "-o"), ["a", "-b", "-o"]),
        (("-", "--flag", "b"), ["-", "b"]),
        (("--", "--"), ["--"]),
    ],
)
def test_plain_operands_know_the_end_of_options_and_stdin(
    args: tuple[str, ...], operands: list[str]
) -> None:
    # Before: `--` and `-` were options, and words after `--` were read as options.
    assert plain_operands(args, {"-o"}) == operands


@pytest.mark.parametrize(
    ("words", "places"),
    [
        ((".venv",), (".venv",)),
        (("-p", "3.12", "v"), ("v",)),
        (("--", "-x"), ("-x",)),
        (("--python=3.12", "d"), ("d",)),
        (("--cache-dir", "c", "d"), ("c", "d")),
    ],
)
def test_uv_venv_places_are_read_as_before(words: tuple[str, ...], places: tuple[str, ...]) -> None:
    assert uv_venv_places(words) == places
