"""Every way git sends a repository's objects to another place, as data: a deny or ask rule on
`git push` holds for each (`git send-pack`, `git http-push`, the remote helpers, mail). The
Bash policy matches such a command's rules as `git push ARGS` too (`sending_equivalent`).
"""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.command_spec import words as _names
from tether.permissions.git_names import subcommand_at
from tether.permissions.shell_words import is_literal

Argv = tuple[str, ...]

_ANY = frozenset({""})
SENDERS: Mapping[str, frozenset[str]] = {
    # The plumbing under push, and its HTTP/WebDAV form.
    **dict.fromkeys(_names("push send-pack http-push"), _ANY),
    # Remote helpers: given `push` on their input, they send objects to the URL they name.
    **dict.fromkeys(
        _names("remote-http remote-https remote-ftp remote-ftps remote-ext remote-fd"), _ANY
    ),
    # Commits sent as patches by mail or to an IMAP folder.
    **dict.fromkeys(_names("send-email imap-send"), _ANY),
    # The server side: another machine fetches what these serve.
    **dict.fromkeys(_names("daemon receive-pack upload-pack upload-archive http-backend"), _ANY),
    # Bridges and extensions (`git-svn`, `git-p4`...): the verbs that send.
    "svn": frozenset({"dcommit", "commit-diff", "branch", "tag"}),
    "p4": frozenset({"submit"}),
    "cvsexportcommit": _ANY,
    "subtree": frozenset({"push"}),
    "lfs": frozenset({"push"}),
    "annex": frozenset({"copy", "move", "sync", "export"}),
}
"""git subcommands that send objects, and the first word after them that makes them send
("" for any: they send whatever follows)."""


def sending_equivalent(argv: Argv) -> tuple[Argv, str] | None:
    """`git [OPTIONS] SUB ARGS` where SUB sends objects elsewhere: (`git push ARGS`, SUB) for
    the deny and ask rules on `git push`; None for any other command (`git push` itself is
    matched as written)."""
    i = subcommand_at(argv)
    if i >= len(argv) or not is_literal(argv[i]) or argv[i] == "push":
        return None
    verbs = SENDERS.get(argv[i])
    if verbs is None:
        return None
    rest = argv[i + 1 :]
    if verbs is not _ANY:
        if not (rest[:1] and (rest[0] in verbs or not is_literal(rest[0]))):
            return None
        rest = rest[1:]
    return (argv[0], "push", *rest), argv[i]
