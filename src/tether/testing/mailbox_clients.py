"""Bare mailbox processes for multi-process tests and the benchmark, printing JSON lines.

    python -m tether.testing.mailbox_clients send URL TEAM --project DIR --to M --sender S -n N
      [--pace SECONDS]
    python -m tether.testing.mailbox_clients hold URL TEAM --project DIR --member M -n N
    python -m tether.testing.mailbox_clients drain URL TEAM --project DIR --member M -n N
      [--consumer C] [--reclaim-after SECONDS]

`send`: N messages, ids `S-0` ... `S-<N-1>`, then `{"sent": N}`. `hold`: receive N messages,
print their ids, and wait, acknowledging nothing, until killed (a consumer that dies holding
them). `drain`: receive and acknowledge (each batch once received, as a teammate does once
its session file has it) until N distinct ids came, then print every id in the order handed
over (duplicates included) and each one's attempt number.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tether.store.mailbox import Message, open_mailbox_store


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m tether.testing.mailbox_clients")
    p.add_argument("action", choices=["send", "hold", "drain"])
    p.add_argument("url")
    p.add_argument("team")
    p.add_argument("--project", type=Path, required=True)
    p.add_argument("--to", default="")
    p.add_argument("--sender", default="sender")
    p.add_argument("--member", default="")
    p.add_argument("--consumer", default="consumer")
    p.add_argument("-n", "--count", type=int, required=True)
    p.add_argument("--reclaim-after", type=float, default=30.0)
    p.add_argument("--pace", type=float, default=0.0, help="seconds between two sends")
    args = p.parse_args(argv)
    store = open_mailbox_store(args.url, project=args.project, team=args.team)
    out = sys.stdout
    if args.action == "send":
        for n in range(args.count):
            store.send(Message(id=f"{args.sender}-{n}", sender=args.sender, recipient=args.to))
            if args.pace:
                time.sleep(args.pace)
        out.write(json.dumps({"sent": args.count}) + "\n")
    elif args.action == "hold":
        held: list[str] = []
        while len(held) < args.count:
            got = store.receive(
                args.member, args.consumer, max_count=args.count - len(held), block_s=5.0
            )
            held.extend(d.message.id for d in got)
        out.write(json.dumps({"held": held}) + "\n")
        out.flush()
        while True:
            time.sleep(3600)
    else:
        seen: set[str] = set()
        ids: list[str] = []
        attempts: list[int] = []
        while len(seen) < args.count:
            got = store.receive(
                args.member, args.consumer, block_s=5.0, reclaim_after_s=args.reclaim_after
            )
            ids.extend(d.message.id for d in got)
            attempts.extend(d.attempt for d in got)
            seen.update(d.message.id for d in got)
            store.ack(args.member, [d.receipt for d in got])
        out.write(json.dumps({"ids": ids, "attempts": attempts}) + "\n")
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
