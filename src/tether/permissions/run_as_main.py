"""Modules that run another module as `__main__`: `python3 -m runpy MOD ARGS` runs MOD with
ARGS exactly as `python3 -m MOD ARGS` does (runpy takes no options of its own), so whatever
reads a module's command line reads the module that runs, not the one that starts it."""

from __future__ import annotations

import re

AS_MAIN = frozenset({"runpy"})
"""Modules whose command line is `MODULE ARGS...`, run as `__main__`."""


def module_that_runs(words: tuple[str, ...]) -> tuple[str, ...]:
    """`words` (a module's name, then its arguments) with every leading module of `AS_MAIN`
    taken off: `runpy runpy timeit -s CODE` is `timeit -s CODE`. A word that looks like a
    file (`runpy job.py`, which Python refuses as a module) stays runpy's, judged as a path."""
    while len(words) > 1 and words[0] in AS_MAIN and _MODULE_NAME.fullmatch(words[1]):
        words = words[1:]
    return words


_MODULE_NAME = re.compile(r"(?!.*\.py$)[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
"""A dotted module name (not a file name ending `.py`)."""
