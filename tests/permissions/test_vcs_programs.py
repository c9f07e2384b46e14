"""svn, hg and cvs judged as git is (vcs_programs.py): the options and variables naming a
program they run are that program, judged as typed (`svn diff --diff-cmd CMD`, `hg extdiff -p
CMD`, `hg bisect -c CMD`, `hg merge --tool CMD`, `cvs -e CMD`, `HGEDITOR`, `CVSEDITOR`,
`CVS_SERVER`); a repository or configuration outside the workspace (`hg -R DIR`, `hg --cwd
DIR`, `HGRCPATH`, a local cvs root, an svn `file://` URL) is asked as `git -C DIR` is; what
svn and svnadmin write outside the workspace is asked as a write."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

PROGRAMS = ("hg", "svn", "svnadmin", "cvs", "svnmucc", "svnsync", "svnrdump", "svnlook", "svnserve")
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in PROGRAMS],
        "deny": ["Bash(curl *)", "Read(**/.env)"],
    }
}
ALLOWING = {"permissions": {"allow": RULES["permissions"]["allow"]}}


@pytest.mark.parametrize(
    "command",
    [
        "svn diff --diff-cmd curl",
        "svn diff --diff-cmd=curl",
        "svn merge --diff3-cmd curl ^/trunk",
        "svn commit --editor-cmd curl",
        "svn propedit --editor-cmd=curl svn:log .",
        "hg extdiff -p curl",
        "hg extdiff --program=curl",
        "hg extd --prog curl",
        "hg bisect --command curl",
        "hg bisect -c curl",
        "hg -R . bisect -ccurl",
        "hg merge --tool curl",
        "hg up -t curl tip",
        "HGEDITOR=curl hg commit",
        "export HGEDITOR=curl; hg commit",
        "HGMERGE=curl hg merge",
        "CVSEDITOR=curl cvs commit",
        "export CVSEDITOR=curl; cvs commit",
        "CVS_SERVER=curl cvs -d :fork:/r co x",
        "export CVS_SERVER=curl; cvs -d :fork:/r co x",
        "cvs -e curl commit",
        "cvs -Qe curl commit",
        'cvs -d ":ext;CVS_RSH=curl:h:/r" co m',
        'cvs -d ":ext;cvs_server=curl:h:/r" co m',
        "SVN_MERGE=curl svn resolve",
        "svn commit .env",
        "svn cat .env",
        "svn cat -r BASE .env",
        "svn cat .env@BASE",
        "svn diff .env",
        "svn di --old=.env@HEAD --new=src",
        "svn blame .env",
        "hg cat .env",
        "hg cat -r tip .env",
        "hg -q cat -qr tip .env",
        "hg diff -r 0 .env",
        "hg annotate .env",
        "hg blame -r 2 .env",
        "hg ann .env",
        "hg grep KEY .env",
        "hg diff -I .env",
        "svn log --diff .env",
        "svn export .env pub.txt",
        "svn export -r BASE .env",
        "svnmucc put .env https://h/r/x -m m",
        "svnmucc -m m propsetf p .env https://h/r/x",
        "svnmucc -F .env mkdir https://h/r/x",
        "svnrdump load https://h/r -F .env",
        "svnserve -d --config-file .env",
        "hg commit -e --config ui.editor=curl",
        "hg pull -e curl",
        "hg pull --ssh=curl",
        "hg --repos . pull -e curl ssh://h/r",
        "hg --cw . pull -e curl ssh://h/r",
        "hg --conf ui.quiet=1 extdiff -p curl",
        "hg --encod utf-8 pull -e curl ssh://h/r",
        "hg --col never pull -e curl ssh://h/r",
        "hg --pag no pull -e curl ssh://h/r",
        "hg -qv --rep . extdiff -p curl",
        "hg co -t curl 3",
        "hg co --tool curl 3",
        "hg chec -t curl 3",
        "hg resolve -at curl",
        "hg pull --rebase -t curl",
        "hg fetch -e curl ssh://h/r",
        "hg transplant --filter curl -s ../r tip",
    ],
)
def test_programs_they_name_meet_the_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "hg -R {outside} log",
        "hg --repository={outside} log",
        "hg --repo {outside} log",
        "hg --cwd {outside} status",
        "hg log -R {outside}",
        "hg -R{outside} log",
        "hg -qR {outside} status",
        "hg -yqR{outside} status",
        "hg --repos {outside} status",
        "hg log -vR {outside}",
        "HGRCPATH={outside}/rc hg status",
        # hg opens a local peer as a repository: its hgrc loaded, its hooks run.
        "cd {outside} && hg status",
        "cd {outside}; hg log",
        "hg pull {outside}/r",
        "hg pull file://{outside}/r",
        "hg pull file:{outside}/r",
        "hg pull -r tip {outside}/r#default",
        "hg pul -qB main {outside}/r",
        "hg incoming {outside}/r",
        "hg in -l 3 {outside}/r",
        "hg push {outside}/r",
        "hg outgoing {outside}/r",
        "hg identify file://localhost{outside}/r",
        "hg clone {outside}/r {ws}/c",
        "hg clone ~/r c",
        "hg clone -u tip ../r c",
        "hg share {outside}/r c",
        "hg bundle --all b.hg {outside}/r",
        "hg pull bundle:{outside}/r+b.hg",
        # What they write there.
        "hg clone https://h/r {outside}/c",
        "hg init {outside}/n",
        "hg id -b {outside}/r",
        "hg id --branch {outside}/r",
        "hg identify -nb {outside}/r",
        "hg id -tB {outside}/r",
        "hg archive --include src {outside}/a.tgz",
        "hg archive --exclude=x -I src {outside}/a.tgz",
        "hg pull file://{ws}/%2e%2e/outside/r",
        "hg id file://{ws}/%2E%2E/outside/r",
        "hg pull bundle:{ws}/%2e%2e/outside/r+b.hg",
        "svnsync sync file://{ws}/%2E%2E/outside/r",
        "svnmucc -U file://{ws}/%2E%2E/outside/r mkdir x",
        "svn log file://{ws}/%2e%2e/outside/r",
        "hg bundle --all {outside}/b.hg",
        "hg archive {outside}/a.tgz",
        "hg export -o {outside}/p.patch tip",
        "hg export --out={outside}/p.patch",
        "hg cat -qo {outside}/f src/app.py",
        "hg incoming --bundle {outside}/x.hg https://h/r",
        "export HGRCPATH={outside}/rc; hg status",
        "cvs -d {outside}/r init",
        "cvs -d{outside}/r commit",
        "cvs -d :local:{outside}/r commit",
        "cvs -d :fork:{outside}/r commit",
        "export CVSROOT={outside}/r; cvs import m v t",
        "CVSROOT=:local:{outside}/r cvs commit",
        "cvs -d ~/cvsroot co m",
        'cvs -d "$HOME/cvsroot" co m',
        "CVSROOT=~/cvsroot cvs co m",
        "cvs -d :local:~/r co m",
        "cvs -d ../r co m",
        "cvs -d homelink/r co m",
        "cvs -Qd {outside}/r co m",
        "cvs -qd:local:{outside}/r co m",
        "svn checkout file://{outside}/r wc",
        "svn log file://{outside}/r",
        "svn import . file://{outside}/r -m x",
        "svn export . {outside}/x",
        "svn commit {outside}/wc",
        "svn up ..",
        "svnadmin create {outside}/r",
        "svnadmin hotcopy repo {outside}/r",
        "svnadmin dump {outside}/r",
        "svnmucc -U file://{outside}/r mkdir x",
        "svnmucc -Ufile://{outside}/r mkdir x",
        "svnmucc --root-url=FILE://{outside}/r mkdir x",
        "svnmucc -m m cp 3 https://h/r/a file://{outside}/r/b",
        "svnrdump load file://{outside}/r",
        "svnrdump dump https://h/r -F {outside}/d",
        "svnsync init file://{outside}/r https://h/r",
        "svnsync sync file://localhost{outside}/r",
        "svnlook log {outside}/r",
        "svnlook cat ~/r trunk/x",
        "svnserve -d",
        "svnserve -i -r {outside}/r",
        "svnserve -d -r repos --log-file {outside}/log",
    ],
)
def test_places_outside_the_workspace_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(ALLOWING))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    ["hg export -o .env tip", "hg export --output=.env tip", "hg cat -o .env src/app.py"],
)
def test_what_hg_writes_meets_the_edit_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {**RULES["permissions"], "deny": ["Edit(**/.env)"]}}
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(rules))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "hg -R {outside} log",
        "hg --cwd {outside} status",
        "hg pull {outside}/r",
        "cd {outside} && hg status",
        "cvs -d :local:{outside}/r commit",
        "export CVSROOT={outside}/r; cvs import m v t",
        "svn log file://{outside}/r",
        "git -C {outside} log",
    ],
)
def test_a_repository_outside_meets_the_deny_rules_as_gits_does(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """Its configuration and hooks are code not seen: any deny rule may match what they run."""
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "hg update -c",
        "hg extdiff -c 3",
        "hg merge --tool :merge3",
        "hg resolve -t internal:local -a",
        "hg -R sub log",
        "hg -qR sub log",
        "hg -v --conf ui.quiet=1 log -k Remove",
        "hg co -C tip",
        "hg ci -m 'Remove x'",
        "hg --cwd src status",
        "hg commit -e -m x",
        "hg pull",
        "hg pull default",
        "hg pull -u https://h/r",
        "hg push ssh://h/r",
        "hg push -r . ../ws/sub",
        "hg clone https://h/r c",
        "hg clone . ../ws/copy",
        "hg init",
        "hg init ssh://h/r",
        "hg in",
        "hg cat -r tip src/app.py",
        "hg annotate -r 1 README.md",
        "hg id -b",
        "hg id -nibtB https://h/r",
        "hg pull file://{ws}/sub%20dir",
        "cd src && hg status",
        "svn diff",
        "svn diff src",
        "svn cat src/app.py",
        "svn log -l 5 src",
        "svn blame README.md",
        "svn commit -m x .",
        "svn commit -m x src",
        "svn propset svn:ignore build .",
        "svn export https://h/r/trunk out",
        "svn checkout https://h/r/trunk wc",
        "svnadmin create repo",
        "svnmucc -U https://h/r mkdir x -m m",
        "svnmucc put README.md https://h/r/README.md -m m",
        "svnrdump dump https://h/r -F dump.svn",
        "svnsync sync https://h/r",
        "svnlook youngest repo",
        "svnserve -d -r repo",
        "svnserve --version",
        "cvs up",
        "cvs -d :pserver:u@h:/r co m",
        "cvs -Qz3 -d :pserver:u@h:/r co m",
        "cvs -d {ws}/cvsroot commit -m x",
    ],
)
def test_ordinary_uses_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
