"""pnpm's settings given on its command line as `--config.KEY=VALUE` (any setting of its
`.npmrc`) and `--use-node-version=V` (pnpm fetches that node and runs the scripts with it),
each as the option of the runner it stands for: `--config.node-options` is
`--node-options`, `--config.script-shell` is `--script-shell`; a setting not known harmless
is code not read, as a config file is (package_scripts)."""

from __future__ import annotations

_SAME_AS = {
    "node-options": "--node-options",
    "script-shell": "--script-shell",
    "shell": "--script-shell",
    "userconfig": "--userconfig",
    "globalconfig": "--globalconfig",
    "dir": "--dir",
    "prefix": "--prefix",
}
"""Settings that are a runner option package_scripts judges."""
_HARMLESS = frozenset(
    {
        "loglevel",
        "color",
        "reporter",
        "silent",
        "stream",
        "aggregate-output",
        "workspace-concurrency",
    }
    | {"progress", "unicode", "if-present", "reporter-hide-prefix", "use-stderr"}
)
"""Settings that change only what pnpm prints or how many scripts run at once."""


def pnpm_setting(option: str, value: str) -> tuple[str, str] | str | None:
    """What `pnpm OPTION=VALUE` stands for: (runner option, value), why it is code not read,
    or None for an option not a setting or a harmless one."""
    if option == "--use-node-version":
        return f"pnpm --use-node-version={value} runs the scripts with a node it fetches"
    if not option.startswith("--config."):
        return None
    key = option.removeprefix("--config.").replace("_", "-").lower()
    if key in _SAME_AS:
        return _SAME_AS[key], value
    if key in _HARMLESS:
        return None
    return f"pnpm {option} sets a setting tether does not read"
