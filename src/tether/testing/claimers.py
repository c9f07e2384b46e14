"""A bare claiming process for multi-process tests and the benchmark: claims tasks from a
board and completes each at once, printing one JSON line per claim.

    python -m tether.testing.claimers STORE_URL TEAM OWNER --project DIR [--hold]

`--hold`: claim one task, print it, and wait without heartbeats until killed (a worker that
dies mid-task). Otherwise claim until nothing is left, then print a `done` line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tether.store.task_records import LeaseLost
from tether.store.task_store import open_task_store


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m tether.testing.claimers")
    p.add_argument("url")
    p.add_argument("team")
    p.add_argument("owner")
    p.add_argument("--project", type=Path, required=True)
    p.add_argument("--lease", type=float, default=60.0)
    p.add_argument("--hold", action="store_true")
    args = p.parse_args(argv)
    store = open_task_store(args.url, project=args.project, team=args.team)
    out = sys.stdout
    if args.hold:
        claim = None
        while claim is None:
            claim = store.claim_next(args.owner, lease_s=args.lease)
        out.write(json.dumps({"claimed": claim.task_id, "fence": claim.fence}) + "\n")
        out.flush()
        while True:
            time.sleep(3600)
    claims = 0
    while (claim := store.claim_next(args.owner, lease_s=args.lease)) is not None:
        claims += 1
        try:
            store.complete(claim, f"done by {args.owner}")
            outcome = "completed"
        except LeaseLost:
            outcome = "lease lost"
        out.write(json.dumps({"claimed": claim.task_id, "fence": claim.fence, "outcome": outcome}))
        out.write("\n")
    out.write(json.dumps({"done": claims}) + "\n")
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
