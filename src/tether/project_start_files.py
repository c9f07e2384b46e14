"""Files in a project that start programs later without anyone naming them on a command line,
by class: an editor's tasks and local start-up scripts (run when the folder is opened), a
package manager's hooks (run at every install), an interpreter's start-up files, a build
tool's rc files (options of every build: `--run_under`, a JVM agent), compose overrides merged
by every `docker compose up`, and CI definitions (run with the repository's secrets at the
next push). Part of the one table of such files (`tether.project_files`), so that Write, Edit
and every Bash writer ask before writing one, in every mode but bypassPermissions.

The engine's only (`project_files` makes them `sandbox="none"` entries): the sandbox guards
the table's `guard` entries (`sandbox/protected.py`); a placeholder for each of these names in
every project would clutter every work tree while commands run.
"""

from __future__ import annotations

StartFile = tuple[str, str]
"""A path (as `project_files` entries are written) and why writing it is asked."""


def _engine(why: str, *paths: str) -> tuple[StartFile, ...]:
    return tuple((path, why) for path in paths)


EDITOR_TASKS: tuple[StartFile, ...] = (
    *_engine("VS Code tasks and settings (a folderOpen task runs)", "*.code-workspace"),
    *_engine("Zed's tasks and settings, which run programs", ".zed"),
    *_engine("code Neovim or Vim runs on opening the folder (exrc)", ".nvim.lua", ".nvimrc"),
    *_engine("code Neovim or Vim runs on opening the folder (exrc)", ".exrc", ".lazy.lua"),
    *_engine("Helix's language servers and commands", ".helix"),
    *_engine("Sublime Text's build systems", "*.sublime-project"),
    *_engine("Emacs directory variables (eval: runs code)", ".dir-locals.el", ".dir-locals-2.el"),
    *_engine("IDE run configurations and tasks", ".fleet", ".theia", ".nova"),
)
"""Editors' project files: tasks that run when the folder opens, commands and language
servers they start, Vim's and Neovim's local scripts (`exrc`)."""

PACKAGE_HOOKS: tuple[StartFile, ...] = (
    *_engine("pnpm's hooks, run at every pnpm install", ".pnpmfile.cjs", ".pnpmfile.mjs"),
    *_engine("pnpm's hooks, run at every pnpm install", "pnpmfile.js", "pnpm-workspace.yaml"),
    *_engine("bun's preloaded scripts, run by every bun run and test", "bunfig.toml"),
    *_engine("bun's preloaded scripts, run by every bun run and test", ".bunfig.toml"),
    *_engine("Bundler's options (the Gemfile it runs, its paths)", ".bundle/config"),
    *_engine("the Python a virtualenv runs (home)", "pyvenv.cfg"),
    *_engine("the package index pip installs (and runs code) from", "pip.conf"),
    *_engine("uv's index and the Python it runs", "uv.toml"),
)
"""Package managers' project files that run code at every install or run."""

INTERPRETER_START: tuple[StartFile, ...] = (
    *_engine("code every Python start on this path runs", "sitecustomize.py", "sitecustomize"),
    *_engine("code every Python start on this path runs", "usercustomize.py", "usercustomize"),
    *_engine("IPython's start-up scripts and configuration", ".ipython", "ipython_config.py"),
    *_engine("Jupyter's configuration, read from the directory it starts in", "jupyter_*.py"),
    *_engine("Jupyter's configuration, read from the directory it starts in", ".jupyter"),
)
"""Start-up files of interpreters that are code, wherever the interpreter may find them (a
directory on `PYTHONPATH`; the working directory for IPython and Jupyter); a site
directory's own (`.pth`) are `project_files`'."""

BUILD_RC: tuple[StartFile, ...] = (
    *_engine("Bazel's options for every build (--run_under)", ".bazelrc", "user.bazelrc"),
    *_engine("the Bazel bazelisk downloads and runs", ".bazelversion", ".bazeliskrc"),
    *_engine("Buck's options for every build", ".buckconfig", ".buckconfig.local"),
    *_engine("options and extensions of every mvn (a JVM agent)", ".mvn"),
    *_engine("the build tool the wrapper downloads and runs", "gradle/wrapper"),
    *_engine("options of every gradle build (JVM arguments)", "gradle.properties"),
    *_engine("options of every sbt (JVM arguments)", ".sbtopts", ".jvmopts"),
    *_engine("the modules every go command builds instead", "go.work", "go.work.sum"),
    *_engine("compose overrides every docker compose up merges", "docker-compose.override.yml"),
    *_engine("compose overrides every docker compose up merges", "docker-compose.override.yaml"),
    *_engine(
        "compose overrides every docker compose up merges",
        "compose.override.yml",
        "compose.override.yaml",
    ),
)
"""Build tools' rc files: options every build of the project takes, and the tools it runs."""

CI_DEFINITIONS: tuple[StartFile, ...] = (
    *_engine("CI workflows, run with the repository's secrets", ".github/workflows"),
    *_engine("CI actions the workflows run", ".github/actions"),
    *_engine("CI pipelines, run with the repository's secrets", ".gitlab-ci.yml", ".gitlab-ci"),
    *_engine("CI pipelines, run with the repository's secrets", ".circleci", ".buildkite"),
    *_engine("CI pipelines, run with the repository's secrets", "Jenkinsfile", ".travis.yml"),
    *_engine("CI pipelines, run with the repository's secrets", "azure-pipelines.yml"),
    *_engine("CI pipelines, run with the repository's secrets", "azure-pipelines.yaml"),
    *_engine("CI pipelines, run with the repository's secrets", "bitbucket-pipelines.yml"),
    *_engine("CI pipelines, run with the repository's secrets", ".drone.yml", ".woodpecker"),
    *_engine("CI pipelines, run with the repository's secrets", ".woodpecker.yml"),
    *_engine("CI pipelines, run with the repository's secrets", "appveyor.yml", ".appveyor.yml"),
    *_engine("CI pipelines, run with the repository's secrets", ".gitea/workflows"),
    *_engine("CI pipelines, run with the repository's secrets", ".forgejo/workflows"),
    *_engine("CI pipelines, run with the repository's secrets", ".semaphore", "buildspec.yml"),
)
"""CI definitions: run at the next push, elsewhere but with the project's secrets."""

NAMED_ONLY = frozenset(
    {"sitecustomize.py", "usercustomize.py", "ipython_config.py", "jupyter_*.py"}
    | {"pyvenv.cfg", "pip.conf", "gradle.properties"}
)
"""Names an ordinary glob reaches in any project (`src/*.py`, `*.cfg`): asked when a write
names them, not for every glob write that could (a glob reaches only files already there)."""

START_FILES: tuple[StartFile, ...] = (
    *EDITOR_TASKS,
    *PACKAGE_HOOKS,
    *INTERPRETER_START,
    *BUILD_RC,
    *CI_DEFINITIONS,
)
