"""The wrapper table, as data: programs that run the command given after their options
(`timeout 5 CMD`, `chrt -o 0 CMD`, `sudo -u x CMD`), with their option grammar
(wrapper_options.py). An option missing here is not understood, and the command is asked.

Only grammars checked against the programs themselves belong here: a wrong one would take a
value for the command or the command for a value. Programs not listed are judged as unknown
(bash_policy tries deny rules on every tail of their words).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tether.permissions.wrapper_options import WrapperSpec
from tether.permissions.wrapper_options import names as _s

_NUMBER = re.compile(r"-?[0-9]+")
_CPU_MASK = re.compile(r"(?:0x)?[0-9a-fA-F]+|[0-9,:\-]+")

_CORE: Mapping[str, WrapperSpec] = {
    "timeout": WrapperSpec(
        flags="v",
        valued="sk",
        long_flags=_s("--preserve-status", "--foreground", "--verbose"),
        long_valued=_s("--signal", "--kill-after"),
        leading_positionals=1,
    ),
    "time": WrapperSpec(
        flags="pvaq",
        valued="fo",
        long_valued=_s("--format", "--output"),
        writes=_s("-o", "--output"),
    ),
    "nice": WrapperSpec(valued="n", long_valued=_s("--adjustment"), numeric=True),
    # nohup writes nohup.out only when its output is a terminal, which a Bash tool's is not.
    "nohup": WrapperSpec(),
    # e2fsprogs: `logsave [-asv] LOGFILE PROGRAM...` appends or writes the log.
    "logsave": WrapperSpec(flags="asv", leading_positionals=1, positionals_written=True),
    # sshpass runs the ssh-family command after its options, typing the password for it.
    "sshpass": WrapperSpec(flags="evhV", valued="pfdP", reads=_s("-f"), no_command=_s("-h", "-V")),
    "env": WrapperSpec(
        flags="i0v",
        valued="uCS",
        long_flags=_s("--ignore-environment", "--null", "--debug"),
        long_valued=_s("--unset", "--chdir", "--split-string"),
        assignments=True,
        unsupported=_s("-C", "--chdir"),
        unsets=_s("-u", "--unset"),
        clears=_s("-i", "--ignore-environment"),
    ),
    "command": WrapperSpec(flags="pvV", no_command=_s("-v", "-V")),
    "builtin": WrapperSpec(),
    "exec": WrapperSpec(flags="cl", valued="a", clears=_s("-c")),
    "stdbuf": WrapperSpec(valued="ioe", long_valued=_s("--input", "--output", "--error")),
    "ionice": WrapperSpec(flags="t", valued="cnpPu", no_command=_s("-p", "-P", "-u")),
    "setsid": WrapperSpec(flags="cfw", long_flags=_s("--ctty", "--fork", "--wait")),
    "busybox": WrapperSpec(),
    "coproc": WrapperSpec(),
    "sudo": WrapperSpec(
        role="privileged",
        flags="AbEHKklnPSsivVeh",
        valued="ugCDprtUTR",
        long_flags=_s("--preserve-env", "--login", "--shell", "--non-interactive", "--stdin")
        | _s("--background", "--askpass", "--set-home", "--reset-timestamp", "--edit")
        | _s("--remove-timestamp", "--preserve-groups", "--bell", "--list", "--validate")
        | _s("--version", "--help"),
        long_valued=_s("--user", "--group", "--close-from", "--chdir", "--prompt", "--role")
        | _s("--type", "--other-user", "--command-timeout", "--chroot", "--host"),
        assignments=True,
        no_command=_s("-l", "-v", "-V", "-e", "-h", "-K", "--list", "--validate", "--version")
        | _s("--edit", "--help", "--remove-timestamp"),
        unsupported=_s("-D", "--chdir", "-R", "--chroot"),
        shell_code=_s("-s", "-i", "--shell", "--login"),
    ),
    "doas": WrapperSpec(role="privileged", flags="ns", valued="uC", no_command=_s("-C", "-s")),
    "pkexec": WrapperSpec(
        role="privileged",
        long_flags=_s("--disable-internal-agent", "--keep-cwd"),
        long_valued=_s("--user"),
    ),
}

WRAPPERS: Mapping[str, WrapperSpec] = {
    **_CORE,
    # util-linux (2.38): scheduling, limits, privileges, namespaces.
    "chrt": WrapperSpec(
        flags="bdfiorRav",
        valued="TPD",
        long_flags=_s("--batch", "--deadline", "--fifo", "--idle", "--other", "--rr")
        | _s("--reset-on-fork", "--all-tasks", "--max", "--pid", "--verbose", "--help")
        | _s("--version"),
        long_valued=_s("--sched-runtime", "--sched-period", "--sched-deadline"),
        leading_positionals=1,
        positional_shape=_NUMBER,
        no_command=_s("-p", "--pid", "-m", "--max", "--help", "--version"),
    ),
    "taskset": WrapperSpec(
        flags="acp",
        long_flags=_s("--all-tasks", "--cpu-list", "--pid", "--help", "--version"),
        leading_positionals=1,
        positional_shape=_CPU_MASK,
        no_command=_s("-p", "--pid", "--help", "--version"),
    ),
    "prlimit": WrapperSpec(
        # The limits take an optional value, attached only (`-n64`, `--nofile=64`).
        valued="cdefilmnqrstuvxyop",
        attached_only="cdefilmnqrstuvxy",
        long_flags=_s("--core", "--data", "--nice", "--fsize", "--sigpending", "--memlock")
        | _s("--rss", "--nofile", "--msgqueue", "--rtprio", "--stack", "--cpu", "--nproc")
        | _s("--as", "--locks", "--rttime", "--noheadings", "--raw", "--verbose", "--help")
        | _s("--version"),
        long_valued=_s("--pid", "--output"),
        no_command=_s("-p", "--pid", "--help", "--version"),
    ),
    "setpriv": WrapperSpec(
        flags="d",
        long_flags=_s("--nnp", "--no-new-privs", "--clear-groups", "--keep-groups")
        | _s("--init-groups", "--reset-env", "--dump", "--help", "--version"),
        long_valued=_s("--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid")
        | _s("--rgid", "--egid", "--reuid", "--regid", "--groups", "--securebits")
        | _s("--pdeathsig", "--selinux-label", "--apparmor-profile"),
        no_command=_s("-d", "--dump", "--help", "--version"),
        clears=_s("--reset-env"),
    ),
    "unshare": WrapperSpec(
        flags="frc",
        valued="muinpUCTRwSG",
        attached_only="muinpUCT",
        long_flags=_s("--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup")
        | _s("--time", "--fork", "--map-root-user", "--map-current-user", "--map-auto")
        | _s("--kill-child", "--mount-proc", "--keep-caps", "--help", "--version"),
        long_valued=_s("--map-user", "--map-group", "--map-users", "--map-groups")
        | _s("--propagation", "--setgroups", "--root", "--wd", "--setuid", "--setgid")
        | _s("--monotonic", "--boottime"),
        # Another root or directory: the command's program and files are elsewhere.
        unsupported=_s("-R", "--root", "-w", "--wd"),
        no_command=_s("--help", "--version"),
        default_shell=True,
        # `--mount=FILE`: the namespace is kept by mounting it over FILE.
        writes=_s("-m", "-u", "-i", "-n", "-p", "-U", "-C", "-T")
        | _s("--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time"),
    ),
    "nsenter": WrapperSpec(
        # Another process's namespaces: its files and programs are not the ones judged here.
        role="privileged",
        flags="aFZ",
        valued="muipCUTnrwtSGW",
        attached_only="muipCUTnrw",
        long_flags=_s("--all", "--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup")
        | _s("--user", "--time", "--root", "--wd", "--no-fork", "--preserve-credentials")
        | _s("--follow-context", "--help", "--version"),
        long_valued=_s("--target", "--setuid", "--setgid", "--wdns"),
        unsupported=_s("-r", "--root", "-w", "--wd", "-W", "--wdns"),
        no_command=_s("--help", "--version"),
        default_shell=True,
    ),
    "fakeroot": WrapperSpec(
        flags="uhv",
        valued="lisb",
        long_flags=_s("--unknown-is-real", "--help", "--version"),
        long_valued=_s("--lib", "--faked"),
        unsupported=_s("-l", "--lib", "--faked"),
        no_command=_s("-h", "--help", "-v", "--version"),
        default_shell=True,
        # The fake ownership state: saved to `-s FILE` at the end (truncated at the start),
        # loaded from `-i FILE`.
        writes=_s("-s"),
        reads=_s("-i"),
    ),
}
