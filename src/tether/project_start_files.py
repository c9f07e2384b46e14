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

from tether.tool_start_files import (
    INSTALLED_PROGRAMS,
    PLUGIN_CACHES,
    TOOL_CONFIGS,
    StartFile,
    start_files,
)
from tether.tool_start_files import NAMED_ONLY as TOOL_NAMED_ONLY

_engine = start_files


_CUSTOMIZE = ("sitecustomize", "usercustomize")
"""The modules `site` imports at every Python start, in whatever form the import system loads
(`.py`, a sourceless `.pyc`, an extension `.cpython-311-x86_64-linux-gnu.so`, a package)."""

VENV_PROGRAMS = (
    *(f"{venv}/{bin_dir}" for venv in (".venv", "venv") for bin_dir in ("bin", "Scripts")),
    *(f"{tool}/*/{bin_dir}" for tool in (".tox", ".nox") for bin_dir in ("bin", "Scripts")),
    "bin/activate*",
    "Scripts/activate*",
)
"""A virtualenv's programs: `python`, `pip` and the `activate` scripts a shell sources, run by
`uv run`, `poetry run`, an editor, every later command that activates it. The usual places
whole, and the activate scripts under whatever name the virtualenv has; a virtualenv found
by its `pyvenv.cfg` is judged on disk (`permissions/defaults.py`)."""


EDITOR_TASKS: tuple[StartFile, ...] = (
    *_engine("VS Code tasks and settings (a folderOpen task runs)", "*.code-workspace"),
    *_engine("Zed's tasks and settings, which run programs", ".zed"),
    *_engine(
        "code Neovim or Vim runs on opening the folder (exrc)",
        *(f"{dot}{name}" for dot in (".", "_") for name in ("exrc", "vimrc", "gvimrc", "nvimrc")),
        ".nvim.lua",
        ".lazy.lua",
    ),
    *_engine(
        "code a local-vimrc plugin sources on opening a file below",
        ".lvimrc",
        "_lvimrc",
        ".local.vimrc",
        ".vimrc.local",
        ".local.vim",
    ),
    *_engine("Vim debugger configurations, which start programs", ".vimspector.json"),
    *_engine("Helix's language servers and commands", ".helix"),
    *_engine("Sublime Text's build systems", "*.sublime-project"),
    *_engine("Emacs directory variables (eval: runs code)", ".dir-locals.el", ".dir-locals-2.el"),
    *_engine("IDE run configurations and tasks", ".fleet", ".theia", ".nova", ".vs"),
    *_engine("Kakoune's commands, run on opening the folder", ".kakrc"),
    *_engine(
        "a language server's project settings, whose plugins or commands run on opening",
        ".luarc.json",
        ".luarc.jsonc",
        "rust-analyzer.toml",
    ),
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
    *_engine("a virtualenv's programs, run by every command that activates it", *VENV_PROGRAMS),
    *_engine("the Python pdm runs for the project", ".pdm-python"),
    *_engine("the package index pip installs (and runs code) from", "pip.conf"),
    *_engine("uv's index and the Python it runs", "uv.toml"),
    *_engine("the package index pip installs (and runs code) from", "pip.ini"),
    *_engine("pdm's settings: the Python and the scripts it runs", "pdm.toml", ".pdm.toml"),
    *_engine("the tools `dotnet tool restore` fetches and runs", ".config/dotnet-tools.json"),
)
"""Package managers' project files that run code at every install or run."""

INTERPRETER_START: tuple[StartFile, ...] = (
    *_engine(
        "code every Python start on this path runs (any source, compiled or extension form)",
        *(
            f"{cache}{name}{form}"
            for cache in ("", "__pycache__/")
            for name in _CUSTOMIZE
            for form in ("", ".*")
        ),
    ),
    *_engine("path lines and `import` lines every Python start with this site runs", "*.pth"),
    *_engine("IPython's start-up scripts and configuration", ".ipython", "ipython_config.py"),
    *_engine("Jupyter's configuration, read from the directory it starts in", "jupyter_*.py"),
    *_engine("Jupyter's configuration, read from the directory it starts in", ".jupyter"),
    *_engine("Erlang code every erl started here evaluates", ".erlang"),
    *_engine("Perl debugger commands, run by every perl -d started here", ".perldb"),
    *_engine("lldb's commands, run by every lldb started here", ".lldbinit"),
    *_engine("OCaml code every ocaml or utop started here evaluates", ".ocamlinit"),
    *_engine("shell code rvm sources on entering the directory", ".rvmrc"),
    *_engine("shell code autoenv sources on entering or leaving the directory", ".autoenv*"),
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
    *_engine(
        "MSBuild files every dotnet build imports", "Directory.*.props", "Directory.*.targets"
    ),
    *_engine("MSBuild files every dotnet build imports", "Directory.Build.rsp", "MSBuild.rsp"),
    *_engine("MSBuild files every dotnet build imports", "*.*proj.user"),
    *_engine("MSBuild files a solution build imports", "before.*.targets", "after.*.targets"),
    *_engine("the package sources and SDK dotnet fetches and runs", "nuget.config", "global.json"),
    *_engine("the package sources and SDK dotnet fetches and runs", "NuGet.Config", "NuGet.config"),
    *_engine("MSBuild files a build may import from the root", "/*.props", "/*.targets"),
    *_engine("compose overrides every docker compose up merges", "docker-compose.override.yml"),
    *_engine("compose overrides every docker compose up merges", "docker-compose.override.yaml"),
    *_engine(
        "compose overrides every docker compose up merges",
        "compose.override.yml",
        "compose.override.yaml",
    ),
)
"""Build tools' rc files: options every build of the project takes, and the tools it runs."""

_CI_FILES = (
    ".gitlab-ci",
    ".travis",
    "azure-pipelines",
    ".azure-pipelines",
    "bitbucket-pipelines",
    ".drone",
    ".woodpecker",
    "appveyor",
    ".appveyor",
    "buildspec",
    ".cirrus",
    "cloudbuild",
    ".zuul",
    "zuul",
    ".build",
    "bitrise",
    "codemagic",
    "codefresh",
    "wercker",
    ".gocd",
    "codeship-steps",
    "codeship-services",
    ".gitpod",
    "devfile",
    ".lando",
    ".lando.local",
    ".vsts-ci",
    "screwdriver",
    ".screwdriver",
    "shippable",
)
"""CI (and hosted workspace) definitions by the name each service reads, in either YAML
spelling; sourcehut's single `.build.yml`, Gitpod's `.gitpod.yml` tasks."""

_CI_STAR_FILES = ("*.gitlab-ci", "azure-pipelines*", "*.gocd", "cloudbuild*", "buildspec*")
"""Names services are commonly pointed at (a pipeline's `include:`, a trigger's file)."""

_CI_DIRECTORIES = (
    ".gitlab-ci",
    ".gitlab/ci",
    ".gitlab/pipelines",
    ".azure-pipelines",
    ".azuredevops",
    ".pipelines",
    ".circleci",
    ".buildkite",
    ".woodpecker",
    ".gitea/workflows",
    ".forgejo/workflows",
    ".semaphore",
    ".builds",
    ".zuul.d",
    "zuul.d",
    ".teamcity",
    ".tekton",
    ".harness",
    ".bitrise",
    ".ddev",
    ".jenkins",
    ".cloudbuild",
)
"""Directories whose every file a CI service (or a dev environment's hooks) reads."""

_CI = "CI pipelines, run with the repository's secrets"
_YAML = ("yml", "yaml")

CI_DEFINITIONS: tuple[StartFile, ...] = (
    *_engine("CI workflows, run with the repository's secrets", ".github/workflows"),
    *_engine("CI actions the workflows run", ".github/actions"),
    *_engine(_CI, *(f"{name}.{ext}" for name in _CI_FILES for ext in _YAML)),
    *_engine(_CI, *(f"{name}.{ext}" for name in _CI_STAR_FILES for ext in _YAML)),
    *_engine(_CI, *_CI_DIRECTORIES),
    *_engine(_CI, "Jenkinsfile", "Jenkinsfile.*", "*.Jenkinsfile", "*.jenkinsfile"),
    *_engine(_CI, ".drone.star", ".drone.jsonnet", ".cirrus.star", "cloudbuild.json"),
    *_engine(_CI, "netlify.toml", "vercel.json", "now.json", "render.yaml", ".platform.app.yaml"),
)
"""CI definitions: run at the next push, elsewhere but with the project's secrets."""

AGENT_CONFIGS: tuple[StartFile, ...] = _engine(
    "another coding agent's settings: MCP servers, hooks and commands it starts",
    *(
        f".{name}"
        for name in (
            "gemini",
            "codex",
            "roo",
            "roomodes",
            "windsurf",
            "continue",
            "amazonq",
            "kiro",
            "cline",
            "clinerules",
            "kilocode",
            "opencode",
            "qwen",
            "augment",
            "junie",
            "trae",
            "openhands",
            "factory",
            "goose",
            "amp",
            "crush",
            "warp",
            "copilot",
            "crush.json",
            "aider.conf.yml",
            "aider.conf.yaml",
        )
    ),
    "opencode.json",
    "opencode.jsonc",
    "crush.json",
    "goose.yaml",
)
"""Other coding agents' project settings (tether's and Claude Code's own, `.cursor`, `.zed`
and `.vscode` are `project_files`'): their MCP servers, hooks and lint or test commands start
programs when that agent next opens the project, with the user's rights."""

DEV_ENVIRONMENTS: tuple[StartFile, ...] = (
    *_engine("a hosted workspace's start-up tasks", ".gitpod.Dockerfile", ".replit", "replit.nix"),
    *_engine("an environment's shell hooks, run on entering it", "devbox.json", ".devbox"),
    *_engine("an environment's shell hooks, run on entering it", "devenv.nix", "devenv.yaml"),
    *_engine(
        "an environment's local overrides, merged into it on entering",
        "devenv.local.nix",
        "devenv.local.yaml",
    ),
    *_engine("an environment's shell hooks, run on entering it", ".flox", ".rtx.toml"),
    *_engine("plugins proto downloads and runs for every tool", ".prototools"),
    *_engine("a hosted workspace's start-up tasks", ".idx", ".codesandbox", ".stackblitzrc"),
)
"""Development environments that run their hooks when a shell enters the project or a hosted
workspace opens it."""

LANGUAGE_SERVERS: tuple[StartFile, ...] = (
    *_engine("build server connections: the program an IDE launches on opening (argv)", ".bsp"),
    *_engine("hie-bios cradles: the program Haskell's language server runs on opening", "hie.yaml"),
    *_engine("clojure-lsp's settings: the classpath command it runs on opening", ".lsp/config.edn"),
    *_engine("coc.nvim's language servers: the commands Vim starts", ".vim/coc-settings.json"),
    *_engine("OmniSharp's settings: the plugins and SDK it loads on opening", "omnisharp.json"),
    *_engine("OmniSharp's settings: the plugins and SDK it loads on opening", ".omnisharp"),
    *_engine("zls's settings: the zig and build runner it runs on opening", "zls.json"),
    *_engine("merlin's flags: the preprocessors (-ppx) an OCaml editor runs", ".merlin"),
    *_engine("rope's project configuration: Python an editor's refactoring runs", ".ropeproject"),
    *_engine("Lapce's run configurations", ".lapce"),
    *_engine(
        "CMake's user presets, configured by an IDE on opening (the compiler it runs)",
        "CMakeUserPresets.json",
    ),
)
"""Language servers' and build servers' project files: the commands and code an editor's
language server runs when it opens the project, before any command names them."""

LINT_CODE: tuple[StartFile, ...] = (
    *_engine(
        "pylint's configuration: init-hook and plugins, run by every pylint and editor lint",
        *(f"{dot}pylintrc{ext}" for dot in ("", ".") for ext in ("", ".toml")),
    ),
    *_engine("RuboCop's configuration: the Ruby it requires, at every editor lint", ".rubocop.yml"),
    *_engine("Solargraph's configuration: the Ruby it requires on opening", ".solargraph.yml"),
    *_engine("Elixir code mix format and the editor evaluate", ".formatter.exs", ".credo.exs"),
    *_engine("PHP code php-cs-fixer runs at every fix", ".php-cs-fixer.php"),
    *_engine("PHP code php-cs-fixer runs at every fix", ".php-cs-fixer.dist.php"),
)
"""Linters' and formatters' configuration that is code or loads code, run by an editor on
opening or saving a file (a tool's own rc file, not the project's build files)."""

PACKAGE_LOADERS: tuple[StartFile, ...] = (
    *_engine("Yarn's Plug'n'Play loader, run by every yarn run and node", ".pnp.cjs", ".pnp.js"),
    *_engine("Yarn's Plug'n'Play loader, run by every yarn run and node", ".pnp.loader.mjs"),
    *_engine("the editor SDKs Yarn sets up (the tsserver VS Code runs)", ".yarn/sdks"),
    *_engine("programs direnv's layouts put first on PATH", ".direnv/bin", ".direnv/*/bin"),
    *_engine("the Bazel bazelisk runs instead of bazel", "tools/bazel", "tools/bazel.exe"),
    *_engine("Pants' options for every run, and the script it sources", ".pants.rc"),
    *_engine("Pants' options for every run, and the script it sources", ".pants.bootstrap"),
    *_engine("the SDKs sdkman's auto-env installs and puts on PATH on entering", ".sdkmanrc"),
    *_engine("another coding agent's MCP servers", ".tabnine", ".continuerc.json"),
)
"""Package managers' loaders and build launchers' scripts: code every `yarn`, `bazel` or
`pants` runs, and programs an environment puts on PATH."""

NAMED_ONLY = frozenset(
    {
        f"{cache}{name}{form}"
        for cache in ("", "__pycache__/")
        for name in _CUSTOMIZE
        for form in ("", ".*")
    }
    | {"*.pth", "ipython_config.py", "jupyter_*.py", "Jenkinsfile.*", ".autoenv*"}
    | {"pyvenv.cfg", "pip.conf", "gradle.properties", "hie.yaml", "omnisharp.json"}
    | {"zls.json", "pylintrc", "pylintrc.toml", "tools/bazel"}
    | TOOL_NAMED_ONLY
)
"""Names an ordinary glob reaches in any project (`src/*.py`, `*.cfg`): asked when a write
names them, not for every glob write that could (a glob reaches only files already there)."""

START_FILES: tuple[StartFile, ...] = (
    *EDITOR_TASKS,
    *PACKAGE_HOOKS,
    *INTERPRETER_START,
    *BUILD_RC,
    *CI_DEFINITIONS,
    *AGENT_CONFIGS,
    *DEV_ENVIRONMENTS,
    *LANGUAGE_SERVERS,
    *LINT_CODE,
    *PACKAGE_LOADERS,
    *TOOL_CONFIGS,
    *INSTALLED_PROGRAMS,
    *PLUGIN_CACHES,
)
"""The table, by class (the classes a naming rule makes: `tether.tool_start_files`). A path
beginning with `/` is found at a project's root only."""
