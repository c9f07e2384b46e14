"""find's name tests and grep's `--include`/`--exclude` are judged with glibc's fnmatch, as
the programs match them: a pattern spelling `.env` with an escape, `[^...]`, a POSIX class or
a collating symbol reaches `.env` (it was judged to match nothing: read-only, allowed with
no allow rule); one whose meaning the locale decides (an equivalence class of a letter) is
asked. Ordinary patterns stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

NARROW = {"permissions": {"deny": ["Read(./.env)"]}}
"""The only rule: a deny on the one file (no allow rule; read-only commands are allowed)."""

SPELLINGS_OF_DOT_ENV = [
    r"'.\env'",
    r"'\.env'",
    r"'.\e\n\v'",
    "'.[^a]nv'",
    "'.[!a]nv'",
    "'.[[:alpha:]]nv'",
    "'.[[:lower:]]nv'",
    "'.[[.e.]]nv'",
    "'[[:punct:]]env'",
    r"'.[\e]nv'",
]


@pytest.mark.parametrize("pattern", SPELLINGS_OF_DOT_ENV)
@pytest.mark.parametrize(
    "template",
    [
        "find . -name {} -exec cat {{}} +",
        "find . -name {} -execdir cat {{}} \\;",
        "find . -path ./{} -exec cat {{}} +",
        "find . -wholename ./{} -exec sed -n p {{}} \\;",
        "find . -name {} -print0 | xargs -0 cat",
        "find . -name {} | xargs cat",
        "grep -r --include={} -e . .",
        "grep -rH --include {} . .",
    ],
)
def test_a_pattern_glibc_matches_to_the_denied_name_reads_it(
    template: str, pattern: str, make_ctx: ContextFactory
) -> None:
    command = template.format(pattern)
    verdict = decide("Bash", {"command": command}, make_ctx(NARROW))
    assert verdict.behavior in ("ask", "deny"), (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "find . -iname '.ENV' -exec cat {} +",
        "find . -iname '.[E]NV' -exec cat {} +",
        "find . -ipath './.[[:alpha:]]NV' -exec cat {} +",
        "find . -iwholename './\\.ENV' -exec cat {} +",
    ],
)
def test_case_folded_tests_fold_as_glibc_does(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(NARROW))
    assert verdict.behavior in ("ask", "deny"), (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "find . -name '.[[=e=]]nv' -exec cat {} +",
        "find . -name '.[[.hyphen.]]env' -exec cat {} +",
        "grep -r --include='.[[=e=]]nv' -e . .",
    ],
)
def test_a_pattern_the_locale_decides_is_asked(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(NARROW))
    assert verdict.behavior in ("ask", "deny"), (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "rg --hidden -g '.\\env' -e .",
        "rg --hidden -g '.[^a]nv' -e .",
        "rg --hidden -g '.[[:alpha:]]nv' -e .",
        "rg --hidden -g '!.[[:alpha:]]nv' -e .",
    ],
)
def test_rg_globs_that_may_reach_the_denied_name_are_not_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(NARROW))
    assert verdict.behavior in ("ask", "deny"), (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "find . -name '*.py' -exec grep -H print {} +",
        "find src -name '[a-z]*.py' | xargs cat",
        "find . -name '\\*.py' -exec cat {} +",
        "grep -r --include='*.[pt][yo]' x .",
        "grep -r --include='[[:alpha:]]*.py' x .",
        "grep -r --exclude='.\\env' --exclude-dir=secrets x .",
        "rg -g '*.py' x",
    ],
)
def test_ordinary_patterns_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(NARROW))
    assert verdict.behavior == "allow", (command, verdict.reason)
