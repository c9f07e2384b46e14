"""A store URL checked as a whole before anything connects: its kind, and for Redis every part
(host, port, database, options), so that a mistyped URL is one precise error at once instead
of a connection that fails late, or silently uses another database. And what a Redis server's
refusal at connection means, said in words a person can act on."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import SplitResult, parse_qsl, urlsplit, urlunsplit

from tether.store.store_errors import StoreAbsent, StoreUnavailable

REDIS_SCHEMES = ("redis", "rediss", "unix")
_Bad = Callable[[str], StoreUnavailable]
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
FORMS = (
    "redis://[:PASSWORD@]HOST[:PORT][/DB], rediss://..., unix:///PATH/redis.sock, "
    "sqlite:///PATH, or a file path"
)


_ADDRESS = re.compile(r"[^/:]*:\d+(/\d*)?")
"""`HOST:PORT[/DB]` with no scheme (digits first: not taken for a scheme)."""


def check_file_name(url: str) -> None:
    """`StoreUnavailable` for a store given as a file path that is a mistyped URL instead: a
    Redis address without its scheme (`127.0.0.1:6379/0`), or a scheme that lost its ':'
    (`redis//host`). Such a name would otherwise become a new, empty SQLite file."""
    if _ADDRESS.fullmatch(url):
        raise StoreUnavailable(
            f"task store {url!r} looks like a Redis address, not a file: write redis://{url} "
            "(or ./NAME for a file of that name)"
        )
    if "//" in url and url_scheme(url) is None:
        raise StoreUnavailable(
            f"task store {redacted(url)!r} is no file path ('//') nor URL (no ':' before "
            f"it): use {FORMS}"
        )


def url_scheme(url: str) -> str | None:
    """The scheme a store URL names (lower case), None for a plain file path."""
    found = _SCHEME.match(url)
    return found.group(1).lower() if found else None


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # unreadable (a stray '['): all that may hold a password hidden
        return url if "@" not in url else url.split("//", 1)[0] + "//***@" + url.rpartition("@")[2]
    if password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def check_redis_url(url: str) -> None:
    """`StoreUnavailable` saying what is wrong with a Redis store URL (any scheme of
    `REDIS_SCHEMES`), before anything connects; nothing when redis-py will read it as written."""
    shown = redacted(url)

    def bad(what: str) -> StoreUnavailable:
        return StoreUnavailable(f"task store URL {shown!r}: {what} (use {FORMS})")

    scheme = url_scheme(url) or ""
    if not url.startswith(f"{scheme}://"):
        form = "unix:///PATH" if scheme == "unix" else f"{scheme}://HOST:PORT/DB"
        raise bad(f"'{scheme}:' needs '//' after it, as in {form}")
    try:
        parts = urlsplit(url)
    except ValueError as e:
        raise bad(str(e)) from None
    if parts.fragment:
        raise bad(f"'#{parts.fragment}' has no meaning in a store URL")
    if scheme == "unix":
        _check_socket(parts, bad)
        path_db = None
    else:
        _check_host(parts, bad)
        path_db = _path_db(parts.path, bad)
    _check_options(parts.query, path_db, bad)
    import redis.connection

    try:
        redis.connection.parse_url(url)
    except ValueError as e:  # an option's value redis-py cannot read
        raise bad(str(e)) from None


def _check_host(parts: SplitResult, bad: _Bad) -> None:
    hostport = parts.netloc.rpartition("@")[2]
    if not parts.hostname:
        raise bad("it names no host")
    after = hostport.partition("]")[2] if hostport.startswith("[") else hostport
    has_port, raw = after.partition(":")[1:]
    if has_port and (not raw.isdigit() or not raw.isascii() or not 1 <= int(raw) <= 65535):
        raise bad(f"the port must be a number from 1 to 65535, not {raw!r}")


def _check_socket(parts: SplitResult, bad: _Bad) -> None:
    if parts.netloc.rpartition("@")[2]:
        raise bad(f"a socket URL names no host ({parts.hostname!r}): unix:///PATH/redis.sock")
    if not parts.path.startswith("/") or parts.path == "/":
        raise bad("it names no socket file: unix:///PATH/redis.sock")


def _path_db(path: str, bad: _Bad) -> int | None:
    """The database the path names (`/3`), None for none (`` or `/`)."""
    name = path.removeprefix("/")
    if not name:
        return None
    if not name.isdigit() or not name.isascii():
        raise bad(f"the database must be a number (0 to 15 on a default server), not {name!r}")
    return int(name)


def _check_options(query: str, path_db: int | None, bad: _Bad) -> None:
    import redis.connection

    known = redis.connection.URL_QUERY_ARGUMENT_PARSERS
    try:
        options = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise bad(f"its options {query!r} are not NAME=VALUE pairs joined by '&'") from None
    for name, value in options:
        if name not in known:
            raise bad(f"no option {name!r} (the options are {', '.join(sorted(known))})")
        if name == "db":
            if path_db is not None:
                raise bad("it names the database twice (in its path and as ?db=)")
            if not value.isdigit() or not value.isascii():
                raise bad(
                    f"the database must be a number (0 to 15 on a default server), not {value!r}"
                )


def cannot_use(kind: str, url: str, error: Exception) -> str:
    """Why the `kind` store ("task", "mailbox") at the Redis `url` cannot be used: it could
    not be reached, or its server refused what the URL asks (a password, a database), said in
    words a person can act on."""
    refused = redis_refusal(error, url)
    if refused is None:
        return f"cannot reach the {kind} store at {redacted(url)}: {error}"
    return f"the {kind} store at {redacted(url)} cannot be used: {refused}"


def redis_refusal(error: Exception, url: str) -> str | None:
    """What a Redis server's refusal at connection means for this URL; None for an error that
    is no refusal (the server unreachable)."""
    lowered = str(error).lower()
    if "db index is out of range" in lowered:
        db = _db_of(url)
        return (
            f"this Redis server has no database {db} (it has as many as its `databases` "
            "setting says, 16 by default: 0 to 15)"
        )
    if (
        "noauth" in lowered
        or "authentication required" in lowered
        or ("hello must be called" in lowered)
    ):
        return (
            "this Redis server needs a password: put it in the URL, as in "
            "redis://:PASSWORD@HOST:PORT/DB"
        )
    if (
        "wrongpass" in lowered
        or "invalid username-password" in lowered
        or ("invalid password" in lowered)
    ):
        return (
            "this Redis server refused the URL's password (or user): check it, or leave the "
            "user out (redis://:PASSWORD@HOST:PORT/DB) for the default user"
        )
    return None


def _db_of(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return "?"
    return parts.path.removeprefix("/") or dict(parse_qsl(parts.query)).get("db", "0")


DEFAULT_TEAM = "default"
"""The team of a command that names none."""


def default_store_path(project: Path) -> Path:
    """The embedded store of a project: one SQLite file for all its teams."""
    return project / ".tether" / "tasks.db"


def absent_store(where: Path, *, url: str | None, team: str, made_by: str) -> StoreAbsent:
    """What a command that only reads says of a SQLite store that is not there."""
    if url:
        text = (
            f"no task store at {where}: nothing was ever added there (a mistyped --store or "
            f"TETHER_TEAM_STORE?); {made_by} makes one"
        )
    else:
        text = f"this project has no team store yet ({where}); {made_by} makes one"
    return StoreAbsent(text, where=where, team=team, named=bool(url))


def store_location(url: str | None, *, project: Path, team: str) -> str | Path:
    """Where a team's stores (tasks, mailboxes, roster) are: a Redis URL (str) or a SQLite
    file (Path), from the URL forms of `open_task_store`; a bad URL or team name raises
    `StoreUnavailable` saying what is allowed."""
    if not team or any(c in team for c in "{}:/ \n\t"):
        raise StoreUnavailable(
            f"team name {team!r}: use letters, digits, '-', '_' or '.' (no spaces, ':' or '/')"
        )
    if not url:
        return default_store_path(project)
    check_file_name(url)
    scheme = url_scheme(url)
    if scheme in REDIS_SCHEMES:
        check_redis_url(url)
        return url
    if scheme == "sqlite":
        if not url.startswith("sqlite://"):
            raise StoreUnavailable(f"task store {url!r}: write a SQLite file as sqlite:///PATH")
        named = url.removeprefix("sqlite://")
        # sqlite:////abs/path (SQLAlchemy's absolute form) is the file sqlite:///abs/path is.
        path = Path("/" + named.lstrip("/") if named.startswith("/") else named)
    elif scheme is not None:
        raise StoreUnavailable(
            f"task store {redacted(url)!r}: unknown kind {scheme!r} (use {FORMS}; a file "
            "whose name holds ':' as ./NAME)"
        )
    else:
        path = Path(url).expanduser()
    return path if path.is_absolute() else project / path
