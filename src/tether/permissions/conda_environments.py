"""conda's environment files (`conda env create -f environment.yml`, `env update`, `create
--file env.yml`; mamba's and micromamba's alike): their `pip:` section is a requirements file
conda hands pip, run from the environment file's directory, so its lines (`-r FILE`, `-e
PATH`, a local project) are judged as pip's requirement lines are (bash_judge_projects)."""

from __future__ import annotations

import yaml

from tether.permissions.option_names import OptionGrammar, option_values
from tether.permissions.shell_words import is_literal, program_name

CONDA_PROGRAMS = frozenset({"conda", "mamba", "micromamba"})
_FILES = OptionGrammar(("-f", "--file"), prefixes=True)
"""conda's parser is argparse's: any unambiguous prefix is the option (`--fi`)."""
_ENV_VERBS = frozenset({"create", "update"})
_DEFAULT = "environment.yml"
"""The file `conda env create` and `env update` read without `-f`."""


def environment_files(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The environment files a conda command installs from, as written: `-f`/`--file`'s
    values, or `environment.yml` for `env create`/`env update` without one."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in CONDA_PROGRAMS:
        return ()
    words = [a for a in argv[1:] if not a.startswith("-")]
    files = tuple(option_values(argv[1:], _FILES))
    if files:
        return files
    return (_DEFAULT,) if words[:1] == ["env"] and words[1:2] and words[1] in _ENV_VERBS else ()


def pip_lines(text: str) -> str | None:
    """The requirements text an environment file's `pip:` section gives pip (its entries, a
    line each); None when the text is not an environment file (a list of conda specs)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    dependencies = data.get("dependencies")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(dependencies, list):
        return None
    lines: list[str] = []
    for item in dependencies:  # pyright: ignore[reportUnknownVariableType]
        if isinstance(item, dict) and isinstance(section := item.get("pip"), list):  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            lines += [str(entry) for entry in section]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return "\n".join(lines)
