"""node's options written `--option VALUE` (with a space) given to tsx or ts-node, which pass
them on to node: every reader of node's line asks node's one table (node_options) which take
the next word, so VALUE is never read as the script and the inline code after it (`-e CODE`)
is judged as node's. Before, the reader of inline code knew nine options only: `tsx --title
x -e CODE` read `x` as the script and never saw the code, allowed under `Bash(tsx *)`."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash

CODE = '-e \'require("fs").readFileSync(".env")\''
VALUED = [
    "--title x",
    "--disable-warning x",
    "--input-type module",
    "--report-dir x",
    "--diagnostic-dir x",
    "--icu-data-dir x",
    "--dns-result-order ipv4first",
    "--unhandled-rejections strict",
    "--heapsnapshot-signal SIGUSR2",
    "--secure-heap 0",
    "--trace-event-categories x",
    "--redirect-warnings x",
    "--localstorage-file x",
    "--stack-trace-limit 1",
    "--watch-path x",
    "--test-name-pattern x",
    "--cpu-prof-dir x",
    "--tls-cipher-list x",
    "--max-http-header-size 1",
]


@pytest.mark.parametrize("runner", ["tsx", "ts-node", "tsx watch"])
@pytest.mark.parametrize("option", VALUED)
def test_node_valued_options_given_to_a_runner_do_not_hide_its_inline_code(
    runner: str, option: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"src/a.ts": "console.log(1)\n", ".env": "SECRET=1\n"})
    program = runner.split()[0]
    ctx = make_ctx({"permissions": {"allow": [f"Bash({program} *)"], "deny": ["Read(.env)"]}})
    decision = bash(f"{runner} {option} {CODE}", ctx)
    assert decision == Decision(
        "deny",
        "Read(.env)",
        f"{program}'s code names .env: reading {tree.ws}/.env is denied by Read(.env)",
    )
