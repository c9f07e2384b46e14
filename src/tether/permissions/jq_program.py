"""What a jq program reads besides its input: the modules it imports.

`import "PATH" as $name;` reads the JSON file `PATH.json` (`$name` then holds its content, which
the program can print); `import "PATH" as name;` and `include "PATH";` read the jq code
`PATH.jq`, or `PATH/LAST.jq` where LAST is PATH's last component (checked with jq 1.6 and 1.7).
A relative PATH is looked for from the directory jq runs in (for the program given on the
command line) and in the search path: the directories `-L` names, else the default one
(`~/.jq`, `$ORIGIN/../lib/jq`, `$ORIGIN/../lib`, ORIGIN being where jq lives). So `jq -n
'import "secrets/prod" as $s; $s'` prints `secrets/prod.json`: each file an import may open is
a read, judged as any file a command reads. In the default search path, the user's own jq
library, a module that stays inside its directory is the library's (checked against deny rules
only); one that climbs out of it (`import "../.kaggle/kaggle"` from `~/.jq`) is a read of
whatever it reaches. What cannot be told is code not seen: a module's metadata (`{search:
...}` moves where it is looked for), a path that is not plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tether.permissions.shell_words import HOME

_DIRECTIVE = re.compile(r"\b(import|include)\b")
_PATH = re.compile(r'\s*"((?:[^"\\]|\\.)*)"')
_AS = re.compile(r"\s*as\s*(\$?)[A-Za-z_][A-Za-z0-9_]*")
_METADATA = re.compile(r"\s*\{")

_ORIGINS = ("/usr/bin", "/usr/local/bin", "/bin")
"""Where jq may live: `$ORIGIN` in a search path."""
DEFAULT_SEARCH = (
    HOME + "/.jq",
    *(f"{origin}/../lib/jq" for origin in _ORIGINS),
    *(f"{origin}/../lib" for origin in _ORIGINS),
)
"""jq's default search path."""


@dataclass(frozen=True)
class JqModules:
    reads: tuple[str, ...]
    """Files the imports may open: from where jq runs, from the directories `-L` names, and
    out of the default search path's directories."""
    library: tuple[str, ...]
    """Files of the user's jq library (the default search path) the imports may open."""
    unseen: tuple[str, ...]
    """Why some import reads what cannot be told."""


def search_directories(values: list[str]) -> tuple[str, ...]:
    """The search path `-L` values give (`~/` and `$ORIGIN/` expanded as jq does)."""
    found: list[str] = []
    for value in values:
        if value.startswith("~/"):
            found.append(HOME + value[1:])
        elif value.startswith("$ORIGIN/"):
            found += [origin + value[7:] for origin in _ORIGINS]
        else:
            found.append(value)
    return tuple(found)


def jq_modules(program: str, search: tuple[str, ...] = ()) -> JqModules:
    """The files `program`'s `import` and `include` directives may open, `search` being the
    directories `-L` names (none: the default search path). A word `import` or `include`
    anywhere (a string, a field name) followed by a string is taken for a directive: a false
    alarm only reads more."""
    reads: list[str] = []
    library: list[str] = []
    unseen: list[str] = []
    for found in _DIRECTIVE.finditer(program):
        keyword = found.group(1)
        path = _PATH.match(program, found.end())
        if path is None:
            continue  # `.import`, `{include: 1}`: a name, not a directive
        text = path.group(1)
        at = path.end()
        alias = _AS.match(program, at) if keyword == "import" else None
        if alias is not None:
            at = alias.end()
        if "\\" in text or not text:
            unseen.append(f"a jq {keyword} whose path is not plain text")
            continue
        if _METADATA.match(program, at):
            unseen.append(f"a jq {keyword} with metadata, which may move where it looks")
            continue
        names = _file_names(text, data=alias is not None and alias.group(1) == "$")
        if text.startswith("/"):
            reads += names
            continue
        reads += names
        reads += [f"{base}/{name}" for base in search for name in names]
        if not search:
            climbs = ".." in text.split("/")
            for base in DEFAULT_SEARCH:
                (reads if climbs else library).extend(f"{base}/{name}" for name in names)
    return JqModules(
        tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(library)), tuple(dict.fromkeys(unseen))
    )


def _file_names(path: str, *, data: bool) -> list[str]:
    """The files jq may open for module `path`: JSON data for `import ... as $x`, jq code
    otherwise."""
    last = path.rstrip("/").rpartition("/")[2]
    suffix = ".json" if data else ".jq"
    return [path + suffix, f"{path}/{last}{suffix}"]
