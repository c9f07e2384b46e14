"""deno 2.9.6's options, generated from its help (`deno --help`, `deno SUBCOMMAND --help`,
clap's): for each subcommand ("" for those before any), the long options taking the next word as
their value (`--ext ts`; `--lock [FILE]` takes it too, when it is no option), the options taking
one only after `=` or none (`--allow-read[=PATHS]`, `-q`), and the short letters' long names.
Regenerate from a newer deno rather than editing by hand; an option missing here is one the
engine cannot read, and asks (deno_options.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DENO_VERSION = "2.9.6"


@dataclass(frozen=True)
class DenoOptions:
    valued: frozenset[str]
    """Long options whose value may be the next word."""
    flags: frozenset[str]
    """Long options with no value, or one only after `=`."""
    short: Mapping[str, str]
    """Short letters and the long option each is."""


def _options(valued: str, flags: str, short: str) -> DenoOptions:
    letters = dict(pair.split("=") for pair in short.split())
    return DenoOptions(frozenset(valued.split()), frozenset(flags.split()), letters)


DENO_OPTIONS: Mapping[str, DenoOptions] = {
    "": _options(
        ("--log-level"),
        ("--env-file --help --quiet --version"),
        ("L=--log-level V=--version h=--help q=--quiet"),
    ),
    "run": _options(
        (
            "--cert --conditions --config --ext --import-map --inspect-publish-uid --location "
            "--lock --min-dep-age --node-modules-linker --preload --require --seed"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-scripts --allow-sys --allow-write --cached-only --check "
            "--coverage --deny-env --deny-ffi --deny-import --deny-net --deny-read --deny-run "
            "--deny-sys --deny-write --env-file --frozen-lockfile --hmr --ignore-env "
            "--ignore-read --inspect --inspect-brk --inspect-wait --no-check "
            "--no-clear-screen --no-code-cache --no-config --no-lock --no-npm --no-prompt "
            "--no-remote --node-modules-dir --permission-set --reload "
            "--unsafely-ignore-certificate-errors --use-env-proxy --v8-flags --vendor --watch "
            "--watch-exclude"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config r=--reload"
        ),
    ),
    "watch": _options(
        (
            "--cert --conditions --config --ext --import-map --inspect-publish-uid --location "
            "--lock --min-dep-age --node-modules-linker --preload --require --seed"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-scripts --allow-sys --allow-write --cached-only --check "
            "--coverage --deny-env --deny-ffi --deny-import --deny-net --deny-read --deny-run "
            "--deny-sys --deny-write --env-file --frozen-lockfile --hmr --ignore-env "
            "--ignore-read --inspect --inspect-brk --inspect-wait --no-check "
            "--no-clear-screen --no-code-cache --no-config --no-lock --no-npm --no-prompt "
            "--no-remote --node-modules-dir --permission-set --reload "
            "--unsafely-ignore-certificate-errors --use-env-proxy --v8-flags --vendor --watch "
            "--watch-exclude"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config r=--reload"
        ),
    ),
    "serve": _options(
        (
            "--cert --conditions --config --ext --host --import-map --inspect-publish-uid "
            "--location --lock --min-dep-age --node-modules-linker --port --preload --require "
            "--seed"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-scripts --allow-sys --allow-write --cached-only --check "
            "--deny-env --deny-ffi --deny-import --deny-net --deny-read --deny-run --deny-sys "
            "--deny-write --env-file --frozen-lockfile --ignore-env --ignore-read --inspect "
            "--inspect-brk --inspect-wait --no-check --no-clear-screen --no-code-cache "
            "--no-config --no-lock --no-npm --no-prompt --no-remote --node-modules-dir --open "
            "--parallel --permission-set --reload --unsafely-ignore-certificate-errors "
            "--v8-flags --vendor --watch --watch-exclude --watch-hmr"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config r=--reload"
        ),
    ),
    "eval": _options(
        (
            "--cert --conditions --config --ext --import-map --inspect-publish-uid --location "
            "--lock --min-dep-age --node-modules-linker --preload --require --seed"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-sys --allow-write --cached-only --check --deny-env "
            "--deny-ffi --deny-import --deny-net --deny-read --deny-run --deny-sys "
            "--deny-write --env-file --frozen-lockfile --ignore-env --ignore-read --inspect "
            "--inspect-brk --inspect-wait --no-check --no-config --no-lock --no-npm "
            "--no-prompt --no-remote --node-modules-dir --permission-set --print --reload "
            "--unsafely-ignore-certificate-errors --v8-flags --vendor"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config p=--print r=--reload"
        ),
    ),
    "fmt": _options(
        ("--config --ext --indent-width --line-width --prose-wrap"),
        (
            "--check --fail-fast --ignore --no-clear-screen --no-config --no-editorconfig "
            "--no-semicolons --permit-no-files --single-quote --unstable-component "
            "--unstable-sql --use-tabs --watch --watch-exclude"
        ),
        ("c=--config"),
    ),
    "lint": _options(
        ("--config --ext"),
        (
            "--allow-import --compact --deny-import --fix --ignore --json --no-clear-screen "
            "--no-config --permit-no-files --rules --rules-exclude --rules-include "
            "--rules-tags --watch --watch-exclude"
        ),
        ("I=--allow-import c=--config"),
    ),
    "test": _options(
        (
            "--cert --conditions --config --coverage-threshold --ext --filter --import-map "
            "--inspect-publish-uid --junit-path --location --lock --min-dep-age "
            "--node-modules-linker --preload --related --repeats --reporter --require --retry "
            "--seed --shard"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-scripts --allow-sys --allow-write --cached-only --changed "
            "--check --clean --coverage --coverage-raw-data-only --deny-env --deny-ffi "
            "--deny-import --deny-net --deny-read --deny-run --deny-sys --deny-write --doc "
            "--env-file --fail-fast --frozen-lockfile --hide-stacktraces --ignore "
            "--ignore-env --ignore-read --inspect --inspect-brk --inspect-wait --no-check "
            "--no-clear-screen --no-config --no-lock --no-npm --no-prompt --no-remote "
            "--no-run --node-modules-dir --parallel --permission-set --permit-no-files "
            "--reload --sanitize-ops --sanitize-resources --shuffle "
            "--unsafely-ignore-certificate-errors --update-snapshots --v8-flags --vendor "
            "--watch --watch-exclude"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config r=--reload "
            "u=--update-snapshots"
        ),
    ),
    "upgrade": _options(
        ("--branch --cert --checksum --output --pr --version"),
        (
            "--canary --dry-run --force --no-delta --release-candidate "
            "--unsafely-ignore-certificate-errors"
        ),
        ("f=--force o=--output"),
    ),
    "cache": _options(
        (
            "--cert --config --ext --import-map --inspect-publish-uid --lock --min-dep-age "
            "--node-modules-linker"
        ),
        (
            "--allow-import --allow-scripts --check --deny-import --env-file "
            "--frozen-lockfile --inspect --inspect-brk --inspect-wait --no-check --no-config "
            "--no-lock --no-npm --no-remote --node-modules-dir --reload "
            "--unsafely-ignore-certificate-errors --vendor"
        ),
        ("I=--allow-import c=--config r=--reload"),
    ),
    "check": _options(
        (
            "--cert --conditions --config --import-map --location --lock --min-dep-age "
            "--node-modules-linker --preload --require --seed"
        ),
        (
            "--all --allow-import --cached-only --deny-import --desktop --doc --doc-only "
            "--frozen-lockfile --no-check --no-clear-screen --no-code-cache --no-config "
            "--no-lock --no-npm --no-remote --node-modules-dir --reload "
            "--unsafely-ignore-certificate-errors --v8-flags --vendor --watch --watch-exclude"
        ),
        ("I=--allow-import c=--config r=--reload"),
    ),
    "info": _options(
        ("--cert --config --import-map --location --lock --min-dep-age --node-modules-linker"),
        (
            "--allow-import --deny-import --frozen-lockfile --json --no-check --no-config "
            "--no-lock --no-npm --no-remote --node-modules-dir --reload "
            "--unsafely-ignore-certificate-errors --vendor"
        ),
        ("I=--allow-import c=--config r=--reload"),
    ),
    "doc": _options(
        (
            "--category-docs --cert --config --default-symbol-map --filter --import-map "
            "--lock --min-dep-age --name --node-modules-linker --output --symbol-redirect-map"
        ),
        (
            "--allow-import --builtin --deny-import --frozen-lockfile --html --json --lint "
            "--no-check --no-config --no-lock --no-npm --no-remote --node-modules-dir "
            "--private --reload --strip-trailing-html --unsafely-ignore-certificate-errors "
            "--vendor"
        ),
        ("I=--allow-import c=--config r=--reload"),
    ),
    "task": _options(
        ("--config --cwd --filter --jobs --lock"),
        (
            "--env-file --eval --frozen-lockfile --if-present --members --no-lock --no-prefix "
            "--node-modules-dir --recursive"
        ),
        ("c=--config f=--filter j=--jobs r=--recursive"),
    ),
    "bench": _options(
        (
            "--cert --conditions --config --ext --filter --import-map --inspect-publish-uid "
            "--location --lock --min-dep-age --node-modules-linker --preload --require --seed"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-sys --allow-write --cached-only --check --deny-env "
            "--deny-ffi --deny-import --deny-net --deny-read --deny-run --deny-sys "
            "--deny-write --env-file --frozen-lockfile --ignore --ignore-env --ignore-read "
            "--inspect --inspect-brk --inspect-wait --json --no-check --no-clear-screen "
            "--no-config --no-lock --no-npm --no-prompt --no-remote --no-run "
            "--node-modules-dir --permission-set --permit-no-files --reload "
            "--unsafely-ignore-certificate-errors --v8-flags --vendor --watch --watch-exclude"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config r=--reload"
        ),
    ),
    "compile": _options(
        (
            "--app-name --cert --conditions --config --engine --exclude --ext --icon "
            "--import-map --include --inspect-publish-uid --location --lock --min-dep-age "
            "--node-modules-linker --output --preload --require --seed --target"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-sys --allow-write --bundle --cached-only --check --deny-env "
            "--deny-ffi --deny-import --deny-net --deny-read --deny-run --deny-sys "
            "--deny-write --env-file --exclude-unused-npm --frozen-lockfile --ignore-env "
            "--ignore-read --inspect --inspect-brk --inspect-wait --minify --no-check "
            "--no-clear-screen --no-code-cache --no-config --no-lock --no-npm --no-prompt "
            "--no-remote --no-terminal --node-modules-dir --permission-set --reload "
            "--self-extracting --unsafely-ignore-certificate-errors --v8-flags --vendor "
            "--watch --watch-exclude"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config o=--output r=--reload"
        ),
    ),
    "coverage": _options(
        ("--output --threshold"),
        ("--detailed --exclude --html --ignore --include --lcov"),
        "",
    ),
    "repl": _options(
        (
            "--cert --conditions --config --eval --eval-file --import-map "
            "--inspect-publish-uid --location --lock --min-dep-age --node-modules-linker "
            "--preload --require --seed"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-sys --allow-write --cached-only --deny-env --deny-ffi "
            "--deny-import --deny-net --deny-read --deny-run --deny-sys --deny-write "
            "--env-file --frozen-lockfile --ignore-env --ignore-read --inspect --inspect-brk "
            "--inspect-wait --json --no-check --no-config --no-lock --no-npm --no-prompt "
            "--no-remote --node-modules-dir --permission-set --reload "
            "--unsafely-ignore-certificate-errors --v8-flags --vendor"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config r=--reload"
        ),
    ),
    "install": _options(
        (
            "--arch --cert --conditions --config --import-map --inspect-publish-uid "
            "--location --lock --min-dep-age --name --node-modules-linker --os --preload "
            "--require --root --seed"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-scripts --allow-sys --allow-write --cached-only --check "
            "--compile --deny-env --deny-ffi --deny-import --deny-net --deny-read --deny-run "
            "--deny-sys --deny-write --dev --entrypoint --env-file --force --frozen-lockfile "
            "--global --ignore-env --ignore-read --inspect --inspect-brk --inspect-wait --jsr "
            "--lockfile-only --no-check --no-config --no-lock --no-npm --no-prompt "
            "--no-remote --no-save --node-modules-dir --npm --package-json --permission-set "
            "--prod --reload --save-exact --save-optional --skip-types "
            "--unsafely-ignore-certificate-errors --unscoped --v8-flags --vendor"
        ),
        (
            "A=--allow-all D=--dev E=--allow-env I=--allow-import N=--allow-net "
            "O=--save-optional P=--permission-set R=--allow-read S=--allow-sys "
            "W=--allow-write c=--config e=--entrypoint f=--force g=--global n=--name "
            "r=--reload"
        ),
    ),
    "uninstall": _options(
        ("--cert --config --import-map --lock --min-dep-age --node-modules-linker --root"),
        (
            "--frozen-lockfile --global --lockfile-only --no-check --no-config --no-lock "
            "--no-npm --no-remote --node-modules-dir --package-json --reload "
            "--unsafely-ignore-certificate-errors --vendor"
        ),
        ("c=--config g=--global r=--reload"),
    ),
    "types": _options(
        "",
        "",
        "",
    ),
    "completions": _options(
        "",
        ("--dynamic"),
        "",
    ),
    "init": _options(
        "",
        ("--empty --jsr --lib --npm --serve --yes"),
        ("y=--yes"),
    ),
    "create": _options(
        "",
        ("--jsr --npm --yes"),
        ("y=--yes"),
    ),
    "jupyter": _options(
        ("--conn --display --name"),
        ("--force --install --kernel"),
        ("d=--display n=--name"),
    ),
    "publish": _options(
        (
            "--cert --config --import-map --lock --min-dep-age --node-modules-linker "
            "--set-version --token"
        ),
        (
            "--allow-dirty --allow-slow-types --check --dry-run --env-file --frozen-lockfile "
            "--no-check --no-config --no-lock --no-npm --no-provenance --no-remote "
            "--node-modules-dir --reload --unsafely-ignore-certificate-errors --vendor"
        ),
        ("c=--config r=--reload"),
    ),
    "add": _options(
        ("--cert --config --import-map --lock --min-dep-age --node-modules-linker"),
        (
            "--allow-import --allow-scripts --deny-import --dev --env-file --frozen-lockfile "
            "--jsr --lockfile-only --no-check --no-config --no-lock --no-npm --no-remote "
            "--no-save --node-modules-dir --npm --package-json --reload --save-exact "
            "--save-optional --unsafely-ignore-certificate-errors --unscoped --vendor"
        ),
        ("D=--dev I=--allow-import O=--save-optional c=--config r=--reload"),
    ),
    "remove": _options(
        ("--cert --config --import-map --lock --min-dep-age --node-modules-linker --root"),
        (
            "--frozen-lockfile --global --lockfile-only --no-check --no-config --no-lock "
            "--no-npm --no-remote --node-modules-dir --package-json --reload "
            "--unsafely-ignore-certificate-errors --vendor"
        ),
        ("c=--config g=--global r=--reload"),
    ),
    "outdated": _options(
        ("--cert --config --import-map --lock --min-dep-age --node-modules-linker"),
        (
            "--compatible --env-file --frozen-lockfile --interactive --latest --lockfile-only "
            "--no-check --no-config --no-lock --no-npm --no-remote --node-modules-dir "
            "--recursive --reload --unsafely-ignore-certificate-errors --update --vendor"
        ),
        ("c=--config i=--interactive r=--reload u=--update"),
    ),
    "update": _options(
        ("--cert --config --import-map --lock --min-dep-age --node-modules-linker"),
        (
            "--compatible --env-file --frozen-lockfile --interactive --latest --lockfile-only "
            "--no-check --no-config --no-lock --no-npm --no-remote --node-modules-dir "
            "--recursive --reload --unsafely-ignore-certificate-errors --vendor"
        ),
        ("c=--config i=--interactive r=--reload"),
    ),
    "deploy": _options(
        "",
        "",
        "",
    ),
    "sandbox": _options(
        "",
        "",
        "",
    ),
    "clean": _options(
        ("--node-modules-linker"),
        ("--dry-run --except --node-modules-dir --vendor"),
        ("e=--except"),
    ),
    "list": _options(
        ("--depth"),
        ("--dev --prod --recursive"),
        ("r=--recursive"),
    ),
    "link": _options(
        ("--lock"),
        ("--frozen-lockfile --lockfile-only --no-lock"),
        "",
    ),
    "unlink": _options(
        ("--lock"),
        ("--frozen-lockfile --lockfile-only --no-lock"),
        "",
    ),
    "approve-scripts": _options(
        ("--cert --config --import-map --lock --min-dep-age --node-modules-linker"),
        (
            "--frozen-lockfile --lockfile-only --no-check --no-config --no-lock --no-npm "
            "--no-remote --node-modules-dir --reload --unsafely-ignore-certificate-errors "
            "--vendor"
        ),
        ("c=--config r=--reload"),
    ),
    "lsp": _options(
        "",
        "",
        "",
    ),
    "vendor": _options(
        "",
        ("--help --quiet --unstable"),
        ("h=--help q=--quiet"),
    ),
    "bundle": _options(
        (
            "--cert --config --format --import-map --lock --min-dep-age --node-modules-linker "
            "--outdir --output --packages --platform --sourcemap"
        ),
        (
            "--allow-import --allow-scripts --check --code-splitting --declaration "
            "--deny-import --external --frozen-lockfile --inline-imports --keep-names "
            "--minify --no-check --no-config --no-lock --no-npm --no-remote "
            "--node-modules-dir --reload --unsafely-ignore-certificate-errors --vendor "
            "--watch"
        ),
        ("I=--allow-import c=--config o=--output r=--reload"),
    ),
    "audit": _options(
        ("--level --lock"),
        (
            "--fix --frozen-lockfile --ignore --ignore-registry-errors --ignore-unfixable "
            "--no-lock --socket"
        ),
        "",
    ),
    "why": _options(
        ("--lock"),
        ("--env-file --frozen-lockfile --no-lock"),
        "",
    ),
    "transpile": _options(
        (
            "--cert --config --import-map --lock --min-dep-age --node-modules-linker --outdir "
            "--output --source-map"
        ),
        (
            "--declaration --frozen-lockfile --no-check --no-config --no-lock --no-npm "
            "--no-remote --node-modules-dir --reload --unsafely-ignore-certificate-errors "
            "--vendor"
        ),
        ("c=--config o=--output r=--reload"),
    ),
    "bump-version": _options(
        ("--base --config --import-map --release-notes --start"),
        ("--dry-run --no-workspace --workspace"),
        ("c=--config w=--workspace"),
    ),
    "ci": _options(
        "",
        ("--env-file --prod --skip-types"),
        "",
    ),
    "desktop": _options(
        (
            "--backend --cert --compress --conditions --config --engine --exclude --ext "
            "--icon --import-map --include --inspect-publish-uid --location --lock "
            "--min-dep-age --node-modules-linker --output --preload --require --seed --target"
        ),
        (
            "--all-targets --allow-all --allow-env --allow-ffi --allow-import --allow-net "
            "--allow-read --allow-run --allow-scripts --allow-sys --allow-write --cached-only "
            "--check --deny-env --deny-ffi --deny-import --deny-net --deny-read --deny-run "
            "--deny-sys --deny-write --env-file --exclude-unused-npm --frozen-lockfile --hmr "
            "--ignore-env --ignore-read --inspect --inspect-brk --inspect-renderer "
            "--inspect-wait --no-check --no-code-cache --no-config --no-lock --no-npm "
            "--no-prompt --no-remote --node-modules-dir --permission-set --reload "
            "--unsafely-ignore-certificate-errors --v8-flags --vendor"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config o=--output r=--reload"
        ),
    ),
    "pack": _options(
        ("--config --output --set-version"),
        (
            "--allow-dirty --allow-slow-types --dry-run --env-file --ignore --no-config "
            "--no-source-maps"
        ),
        ("c=--config o=--output"),
    ),
    "x": _options(
        (
            "--cert --conditions --config --import-map --inspect-publish-uid --install-alias "
            "--location --lock --min-dep-age --node-modules-linker --package --preload "
            "--require --seed"
        ),
        (
            "--allow-all --allow-env --allow-ffi --allow-import --allow-net --allow-read "
            "--allow-run --allow-scripts --allow-sys --allow-write --cached-only --check "
            "--deny-env --deny-ffi --deny-import --deny-net --deny-read --deny-run --deny-sys "
            "--deny-write --env-file --frozen-lockfile --ignore-env --ignore-read "
            "--ignore-scripts --inspect --inspect-brk --inspect-wait --no-check --no-config "
            "--no-lock --no-npm --no-prompt --no-remote --node-modules-dir --permission-set "
            "--reload --unsafely-ignore-certificate-errors --v8-flags --vendor --yes"
        ),
        (
            "A=--allow-all E=--allow-env I=--allow-import N=--allow-net P=--permission-set "
            "R=--allow-read S=--allow-sys W=--allow-write c=--config p=--package r=--reload "
            "y=--yes"
        ),
    ),
}
