"""Host directories a container engine's bind mounts hand to the container (`docker run -v
/:/h`, `--volume=..:/p`, `--mount type=bind,src=/`): the container reads all below them,
and writes there unless the mount is read-only, as root on the host's files. Judged as a
recursive read (and a write) of each, so Read and Edit rules, the workspace's bounds and the
protected paths hold against what runs inside. A source known only as it runs may be any
directory; a bare name is a named volume, no host path, unless its local driver binds one
(`--mount type=volume,volume-opt=device=SRC`, `docker volume create --opt device=SRC`: the
bind judged where the option is given)."""

from __future__ import annotations

from dataclasses import dataclass

from tether.permissions.container_files import engine_subcommand
from tether.permissions.shell_words import HOME, is_literal, program_name

_ENGINES = frozenset({"docker", "podman", "nerdctl"})
_READ_ONLY = frozenset({"ro", "readonly"})


@dataclass(frozen=True)
class Mount:
    source: str
    """The host path as written."""
    writable: bool


def bind_mounts(argv: tuple[str, ...]) -> list[Mount]:
    """The host paths `argv` mounts into a container; empty for other programs."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in _ENGINES:
        return []
    found: list[Mount] = []
    words = argv[1:]
    if words[:2] == ("volume", "create"):
        return _volume_create(words[2:])
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        for short, long, parse in (("-v", "--volume", _volume), ("", "--mount", _mount)):
            value: str | None = None
            if word in (short, long) and word:
                value = after
            elif long and word.startswith(long + "="):
                value = word[len(long) + 1 :]
            elif short and word.startswith(short) and len(word) > len(short):
                value = word[len(short) :]
            mount = parse(value) if value else None
            if mount is not None:
                found.append(mount)
    return found


_HOST_ACCESS = (
    "--privileged",
    "--cap-add",
    "--device",
    "--volumes-from",
    *(f"{option}=host" for option in ("--pid", "--userns", "--cgroupns", "--ipc", "--uts")),
    *(f"{option}=host" for option in ("--network", "--net")),
)
"""Options with which what runs in the container reaches the host beyond its mounts (every
device and capability, the host's processes: `nsenter -t 1` is a root shell on the host; the
host's cgroups, shared memory, host name and user ids; its network: every service bound to
the host's loopback; another container's mounts, which may be any host path). A namespace
option whose value is known only as it runs may be `host`."""
_NAMESPACES = frozenset({"--pid", "--userns", "--cgroupns", "--ipc", "--uts", "--network", "--net"})
_REMOTE = ("-H", "--host", "--url")
"""Global options that send the command to another daemon (podman's `--url`): a remote one
(`ssh://`, `tcp://`) runs it on a host the sandbox and these rules do not reach; so does
podman's `--remote`, through its default connection."""
_CONTEXT = ("-c", "--context")
"""Global options naming a context: its daemon may be another host's (`default` is local)."""
_UNCONFINED = ("seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined")
"""`--security-opt` values that take away what keeps a container's root off the host."""
_SEPARATE = (*sorted(_NAMESPACES), "--security-opt", *_REMOTE, *_CONTEXT)
"""Options also written with their value as the next word."""


def host_access(argv: tuple[str, ...]) -> str | None:
    """Why a container engine's command gives the container the host itself, or None (a
    plugin it installs runs inside the daemon, as root on the host)."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in _ENGINES:
        return None
    engine = program_name(argv[0])
    if "plugin" in argv[1:] and any(w in ("install", "enable", "upgrade") for w in argv[1:]):
        return f"{engine} plugin installs code the daemon runs as root on the host"
    # `--pid host` as `--pid=host`.
    after = (*argv[2:], "")
    words = [f"{w}={n}" if w in _SEPARATE else w for w, n in zip(argv[1:], after, strict=True)]
    # The global options, before the subcommand (`-Hssh://x`: the address attached).
    end = next((i for i, w in enumerate(words) if not w.startswith("-")), len(words))
    for word in words[:end]:
        option, _, value = word.partition("=")
        if option.startswith("-H") and len(option) > 2:
            option, value = "-H", word[2:]
        if option in _CONTEXT and value != "default":
            return f"{engine} {option} {value} sends the command to that context's daemon"
        if option in _REMOTE and _remote(value):
            return f"{engine} {option} {value} runs the command on another host's daemon"
        if engine == "podman" and option in ("--remote", "-r") and value in ("", "true"):
            return f"{engine} {option} runs the command on its remote connection's host"
    for word in words:
        option, _, value = word.partition("=")
        if word.startswith(_HOST_ACCESS):
            return f"{engine} {option} gives the container the host itself"
        if option == "--security-opt" and (value in _UNCONFINED or not is_literal(value)):
            return f"{engine} --security-opt {value} gives the container the host itself"
        if option in _NAMESPACES and not is_literal(value):
            return f"{engine} {option} with a value known only as it runs may share the host's"
    return _remote_context(engine, argv[1:])


def _remote(address: str) -> bool:
    """A daemon address that is not a local socket (`unix:///run/docker.sock`, `npipe://`)."""
    return not is_literal(address) or not address.startswith(("unix://", "npipe://", "/"))


def _remote_context(engine: str, words: tuple[str, ...]) -> str | None:
    """`context create NAME --docker host=ssh://...`, `context import`: later commands run on
    the daemon the context names, another host's."""
    command, rest = engine_subcommand(words)
    named = next((w for w in rest if not w.startswith("-")), "")
    if command in ("context use", "buildx use", "builder use") and named != "default":
        # Every later command then runs on the daemon (or builder) it names: as `--context`.
        return f"{engine} {command} {named} makes later commands run on that daemon or builder"
    if command in ("buildx create", "builder create"):
        return _remote_builder(engine, rest)
    words = (*command.split(), *rest) if command else ()
    if words[:2] == ("context", "import"):
        return f"{engine} context import makes a context whose daemon may be another host's"
    if words[:2] != ("context", "create"):
        return None
    for i, word in enumerate(words):
        value = word.partition("=")[2] if word.startswith("--docker=") else ""
        if word == "--docker" and i + 1 < len(words):
            value = words[i + 1]
        for field in value.split(","):
            key, _, address = field.partition("=")
            if key == "host" and _remote(address):
                return f"{engine} context create makes later commands run on {address}"
        if word.startswith("--from"):
            return f"{engine} context create copies a context whose daemon may be remote"
    return None


_REMOTE_DRIVERS = frozenset({"remote", "kubernetes", "cloud"})


def _remote_builder(engine: str, words: tuple[str, ...]) -> str | None:
    """`buildx create --driver remote tcp://...` (or an endpoint that is another host's):
    builds then run there, with what they are sent."""
    for i, word in enumerate(words):
        option, eq, value = word.partition("=")
        if option == "--driver":
            value = value if eq else words[i + 1] if i + 1 < len(words) else ""
            if value in _REMOTE_DRIVERS or not is_literal(value):
                return f"{engine} buildx create --driver {value} builds on another host"
        elif not word.startswith("-") and "://" in word and _remote(word):
            return f"{engine} buildx create makes a builder at {word}"
    return None


def _volume(value: str) -> Mount | None:
    """`SRC:DST[:OPTIONS]`: a bind when SRC is a path (any name with a slash) or not known."""
    source, colon, rest = value.partition(":")
    if not colon or not _is_path(source):
        return None
    options = set(rest.partition(":")[2].split(","))
    return Mount(source, writable=not options & _READ_ONLY)


def _mount(value: str) -> Mount | None:
    """`type=bind,source=SRC,target=DST[,readonly]` in any order; a volume whose local
    driver binds a host path (`type=volume,volume-opt=o=bind,volume-opt=device=SRC`)."""
    fields: dict[str, str] = {}
    devices: list[str] = []
    for part in value.split(","):
        key, _, field = part.strip("\"'").partition("=")
        fields[key] = field
        if key == "volume-opt":
            devices += _device(field)
    writable = not (_READ_ONLY & set(fields)) and fields.get("readonly") not in ("true", "1")
    if devices:
        return Mount(devices[0], writable=writable)
    source = fields.get("source") or fields.get("src")
    if fields.get("type", "volume") != "bind" or not source:
        return None
    return Mount(source, writable=writable)


def _device(option: str) -> list[str]:
    """The host path a local volume driver's option mounts (`device=/x`); one known only as
    it runs may be that option."""
    if not is_literal(option):
        return [option]
    key, _, value = option.partition("=")
    return [value] if key == "device" and value else []


def _volume_create(words: tuple[str, ...]) -> list[Mount]:
    """`docker volume create --opt type=none --opt o=bind --opt device=SRC NAME`: a named
    volume that is the host directory SRC, for any container that mounts it later: judged
    as the bind it makes, now."""
    found: list[Mount] = []
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if word in ("-o", "--opt"):
            option = after
        elif word.startswith("--opt="):
            option = word[len("--opt=") :]
        elif word.startswith("-o") and len(word) > 2:
            option = word[2:]
        else:
            continue
        found += [Mount(device, writable=True) for device in _device(option)]
    return found


def _is_path(source: str) -> bool:
    return source.startswith((".", "~", HOME)) or "/" in source or not is_literal(source)
