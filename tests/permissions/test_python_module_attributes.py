"""The harmless list of inline Python is of calls and attributes, not of modules: cases are
generated from the list itself, walking every attribute of every harmless module in this
Python. An attribute that is a module is that module (its `os` is `os`, its `sys` is `sys`,
any other is not known harmless); a private name is code not seen; a function the tables name
(`io.open` is `open`) is judged as that function; functions that evaluate strings as code are
not seen."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from tether.permissions.python_code import python_use
from tether.permissions.python_tables import HARMLESS_MODULES, SHELL_RUNS


def _modules() -> list[tuple[str, ModuleType]]:
    found: list[tuple[str, ModuleType]] = []
    for name in sorted(HARMLESS_MODULES):
        try:
            found.append((name, importlib.import_module(name)))
        except ImportError:
            continue
    return found


def _attributes() -> list[tuple[str, str, object]]:
    return [
        (name, attr, getattr(module, attr))
        for name, module in _modules()
        for attr in sorted(vars(module))
        if not (attr.startswith("__") and attr.endswith("__"))
    ]


MODULE_ATTRIBUTES = [(m, a, v.__name__) for m, a, v in _attributes() if isinstance(v, ModuleType)]
PRIVATE_CALLABLES = [(m, a) for m, a, v in _attributes() if a.startswith("_") and callable(v)]


def _stopped(code: str) -> bool:
    use = python_use(code)
    return bool(use.unseen or use.unknown or use.commands)


@pytest.mark.parametrize(("module", "attr", "real"), MODULE_ATTRIBUTES)
def test_a_module_reached_through_a_harmless_module_is_that_module(
    module: str, attr: str, real: str
) -> None:
    chain = f"{module}.{attr}"
    if attr.startswith("_"):
        assert _stopped(f"import {module}\n{chain}.system('curl -V')"), chain
        return
    if real == "os":
        use = python_use(f"import {module}\n{chain}.system('curl -V')")
        assert use.commands == ["curl -V"], chain
    elif real == "sys":
        assert _stopped(f"import {module}\n{chain}.modules['os'].system('x')"), chain
    elif real not in HARMLESS_MODULES:
        assert _stopped(f"import {module}\n{chain}.anything('x')"), chain
    else:
        # A harmless module reached by another name is judged as itself: its harmless
        # calls stay allowed, and its `os`, if it has one, is `os` again.
        inner = importlib.import_module(real)
        if isinstance(getattr(inner, "os", None), ModuleType):
            use = python_use(f"import {module}\n{chain}.os.popen('curl -V')")
            assert use.commands == ["curl -V"], chain
    # However it was imported: an alias, or the attribute imported by name.
    alias = python_use(f"import {module} as m\nm.{attr}.popen('curl -V')")
    by_name = python_use(f"from {module} import {attr} as n\nn.popen('curl -V')")
    for use in (alias, by_name):
        if real == "os":
            assert use.commands == ["curl -V"], chain
        elif real not in HARMLESS_MODULES:
            assert use.unseen or use.unknown or use.commands, chain


@pytest.mark.parametrize(("module", "attr"), PRIVATE_CALLABLES)
def test_a_private_name_of_a_harmless_module_is_not_seen(module: str, attr: str) -> None:
    use = python_use(f"import {module}\n{module}.{attr}('curl', '-V')")
    assert any("private" in reason for reason in use.unseen), f"{module}.{attr}"
    by_name = python_use(f"from {module} import {attr}\n{attr}('curl', '-V')")
    assert any("private" in reason for reason in by_name.unseen), f"{module}.{attr}"


def test_a_harmless_modules_functions_that_are_a_runners_are_judged_as_it() -> None:
    runners = {id(getattr(importlib.import_module("os"), n.split(".")[1])) for n in SHELL_RUNS
               if n.startswith("os.")}  # fmt: skip
    found = [(m, a) for m, a, v in _attributes() if id(v) in runners]
    for module, attr in found:
        use = python_use(f"import {module}\n{module}.{attr}('curl -V')")
        assert use.commands == ["curl -V"], f"{module}.{attr}"
    assert python_use("import io\nio.open('.env')").reads == [".env"]


@pytest.mark.parametrize(
    "code",
    [
        "import typing\ndef f(x: 'print(1)'): pass\ntyping.get_type_hints(f)",
        "import typing\ntyping.ForwardRef('print(1)')._evaluate(globals(), None, frozenset())",
        "from typing import get_type_hints as g\ng(f)",
        "import functools\n@functools.singledispatch\ndef f(x): pass\n"
        "@f.register\ndef _(x: 'print(1)'): pass",
        "import operator, random\noperator.attrgetter('_os.system')(random)('curl -V')",
        "import operator\noperator.methodcaller('system', 'curl -V')",
        "import gc, posixpath\ngc.get_referents(posixpath)[0]['os'].system('curl -V')",
        "import string\nstring.Formatter().get_field('0.os', [posixpath], {})",
        "import sys\nsys.exc_info()[2].tb_frame.f_globals['os']",
        "import typing\ntyping._eval_type(f, globals(), None)",
        "import warnings\nwarnings._setoption('ignore::evil.W')",
        "import json\njson.decoder.re.enum.sys.modules['os'].system('x')",
        "import shlex\nshlex.subprocess.run(['curl'])",
        "import textwrap\ntextwrap.re.sys.modules['os'].system('curl -V')",
        "import types\ntypes.SimpleNamespace(x=__import__('os')).x.system('curl -V')",
        "import sys\nsys.path[:0] = ['/tmp/x']\nimport x",
        "import sys\np = sys.path\np.append('/tmp/x')\nimport x",
        "import os\ne = os.environ\ne['PATH'] = '/tmp/x'\nos.system('ls')",
        "import contextlib\nwith contextlib.chdir('/tmp/x'):\n    import x",
    ],
)
def test_code_that_evaluates_strings_or_reaches_other_scopes_is_not_seen(code: str) -> None:
    assert _stopped(code), code


@pytest.mark.parametrize(
    "code",
    [
        "import os, json\nprint(json.dumps({'cwd': os.getcwd()}), os.path.join('a', 'b'))",
        "import os.path as p\nprint(p.basename('a/b'), p.splitext('x.py'))",
        "import pathlib\nprint(pathlib.Path('README.md').read_text())",
        "import sys, platform\nprint(sys.version_info, platform.python_version())",
        "import typing, functools\nprint(typing.Optional[int], functools.reduce(max, [1, 2]))",
        "import random, uuid\nprint(random.random(), uuid.uuid4())",
        "import sys, os\nprint(sys.path, os.environ.get('HOME'), __import__('json').dumps(1))",
    ],
)
def test_harmless_calls_stay_harmless(code: str) -> None:
    use = python_use(code)
    assert not use.unseen
    assert not use.unknown
    assert not use.commands
