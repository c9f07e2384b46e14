"""Options of allowed programs that write, run programs or read more than they seem: each
family under deny rules alone (the built-in allowlist decides) and with an allow rule naming
the program, which must not cover a write or read of a denied file, a protected path, or a
program a deny rule names. Where the meaning of a command is not obvious, the real program
is run in a throwaway directory to show what it does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.permissions import decide
from tether.permissions.bash_files import program_use
from tether.permissions.commands import COMMANDS
from tether.permissions.program_use import ProgramUse

from .conftest import ContextFactory, Tree

DENY = ["Read(./.env)", "Read(secrets/**)", "Edit(./protected/**)", "Bash(sentinel *)"]
ALLOW = [
    *("Bash(git *)", "Bash(sed *)", "Bash(awk *)", "Bash(gawk *)", "Bash(pytest *)"),
    *("Bash(python -m pytest *)", "Bash(find *)", "Bash(tar *)", "Bash(sort *)", "Bash(rg *)"),
]

# (command, decision with the deny rules alone, decision with the allow rules too)
CASES: list[tuple[str, str, str]] = [
    # sed: commands that write (w, W, s///w), read (r, R), run (e, s///e); -f scripts; -i.
    ("sed -n 1,5p README.md", "allow", "allow"),
    ("sed -n '/x/p' README.md", "allow", "allow"),
    ("sed -n '$w out.txt' README.md", "ask", "allow"),
    ("sed -n 'w protected/out' README.md", "deny", "deny"),
    ("sed -n 's/a/b/gw protected/out' README.md", "deny", "deny"),
    ("sed -n 's|a|b|w .git/hooks/pre-commit' README.md", "ask", "ask"),
    ("sed -n 's/[/]/x/w protected/o' README.md", "deny", "deny"),
    ("sed -n '/a/{W protected/o\n}' README.md", "deny", "deny"),
    ("sed -e 1r.env README.md", "deny", "deny"),
    ("sed '1R secrets/api.key' README.md", "deny", "deny"),
    ("sed --expression='$e sentinel' README.md", "deny", "deny"),
    ("sed 'y/a/b/;1e echo hi' README.md", "ask", "allow"),
    ("sed 's#a#b#e' README.md", "deny", "deny"),
    ("sed -f script.sed README.md", "deny", "deny"),
    ("sed --file=script.sed README.md", "deny", "deny"),
    ("sed -i s/a/b/ README.md", "ask", "allow"),
    ("sed -i s/a/b/ .git/config", "ask", "ask"),
    ("sed -i s/a/b/ protected/x", "deny", "deny"),
    ("sed --in-place='protected/*.bak' s/a/b/ README.md", "deny", "deny"),
    ("sed -n -e 'a\\' -e 'w protected/o' README.md", "allow", "allow"),
    ("sed -n 'p;q' .env", "deny", "deny"),
    ("sed -z -n 1p README.md", "allow", "allow"),
    ("sed --frobnicate 1p README.md", "ask", "allow"),
    # awk: plainly reading programs only.
    ("awk '{print $1}' README.md", "allow", "allow"),
    ("awk '$1 > 5' README.md", "allow", "allow"),
    ("awk '/a|b/ {n++} END {print n}' README.md", "allow", "allow"),
    ("awk -v x=1 -F: '{print x, ($1 > 2)}' README.md", "allow", "allow"),
    ("awk 'BEGIN {system(\"sentinel\")}'", "deny", "deny"),
    ("awk '{print > \"protected/x\"}' README.md", "deny", "deny"),
    ('awk \'{printf "%s", $0 | "sh"}\' README.md', "deny", "deny"),
    ("awk '{\"date\" | getline d}' README.md", "deny", "deny"),
    ("awk 'BEGIN {getline l < \".env\"; print l}'", "deny", "deny"),
    ("awk 'BEGIN {print ENVIRON[\"TOKEN\"]}'", "deny", "deny"),
    ("awk 'BEGIN {ARGV[1] = \".env\"; ARGC = 2} {print}'", "deny", "deny"),
    ("awk -f prog.awk README.md", "deny", "deny"),
    ("gawk -i inc.awk 1 README.md", "deny", "deny"),
    ("gawk -l ext 1 README.md", "deny", "deny"),
    ("gawk -o/tmp/pretty.awk 1 README.md", "ask", "ask"),
    ("awk '{print}' .env", "deny", "deny"),
    # find: actions that delete, write or run, and denied directories listed.
    ("find . -name '*.py'", "allow", "allow"),
    ("find secrets -name '*.pem'", "deny", "deny"),
    ("find src -delete", "ask", "allow"),
    ("find src -fprint protected/list", "deny", "deny"),
    ("find src -fprint0 .git/list", "ask", "ask"),
    ("find src -fprintf protected/l '%p'", "deny", "deny"),
    ("find src -fls protected/l", "deny", "deny"),
    ("find src -exec sentinel {} \\;", "deny", "deny"),
    ("find src -execdir sentinel {} +", "deny", "deny"),
    ("find src -ok sentinel {} \\;", "deny", "deny"),
    ("find src -okdir sentinel {} \\;", "deny", "deny"),
    # git: output files, settings that run programs, working-tree reads, config writes.
    ("git log -p", "allow", "allow"),
    ("git log --oneline -n 5", "allow", "allow"),
    ("git log --output=notes.txt", "ask", "allow"),
    ("git show --output=protected/x HEAD", "deny", "deny"),
    ("git diff --output=.git/hooks/post-commit", "ask", "ask"),
    ("git format-patch -o protected HEAD~1", "deny", "deny"),
    ("git -c core.pager=sentinel log", "deny", "deny"),
    ("git -c core.sshCommand=sentinel fetch", "deny", "deny"),
    ("git -c diff.external=sentinel diff", "deny", "deny"),
    ("git -c alias.st='!sentinel' st", "deny", "deny"),
    ("git -c diff.x.textconv=sentinel log -p", "deny", "deny"),
    ("git -c core.fsmonitor=sentinel status", "deny", "deny"),
    ("git -c filter.x.smudge=sentinel checkout .", "deny", "deny"),
    ("git -c core.hooksPath=hooks commit -m x", "deny", "deny"),
    ("git -c include.path=/tmp/cfg log", "deny", "deny"),
    ("git -c color.ui=never log", "allow", "allow"),
    ("git -c pager.log=false log", "allow", "allow"),
    ("git --exec-path=/tmp/x log", "deny", "deny"),
    ("git grep -O foo", "ask", "ask"),
    ("git grep -Osentinel foo", "deny", "deny"),
    ("git grep --open-files-in-pager=sentinel foo", "deny", "deny"),
    ("git log --ext-diff -p", "ask", "ask"),
    ("git show --textconv HEAD", "ask", "ask"),
    ("git cat-file --textconv HEAD:README.md", "ask", "ask"),
    ("git grep --no-index foo secrets", "deny", "deny"),
    ("git grep --untracked foo", "ask", "ask"),
    # `src` may be a revision, whose files are all searched (test_git_files.py); `--` or a
    # word no revision can be (`src/`, `./src`) says it is a path.
    ("git grep -n foo src", "ask", "ask"),
    ("git grep -n foo -- src", "allow", "allow"),
    ("git grep -n foo src/ ./src", "allow", "allow"),
    # A pathspec's `*` crosses `/`: `*.py` at any depth, below a denied directory too.
    ("git grep -n foo src/ ./src '*.py'", "ask", "ask"),
    ("git diff --no-index .env README.md", "deny", "deny"),
    ("git diff {outside}/data.txt .env", "deny", "deny"),
    ("git blame --contents .env README.md", "deny", "deny"),
    ("git blame .env", "deny", "deny"),
    ("git show HEAD:.env", "ask", "ask"),
    ("git cat-file -p HEAD:secrets/api.key", "ask", "ask"),
    ("git log -p -- secrets", "ask", "ask"),
    ("git config user.email x@y", "ask", "ask"),
    ("git -C src config user.email x@y", "ask", "ask"),
    ("git config --global core.pager sentinel", "deny", "deny"),
    ("git config --get user.email", "allow", "allow"),
    ("git config --list", "allow", "allow"),
    ("git config -f .env --list", "deny", "deny"),
    ("git archive -o protected/a.tar HEAD", "deny", "deny"),
    ("git archive --remote=origin --exec=sentinel HEAD", "deny", "deny"),
    ("git bundle create protected/b HEAD", "deny", "deny"),
    ("git notes add -m x", "ask", "allow"),
    ("git remote add up https://example.com/r", "ask", "ask"),
    ("git submodule add https://example.com/r lib", "ask", "ask"),
    ("git worktree add ../wt", "ask", "ask"),
    ("git init sub", "ask", "ask"),
    ("git clone https://example.com/r.git", "ask", "ask"),
    ("git clone --config core.fsmonitor=sentinel https://example.com/r", "deny", "deny"),
    ("git clone --template=/tmp/t https://example.com/r", "deny", "deny"),
    ("git rebase --exec sentinel main", "deny", "deny"),
    ("git bisect run sentinel", "deny", "deny"),
    ("git submodule foreach sentinel", "deny", "deny"),
    ("git commit -F .env", "deny", "deny"),
    ("git fetch --upload-pack=sentinel origin", "deny", "deny"),
    # pytest: options that write, delete, or load code from elsewhere.
    ("pytest -q", "ask", "allow"),
    ("python -m pytest -q tests", "ask", "allow"),
    ("pytest -p no:cacheprovider -q", "ask", "allow"),
    ("pytest --junitxml=protected/r.xml", "deny", "deny"),
    ("pytest --junit-xml=.git/r.xml", "ask", "ask"),
    ("py.test --basetemp=protected", "deny", "deny"),
    ("pytest --basetemp=/tmp/bt", "ask", "ask"),
    ("python -m pytest --basetemp=.claude", "ask", "ask"),
    ("pytest -p evil_plugin", "deny", "deny"),
    ("pytest -o cache_dir=/tmp/c", "deny", "deny"),
    ("python -m pytest --override-ini=addopts=-pevil", "deny", "deny"),
    ("pytest --rootdir=/tmp", "deny", "deny"),
    ("pytest --confcutdir=/", "deny", "deny"),
    ("pytest -c /tmp/pytest.ini", "deny", "deny"),
    ("pytest --debug=protected/d.log", "deny", "deny"),
    ("pytest --report-log=protected/r.json", "deny", "deny"),
    ("pytest --pastebin=all", "deny", "deny"),
    ("pytest --pdbcls=evilmod:X --pdb", "deny", "deny"),
    ("pytest --pdbcls evilmod:X --trace", "deny", "deny"),
    ("pytest --pdbc=evilmod:X --pdb", "deny", "deny"),
    ("python -m pytest --tx popen//python=./evil -n 1", "deny", "deny"),
    ("pytest --px id=p//socket=127.0.0.1:1 -q", "deny", "deny"),
    ("pytest --cache-clear", "ask", "allow"),
    # Options whose value is a file read, or a file naming the files read.
    ("jq -r .name package.json", "allow", "allow"),
    ("jq --rawfile k .env . a.json", "deny", "deny"),
    ("jq --slurpfile k secrets/x.json . a.json", "deny", "deny"),
    ("jq --arg k .env '.a' a.json", "allow", "allow"),
    ("jq -f .env a.json", "deny", "deny"),
    ("jq --from-file secrets/q.jq a.json", "deny", "deny"),
    # -L is where imports are looked for (jq_program.py): reads of what they import.
    ("jq -L /tmp/mods . a.json", "allow", "allow"),
    ("jq -L /tmp/mods 'import \"m\" as $m; $m' a.json", "ask", "ask"),
    ("jq -L secrets 'include \"m\"; .' a.json", "deny", "deny"),
    ("file -m .env README.md", "deny", "deny"),
    ("file -f names.txt", "ask", "ask"),
    ("file -C -m magic", "ask", "ask"),
    ("wc --files0-from=names", "ask", "ask"),
    ("du --files0-from=names", "ask", "ask"),
    ("sort --files0-from=names", "ask", "ask"),
    ("tar -cf out.tar -T names.txt", "ask", "ask"),
    ("rsync --files-from=names.txt . /tmp/x", "ask", "ask"),
    ("grep -f .env README.md", "deny", "deny"),
    ("grep -f patterns.txt README.md", "allow", "allow"),
    ("diff --from-file=.env README.md", "deny", "deny"),
    ("diff --to-file=secrets/api.key README.md", "deny", "deny"),
    ("sha256sum -c sums.txt", "ask", "ask"),
    ("md5sum --check sums.txt", "ask", "ask"),
    ("xargs -a .env echo", "deny", "deny"),
    ("date -f .env", "deny", "deny"),
    ("date -r secrets/api.key", "deny", "deny"),
    ("date -s now", "ask", "ask"),
    ("cmp .env README.md", "deny", "deny"),
    ("strings .env", "deny", "deny"),
    ("od -c secrets/api.key", "deny", "deny"),
    ("hexdump -C .env", "deny", "deny"),
    ("base64 .env", "deny", "deny"),
    ("xxd .env", "deny", "deny"),
    ("head -n 1 secre*/api.key", "deny", "deny"),  # matches secrets/api.key on disk
    # Options and positionals that write.
    ("sort -o out.txt README.md", "ask", "allow"),
    ("sort --output=protected/x README.md", "deny", "deny"),
    ("sort -S 1k --compress-program=sentinel README.md", "deny", "deny"),
    ("uniq README.md out.txt", "ask", "ask"),
    ("uniq README.md protected/x", "deny", "deny"),
    ("xxd -r dump protected/bin", "deny", "deny"),
    ("echo x | tee protected/x", "deny", "deny"),
    ("split -l 1 README.md protected/p", "deny", "deny"),
    ("csplit -f protected/p README.md 2", "deny", "deny"),
    ("tree -o protected/t", "deny", "deny"),
    ("tree -R -H . src", "ask", "ask"),
    # Archivers and copiers: extraction, programs they run, recursive reads.
    ("tar -xf a.tar", "ask", "ask"),
    ("tar -xf a.tar -C protected", "ask", "ask"),
    ("tar --to-command=sentinel -xf a.tar", "deny", "deny"),
    ("tar -I sentinel -cf x.tar src", "deny", "deny"),
    ("tar --use-compress-program=sentinel -cf x.tar src", "deny", "deny"),
    ("tar --checkpoint-action=exec=sentinel -cf /dev/null src", "deny", "deny"),
    ("tar czf x.tgz secrets", "deny", "deny"),
    ("tar -cf {outside}/x.tar .", "ask", "ask"),
    ("zip -TT sentinel x.zip README.md", "deny", "deny"),
    ("zip --unzip-command=sentinel -T x.zip README.md", "deny", "deny"),
    ("zip -r x.zip secrets", "deny", "deny"),
    ("rsync -e sentinel src/ host:dst", "deny", "deny"),
    ("rsync --rsh=sentinel src/ host:dst", "deny", "deny"),
    ("cp -r secrets {outside}/s", "deny", "deny"),
    ("cp -r . {outside}/s", "ask", "ask"),
    ("diff -r . {outside}", "ask", "ask"),
    ("du -a .", "ask", "ask"),
    ("du -sh .", "allow", "allow"),
    # Recursive searches: asked when a deny rule could match below, denied when all of it is.
    ("grep -rn foo src", "allow", "allow"),
    ("grep -rn foo .", "ask", "ask"),
    ("grep -R foo src", "ask", "ask"),
    ("grep -d recurse foo .", "ask", "ask"),
    ("grep --directories=recurse foo .", "ask", "ask"),
    ("grep --dir=recurse foo .", "ask", "ask"),
    ("grep -d skip foo README.md", "allow", "allow"),
    ("grep --recursive foo secrets", "deny", "deny"),
    ("rg foo src", "allow", "allow"),
    ("rg foo", "ask", "ask"),
    ("rg foo secrets", "deny", "deny"),
    ("rg --follow foo src", "ask", "ask"),
    ("rg --pre sentinel foo src", "deny", "deny"),
    ("rg --pre=sentinel --pre-glob '*.gz' foo src", "deny", "deny"),
    ("rg -z foo src", "ask", "allow"),
    ("ack foo secrets", "deny", "deny"),
    ("ag foo .", "ask", "ask"),
    ("git grep foo", "ask", "ask"),
    # Pagers, editors, manuals and remote shells that run commands.
    ("less +'!sentinel' README.md", "deny", "deny"),
    ("man -P sentinel ls", "deny", "deny"),
    ("man --pager=sentinel ls", "deny", "deny"),
    ("vim -c '!sentinel' README.md", "deny", "deny"),
    ("ssh -o ProxyCommand=sentinel host", "deny", "deny"),
    ("ssh -oLocalCommand=sentinel -oPermitLocalCommand=yes host", "deny", "deny"),
    ("ssh -F cfg host", "deny", "deny"),
    ("scp -S sentinel a host:b", "deny", "deny"),
    ("mapfile -C 'sentinel #' -c 1 lines", "deny", "deny"),
    # An option tether does not know makes a read-only program not read-only.
    ("cat --bogus README.md", "ask", "ask"),
    ("head --follow README.md", "ask", "ask"),
    ("wc --frobnicate README.md", "ask", "ask"),
    ("grep --frob foo README.md", "ask", "ask"),
    ("sort --random-source=/dev/urandom README.md", "allow", "allow"),  # a read
    ("sort --random-source=.env README.md", "deny", "deny"),
    ("cat -A README.md", "allow", "allow"),
    ("ls -la --color=never", "allow", "allow"),
]


@pytest.mark.parametrize(("command", "alone", "allowed"), CASES, ids=[c[0][:60] for c in CASES])
def test_program_options(
    command: str, alone: str, allowed: str, make_ctx: ContextFactory, tree: Tree
) -> None:
    cmd = tree.fill(command)
    ctx = make_ctx({"permissions": {"deny": DENY}})
    with_allow = make_ctx({"permissions": {"deny": DENY, "allow": ALLOW}})
    got = (decide("Bash", {"command": cmd}, ctx), decide("Bash", {"command": cmd}, with_allow))
    assert (got[0].behavior, got[1].behavior) == (alone, allowed), got


def test_plain_reads_stay_read_only_in_plan_mode(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENY}}, mode="plan")
    for command in ("sed -n 1,5p README.md", "git log -p", "grep -rn foo src", "jq . a.json"):
        assert decide("Bash", {"command": command}, ctx).behavior == "allow", command
    for command in ("sed -n 'w out' README.md", "git log --output=x", "sort -o x README.md"):
        assert decide("Bash", {"command": command}, ctx).behavior == "deny", command


def test_every_read_only_program_lists_its_options() -> None:
    """The rule behind the table: a read-only program that takes files says which options it
    knows, so that any other one makes it not read-only."""
    loose = [
        name
        for name, spec in COMMANDS.items()
        if spec.read_only and spec.files != "none" and spec.known_options is None
    ]
    assert sorted(loose) == ["df", "ls", "nl"]


# --- What the real programs do, where the meaning is not obvious --------------------------


def _run(args: list[str], cwd: Path) -> None:
    subprocess.run(args, cwd=cwd, check=True, capture_output=True, timeout=30)


@pytest.mark.skipif(shutil.which("sed") is None, reason="needs sed")
def test_sed_file_names_run_to_the_end_of_the_line(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a\n")
    script = "w out; p"
    _run(["sed", "-n", script, "f"], tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "out; p"]
    assert program_use(("sed", "-n", script, "f")) == ProgramUse(reads=("f",), writes=("out; p",))


@pytest.mark.skipif(shutil.which("sed") is None, reason="needs sed")
def test_sed_append_text_swallows_the_next_expression(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a\n")
    _run(["sed", "-n", "-e", "a\\", "-e", "w out", "f"], tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]
    assert program_use(("sed", "-n", "-e", "a\\", "-e", "w out", "f")) == ProgramUse(reads=("f",))


@pytest.mark.skipif(shutil.which("awk") is None, reason="needs awk")
def test_awk_comparison_reads_and_print_redirection_writes(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("1 2\n")
    _run(["awk", "$1 > 0 {print}", "f"], tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]
    _run(["awk", '{print $1 > "o"}', "f"], tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "o"]
    assert program_use(("awk", "$1 > 0 {print}", "f")) == ProgramUse(reads=("f",))
    assert program_use(("awk", '{print $1 > "o"}', "f")) == ProgramUse(
        reads=("f",), unseen=("the awk program redirects its output to a file (`>`)",)
    )


@pytest.mark.skipif(shutil.which("uniq") is None, reason="needs uniq")
def test_uniq_writes_its_second_file(tmp_path: Path) -> None:
    (tmp_path / "in").write_text("a\na\n")
    _run(["uniq", "in", "out"], tmp_path)
    assert (tmp_path / "out").read_text() == "a\n"
    assert program_use(("uniq", "in", "out")) == ProgramUse(reads=("in",), writes=("out",))


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
def test_jq_rawfile_reads_its_second_value(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("s3cret")
    out = subprocess.run(
        ["jq", "-n", "--rawfile", "k", "secret", "$k"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert "s3cret" in out.stdout
    assert program_use(("jq", "-n", "--rawfile", "k", "secret", "$k")) == ProgramUse(
        reads=("secret",)
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_grep_open_files_in_pager_runs_the_attached_program(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    program = tmp_path / "pager"
    program.write_text(f'#!/bin/sh\necho "$@" > {marker}\n')
    program.chmod(0o755)
    repo = tmp_path / "repo"
    repo.mkdir()
    _run(["git", "init", "-q"], repo)
    (repo / "a.txt").write_text("alpha\n")
    _run(["git", "add", "a.txt"], repo)
    _run(["git", "grep", f"-O{program}", "alpha"], repo)
    assert marker.read_text() == "a.txt\n"
    assert program_use(("git", "grep", f"-O{program}", "alpha")) == ProgramUse(
        reads=(".",),
        recursive=True,
        runs=(str(program),),
        shows_unknown=True,
        changes=False,
        finds_repository=".",
    )


@pytest.mark.parametrize(
    "command",
    ["jq --slurp . .env", "jq -R --slurp . .env", "jq --raw-input --slurp . ./.env"],
)
def test_an_exact_flag_is_no_abbreviation_of_a_valued_option(
    command: str, make_ctx: ContextFactory
) -> None:
    """`--slurp` is a flag of jq's, not `--slurpfile` abbreviated: the file after it is read."""
    settings = {"permissions": {"allow": ["Bash(jq *)"], "deny": DENY}}
    verdict = decide("Bash", {"command": command}, make_ctx(settings))
    assert verdict.behavior == "deny", (command, verdict.reason)
