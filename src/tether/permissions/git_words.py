"""What single git words are: a revision or only a path, a repository on this machine, a
protected git directory, an abbreviation of an option, a `-c` setting that only changes how
git shows things (git_policy.py)."""

from __future__ import annotations

import fnmatch
import re

from tether.permissions.git_names import GIT_SETTINGS_HARMLESS, GIT_SETTINGS_RUN
from tether.permissions.shell_words import is_literal


def _any_of(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


_HARMLESS = _any_of(GIT_SETTINGS_HARMLESS)
RUNS_PROGRAMS = _any_of(GIT_SETTINGS_RUN)
_BOOLEANS = frozenset({"", "true", "false", "yes", "no", "on", "off", "0", "1"})


def abbreviates(name: str, option: str) -> bool:
    """Whether `name` is `option` (`--pathspec-from-file`) or a prefix git takes for it
    (unambiguous among the options sharing its first letters: `--pathspec-fr`, not
    `--pathspec-f`)."""
    return name == option or (len(name) > len("--pathspec-f") and option.startswith(name))


def only_a_path(word: str) -> bool:
    """A word no revision can be (a ref name has no component starting with a dot, no glob
    character, no trailing slash): `./src`, `../x`, `/abs`, `src/`, `*.py`, `.`."""
    return (
        word in (".", "..")
        or word.startswith(("./", "../", "/"))
        or word.endswith("/")
        or any(c in word for c in "*?[")
    )


def protected_git_dir(path: str) -> bool:
    """A repository directory whose config and hooks only asked writes can change: one inside
    a `.git` directory (defaults.SELF_MODIFYING). Any other (`evil/` with a HEAD, config and
    objects written as plain files) may hold `core.fsmonitor` or hooks that git runs."""
    return is_literal(path) and ".git" in path.split("/")


def local_repository(word: str) -> bool:
    """A remote given as a path on this machine (`../bare`, `/srv/x.git`, `file://...`); a
    plain name is taken for a configured remote (see README, Known limits)."""
    if word.startswith("file://"):
        return True
    if "://" in word or re.match(r"[^/]*:", word):
        return False  # another machine's: its hooks run there
    if word == "." or word.rstrip("/").rpartition("/")[2] == ".git":
        return False  # this repository, or one whose hooks are protected
    return "/" in word or word == ".." or word.startswith("~")


def harmless_or_pager(setting: str) -> bool:
    """A harmless setting, or the pager git gives its output to (`core.pager=cat`,
    `pager.log=less -R`): the pager is judged as the command it is (git_use.GitUse.pagers)."""
    key = setting.partition("=")[0].lower()
    return harmless_setting(setting) or key == "core.pager" or key.startswith("pager.")


def harmless_setting(setting: str) -> bool:
    """Changes only how git reads and shows (`color.ui=never`, `pager.log=false`)."""
    key, eq, value = setting.partition("=")
    key = key.lower()
    if _HARMLESS.match(key):
        return True
    runs = RUNS_PROGRAMS.match(key) is not None
    return runs and (not eq or value.lower() in _BOOLEANS)
