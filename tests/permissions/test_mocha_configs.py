"""mocha's configuration files are read for the modules they make it load, as its options
are: a `.mocharc.yml`/`.yaml`/`.json`/`.jsonc` or package.json `mocha` key naming code
outside the workspace (`require`, `import`, `spec`, `file`, `ui`, `reporter`) is asked, one
naming a denied file is denied, one that cannot be parsed is code not seen (denied where a
Bash deny rule could match); `--config`/`--no-config` leave the discovery out. Before,
`Bash(mocha *)` ran what the rc file named, wherever it was. They are read as mocha 10 reads
them: its file order and find-up, every alias of a key, node's options it hands on, and a
value without `./` as the path mocha tries first (before, `require: out/p.js` through a link
to outside ran unseen, as did `mocha -r out/p.js`)."""

from __future__ import annotations

import json

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(mocha *)", "Bash(npx *)", "Bash(npm test)"],
        "deny": ["Read(./.env)", "Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    ("file", "text", "named"),
    [
        (".mocharc.yml", "require:\n  - ../outside/hook.js\n", "../outside/hook.js"),
        (".mocharc.yaml", "require: ../outside/hook.js\n", "../outside/hook.js"),
        (".mocharc.json", '{"import": ["../outside/hook.mjs"]}', "../outside/hook.mjs"),
        (".mocharc.jsonc", '// setup\n{"spec": "../outside/t.js" /* x */}', "../outside/t.js"),
        (".mocharc.yml", "file: /tmp/elsewhere/t.js\n", "/tmp/elsewhere/t.js"),
        (".mocharc.yml", "ui: ../outside/ui.js\n", "../outside/ui.js"),
        (".mocharc.yml", "reporter: ../outside/rep.js\n", "../outside/rep.js"),
        ("package.json", json.dumps({"mocha": {"require": "../outside/h.js"}}), "../outside/h.js"),
    ],
)
@pytest.mark.parametrize("command", ["mocha", "npx mocha test", "npx -y mocha --bail"])
def test_code_the_configuration_names_outside_is_asked(
    file: str, text: str, named: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({file: text})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    shown = named if named.startswith("/") else f"{tree.ws}/{named}"
    reason = f"mocha's configuration loads code from {shown}, outside the workspace: not seen"
    assert (verdict.behavior, verdict.reason) == ("ask", reason), (file, command)


def test_a_denied_file_the_configuration_requires_is_denied(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({".mocharc.yml": "require: ./.env\n"})
    verdict = decide("Bash", {"command": "mocha"}, make_ctx(RULES))
    reason = (
        f"mocha's configuration loads code from {tree.ws}/.env: "
        f"reading {tree.ws / '.env'} is denied by Read(./.env)"
    )
    assert verdict == Decision("deny", "Read(./.env)", reason)


def test_a_configuration_that_cannot_be_read_is_asked(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({".mocharc.json": "{not json"})
    verdict = decide("Bash", {"command": "mocha"}, make_ctx(RULES))
    reason = (
        "mocha's configuration here cannot be read: it may run what deny rule Bash(curl *) "
        "forbids; write the command plainly"
    )
    assert verdict == Decision("deny", "Bash(curl *)", reason)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("require: ./test/setup.js\nspec: 'test/**/*.spec.js'\n", "mocha"),
        ("require:\n  - ts-node/register\n", "npx mocha"),
        ("require: ../outside/hook.js\n", "mocha --no-config"),
        ("require: ../outside/hook.js\n", "mocha --config ./other.yml"),
    ],
)
def test_code_of_the_workspace_or_installed_modules_stays_allowed(
    text: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({".mocharc.yml": text, "test/setup.js": "", "other.yml": ""})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", verdict


@pytest.mark.parametrize(
    ("files", "cwd", "named"),
    [
        # a value without `./` is a path all the same: mocha tries the file first
        ({".mocharc.yml": "require: out/h.js\n"}, ".", "out/h.js"),
        ({".mocharc.yml": "spec: [out/h.js]\n"}, ".", "out/h.js"),
        ({".mocharc.json": '{"file": "out/h.js"}'}, ".", "out/h.js"),
        ({".mocharc.yml": "reporter: out/h.js\n"}, ".", "out/h.js"),
        # every name mocha's parser gives an option: its aliases and camelCase
        ({".mocharc.yml": "r: out/h.js\n"}, ".", "out/h.js"),
        ({".mocharc.yml": "R: out/h.js\n"}, ".", "out/h.js"),
        ({".mocharc.yml": "u: ../outside/h.js\n"}, ".", "../outside/h.js"),
        # node's options mocha hands on, named or as keys it does not know
        ({".mocharc.yml": "node-option: [require=../outside/h.js]\n"}, ".", "../outside/h.js"),
        ({".mocharc.yml": "n: ['import=../outside/h.mjs']\n"}, ".", "../outside/h.mjs"),
        ({".mocharc.json": '{"nodeOption": ["require=../outside/h.js"]}'}, ".", "../outside/h.js"),
        ({".mocharc.yml": "loader: ../outside/h.js\n"}, ".", "../outside/h.js"),
        ({".mocharc.yml": "experimental-loader: ../outside/h.js\n"}, ".", "../outside/h.js"),
        # mocha's order: .yaml before .yml, .jsonc before .json
        (
            {".mocharc.yaml": "require: ../outside/h.js\n", ".mocharc.yml": "bail: true\n"},
            ".",
            "../outside/h.js",
        ),
        (
            {".mocharc.jsonc": '{"require": "../outside/h.js"}', ".mocharc.json": "{}"},
            ".",
            "../outside/h.js",
        ),
        # mocha's find-up: the nearest parent holding an rc file, values read from the cwd
        (
            {".mocharc.yml": "require: ../../outside/h.js\n", "sub/x": ""},
            "sub",
            "../../outside/h.js",
        ),
        (
            {"package.json": json.dumps({"mocha": {"r": "../../outside/h.js"}}), "sub/x": ""},
            "sub",
            "../../outside/h.js",
        ),
        # the package.json the rc file names is the one read
        (
            {".mocharc.yml": "package: out/p.json\n"},
            ".",
            "out/p.json",
        ),
    ],
)
def test_the_configuration_is_read_as_mocha_reads_it(
    files: dict[str, str], cwd: str, named: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.ws / "out").symlink_to(tree.outside)
    (tree.outside / "p.json").write_text(json.dumps({"mocha": {}}))
    tree.write(files)
    where = tree.ws / cwd
    verdict = decide("Bash", {"command": "mocha"}, make_ctx(RULES, cwd=where))
    shown = f"{where}/{named}"
    reason = f"mocha's configuration loads code from {shown}, outside the workspace: not seen"
    assert (verdict.behavior, verdict.reason) == ("ask", reason), files


def test_a_javascript_configuration_above_the_workspace_is_code_not_seen(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    rc = tree.root / ".mocharc.js"
    rc.write_text("module.exports = {}\n")
    verdict = decide("Bash", {"command": "mocha"}, make_ctx(RULES))
    reason = f"mocha's configuration loads code from {rc}, outside the workspace: not seen"
    assert (verdict.behavior, verdict.reason) == ("ask", reason)


@pytest.mark.parametrize(
    "command",
    [
        "mocha -r out/h.js",
        "mocha --require=out/h.js",
        "mocha --require out/h.js",
        "mocha --file out/h.js",
        "mocha --spec out/h.js",
        "mocha --ui out/h.js",
        "mocha -R out/h.js",
        "npx mocha -r out/h.js",
    ],
)
def test_a_path_on_the_command_line_through_a_link_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.ws / "out").symlink_to(tree.outside)
    (tree.outside / "h.js").write_text("")
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", verdict
