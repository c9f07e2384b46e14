"""`tether team`: teammates as background processes, each with its own session and mailbox.

    tether team up NAME [--member NAME[=AGENT]]... [--plan] [--store URL]   start them
    tether team status NAME [--json]                                members, states, unread, spend
    tether team send NAME MEMBER TEXT [--wait [--timeout S] | --reply-to ID]   from the lead
    tether team send NAME MEMBER [WHY] --approve-plan|--reject-plan [--plan-id ID]   a plan
    tether team inbox NAME [--follow] [--json]                      what was sent to the lead
    tether team down NAME                                           ask each to finish, then stop

`up` creates the team when it is new, adds the members named, and starts every member whose
process is not running (one killed is started again and resumes its session with its unread
messages), all at once, forked from this process (a new `tether team run` process where it
cannot fork, or with `TETHER_SPAWN=1`); it waits (saying so, `--start-wait` at most) for each
to have its mailbox loop running, and says of each whether it started or did not start (its
log's end; one still starting at the bound is ended). A teammate's
output goes to `.tether/teams/<team>/<member>.log`. What teammates
send the lead, `inbox` shows (and marks read); `send --wait` sends a request and prints the
reply that answers it, `send --reply-to` answers a teammate's request, `send --approve-plan`
(`--reject-plan`, the text its feedback) a teammate's plan (`team status` shows its id,
`--plan-id` names it): each as the lead in the protocol (its state in the roster and the
event log: `team_inbox`).

Exit codes: 0 done; 1 a teammate did not start (its log's end is shown); 2 bad input, or the
store cannot be used, naming it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tether.cli.argv_text import check_utf8_args
from tether.cli.terminal_text import terminal_safe
from tether.config.project import project_root
from tether.config.settings import load_settings, settings_files, tether_home
from tether.protocol import ConfigError
from tether.store.store_errors import DEFAULT_LEASE_S, StoreAbsent, StoreUnavailable
from tether.teams.membership import (
    START_WAIT_S,
    STORE_PATIENCE_S,
    team_choice,
)
from tether.teams.names import check_member_name

if TYPE_CHECKING:
    from tether.store.mailbox import TeamStore
    from tether.store.task_records import Task
    from tether.teams.processes import Started

LEAD = "team-lead"


def main(argv: list[str]) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "send" and not args.text and len(extra) == 1 and extra[0][:1] != "-":
        # `send T M --reject-plan "why"`: argparse gives the optional TEXT its empty
        # default before it reads the option, and the text after it is left over: TEXT.
        args.text, extra = extra[0], []
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    project = project_root((args.cwd or Path.cwd()).expanduser().resolve(), user_home=Path.home())
    try:
        check_utf8_args(args, what={"text": "the message"})
        settings = load_settings(
            settings_files(project, home=tether_home(), user_home=Path.home(), start=project)
        )
        choice = team_choice(settings.data, os.environ, team=args.team, store=args.store)
        if _plain_send(args):  # its mailbox's rows alone: none of the roster's models
            from tether.cli.team_post import post

            return post(args, project, choice.store_url)
        if args.command == "send" and args.id is not None and _answering(args):
            raise ConfigError("--id names a plain message: not with --wait, --reply-to or a plan")
        if args.command == "run":  # a teammate's process: its store calls wait out an outage
            from tether.cli.team_member_run import run_member

            args.store = choice.store_url
            return run_member(args, project)
        from tether.store.mailbox import open_team_store

        store = open_team_store(  # only `up` makes a team; the others look for one
            choice.store_url, project=project, team=args.team, read_only=args.command != "up"
        )
        args.store = choice.store_url
    except StoreAbsent as e:
        return _error(str(e) if e.named else no_team(args.team, str(e.where)))
    except (ConfigError, StoreUnavailable) as e:
        return _error(str(e))
    from tether.store.mailbox import MailboxError

    try:
        return _COMMANDS[args.command](args, project, store)
    except (ConfigError, StoreUnavailable, MailboxError) as e:
        return _error(str(e))
    finally:
        store.close()


def _plain_send(args: argparse.Namespace) -> bool:
    """A `send` of a plain message (no request, reply or plan answer), its text given."""
    if args.command != "send":
        return False
    return not _answering(args) and bool((args.text or "").strip())


def _answering(args: argparse.Namespace) -> bool:
    """Whether a `send` asks for a reply or answers (not a plain message)."""
    return any((args.approve_plan, args.reject_plan, args.plan_id, args.wait, args.reply_to))


def unknown(member: str, team: str, names: list[str]) -> str:
    return f"no member named {member!r} in team {team} (members: {', '.join(names)})"


def _up(args: argparse.Namespace, project: Path, store: TeamStore) -> int:
    from tether.store.mailbox import Member, TeamRecord

    if store.team_record() is None:
        store.create_team(TeamRecord(name=store.team, lead=LEAD))
        store.put_member(Member(name=LEAD, state="idle"))
    known = {m.name: m for m in store.members()}
    for name, agent in _member_specs(project, args.member):
        if name not in known:
            store.put_member(Member(name=name, agent=agent, model=args.model))
        elif agent is not None and known[name].agent != agent:
            raise ConfigError(
                f"{name} is a member of team {store.team} already, as "
                f"{known[name].agent or 'general-purpose (no agent named)'}, not {agent}: "
                f"leave out '={agent}' or choose another name"
            )
    mates = [m for m in store.members() if m.name != LEAD]
    if not mates:
        raise ConfigError(f"team {store.team} has no teammates: add one with --member NAME=AGENT")
    patience = ["--store-patience", f"{args.store_patience:g}", "--lease", f"{args.lease!r}"]
    if args.trust_workspace:
        patience.append("--trust-workspace")
    from tether.teams.processes import StartInterrupted, start_members

    try:
        told = start_members(
            project,
            store,
            mates,
            store_args=[*_store_args(args), *patience],
            plan=args.plan,
            serve=main,  # forked from this process where it can fork
            start_wait_s=args.start_wait,
            say=lambda line: print(terminal_safe(line), file=sys.stderr, flush=True),
        )
    except StartInterrupted as e:
        import contextlib
        import signal

        from tether.processes import signal_name

        how = "interrupted" if e.signum == signal.SIGINT else f"stopped by {signal_name(e.signum)}"
        with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone; the status says it
            print(f"tether: {how}: what was still starting is ended", file=sys.stderr)
            _tell(e.told)
            if any(s.ok for s in e.told):
                print(f"stop them with: tether team down {store.team}", file=sys.stderr)
        return 128 + e.signum
    _tell(told)
    return 0 if all(s.ok for s in told) else 1


def _tell(told: list[Started]) -> None:
    for started in told:
        print(terminal_safe(started.line), file=sys.stdout if started.ok else sys.stderr)


def _member_specs(project: Path, specs: list[str]) -> list[tuple[str, str | None]]:
    """`--member NAME[=AGENT]`s checked: names a member may have, each given once, agents
    that exist."""
    given: dict[str, str] = {}
    wanted: list[tuple[str, str | None]] = []
    for spec in specs:
        name, _, agent = spec.partition("=")
        check_member_name(name)
        if name == LEAD:
            raise ConfigError(f"{LEAD} is the team's lead, not a teammate")
        if name in given:
            raise ConfigError(f"--member {name} is given twice ({given[name]}, {spec}): once each")
        given[name] = spec
        wanted.append((name, agent or None))
    if any(agent for _, agent in wanted):
        from tether.agents.discovery import discover_agents

        catalog = discover_agents(project, home=Path.home())
        for name, agent in wanted:
            if agent and catalog.get(agent) is None:
                raise ConfigError(
                    f"--member {name}={agent}: no agent named {agent!r} "
                    f"(agents: {', '.join(catalog.names())})"
                )
    return wanted


def _status(args: argparse.Namespace, project: Path, store: TeamStore) -> int:
    _team_exists(store)
    from tether.teams.status import status_lines, status_record

    record = status_record(project, store, _board_tasks(args, project, store))
    if args.json:
        print(json.dumps(record, indent=2, ensure_ascii=False))
    else:
        print("\n".join(terminal_safe(line) for line in status_lines(record)))
    return 0


def _board_tasks(args: argparse.Namespace, project: Path, store: TeamStore) -> list[Task]:
    """The team's tasks, for what each member holds now (none when the team has no board)."""
    from tether.store.task_store import open_task_store

    tasks = open_task_store(args.store, project=project, team=store.team, existing=True)
    try:
        return tasks.list()
    finally:
        tasks.close()


def _send(args: argparse.Namespace, project: Path, store: TeamStore) -> int:
    _team_exists(store)
    from tether.store.mailbox import UnknownMember

    names = [m.name for m in store.members()]
    if args.member not in names:
        raise UnknownMember(unknown(args.member, store.team, names))
    if args.approve_plan or args.reject_plan:
        if args.wait or args.reply_to:
            raise ConfigError(
                "--approve-plan/--reject-plan answer a plan: not with --wait or --reply-to"
            )
        if args.approve_plan and args.reject_plan:
            raise ConfigError("--approve-plan or --reject-plan: one of them")
        from tether.cli.team_inbox import answer_plan

        return answer_plan(
            store,
            project,
            args.member,
            approve=args.approve_plan,
            request_id=args.plan_id,
            feedback=args.text,
        )
    if args.plan_id is not None:
        raise ConfigError("--plan-id names the plan --approve-plan or --reject-plan answers")
    if not (args.text or "").strip():
        raise ConfigError(f"an empty message to {args.member}: nothing sent")
    if args.wait and args.reply_to:
        raise ConfigError("--wait sends a request, --reply-to a reply: one of them")
    if args.wait or args.reply_to:
        from tether.cli.team_inbox import ask, reply

        if args.reply_to:
            return reply(store, project, args.member, args.text, args.reply_to)
        return ask(
            store, project, args.member, args.text, timeout_s=args.timeout, as_json=args.json
        )
    from tether.cli.team_post import post

    return post(args, project, args.store)  # a plain message (`main` sends it so)


def _inbox(args: argparse.Namespace, project: Path, store: TeamStore) -> int:
    from tether.cli.team_inbox import read_inbox

    return read_inbox(store, project, follow=args.follow, as_json=args.json)


def _down(args: argparse.Namespace, project: Path, store: TeamStore) -> int:
    import asyncio

    from tether.teams.team_down import down

    _team_exists(store)
    return asyncio.run(down(store, project, wait_s=args.wait))


def _team_exists(store: TeamStore) -> None:
    if store.team_record() is None:
        raise ConfigError(no_team(store.team, store.url))


def no_team(team: str, where: str) -> str:
    """What a command on a team that was never started says."""
    return f"no team named {team!r} in {where}: start it with tether team up"


_COMMANDS = {
    "up": _up,
    "status": _status,
    "send": _send,
    "inbox": _inbox,
    "down": _down,
}


def _store_args(args: argparse.Namespace) -> list[str]:
    return ["--store", args.store] if args.store else []


def _error(message: str) -> int:
    print(f"tether: error: {terminal_safe(message)}", file=sys.stderr)
    return 2


def _positive(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0 < number < float("inf"):
        raise argparse.ArgumentTypeError("must be more than 0")
    return number


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tether team", description="Teammates: named sessions with mailboxes."
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        metavar="URL",
        help="redis://host:port/db, sqlite:///path or a file (default: TETHER_TEAM_STORE, "
        "teams.store, .tether/tasks.db)",
    )
    common.add_argument("--cwd", type=Path, help="the project (default: here)")
    sub = p.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", parents=[common], help="start the team's teammates and return")
    up.add_argument("team")
    up.add_argument(
        "--member",
        action="append",
        default=[],
        metavar="NAME[=AGENT]",
        help="a teammate and its agent definition (default general-purpose); repeatable",
    )
    up.add_argument("--model", help="the model of new members")
    up.add_argument("--plan", action="store_true", help="teammates start in plan mode")
    up.add_argument(
        "--start-wait",
        type=_positive,
        default=START_WAIT_S,
        metavar="SECONDS",
        help="how long to wait for each teammate to have its mailbox loop running; one still "
        f"starting then is ended and said not to have started (default {START_WAIT_S:g})",
    )
    up.add_argument(
        "--store-patience",
        type=float,
        default=STORE_PATIENCE_S,
        metavar="SECONDS",
        help="how long a teammate waits for an unreachable store before it stops, its session "
        f"saved (default {STORE_PATIENCE_S:g}; 0: for ever)",
    )
    up.add_argument(
        "--lease",
        type=_positive,
        default=DEFAULT_LEASE_S,
        metavar="SECONDS",
        help="the lease of a task a teammate claims (TaskNext), renewed every third of it while "
        f"it runs (default {DEFAULT_LEASE_S:g}): a killed teammate's task goes back after it",
    )
    up.add_argument(
        "--trust-workspace",
        action="store_true",
        help="run what this workspace's files declare (hooks, MCP servers, allow rules) in the "
        "teammates' sessions, as -p does with it; TETHER_TRUST_WORKSPACE=1 does the same",
    )
    status = sub.add_parser("status", parents=[common], help="members, states, unread, spend")
    status.add_argument("team")
    status.add_argument("--json", action="store_true")
    send = sub.add_parser("send", parents=[common], help="send a message as the lead")
    send.add_argument("team")
    send.add_argument("member")
    send.add_argument("text", nargs="?", help="the message (with --reject-plan: why)")
    send.add_argument(
        "--wait",
        action="store_true",
        help="send it as a request and print the reply that answers it (exit 1: none in time)",
    )
    send.add_argument(
        "--timeout",
        type=_positive,
        default=600.0,
        metavar="SECONDS",
        help="with --wait: how long to wait for the reply (default 600)",
    )
    send.add_argument("--json", action="store_true", help="with --wait: the reply as JSON")
    send.add_argument(
        "--id",
        metavar="KEY",
        help="the message's key: the same command run again (after a cut) sends it once",
    )
    send.add_argument(
        "--reply-to",
        metavar="ID",
        help="send it as the lead's reply to this request of the member's (team inbox shows it)",
    )
    send.add_argument(
        "--approve-plan",
        action="store_true",
        help="approve the member's plan (its plan_approval_request awaiting approval, or the "
        "one --plan-id names): it leaves plan mode",
    )
    send.add_argument(
        "--reject-plan",
        action="store_true",
        help="reject the member's plan, the text saying why: it stays in plan mode",
    )
    send.add_argument(
        "--plan-id",
        metavar="ID",
        help="with --approve-plan/--reject-plan: the plan request answered (`team status` shows "
        "it; default: the member's one awaiting approval)",
    )
    inbox = sub.add_parser(
        "inbox", parents=[common], help="print what teammates sent the lead, marked read"
    )
    inbox.add_argument("team")
    inbox.add_argument("--follow", action="store_true", help="then print each as it comes")
    inbox.add_argument("--json", action="store_true", help="one message a line, as JSON")
    down_p = sub.add_parser("down", parents=[common], help="ask each to finish, then stop it")
    down_p.add_argument("team")
    down_p.add_argument(
        "--timeout",
        "--wait",
        dest="wait",
        type=_positive,
        default=60.0,
        metavar="SECONDS",
        help="how long each teammate has to approve the shutdown and stop before it is sent "
        "SIGTERM (default 60)",
    )
    run = sub.add_parser("run", parents=[common], help=argparse.SUPPRESS)
    run.add_argument("team")
    run.add_argument("member")
    run.add_argument("--plan", action="store_true")
    run.add_argument("--store-patience", type=float, default=STORE_PATIENCE_S)
    run.add_argument("--trust-workspace", action="store_true")
    run.add_argument("--lease", type=_positive, default=DEFAULT_LEASE_S)
    return p
