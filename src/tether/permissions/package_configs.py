"""A package manager's project config files, read for settings that change what its scripts
run: `.npmrc` (`script-shell`, `node-options`, `userconfig`...), `.yarnrc` (`yarn-path`),
`.yarnrc.yml` (`yarnPath`, `plugins`), `bunfig.toml` (`preload`, `[run] shell`) and pnpm's
`.pnpmfile.cjs` (hooks run on install). Only settings known to run nothing are understood;
any other, or a file that cannot be read as its kind, is code not read."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable

import yaml

_NPMRC_KEYS = frozenset(
    {"registry", "always-auth", "save-exact", "save-prefix", "save", "engine-strict"}
    | {"legacy-peer-deps", "strict-peer-deps", "auto-install-peers", "package-lock"}
    | {"strict-peer-dependencies", "package-lock-only", "fund", "audit", "audit-level"}
    | {"loglevel", "progress", "color", "unicode", "shamefully-hoist", "hoist", "optional"}
    | {"hoist-pattern", "public-hoist-pattern", "node-linker", "link-workspace-packages"}
    | {"prefer-workspace-packages", "shared-workspace-lockfile", "ignore-scripts", "omit"}
    | {"update-notifier", "access", "ca", "cafile", "strict-ssl", "proxy", "https-proxy"}
    | {"noproxy", "no-proxy", "fetch-retries", "fetch-retry-mintimeout", "fetch-timeout"}
    | {"fetch-retry-maxtimeout", "prefer-offline", "offline", "frozen-lockfile", "include"}
    | {"prefer-frozen-lockfile", "resolution-mode", "dedupe-peer-dependents", "lockfile"}
    | {"enable-pre-post-scripts", "side-effects-cache", "production", "tag-version-prefix"}
    | {"sign-git-tag", "git-tag-version", "message", "init-author-name", "init-license"}
    | {"init-author-email", "init-author-url", "init-version", "install-links", "umask"}
    | {"resolve-peers-from-workspace-root", "disallow-workspace-cycles", "heading"}
    | {"recursive-install", "child-concurrency", "network-concurrency", "maxsockets"}
    | {"workspaces-update", "install-strategy", "prefer-dedupe", "provenance", "yes"}
    | {"logs-max", "timing", "store-dir", "cache", "virtual-store-dir", "modules-dir"}
    | {"_auth", "_authtoken", "_password", "username", "email", "certfile", "keyfile"}
)
_SCOPED = re.compile(r"(?:@[^:]+:|//[^:]*:)(.*)")
_YARNRC_KEYS = frozenset(
    {"registry", "network-timeout", "save-prefix", "ignore-engines", "ignore-optional"}
    | {"disable-self-update-check", "strict-ssl", "cafile", "proxy", "https-proxy", "email"}
    | {"lastupdatecheck", "yarn-offline-mirror", "yarn-offline-mirror-pruning", "username"}
    | {"init-license", "init-version", "save-exact", "--install.frozen-lockfile"}
)
_YARNRC_YML_KEYS = frozenset(
    {"nodeLinker", "npmRegistryServer", "npmScopes", "npmAuthToken", "enableGlobalCache"}
    | {"enableTelemetry", "compressionLevel", "pnpMode", "enableImmutableInstalls"}
    | {"checksumBehavior", "logFilters", "defaultSemverRangePrefix", "npmAlwaysAuth"}
    | {"enableScripts", "httpProxy", "httpsProxy", "caFilePath", "enableStrictSsl"}
    | {"unsafeHttpWhitelist", "supportedArchitectures", "nmMode", "nmHoistingLimits"}
    | {"preferInteractive", "enableProgressBars", "enableColors", "cacheFolder"}
    | {"globalFolder", "enableMirror", "npmAuthIdent", "npmPublishRegistry", "pnpUnpluggedFolder"}
    | {"enableInlineBuilds", "enableNetwork", "httpTimeout", "httpRetry", "initScope"}
)
_BUNFIG_KEYS = frozenset(
    {"logLevel", "telemetry", "smol", "define", "loader", "jsx", "jsxFactory", "jsxFragment"}
    | {"jsxImportSource", "install", "test", "run", "serve"}
)
_SHELLS = (None, "system", "bun")


def config_unread(name: str, text: str) -> str | None:
    """Why the config file `name` (with `text`) holds settings tether does not read, or
    None when all of it is understood."""
    if name == ".pnpmfile.cjs":
        return "pnpm runs the hooks of .pnpmfile.cjs, which tether does not read"
    if name == ".npmrc":
        return _lines(name, text, "=", _npmrc_key)
    if name == ".yarnrc":
        return _lines(name, text, " ", lambda key: key.strip('"').lower() in _YARNRC_KEYS)
    if name == ".yarnrc.yml":
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return "tether cannot read .yarnrc.yml"
        keys = list(data) if isinstance(data, dict) else [] if data is None else ["?"]  # pyright: ignore[reportUnknownArgumentType]
        unknown = [str(k) for k in keys if k not in _YARNRC_YML_KEYS]  # pyright: ignore[reportUnknownVariableType]
        return f".yarnrc.yml sets {unknown[0]}, which tether does not read" if unknown else None
    if name == "bunfig.toml":
        return _bunfig(text)
    return None


def _npmrc_key(key: str) -> bool:
    key = key.strip().lower().removesuffix("[]")
    scoped = _SCOPED.fullmatch(key)
    if scoped is not None:
        key = scoped.group(1) or "registry"
    return key in _NPMRC_KEYS


def _lines(name: str, text: str, separator: str, known: Callable[[str], bool]) -> str | None:
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        key = line.split(separator, 1)[0] if separator in line else line
        if not known(key):
            return f"{name} sets {key.strip()[:40]}, which tether does not read"
    return None


def _bunfig(text: str) -> str | None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return "tether cannot read bunfig.toml"
    for key, value in data.items():
        if key not in _BUNFIG_KEYS:
            return f"bunfig.toml sets {key}, which tether does not read"
        table: dict[str, object] = value if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownVariableType]
        if key == "test" and "preload" in table:
            return "bunfig.toml preloads code for tests, which tether does not read"
        shell = table.get("shell")
        if key == "run" and (set(table) - {"shell", "bun", "silent"} or shell not in _SHELLS):
            return "bunfig.toml sets how scripts run, which tether does not read"
    return None
