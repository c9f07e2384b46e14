"""Families of files that start programs later, beyond the names first listed: Vim's exrc
names in every spelling, Python's start-up modules in any compiled form and `.pth` files, a
virtualenv's programs (by place or by its `pyvenv.cfg`), other agents' settings, MSBuild's
imported files, every hosted CI's definitions, development environments and debuggers'
start-up files. Each is asked by every writer in every mode but bypassPermissions
(`tether.project_start_files`)."""

from __future__ import annotations

import shlex

import pytest

from tether.permissions import Mode, PermissionContext, decide, load_rules

from .conftest import Tree, build_tree

ALLOW = {"permissions": {"allow": ["Edit", "Write(**)", "Bash(echo *)", "Bash(printf *)"]}}
EXPECTED: dict[Mode, str] = {
    "default": "ask",
    "acceptEdits": "ask",
    "plan": "deny",
    "bypassPermissions": "allow",
}
FAMILIES = [
    "_gvimrc",
    "web/.vimrc",
    "_nvimrc",
    "pkg/.local.vimrc",
    ".vimspector.json",
    "lib/sitecustomize.cpython-312-darwin.so",
    "src/__pycache__/usercustomize.cpython-312.pyc",
    "usercustomize.pyd",
    "extra.pth",
    "env/lib/python3.12/site-packages/zz.pth",
    "venv/bin/pip",
    ".venv/Scripts/python.exe",
    ".tox/py312/bin/pytest",
    "tools/env2/bin/activate.fish",
    ".kiro/settings/mcp.json",
    ".windsurf/hooks.json",
    ".continue/config.yaml",
    ".amazonq/mcp.json",
    ".clinerules/hooks/PreToolUse",
    ".aider.conf.yml",
    "opencode.json",
    "Directory.Packages.props",
    "src/Directory.Build.targets",
    "App/App.csproj.user",
    "after.Shop.sln.targets",
    "nuget.config",
    "build.props",
    "custom.targets",
    ".gitlab/pipelines/deploy.yml",
    "templates/build.gitlab-ci.yml",
    "azure-pipelines-release.yml",
    ".azuredevops/pr.yml",
    ".cirrus.star",
    "cloudbuild.json",
    ".zuul.d/jobs.yaml",
    ".build.yml",
    "bitrise.yaml",
    "codemagic.yml",
    ".drone.jsonnet",
    ".woodpecker.yaml",
    "buildspec.yaml",
    "deploy.Jenkinsfile",
    ".gitpod.yaml",
    "replit.nix",
    "devenv.nix",
    "devenv.local.nix",
    "devenv.local.yaml",
    ".autoenv_leave.zsh",
    ".rvmrc",
    ".ocamlinit",
    ".pdm-python",
    "rust-analyzer.toml",
    ".luarc.json",
    ".config/dotnet-tools.json",
    "pdm.toml",
    ".jenkins/deploy.groovy",
    ".screwdriver.yaml",
    ".idx/dev.nix",
    ".codesandbox/tasks.json",
    ".warp/workflows/x.yaml",
    "eslint.config.mjs",
    "web/prettier.config.js",
    "vitest.config.ts",
    "webpack.config.babel.js",
    "web/rollup.config.esm.mjs",
    "packages/ui/tsup.config.mts",
    "karma.conf.js",
    ".eslintrc.cjs",
    ".prettierrc",
    "web/.mocharc.yml",
    ".nvmrc",
    "conftest.py",
    "tests/unit/conftest.py",
    "tests/__pycache__/conftest.cpython-312-pytest-8.3.3.pyc",
    ".sqlfluff",
    ".flake8",
    ".golangci.yml",
    ".tflint.hcl",
    "pixi.toml",
    ".pixi/envs/default/bin/python",
    ".pixi/envs/dev/etc/conda/activate.d/x.sh",
    "node_modules/.bin/eslint",
    "web/node_modules/.bin/vite",
    "vendor/bin/phpunit",
    "__pypackages__/3.12/bin/black",
    ".terraform/providers/registry.terraform.io/hashicorp/aws/5.0.0/linux_amd64/p",
    "infra/terraform.d/plugins/example.com/x/y/1.0.0/linux_amd64/terraform-provider-y",
    ".tflint.d/plugins/tflint-ruleset-aws",
    ".ruby-lsp/Gemfile",
    ".devenv/profile/bin/hello",
    ".direnv/flake-profile-a5d5b61a.rc",
    "envs/dev/etc/conda/activate.d/env_vars.sh",
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    tree = build_tree(tmp_path_factory.mktemp("start-families"))
    (tree.ws / "tools" / "env2" / "bin").mkdir(parents=True)
    (tree.ws / "tools" / "env2" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return tree


def _context(tree: Tree, mode: Mode) -> PermissionContext:
    rules = load_rules([(tree.ws / ".claude" / "settings.json", ALLOW)], seed_yaml=None)
    return PermissionContext(mode=mode, rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home)


@pytest.mark.parametrize("mode", list(EXPECTED))
@pytest.mark.parametrize("path", FAMILIES)
def test_each_family_is_asked_by_every_writer(tree: Tree, path: str, mode: Mode) -> None:
    ctx = _context(tree, mode)
    quoted = shlex.quote(path)
    calls = [
        ("Write", {"file_path": path, "content": "x"}),
        ("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": f"printf 'x\\n' > {quoted}"}),
    ]
    decisions = [decide(tool, call, ctx).behavior for tool, call in calls]
    assert decisions == [EXPECTED[mode]] * len(calls)


def test_a_conda_environment_is_found_by_its_conda_meta(tree: Tree) -> None:
    """`conda create -p ./tools/cenv`: its programs are what activating it runs."""
    (tree.ws / "tools" / "cenv" / "conda-meta").mkdir(parents=True, exist_ok=True)
    ctx = _context(tree, "acceptEdits")
    env = decide("Write", {"file_path": "tools/cenv/bin/python3", "content": "x"}, ctx)
    assert env.behavior == "ask"


def test_a_virtualenv_is_found_by_its_pyvenv_cfg(tree: Tree) -> None:
    """Any name: `tools/env2` is a virtualenv because its `pyvenv.cfg` says so; a `bin`
    directory of the project's own scripts is not one."""
    ctx = _context(tree, "acceptEdits")
    venv = decide("Write", {"file_path": "tools/env2/bin/python3", "content": "x"}, ctx)
    own = decide("Write", {"file_path": "tools/bin/release.sh", "content": "x"}, ctx)
    assert (venv.behavior, own.behavior) == ("ask", "allow")


@pytest.mark.parametrize(
    "path",
    [
        "tools/env2/lib/python3.12/site-packages/pip/__init__.py",
        "tools/env2/lib/python3.12/site-packages/evilmod.py",
        "tools/env2/lib64/python3.12/site-packages/x/y.py",
        "tools/env2/lib/pypy3.10/site-packages/z.py",
        "tools/env2/Lib/site-packages/pip/__main__.py",
        "tools/cenv/lib/python3.12/site-packages/numpy/__init__.py",
    ],
)
def test_an_environments_installed_packages_are_asked(tree: Tree, path: str) -> None:
    """A package of a virtualenv (or a conda environment) runs at the user's next `pip`,
    `pytest` or import of it outside: a write there is asked, as one of its programs is
    (measured before: `echo ... >> .venv/lib/.../pip/__init__.py` allowed by `Bash(echo *)`,
    the Write tool allowed in acceptEdits). The project's own `lib` is not one."""
    (tree.ws / "tools" / "cenv" / "conda-meta").mkdir(parents=True, exist_ok=True)
    for mode in ("default", "acceptEdits"):
        ctx = _context(tree, mode)
        calls = [
            ("Write", {"file_path": path, "content": "x"}),
            ("Bash", {"command": f"echo 'import os' >> {shlex.quote(path)}"}),
        ]
        assert [decide(t, c, ctx).behavior for t, c in calls] == ["ask", "ask"], (mode, path)
    own = decide(
        "Write",
        {"file_path": "lib/python3.12/site-packages/x.py", "content": "x"},
        _context(tree, "acceptEdits"),
    )
    assert own.behavior == "allow"


@pytest.mark.parametrize(
    "path",
    [
        "src/vimrc_helpers.py",
        "docs/ci/gitlab.md",
        "src/props/build.props",
        "lib/targets/x.targets",
        "src/site_customize.py",
        "models/weights.pt",
        "bin/release.sh",
        "agents/gemini.py",
        "src/config.ts",
        "src/app.config.json",
        "tests/test_conftest.py",
        "docs/rc.md",
        "src/.src/x.py",
        "node_modules/vite/bin/vite.js",
        "infra/main.tf",
    ],
)
def test_look_alikes_stay_the_projects_own(tree: Tree, path: str) -> None:
    ctx = _context(tree, "acceptEdits")
    assert decide("Write", {"file_path": path, "content": "x"}, ctx).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "sed -i s/a/b/ src/*.py",
        "cp README.md models/*.pth",
        "sed -i s/a/b/ tests/*.py tests/unit/*.py",
    ],
)
def test_ordinary_globs_are_not_asked_for_named_only_entries(tree: Tree, command: str) -> None:
    rules = load_rules(
        [(tree.ws / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(sed *)"]}})],
        seed_yaml=None,
    )
    ctx = PermissionContext(
        mode="acceptEdits", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("npx jest --config jest.config.js", "allow"),
        ("npx eslint -c eslint.config.mjs src", "allow"),
        ("npx vitest --config=web/vitest.config.ts", "allow"),
        ("npx jest --out eslint.config.mjs", "ask"),
        ("npx jest --coverageDirectory conftest.py", "ask"),
    ],
)
def test_a_tools_configuration_given_to_it_is_read_not_written(
    tree: Tree, command: str, expected: str
) -> None:
    """A tool's configuration module named by its tool's own option is loaded, not written;
    named by any other word of a program whose options are not known, it may be written."""
    rules = load_rules(
        [(tree.ws / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(npx *)"]}})],
        seed_yaml=None,
    )
    ctx = PermissionContext(
        mode="acceptEdits", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )
    assert decide("Bash", {"command": command}, ctx).behavior == expected
