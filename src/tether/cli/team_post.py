"""`tether team send TEAM MEMBER TEXT`'s plain message, through the mailbox's rows
(`mailbox_post`): a command run for one message imports no more than it takes (no pydantic).

Each run is a new message, unless `--id KEY` names it: its id then derives from the key and
the member (`keyed_id`), so the same command run again after a cut (a script retried, a
connection lost before the answer) finds it posted and stores nothing twice. An explicit key,
not an id derived from the text: a person who sends "go on" twice means two messages."""

from __future__ import annotations

import argparse
import uuid
from pathlib import Path

from tether.protocol import ConfigError

LEAD = "team-lead"
KEYED_IDS = uuid.UUID("3b1f6f0e-2d7a-4a4e-9c55-6a0e1f7d2b84")
"""The namespace of the message ids derived from `--id` keys."""


def keyed_id(key: str, member: str) -> str:
    """The id of the message `--id key` sends to `member`: the same on every run, in the
    shape of the other ids."""
    return uuid.uuid5(KEYED_IDS, f"{key}\n{member}").hex


def post(args: argparse.Namespace, project: Path, url: str | None) -> int:
    from tether.cli.team_cmd import no_team, unknown
    from tether.store.mailbox_post import open_poster

    poster = open_poster(url, project=project, team=args.team)
    message_id = keyed_id(args.id, args.member) if args.id is not None else None
    try:
        if not poster.team_exists():
            raise ConfigError(no_team(poster.team, poster.url))
        names = poster.member_names()
        if args.member not in names:
            raise ConfigError(unknown(args.member, poster.team, names))
        sent, stored = poster.post(LEAD, args.member, args.text, message_id=message_id)
    finally:
        poster.close()
    if stored:
        print(f"sent {sent} to {args.member}")
    else:
        print(f"{sent} to {args.member} was sent already (--id {args.id}): not sent again")
    return 0
