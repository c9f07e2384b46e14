"""`tether team run TEAM MEMBER` (hidden): a teammate's process, started by `team up` or a
lead's session. Every store call it makes, from opening its store and its claim on, waits out
an outage of the store within its `--store-patience` (`tether.teams.patience`), as its
mailbox loop's reads do: a drop before its claim is survived as one after it."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from tether.protocol import ConfigError
from tether.store.mailbox import MailboxError, TeamStore, open_team_store
from tether.store.store_errors import StoreAbsent
from tether.teams.membership import LEASE_ENV, OWNER_ENV, STORE_ENV, TEAM_ENV
from tether.teams.patience import Patience


def run_member(args: argparse.Namespace, project: Path) -> int:
    patience = Patience(
        args.store or "the project's store",
        args.store_patience if args.store_patience > 0 else None,
        lambda line: print(line, flush=True),  # to its log
    )
    absent: list[StoreAbsent] = []

    def opened() -> TeamStore | None:
        try:
            return open_team_store(args.store, project=project, team=args.team, read_only=True)
        except StoreAbsent as e:  # no waiting makes it: said at once
            absent.append(e)
            return None

    store = patience.call(opened)
    if store is None:
        raise absent[0]
    patience.url = store.url
    try:
        code = _run(args, project, store, patience)
    except MailboxError as e:  # said as `tether team`'s other commands say it
        raise ConfigError(str(e)) from None
    finally:
        store.close()
    if code < 0:  # stopped by a signal: it ends by it, for `team up` to say so
        from tether.processes import end_by_signal

        end_by_signal(-code)
    return code


def _run(args: argparse.Namespace, project: Path, store: TeamStore, patience: Patience) -> int:
    from tether.cli.team_cmd import no_team
    from tether.cli.teammate_check import check_member_model, member_agent
    from tether.teams.claims import claim_member

    if patience.call(store.team_record) is None:
        raise ConfigError(no_team(store.team, store.url))
    members = patience.call(store.members)
    member = next((m for m in members if m.name == args.member), None)
    if member is None:
        names = ", ".join(m.name for m in members)
        raise ConfigError(f"no member named {args.member!r} in team {store.team} ({names})")
    # Before the claim: `team up` waits for the claim alone, so what would stop this process
    # from running the member at all is found while its starter still waits to say it.
    agent = member_agent(project, member)
    check_member_model(project, member, trust_workspace=args.trust_workspace)
    name = member.name
    busy = patience.call(lambda: claim_member(store, name))
    if busy is not None:  # one process per member: this one is not it
        print(f"{name}: {busy}: this process stops", file=sys.stderr)
        return 1
    member = next(m for m in patience.call(store.members) if m.name == name)
    from tether.cli.teammate_run import serve_teammate  # its session: imported once claimed

    # Its session has the task tools, on its team's board in the same store, its claims in
    # its own name (this process is the teammate's alone).
    os.environ[TEAM_ENV] = store.team
    os.environ.setdefault(OWNER_ENV, name)
    if args.store:
        os.environ[STORE_ENV] = args.store
    os.environ[LEASE_ENV] = repr(args.lease)
    inbox = patience.call(lambda: open_team_store(args.store, project=project, team=store.team))
    try:
        return asyncio.run(
            serve_teammate(
                project,
                store,
                inbox,
                member,
                agent,
                plan=args.plan,
                store_patience_s=patience.patience_s,
                trust_workspace=args.trust_workspace,
                patience=patience,
            )
        )
    finally:
        inbox.close()
