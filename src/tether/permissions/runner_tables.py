"""The tables runner_argv.py reads package runners' command lines with: each runner's options
(flags, options taking a value, those naming the package directory, picking the workspace's
packages or giving a shell command line) and its own commands (npm's with their aliases)."""

from __future__ import annotations

from typing import Final

from tether.slotted import Slotted


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


class Grammar(Slotted):
    __slots__ = ("code", "code_flags", "dirs", "flags", "picks", "picks_valued", "valued")
    flags: Final[frozenset[str]]
    valued: Final[frozenset[str]]
    dirs: Final[frozenset[str]]
    picks: Final[frozenset[str]]
    picks_valued: Final[frozenset[str]]
    code: Final[frozenset[str]]
    code_flags: Final[frozenset[str]]

    def __init__(
        self,
        flags: str,
        valued: str,
        *,
        dirs: str = "",
        picks: str = "",
        picks_valued: str = "",
        code: str = "",
        code_flags: str = "",
    ) -> None:
        self.flags = frozenset(flags.split())
        self.valued = frozenset(valued.split())
        self.dirs = frozenset(dirs.split())  # valued: a package directory (or workspace)
        self.picks = frozenset(picks.split())  # flags: packages of the workspace
        self.picks_valued = frozenset(picks_valued.split())  # valued: a filter of them
        self.code = frozenset(code.split())  # valued: a shell command line
        self.code_flags = frozenset(code_flags.split())  # flags: the words are shell code

    def known(self) -> frozenset[str]:
        return self.valued | self.dirs | self.picks_valued | self.code


NPM = Grammar(
    "-s --silent -q --quiet -d -dd -ddd --verbose -y --yes --no -g --global -f --force"
    " --json -l --long --parseable --offline --prefer-offline --prefer-online"
    " --ignore-scripts --include-workspace-root --if-present --foreground-scripts"
    " -v --version -h --help -H -? --dry-run --no-install --timing --usage",
    "--loglevel --cache --registry --userconfig --globalconfig --tag --otp --scope"
    " --node-options --script-shell --shell --before --omit --include --install-strategy"
    " --logs-dir --logs-max --fetch-retries --fetch-timeout --access --auth-type --cafile"
    " --ca --cert --key --proxy --https-proxy --noproxy --local-address --maxsockets"
    " --umask --user-agent --depth --editor --init-module --location --lockfile-version"
    " --message -m --preid --save-prefix --viewer --which --package --os --cpu --libc",
    dirs="--prefix -C -prefix --workspace -w -workspace",
    picks="--workspaces -ws -workspaces",
    code="--call -c -call",
)
PNPM = Grammar(
    "-s --silent --stream --parallel --aggregate-output --no-bail --bail --sort --no-sort"
    " --reverse -w --workspace-root --include-workspace-root --fail-if-no-match"
    " --report-summary --use-stderr -h --help -v --version --color --no-color",
    "--reporter --loglevel --workspace-concurrency --resume-from --test-pattern"
    " --changed-files-ignore-pattern --filter-prod --store-dir --virtual-store-dir",
    dirs="-C --dir",
    picks="-r --recursive",
    picks_valued="--filter -F",
    code_flags="-c --shell-mode",
)
YARN = Grammar(
    "-s --silent --verbose --offline --prefer-offline --frozen-lockfile --pure-lockfile"
    " --no-progress --non-interactive --ignore-scripts --ignore-engines --json"
    " -h --help -v --version --no-default-rc --flat --production --prod",
    "--cache-folder --mutex --network-concurrency --network-timeout --registry --proxy"
    " --https-proxy --global-folder --link-folder --preferred-cache-folder --otp",
    dirs="--cwd",
    # the node_modules yarn uses may be elsewhere: any package of the workspace
    picks_valued="--modules-folder",
)
BUN = Grammar(
    "--silent --bun -b --if-present --smol --hot --watch --no-install --no-clear-screen"
    " -h --help -v --version --revision --inspect --inspect-wait --inspect-brk -i",
    "--elide-lines --shell --config -c --env-file --preload -r --tsconfig-override"
    " --define -d --loader -l --port --main-fields --install --prefer-offline",
    dirs="--cwd",
    picks_valued="--filter -F",
)
FOLLOW = Grammar("", "")  # no options of its own: what follows is the command

NPM_COMMANDS = _names(
    "access adduser audit bugs cache ci completion config dedupe deprecate diff dist-tag docs"
    " doctor edit exec explain explore find-dupes fund get help help-search hook init install"
    " install-ci-test install-test link ll login logout ls org outdated owner pack ping pkg"
    " prefix profile prune publish query rebuild repo restart root run-script sbom search set"
    " shrinkwrap star stars start stop team test token uninstall unpublish unstar update"
    " version view whoami"
)
NPM_ALIASES: dict[str, str] = {
    **dict.fromkeys(("x",), "exec"),
    **dict.fromkeys(("run", "rum", "urn"), "run-script"),
    **dict.fromkeys(("t", "tst"), "test"),
    **dict.fromkeys(("i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta"), "install"),
    **dict.fromkeys(("isntal", "isntall", "add"), "install"),
    **dict.fromkeys(("cit", "clean-install-test", "sit"), "install-ci-test"),
    **dict.fromkeys(("clean-install", "ic", "install-clean", "isntall-clean"), "ci"),
    **dict.fromkeys(("un", "unlink", "remove", "rm", "r"), "uninstall"),
    **dict.fromkeys(("up", "upgrade", "udpate"), "update"),
    **dict.fromkeys(("info", "show", "v"), "view"),
    **dict.fromkeys(("c",), "config"),
    **dict.fromkeys(("ln",), "link"),
    **dict.fromkeys(("la", "list"), "ls"),
    **dict.fromkeys(("why",), "explain"),
    **dict.fromkeys(("create", "innit"), "init"),
    **dict.fromkeys(("s", "se", "find"), "search"),
    **dict.fromkeys(("it",), "install-test"),
    **dict.fromkeys(("rb",), "rebuild"),
    **dict.fromkeys(("ddp",), "dedupe"),
    **dict.fromkeys(("home",), "docs"),
    **dict.fromkeys(("issues",), "bugs"),
    **dict.fromkeys(("author",), "owner"),
    **dict.fromkeys(("add-user",), "adduser"),
    **dict.fromkeys(("dist-tags",), "dist-tag"),
    **dict.fromkeys(("verison",), "version"),
    **dict.fromkeys(("hlep",), "help"),
}
PNPM_OWN = _names(
    "add install i update up upgrade remove rm uninstall un link ln unlink import rebuild rb"
    " prune fetch patch patch-commit patch-remove audit list ls ll la outdated why store root"
    " bin setup init publish pack run run-script test t tst start dlx create env config c"
    " get set server deploy licenses help recursive m multi doctor self-update cat-file"
    " cat-index find-hash install-test it dedupe approve-builds ignored-builds"
)
YARN_OWN = _names(
    "add install remove upgrade up dlx info init link unlink pack publish config cache why"
    " constraints dedupe explain npm plugin rebuild set version bin global list outdated"
    " audit autoclean check create help import licenses login logout owner policies tag"
    " team test start generate-lock-entry upgrade-interactive node"
)
BUN_OWN = _names(
    "test repl install i add a remove rm update outdated link unlink pm build init create c"
    " upgrade completions discord help publish patch patch-commit audit info why pack"
    " getcompletes"
)
BUN_ALIASES: dict[str, str] = {
    "i": "install",
    "a": "add",
    "c": "create",
    **dict.fromkeys(("r", "rm", "uninstall"), "remove"),
    **dict.fromkeys(("b", "bun"), "build"),
}
"""bun's other names for its commands (its command matcher: `bun c` is `bun create`; `b` and
`bun` were `build` in some releases)."""
COREPACK_TOOLS = frozenset({"npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg"})

FOLLOW_ANY = Grammar(
    "-A --all -R --recursive -p --parallel -i --interlaced -v --verbose -t --topological"
    " --topological-dev --since -W --worktree --dry-run",
    "-j --jobs --include --exclude --from",
)
