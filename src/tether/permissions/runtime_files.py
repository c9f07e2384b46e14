"""Files a JavaScript runtime reads its configuration or environment from without a path on
its command line, as the runtime finds them: `node --experimental-default-config-file` reads
`node.config.json` where it runs (a configuration that may set `nodeOptions`: `--import`,
`--require`); deno's `--env-file` and `--env` take their file only after `=` and read `.env`
without one (a word after them is the script). outside_code judges each as code loaded."""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.command_spec import words

NODE_VALUED = frozenset(
    words(
        "--watch-path --watch-kill-signal --snapshot-blob --test-reporter "
        "--test-reporter-destination --test-global-setup --test-name-pattern "
        "--test-skip-pattern --test-concurrency --test-shard --test-timeout --test-isolation "
        "--test-coverage-include --test-coverage-exclude --test-coverage-branches "
        "--test-coverage-functions --test-coverage-lines --redirect-warnings --report-dir "
        "--report-directory --report-filename --report-signal --diagnostic-dir --cpu-prof-dir "
        "--cpu-prof-name --cpu-prof-interval --heap-prof-dir --heap-prof-name "
        "--heap-prof-interval --disable-warning --experimental-sea-config --localstorage-file "
        "--secure-heap --secure-heap-min --unhandled-rejections --dns-result-order "
        "--trace-event-categories --trace-event-file-pattern --icu-data-dir "
        "--experimental-policy --policy-integrity --allow-fs-read --allow-fs-write "
        "--max-http-header-size --stack-trace-limit --heapsnapshot-signal "
        "--heapsnapshot-near-heap-limit --tls-cipher-list --tls-keylog --use-largepages "
        "--experimental-default-type --inspect-publish-uid"
    )
)
"""node's options (beyond those interpreter_scripts names) that take a value, after `=` or as
the next word (`--watch-path DIR`, which only watches): never the script."""

_IMPLIED: Mapping[str, Mapping[str, str]] = {
    "node": {"--experimental-default-config-file": "node.config.json"},
    "nodejs": {"--experimental-default-config-file": "node.config.json"},
    "deno": {"--env-file": ".env", "--env": ".env"},
}
_EQUALS_ONLY: Mapping[str, tuple[str, ...]] = {"deno": ("--env-file", "--env")}


def implied_files(name: str, args: tuple[str, ...]) -> list[str]:
    """The files runtime `name` reads for options given without a path (`./node.config.json`,
    `./.env`), and those deno's optional-valued options name after `=`."""
    implied = _IMPLIED.get(name, {})
    equals = _EQUALS_ONLY.get(name, ())
    found: list[str] = []
    for arg in args[: args.index("--")] if "--" in args else args:
        option, eq, value = arg.partition("=")
        if arg in implied:
            found.append("./" + implied[arg])
        elif eq and option in equals:
            found.append(value or "./.env")
    return found
