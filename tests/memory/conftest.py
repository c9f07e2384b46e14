"""Running `tether memory` in this process (TETHER_HOME is the test's)."""

from __future__ import annotations

import contextlib
import io

from tether.testing.cli_runner import CliResult


def memory_cli(*argv: str) -> CliResult:
    from tether.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["memory", *argv])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
    return CliResult(code, out.getvalue(), err.getvalue())
