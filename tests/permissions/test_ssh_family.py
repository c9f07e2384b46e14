"""ssh-family programs that name their hosts their own way, or in their own files, as the
`ssh HOST` they start: a rule denying ssh holds for them in every mode. parallel's `$PARALLEL`
and `~/.parallel/config`, `sem`, unison profiles, `lftp -f` scripts, restic's repository
files and rclone repositories, podman and libvirt over ssh, xpra, sshuttle, fabric, pyinfra,
salt-ssh, rdiff-backup and the parallel shells (pssh, pdsh, dsh, clush)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

MODES = ("default", "bypassPermissions")
PROGRAMS = ("parallel", "sem", "unison", "lftp", "restic", "podman", "virsh", "virt-install")
PROGRAMS += ("xpra", "sshuttle", "fab", "pyinfra", "salt-ssh", "rdiff-backup", "pssh")
PROGRAMS += ("parallel-ssh", "pdsh", "dsh", "clush", "echo")
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in PROGRAMS],
        "deny": ["Bash(ssh *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        'PARALLEL="-S h" parallel echo ::: 1',
        "PARALLEL='--sshlogin=u@h' parallel echo ::: 1",
        "parallel echo ::: 1",  # ~/.parallel/config
        "parallel -J remote echo ::: 1",  # ~/.parallel/remote
        "sem -S h echo 1",
        "unison myprof",
        "unison myprof.prf -batch",
        "unison inc",  # a profile that includes another
        "unison . rsh://h//x",
        "lftp -f script.lftp",
        "lftp -f /dev/stdin <<< 'open sftp://h'",
        "restic --repository-file repo.txt snapshots",
        "RESTIC_REPOSITORY_FILE=repo.txt restic snapshots",
        "restic -r rclone:r:x snapshots",
        "podman --url ssh://h/run/podman.sock ps",
        "podman --url=ssh://u@h:22/run/podman.sock ps",
        "CONTAINER_HOST=ssh://h podman ps",
        "podman --connection prod ps",
        "virsh -c qemu+ssh://h/system list",
        "virsh --connect=qemu+libssh2://u@h/system list",
        "LIBVIRT_DEFAULT_URI=qemu+ssh://h/system virsh list",
        "virt-install --connect qemu+ssh://h/system --name x",
        "xpra attach ssh://h/",
        "xpra attach ssh:u@h:100",
        "sshuttle -r h 0/0",
        "sshuttle --remote=u@h:22 0/0",
        "fab -H h evil",
        "fab --hosts=a,h evil",
        "pyinfra h exec -- id",
        "pyinfra inventory.py deploy.py",
        "salt-ssh '*' test.ping",
        "rdiff-backup . h::/x",
        "pssh -H h id",
        "pssh -h hosts.txt id",
        "parallel-ssh -H h id",
        "pdsh -w h id",
        "pdsh -wh id",
        "dsh -m h id",
        "dsh -a id",
        "clush -w h id",
        "clush -g web id",
    ],
)
def test_ssh_family_meets_the_rule_on_ssh(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.home / ".parallel").mkdir()
    (tree.home / ".parallel" / "config").write_text("# hosts\n-S h\n")
    (tree.home / ".parallel" / "remote").write_text("--sshlogin u@h\n")
    (tree.home / ".unison").mkdir()
    (tree.home / ".unison" / "myprof.prf").write_text("root = .\nroot = ssh://h//x\n")
    (tree.home / ".unison" / "inc.prf").write_text("include common\n")
    (tree.ws / "script.lftp").write_text("open sftp://h\nls\n")
    (tree.ws / "repo.txt").write_text("sftp:h:/x\n")
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "parallel echo ::: 1",  # no config file
        "unison myprof",  # a local profile
        "unison . /tmp/x -batch",
        "lftp -f script.lftp",
        "restic -r /srv/backup snapshots",
        "podman ps",
        "virsh list",
        "virsh -c qemu:///system list",
        "xpra attach tcp://h:10000/",
        "pyinfra @local exec -- id",
        "fab build",
        "rdiff-backup src /tmp/backup",
    ],
)
def test_local_uses_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    (tree.home / ".unison").mkdir()
    (tree.home / ".unison" / "myprof.prf").write_text("root = .\nroot = /tmp/x\n")
    (tree.ws / "script.lftp").write_text("open ftp://example.com\nls\n")
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "pdsh -w node[1-3] uptime",  # a hostlist range
        "pdsh -w @web uptime",  # a genders group
        "pdsh -w ^hosts.txt uptime",  # a file of hosts
        "pdsh -w node2 uptime",
    ],
)
def test_parallel_shell_host_lists_meet_a_rule_on_one_host(
    command: str, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(pdsh *)"], "deny": ["Bash(ssh node2 *)"]}}
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(rules, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
