"""Start files by the naming rules tools share, not by tool: part of the one table of files
that start programs later (`tether.project_start_files`), so that a tool nobody listed is
covered by the rule its name follows.

The rules, each a family:
- a JavaScript tool's configuration is a module it imports, named `<tool>.config.<ext>` or
  `<tool>.conf.<ext>` (eslint, prettier, vite, vitest, jest, webpack, tailwind, karma...)
  for every module extension node and its loaders run (`js cjs mjs ts cts mts`), also with
  the loader named before it (`webpack.config.babel.js`);
- a tool's rc file is `.<tool>rc` or `.<tool>rc.<ext>` (`.eslintrc.cjs`, `.mocharc.yml`'s
  `require`, `.babelrc`'s plugins, `.nycrc`, `.releaserc`): code, or the modules it loads;
- pytest imports every `conftest.py` it collects (and its compiled form in `__pycache__`,
  which it loads instead when the header matches) at every run;
- a package manager's program directory comes first on PATH in every command it runs, and an
  environment's profile or activation scripts are sourced on entering it;
- a tool's plugin or provider cache holds programs it runs at its next invocation
  (terraform's providers, tflint's plugins, ruby-lsp's composed bundle).

Python's other start files (`sitecustomize`, `usercustomize`, `*.pth`) are in
`INTERPRETER_START`; a virtualenv's programs in `PACKAGE_HOOKS`.
"""

from __future__ import annotations

StartFile = tuple[str, str]
"""A path (as `project_files` entries are written) and why writing it is asked."""


def start_files(why: str, *paths: str) -> tuple[StartFile, ...]:
    """Entries of the table for `paths`, all asked for the same reason."""
    return tuple((path, why) for path in paths)


_engine = start_files


MODULE_EXTENSIONS = ("js", "cjs", "mjs", "ts", "cts", "mts")
"""What node, and the loaders tools bundle (jiti, esbuild-register), import as a module."""

TOOL_CONFIG_MODULES = tuple(
    f"*.{kind}{loader}.{ext}"
    for kind in ("config", "conf")
    for loader in ("", ".*")
    for ext in MODULE_EXTENSIONS
)
"""`eslint.config.mjs`, `vitest.config.ts`, `karma.conf.js`: imported by every run of the tool;
also through a loader the name picks (`webpack.config.babel.js`, `<tool>.config.<x>.<ext>`)."""

RC_EXTENSIONS = (*MODULE_EXTENSIONS, "json", "json5", "jsonc", "yaml", "yml", "toml", "cjson")
RC_FILES = (".??*rc", *(f".??*rc.{ext}" for ext in RC_EXTENSIONS))
"""`.<tool>rc`, `.<tool>rc.<ext>` in the forms tools read (not a copy: `.envrc.new`), a tool's
name two letters at least (not `.src`): the rc-file convention (`.npmrc`, `.yarnrc` are the
project table's, guarded by the sandbox too)."""

PYTEST_START = ("conftest.py", "__pycache__/conftest.*")

TOOL_CONFIGS: tuple[StartFile, ...] = (
    *_engine("a tool's configuration module, imported by every run of it", *TOOL_CONFIG_MODULES),
    *_engine("a tool's rc file: its code, or the plugins and modules it loads", *RC_FILES),
    *_engine("code every pytest run collecting this directory imports", *PYTEST_START),
    *_engine("sqlfluff's configuration: the Python templater code it loads", ".sqlfluff"),
    *_engine("flake8's configuration: local plugins it imports at every lint", ".flake8"),
    *_engine("R code lintr evaluates at every lint", ".lintr"),
    *_engine(
        "golangci-lint's configuration: the module plugins it loads",
        *(f".golangci.{ext}" for ext in ("yml", "yaml", "toml", "json")),
    ),
    *_engine("tflint's configuration: the plugins it downloads and runs", ".tflint.hcl"),
)
"""Tools' configuration by convention: a module the tool imports, or a file naming the code
it loads."""

INSTALLED_PROGRAMS: tuple[StartFile, ...] = (
    *_engine("programs npm, npx and every package script run first on PATH", "node_modules/.bin"),
    *_engine("programs composer's scripts run first on PATH", "vendor/bin"),
    *_engine("programs pdm runs first on PATH (PEP 582)", "__pypackages__/*/bin"),
    *_engine(
        "an environment's programs and activation scripts, run by every pixi run and shell",
        ".pixi/envs/*/bin",
        ".pixi/envs/*/etc/conda/activate.d",
    ),
    *_engine(
        "pixi's configuration: the channels and tools it installs and runs", ".pixi/config.toml"
    ),
    *_engine("pixi's tasks and activation scripts, run by every pixi run and shell", "pixi.toml"),
    *_engine(
        "devenv's profile: the programs and shell code of every devenv shell", ".devenv/profile"
    ),
    *_engine("nix-direnv's cached environment, sourced by direnv on entering", ".direnv/*.rc"),
    *_engine("a conda environment's activation scripts, sourced on activating it", "*/etc/conda"),
)
"""Package managers' program directories and environments' profiles: first on PATH, or
sourced, in every command they run."""

PLUGIN_CACHES: tuple[StartFile, ...] = (
    *_engine(
        "provider programs every terraform plan or apply runs",
        ".terraform/providers",
        ".terraform/plugins",
        "terraform.d/plugins",
    ),
    *_engine("tflint's plugins, run by every tflint", ".tflint.d/plugins"),
    *_engine("ruby-lsp's composed bundle: the Gemfile an editor's ruby-lsp runs", ".ruby-lsp"),
)
"""Tools' plugin and provider caches inside the project: programs their next run starts."""

INSTALLED = frozenset({"node_modules", "vendor", "__pypackages__", ".pixi", "conda"})
"""Segments of entries above that package managers write as they install (the sandbox does
not sweep them: the tree around them is code the next command runs anyway)."""

NAMED_ONLY = frozenset({*TOOL_CONFIG_MODULES, "conftest.py", "pixi.toml"})
"""Names an ordinary glob reaches (`src/*.ts`, `tests/*.py`, `*.toml`): asked when a write
names them (`ProjectFile.globbed`)."""
