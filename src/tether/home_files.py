"""The files in the user's home that matter to safety, as tables every layer shares.

`HOME_SELF_MODIFYING`: what decides what runs, or what is allowed, later: at the next shell,
login, git or ssh command, package install, editor start, or tether and Claude Code session.
The permission engine asks before a write there (`permissions/defaults.py`), the sandbox keeps
them read-only, and uncreatable when missing, wherever the home is writable inside it
(`sandbox/protected.py`).

`HOME_SECRETS`: where credentials and histories are kept. The sandbox hides them from commands
(`sandbox/bwrap.py`); no instruction file's import reads them into a prompt
(`config/instructions.py`).

It sits at the bottom layer beside `processes`, so that every service can use it.
"""

from __future__ import annotations

_SHELL_STARTUP = (
    # bash (and sh, dash, ksh read .profile)
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".inputrc",
    # zsh ($ZDOTDIR defaults to the home)
    ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
    # ksh, mksh, csh, tcsh
    ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout",
    # X sessions
    ".xprofile", ".xinitrc", ".xsession", ".xsessionrc",
)  # fmt: skip

_SOURCED_BY_SHELLS = (
    # files and directories common startup files source (Debian's .bashrc: .bash_aliases;
    # Fedora's: .bashrc.d; dotfile collections: .aliases, .exports...)
    ".bash_aliases", ".bash_functions", ".bash_completion", ".bash_completion.d", ".bashrc.d",
    ".bash_profile.d", ".profile.d", ".shrc", ".shinit", ".aliases", ".functions", ".exports",
    ".path", ".extra", ".zsh", ".zshrc.d", ".zcompdump", ".p10k.zsh", ".fzf.bash", ".fzf.zsh",
    ".xonshrc",
    # shell frameworks and plugin managers, whose files every shell loads
    ".oh-my-zsh", ".oh-my-bash", ".bash_it", ".zprezto", ".zplug", ".zinit", ".antigen",
    ".local/share/zinit",
)  # fmt: skip
_TOOL_ENVIRONMENTS = (
    # init scripts startup files source, and the directories they put first on PATH
    ".cargo/env", ".cargo/bin", ".rustup", ".nvm", ".sdkman", ".pyenv", ".rbenv", ".nodenv",
    ".goenv", ".jenv", ".asdf", ".volta", ".fnm", ".deno", ".bun", ".ghcup", ".opam", ".rye",
    ".pixi", ".poetry", ".nix-profile", ".dotnet/tools", "go/bin", ".npm-global", ".yarn/bin",
    ".luarocks", ".nimble/bin", ".pub-cache/bin", ".cabal/bin", ".krew", ".local/share/mise",
    ".local/share/fnm", ".local/share/pnpm",
)  # fmt: skip
_PROGRAM_STARTUP = (
    # what a program runs or obeys at its start: code, or commands it runs
    ".Rprofile", ".octaverc", ".julia", ".sqliterc", ".psqlrc", ".myclirc", ".guile",
    ".sbclrc", ".ghci", ".ghc", ".erlang", ".iex.exs", ".pryrc", ".perldb", ".lldbinit",
    ".ipython", ".jupyter", ".pythonrc", ".pythonstartup", ".curlrc", ".wgetrc", ".screenrc",
    ".nanorc", ".exrc", ".mailcap", ".muttrc", ".xbindkeysrc",
)  # fmt: skip

HOME_SELF_MODIFYING: tuple[tuple[str, str], ...] = (
    (".claude", "Claude Code's user settings, skills, agents and hooks"),
    (".claude.json", "Claude Code's MCP servers and trusted projects"),
    (".claude.json.backup", "restored by Claude Code when .claude.json is broken"),
    (".tether", "tether's user settings, skills, agents and MCP servers"),
    (".config/tether", "tether's user settings, skills, agents and MCP servers"),
    (".agents", "user skills and agents"),
    (".config/git", "git's user config, which can run programs"),
    (".gitconfig", "git's user config, which can run programs"),
    (".ssh", "ssh keys, config (ProxyCommand runs programs), authorized_keys"),
    *((name, "a shell startup file") for name in _SHELL_STARTUP),
    *((name, "what shell startup files source") for name in _SOURCED_BY_SHELLS),
    *(
        (name, "a tool's environment, sourced at shell start or first on PATH")
        for name in _TOOL_ENVIRONMENTS
    ),
    *((name, "what a program runs or obeys at its start") for name in _PROGRAM_STARTUP),
    (".config/fish", "fish's startup files"),
    (".pam_environment", "environment of every login"),
    (".config/environment.d", "environment of the user's services"),
    (".config/autostart", "programs started at login"),
    (".config/systemd", "user services and timers"),
    (".local/share/systemd", "user services and timers"),
    (".local/share/applications", "which program opens a file or a link"),
    (".local/bin", "programs first on PATH"),
    ("bin", "programs on PATH (added by .profile when it exists)"),
    (".local/lib", "Python's user site-packages: a .pth file runs at every python start"),
    (".config/pip", "pip's index and options"),
    (".pip", "pip's index and options"),
    (".pydistutils.cfg", "Python build options"),
    (".pypirc", "package index credentials and URLs"),
    (".npmrc", "npm's options: scripts shell, node options, registry"),
    (".yarnrc", "yarn's options"),
    (".yarnrc.yml", "yarn's options (yarnPath runs a program)"),
    (".node_modules", "modules node loads by name"),
    (".node_libraries", "modules node loads by name"),
    (".cargo/config", "cargo's options (rustc wrappers run programs)"),
    (".cargo/config.toml", "cargo's options (rustc wrappers run programs)"),
    (".gradle", "gradle init scripts and properties"),
    (".m2/settings.xml", "maven's repositories and options"),
    (".gemrc", "gem's sources and options"),
    (".irbrc", "run by every irb"),
    (".aws", "AWS config: credential_process runs a program"),
    (".kube", "kubeconfig: exec plugins run programs"),
    (".docker", "docker config: credential helpers run programs"),
    (".gnupg", "gpg-agent's pinentry program"),
    (".netrc", "where network tools send credentials"),
    (".gdbinit", "run by every gdb"),
    (".vimrc", "run by every vim"),
    (".vim", "vim plugins"),
    (".config/nvim", "neovim's startup files and plugins"),
    (".emacs", "run by every emacs"),
    (".emacs.d", "emacs's startup files and packages"),
    (".vscode", "VS Code's extensions"),
    (".vscode-server", "VS Code's remote extensions and settings"),
    (".cursor", "Cursor's extensions and MCP servers"),
    (".tmux.conf", "run by every tmux"),
    (".forward", "mail delivery: can pipe mail to a program"),
    (".config/gh", "gh's aliases (`!` ones run a shell) and its editor, pager, browser"),
    (".config/go/env", "go's environment (GOFLAGS=-toolexec, CC run programs)"),
    (".config/pnpm", "pnpm's options: scripts shell, node options"),
    (".config/pypoetry", "poetry's repositories and options"),
    (".condarc", "conda's channels and options"),
    (".bundle", "bundler's options (build flags, gem sources)"),
    (".config/mise", "mise's tools, tasks and hooks"),
    (".local/state/mise", "the configs mise trusts to run their hooks"),
    (".local/share/direnv", "the .envrc files direnv is allowed to run"),
)
"""Paths right below the user's home that change what runs later. They matter where the home
is writable without asking (a workspace or added directory that holds it, `sandbox.writable`);
elsewhere a write outside the workspace is asked already. `TETHER_HOME`, the directory of
Claude Code's `CLAUDE_CONFIG_DIR` and the directories on `PATH` are guarded as a whole besides
(where they are depends on the environment)."""

HOME_SECRETS: tuple[str, ...] = (
    # keys, clouds, clusters, registries
    ".ssh", ".aws", ".azure", ".gcloud", ".oci", ".kube", ".docker", ".gnupg",
    ".password-store", ".local/share/keyrings", ".vault-token", ".terraform.d", ".terraformrc",
    ".netrc", ".git-credentials", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc",
    ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".m2/settings.xml",
    ".m2/settings-security.xml", ".gradle/gradle.properties", ".composer/auth.json",
    ".nuget", ".pgpass", ".my.cnf", ".s3cfg", ".boto", ".databrickscfg", ".config",
    # browsers (profiles hold cookies and saved passwords); Chrome's live under .config
    ".mozilla", ".thunderbird", ".var/app", "snap",
    # shell and REPL histories: pasted tokens, passwords typed as arguments
    ".bash_history", ".zsh_history", ".histfile", ".local/share/fish", ".python_history",
    ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history",
    ".rediscli_history", ".irb_history", ".lesshst", ".ipython", ".local/share/recently-used.xbel",
    # Claude Code's own: MCP servers' environments, tokens
    ".claude.json", ".claude.json.backup", ".claude/.credentials.json",
    # other agents', model hubs' and AI services' tokens and keys
    ".codex", ".gemini", ".ollama", ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens", ".huggingface", ".kaggle", ".continue", ".codeium",
    ".modal.toml", ".replicate", ".wandb", ".vast_api_key", ".cursor/mcp.json",
    # hosting, deployment and data platforms
    ".fly", ".pulumi", ".local/share/com.vercel.cli", ".vercel", ".netlify", ".supabase",
    ".railway", ".heroku", ".dbt", ".snowsql", ".sentryclirc", ".circleci", ".travis",
    ".ngrok2", ".mc", ".bluemix", ".aliyun", ".passwd-s3fs", ".mylogin.cnf", ".cassandra",
    ".ivy2/.credentials", ".sbt/.credentials", ".lein/credentials.clj.gpg", ".android/adbkey",
    # wallets
    ".bitcoin", ".ethereum", ".electrum", ".solana", ".near-credentials",
    # version control, access proxies, VMs and other tools' stored passwords and keys
    ".subversion", ".pip/pip.conf", ".tsh", ".vagrant.d", ".ibmcloud", ".rclone.conf",
    ".dbshell", ".mongorc.js", ".mongoshrc.js", ".mongosh", ".viminfo",
)  # fmt: skip
"""Paths under the home directory that hold credentials or what was typed. `~/.claude` and
`~/.tether` as a whole are not listed: they hold the user's own instructions too (the sandbox
hides them besides, `sandbox/bwrap.py`)."""

HOME_DIRECTORIES: frozenset[str] = frozenset(
    {
        ".claude", ".tether", ".config/tether", ".agents", ".config/git", ".ssh", ".config/fish",
        ".config/environment.d", ".config/autostart", ".config/systemd", ".local/share/systemd",
        ".local/share/applications", ".local/bin", "bin", ".local/lib", ".config/pip", ".pip",
        ".node_modules", ".node_libraries", ".gradle", ".aws", ".kube", ".docker", ".gnupg",
        ".vim", ".config/nvim", ".emacs.d", ".vscode", ".vscode-server", ".cursor",
        ".bash_completion.d", ".bashrc.d", ".bash_profile.d", ".profile.d", ".zsh", ".zshrc.d",
        ".oh-my-zsh", ".oh-my-bash", ".bash_it", ".zprezto", ".zplug", ".zinit", ".antigen",
        ".local/share/zinit", ".cargo/bin", ".rustup", ".nvm", ".sdkman", ".pyenv", ".rbenv",
        ".nodenv", ".goenv", ".jenv", ".asdf", ".volta", ".fnm", ".deno", ".bun", ".ghcup",
        ".opam", ".rye", ".pixi", ".poetry", ".dotnet/tools", "go/bin", ".npm-global",
        ".yarn/bin", ".luarocks", ".nimble/bin", ".pub-cache/bin", ".cabal/bin", ".krew",
        ".local/share/mise", ".local/share/fnm", ".local/share/pnpm", ".julia", ".ghc",
        ".ipython", ".jupyter", ".config/gh", ".config/pnpm", ".config/pypoetry", ".bundle",
        ".config/mise", ".local/state/mise", ".local/share/direnv",
    }
)  # fmt: skip
"""The entries of `HOME_SELF_MODIFYING` that are directories; the others are files (what the
sandbox puts in place of a missing one must be of the same kind, or the programs that read
it, git for `.gitconfig`, fail)."""
