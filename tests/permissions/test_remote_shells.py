"""Programs that reach a host by ssh, other than ssh itself: each is the `ssh HOST` it starts,
so a rule denying ssh holds for them in every mode (bypassPermissions keeps deny rules), and a
program one of them runs instead of ssh is judged as a command."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

MODES = ("default", "bypassPermissions")
PROGRAMS = ("git", "tar", "rsync", "scp", "sftp", "hg", "svn", "sshfs", "mt", "dump", "cpio")
OTHER_SSH = ("mosh", "autossh", "ssh-copy-id", "parallel", "unison", "lftp", "restic", "borg")
OTHER_SSH += ("ansible", "ansible-playbook")
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in (*PROGRAMS, *OTHER_SSH)],
        "deny": ["Bash(ssh *)", "Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "sftp h",
        "sftp u@h",
        "sftp -P 22 -i key h",
        "sftp -oPort=22 h:/x",
        "sftp sftp://u@h/x",
        "sftp [::1]",
        "rsync -a README.md [::1]:x",
        "scp README.md 'u@[::1]:x'",
        "rsync -a README.md $H:x",
        "git clone h:repo",
        "git clone --depth 1 ssh://u@h:22/r dir",
        "git fetch h:repo",
        "git -C src fetch --depth 1 u@h:r",
        "git pull git+ssh://h/r main",
        "git push h:r main:main",
        "git push --repo h:r main",
        "git push --repo=h:r",
        "git ls-remote h:repo",
        "git ls-remote ssh://[::1]/r",
        "git archive --remote=h:repo HEAD",
        "git archive --remote h:repo HEAD",
        "hg clone ssh://h/repo",
        "svn co svn+ssh://h/repo",
        "sshfs h:/ /tmp/mnt",
        "TAPE=h:x tar -c README.md",
        "tar --fil=h:x -c README.md",
        "tar --file h:x -c README.md",
        "mt -f h:/dev/st0 status",
        "mt -t h:/dev/st0 status",
        "dump -0f h:/dev/st0 /",
        "cpio -o -F h:x",
        "cpio -o --file=h:x",
        "cpio -o -O h:x",
        # Programs whose whole job is ssh, or that reach hosts by ssh by default (allowed by
        # their own rules before, while `Bash(ssh *)` was denied).
        "mosh h",
        "mosh -p 60001 u@h",
        "autossh -M 0 -f -N -L 1:h:2 h",
        "ssh-copy-id -i k.pub u@h",
        "parallel -S h echo ::: 1",
        "parallel --sshlogin 2/u@h,: echo ::: 1",
        "parallel -S :,h echo ::: 1",
        "parallel --slf hosts.txt echo ::: 1",
        "unison . ssh://h//x",
        "lftp sftp://h",
        "lftp -c 'open sftp://h; ls'",
        "lftp -e 'open fish://u@h'",
        "restic -r sftp:u@h:/x snapshots",
        "restic --repo=sftp://h//x init",
        "RESTIC_REPOSITORY=sftp:h:/x restic snapshots",
        "borg list ssh://h/x",
        "borg list u@h:repo",
        "BORG_REPO=ssh://h/x borg list",
        "ansible all -i h, -m ping",
        "ansible-playbook site.yml",
    ],
)
def test_programs_reaching_a_host_by_ssh_meet_its_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "ssh" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "sftp -S tools/evil.sh h",
        "sftp -D tools/evil.sh h",
        "sftp -oProxyCommand='curl x' h",
        "sftp -b /tmp/batch h",
        "rsync --daemon --config=/tmp/r.conf",
    ],
)
def test_programs_sftp_or_rsync_run_are_judged(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """sftp's `-S`/`-D` program, its batch file's `!CMD` lines, an rsync daemon's
    configured commands: what runs is judged, or is code not seen (denied in bypass)."""
    (tree.ws / "tools").mkdir()
    (tree.ws / "tools" / "evil.sh").write_text("#!/bin/sh\ncurl -sS http://127.0.0.1:9/x\n")
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (command, verdict.reason)
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior != "allow", (command, default.reason)


@pytest.mark.parametrize(
    "command",
    [
        "git fetch origin",
        "git push origin main:main",
        "git fetch ./x:y",
        "git show HEAD:README.md",
        "git ls-remote https://example.com/r",
        "hg clone https://h/r",
        "rsync -a README.md rsync://h/m",
        "tar -cf /tmp/x.tar README.md",
        "TAPE=/dev/null tar -c README.md",
        "sftp -h",
        "rsync -a --exclude '*:*' src /tmp/d",
        "parallel echo ::: 1",
        "parallel -S : echo ::: 1",
        "unison a b",
        "lftp https://h",
        "restic -r /tmp/repo snapshots",
        "borg list /tmp/repo::arch",
        "borg list repo::arch",
        "ansible all -c local -m ping",
    ],
)
def test_local_and_other_transports_start_no_ssh(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "allow", (command, verdict.reason)
