"""Run every benchmark and print its figures: `.venv/bin/python bench/run.py` (or scripts/bench)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import compaction_bench
import context_bench
import eval_bench
import events_bench
import grep_bench
import mailbox_bench
import mcp_bench
import mcp_hung_bench
import observe_bench
import parallel_tools_bench
import resources_bench
import sandbox_bench
import session_bench
import startup
import subagent_bench
import tasks_bench
import team_bench
import turn_overhead
import worker_start_bench
import workers_bench

try:
    import permissions_bench
except ImportError:  # the permission engine's bench, when present
    permissions_bench = None


def main() -> None:
    startup.report(startup.main())
    print()
    turn_overhead.report(turn_overhead.main())
    print()
    events_bench.report(events_bench.main())
    print()
    observe_bench.report(observe_bench.main())
    print()
    context_bench.report(context_bench.main())
    print()
    compaction_bench.report(compaction_bench.main())
    print()
    print("grep over a 50,000-file tree: tether's Grep tool against rg run directly")
    grep_bench.main()
    print()
    sandbox_bench.main()
    if permissions_bench is not None:
        print()
        permissions_bench.report(permissions_bench.main())
    print()
    parallel_tools_bench.report(parallel_tools_bench.main())
    print()
    session_bench.report(session_bench.main())
    print()
    subagent_bench.report(subagent_bench.main())
    print()
    mcp_bench.report(mcp_bench.main())
    print()
    mcp_hung_bench.report(mcp_hung_bench.main())
    print()
    resources_bench.report(resources_bench.main())
    print()
    tasks_bench.report(tasks_bench.main())
    print()
    mailbox_bench.report(mailbox_bench.main())
    print()
    workers_bench.report(workers_bench.main())
    print()
    worker_start_bench.report(worker_start_bench.main())
    print()
    team_bench.report(team_bench.main())
    print()
    eval_bench.report(eval_bench.main())


if __name__ == "__main__":
    main()
