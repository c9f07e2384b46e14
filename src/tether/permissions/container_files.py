"""Host files a container engine's other commands read and write (container_mounts.py has its
bind mounts): `docker build` sends its whole context directory to the builder (every file
below it, a `.env` included: `.dockerignore` is the builder's to read, not the engine's), its
`-f` Dockerfile, `--build-context` directories and `--secret`/`--ssh` files, and writes its
`--output`, `--iidfile`, `--metadata-file`; `docker cp` copies a host tree whole in or
writes one out; `docker compose config` prints its files with the `.env` of the project (or
`--env-file`) interpolated; the compose files `-f` names are code (the containers, mounts
and builds they declare), asked from outside the workspace. Judged as recursive reads and
writes, so Read and Edit rules and the workspace's bounds hold."""

from __future__ import annotations

from dataclasses import dataclass

from tether.permissions.shell_words import DYN, is_literal, program_name

_ENGINES = frozenset({"docker", "podman", "nerdctl", "buildah"})
_BUILD_VALUED = frozenset(
    {"-t", "--tag", "--build-arg", "--label", "--target", "--platform", "--network"}
    | {"--cache-from", "--cache-to", "--add-host", "--progress", "--shm-size", "-m"}
    | {"--memory", "--cpu-shares", "--ulimit", "--builder", "--annotation", "--attest"}
    | {"--provenance", "--sbom", "--allow", "--cgroup-parent", "--isolation", "--format"}
)
"""`docker build` options taking a value that names no host file."""
_BUILD_FILES = {
    "-f": "read", "--file": "read", "--iidfile": "write", "--metadata-file": "write",
    "--output": "output", "-o": "output", "--build-context": "context",
    "--secret": "source", "--ssh": "source",
}  # fmt: skip
_COMPOSE_VALUED = frozenset(
    {"-p", "--project-name", "--profile", "--ansi", "--parallel", "--progress"}
)
_PRINTS_CONFIG = frozenset({"config", "convert"})
_SAVES = frozenset({"save", "image save", "export", "container export"})


@dataclass(frozen=True)
class ContainerFiles:
    trees: tuple[str, ...] = ()
    """Directories read whole (a build context, a tree copied in)."""
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    loads: tuple[str, ...] = ()
    """Compose files: the containers, mounts and builds they declare are code that runs."""


def container_files(argv: tuple[str, ...]) -> ContainerFiles:
    """What `argv` reads and writes on the host, when it is a container engine's build, copy
    or compose command; empty otherwise."""
    if not argv or not is_literal(argv[0]):
        return ContainerFiles()
    name = program_name(argv[0])
    words = argv[1:]
    if name == "docker-compose":
        return _compose(words)
    if name not in _ENGINES:
        return ContainerFiles()
    command, rest = engine_subcommand(words)
    if command in ("build", "bud") or command in ("buildx build", "image build", "builder build"):
        return _build(rest)
    if command in ("cp", "container cp"):
        return _copy(rest)
    if command == "compose":
        return _compose(rest)
    if command == "stack deploy" or command == "stack up":
        # Its compose files declare the services, mounts and builds: code that runs.
        return ContainerFiles(loads=tuple(_values(rest, ("-c", "--compose-file"))))
    if command in _SAVES:
        # The image (or a container's file system) is written to the host file `-o` names.
        return ContainerFiles(writes=tuple(_values(rest, ("-o", "--output"))))
    if command == "buildx bake":
        # Its files declare the builds (contexts, secrets, outputs): code that runs.
        return ContainerFiles(loads=tuple(_values(rest, ("-f", "--file")) or (".",)))
    configs = _values(words[: len(words) - len(rest)], ("--config",))
    return ContainerFiles(loads=tuple(configs))  # credential helpers it names run


def _values(words: tuple[str, ...], options: tuple[str, ...]) -> list[str]:
    """The values of `options` among `words` (`-f X`, `--file=X`)."""
    found: list[str] = []
    for i, word in enumerate(words):
        option, eq, value = word.partition("=")
        short = next((o for o in options if len(o) == 2 and word.startswith(o)), None)
        if short is not None and len(word) > 2 and option not in options:
            option, eq, value = short, "=", word[2:].removeprefix("=")
        if option in options:
            value = value if eq else words[i + 1] if i + 1 < len(words) else ""
            found += [value] if value and value != "-" else []
    return found


def engine_subcommand(words: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The engine's subcommand (two words for a group: `buildx build`), after its global
    options (those taking a value given with `=` or as the next word)."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 1 if "=" in words[i] or words[i] in ("-D", "--debug", "--tls") else 2
    if i >= len(words):
        return "", ()
    first = words[i]
    if first in ("buildx", "image", "builder", "container", "stack", "context") and i + 1 < len(
        words
    ):
        return f"{first} {words[i + 1]}", words[i + 2 :]
    return first, words[i + 1 :]


def _build(words: tuple[str, ...]) -> ContainerFiles:
    trees: list[str] = []
    reads: list[str] = []
    writes: list[str] = []
    positionals: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        option, eq, value = word.partition("=")
        if word.startswith("-") and word != "-":
            kind = _BUILD_FILES.get(option)
            if kind is None:
                i += 2 if option in _BUILD_VALUED and not eq else 1
                continue
            if not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            _file_option(kind, value, trees, reads, writes)
        else:
            positionals.append(word)
        i += 1
    context = positionals[0] if positionals else DYN
    loads = _values(words, ("-f", "--file"))
    if context != "-" and not context.startswith(("http://", "https://", "git@", "github.com/")):
        trees.append(context)
        loads.append(context)
    # The Dockerfile's RUN steps are code, from the context or the `-f` file: asked from
    # outside the workspace, as the builds a compose file declares are.
    return ContainerFiles(tuple(trees), tuple(reads), tuple(writes), loads=tuple(loads))


def _file_option(
    kind: str, value: str, trees: list[str], reads: list[str], writes: list[str]
) -> None:
    if kind == "read":
        reads += [value] if value != "-" else []
    elif kind == "write":
        writes.append(value)
    elif kind == "context":  # NAME=PATH (or an image, a URL)
        path = value.partition("=")[2]
        if path and "://" not in path and not path.startswith("docker-image"):
            trees.append(path)
    elif kind == "source":  # id=x,src=PATH / default=PATH
        for part in value.split(","):
            key, eq, field = part.partition("=")
            if key in ("src", "source") or (eq and key not in ("id", "type", "env")):
                reads.append(field)
    elif kind == "output":  # PATH, or type=local,dest=PATH
        fields = {key: field for key, _, field in (p.partition("=") for p in value.split(","))}
        dest = fields.get("dest") if "=" in value else value
        if dest and dest != "-":
            writes.append(dest)


def _copy(words: tuple[str, ...]) -> ContainerFiles:
    """`cp SRC DST`: one side is `CONTAINER:PATH`, the other a host path, copied whole."""
    paths = [w for w in words if not w.startswith("-") or w == "-"]
    if len(paths) != 2:
        return ContainerFiles()
    source, target = paths
    if _in_container(target) and source != "-":
        return ContainerFiles(trees=(source,))
    if _in_container(source) and target != "-":
        return ContainerFiles(writes=(target,))
    return ContainerFiles()


def _in_container(word: str) -> bool:
    """`NAME:PATH`: a colon before any slash, and not a path written as one."""
    head, colon, _ = word.partition(":")
    return bool(colon) and "/" not in head and not head.startswith((".", "~")) and bool(head)


def _compose(words: tuple[str, ...]) -> ContainerFiles:
    reads: list[str] = []
    files: list[str] = []
    env_files: list[str] = []
    directory = ""
    command = ""
    i = 0
    while i < len(words):
        word = words[i]
        option, eq, value = word.partition("=")
        if not word.startswith("-"):
            command = word
            break
        if option in ("-f", "--file", "--env-file", "--project-directory"):
            if not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if option == "--env-file":
                env_files.append(value)
            elif option == "--project-directory":
                directory = value
            else:
                files.append(value)
        elif option in _COMPOSE_VALUED and not eq:
            i += 1
        i += 1
    if command in _PRINTS_CONFIG:
        # It prints the files with the variables of the project's `.env` filled in.
        reads += env_files or [f"{directory.rstrip('/')}/.env" if directory else ".env"]
    if directory and not files:
        files.append(directory)  # its compose file is read from there
    # An env file fills in the compose file's images, mounts and commands: code as it is.
    return ContainerFiles(
        reads=tuple(r for r in reads if r and r != "-"),
        loads=tuple(f for f in (*files, *env_files) if f and f != "-"),
    )
