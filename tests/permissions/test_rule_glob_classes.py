"""A path rule's glob is read by the one name matcher the engine has, glibc's fnmatch: a
POSIX class (`[[:alpha:]]`) in a deny rule matches what it says (the class became a broken
regular expression, so `Read(./.e[[:alpha:]]v)` did not deny `.env`); one whose meaning the
locale decides is refused with its reason. A class that excludes the name still leaves it
alone (a guard against matching too much)."""

from __future__ import annotations

import pytest

from tether.permissions import decide, load_rules
from tether.protocol.errors import ConfigError

from .conftest import ContextFactory, Tree


@pytest.mark.parametrize(
    ("rule", "path"),
    [
        ("Read(./.e[[:alpha:]]v)", ".env"),
        ("Read(./.[[:lower:]]nv)", ".env"),
        ("Read(./.[[:alnum:]][[:alnum:]][[:alnum:]])", ".env"),
        ("Read(./[[:punct:]]env)", ".env"),
        ("Read(./.e[[:alpha:][:digit:]]v)", ".env"),
        ("Read(./secrets/[[:alpha:]]*.pem)", "secrets/key.pem"),
        ("Read(secrets/**/[[:lower:]][[:lower:]][[:lower:]].*)", "secrets/key.pem"),
        ("Read(./[[:punct:]]git/config)", ".git/config"),
        ("Read(*.[[:alpha:]]em)", "secrets/key.pem"),
    ],
)
def test_a_deny_rule_with_a_class_denies_what_it_names(
    rule: str, path: str, make_ctx: ContextFactory, tree: Tree
) -> None:
    ctx = make_ctx({"permissions": {"deny": [rule]}})
    target = str(tree.ws / path)
    read = decide("Read", {"file_path": target}, ctx)
    cat = decide("Bash", {"command": f"cat {path}"}, ctx)
    assert (read.behavior, read.rule, cat.behavior) == ("deny", rule, "deny"), (read, cat)


@pytest.mark.parametrize(
    ("rule", "path"),
    [
        ("Read(./.e[[:digit:]]v)", ".env"),
        ("Read(./.[[:upper:]]nv)", ".env"),
        ("Read(./.[!e]nv)", ".env"),
        ("Read(./secrets/[[:digit:]]*.pem)", "secrets/key.pem"),
    ],
)
def test_a_class_that_excludes_the_name_leaves_it_alone(
    rule: str, path: str, make_ctx: ContextFactory, tree: Tree
) -> None:
    ctx = make_ctx({"permissions": {"deny": [rule]}})
    read = decide("Read", {"file_path": str(tree.ws / path)}, ctx)
    assert read.behavior == "allow", read


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        ("Read(./[[=e=]]nv)", "[e]"),
        ("Read(./.e[[:nosuch:]]v)", "[nosuch]"),
        ("Read(./.[[.hyphen.]]env)", "[hyphen]"),
    ],
)
def test_a_class_the_locale_decides_is_refused_with_its_reason(
    rule: str, why: str, tree: Tree
) -> None:
    settings = {"permissions": {"deny": [rule]}}
    with pytest.raises(ConfigError) as raised:
        load_rules([(tree.ws / "settings.json", settings)], seed_yaml=None)
    assert f"the bracket expression {why}" in str(raised.value), raised.value
