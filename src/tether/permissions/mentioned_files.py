"""Arguments that may name a file, of a command whose arguments are not known (`curl -T.env`,
`mytool --out=.git/config`) or that shows files from elsewhere (`git show HEAD:.env`): what
the Bash policy makes of them.

Asked, in bypassPermissions too, where a deny rule could match what the program reads or
writes; when the program may open them (any but git, which shows what it names from its
objects), also where the word names a file that changes what later sessions run or allow
(asked in every mode but bypassPermissions, as a write there is; the sandbox keeps those
read-only when it is on). Every word counts, option words too: the file may be attached to
its option (`-T.env`, `-d@.env`, `-sT.env`, `--out=.env`), follow `=`, `:`, `,`, `@` or `<`
(`-F f=@.env`, `HEAD:.env`).
"""

from __future__ import annotations

from tether.permissions.access import PROTECTED_NOTE, FileAccess
from tether.permissions.shell_places import ShellPlaces
from tether.permissions.shell_words import HOME, is_literal, readable
from tether.permissions.url_clients import file_url_path
from tether.permissions.verdict import Verdict, ask

_ATTACHED_LETTERS = 8
"""How many option letters may come before a value attached to them (`-sSLfT.env`)."""


def mentioned_files(
    args: tuple[str, ...],
    places: ShellPlaces,
    files: FileAccess,
    *,
    sandboxed: bool,
    unknown: bool = False,
    opens: bool = True,
    loaded: frozenset[str] = frozenset(),
) -> list[Verdict]:
    """The verdicts on the files `args` may name (module docstring). With `unknown`, a word
    that is not a literal counts where a deny rule could match what it stands for (`git show
    "HEAD:$(...)"`). `loaded` are the words an option of the program is known to load code
    or configuration from (`jest --config jest.config.js`, `outside_code.js_tool_values`):
    read, not written."""
    found: list[Verdict] = []
    reads = bool(files.ctx.rules.of("deny", "Read"))
    writes = opens and bool(files.ctx.rules.of("deny", "Edit"))
    protects = opens and not sandboxed
    if not (reads or writes or protects):
        return found
    bases: list[str] = []
    for index, arg in enumerate(args):
        base = directory_option(args, index)
        if base is not None and is_literal(base) and base not in bases:
            bases.append(base)
        if not unknown and not is_literal(arg):
            continue
        for candidate in _below_each(named_paths(arg), bases):
            read_only = candidate in loaded
            verdict = _named(
                candidate,
                places,
                files,
                reads,
                writes and not read_only,
                protects and not read_only,
                follow=opens,
            )
            if verdict is not None:
                found.append(verdict)
                break
    return found


DIRECTORY_OPTIONS = ("-C", "-d", "-D", "-w", "--directory", "--dir", "--chdir", "--cwd")
DIRECTORY_OPTIONS_LONG = ("--working-directory", "--workdir", "--prefix", "--root")
"""Options with which programs change the directory they work in before opening what their
later arguments name (`make -C DIR -f FILE`, `patch -d DIR`, `ninja -C`, `cpio -D`, `pnpm
-C`, `yarn --cwd`, `npm --prefix`): for a program whose options are not known, each later
word is also taken as named from the value's directory. A different meaning of the option
only makes more words checked."""


def directory_option(args: tuple[str, ...], index: int) -> str | None:
    """The directory the option at `index` may change to (`-C DIR`, `-CDIR`, `--cwd=DIR`)."""
    arg = args[index]
    name, eq, value = arg.partition("=")
    if name in DIRECTORY_OPTIONS or name in DIRECTORY_OPTIONS_LONG:
        if eq:
            return value or None
        return args[index + 1] if index + 1 < len(args) else None
    if len(arg) > 2 and arg[:2] in DIRECTORY_OPTIONS and not arg.startswith("--"):
        return arg[2:]
    return None


def _below_each(names: list[str], bases: list[str]) -> list[str]:
    """Each name, then as named from each directory an earlier option changed to."""
    found = list(names)
    for base in bases:
        found += [
            base.rstrip("/") + "/" + name for name in names if not name.startswith(("/", HOME))
        ]
    return found


def _named(
    word: str,
    places: ShellPlaces,
    files: FileAccess,
    reads: bool,
    writes: bool,
    protects: bool,
    *,
    follow: bool,
) -> Verdict | None:
    """What the file a word may name makes of the command."""
    for target in places.targets(word):
        rule = files.may_name_denied(target, "Read", follow=follow) if reads else None
        if rule is not None:
            why = f"may read {readable(word)}, which deny rule {rule.text} covers"
            return ask(why, rule.text, hard=True)
        rule = files.may_name_denied(target, "Edit", follow=True) if writes else None
        if rule is not None:
            why = f"may write {readable(word)}, which deny rule {rule.text} covers"
            return ask(why, rule.text, hard=True)
        what = files.protected(target) if protects else None
        if what is not None:
            return ask(f"may write {readable(word)}, which holds {what}: {PROTECTED_NOTE}")
    return None


def named_paths(word: str) -> list[str]:
    """What in an argument may name a file, narrowest first: the file a `file:` URL names,
    what follows the last and the first `:`, `=`, `,` or `@` (`HEAD:.env`, `--out=.env`,
    `f=@.env`, curl's `name@.env`), a value attached to one of a few short options
    (`-T.env`, `-sT.env`), the word itself; each also without a leading `@` or `<` (curl's
    "from this file")."""
    found: list[str] = []
    url = file_url_path(word.partition("=")[2] if word.startswith("-") else word)
    if url is not None:
        found.append(url)  # `file://localhost/%2eenv` is `/.env`
    for separator in ":=,@":
        if separator in word:
            found += [word.rpartition(separator)[2], word.partition(separator)[2]]
    if word.startswith("-") and not word.startswith("--"):
        found += [word[k:] for k in range(2, min(len(word), 2 + _ATTACHED_LETTERS))]
    elif not word.startswith("-"):
        found.append(word)
    found += [w.lstrip("@<") for w in found]
    return [w for w in dict.fromkeys(found) if w and w != "-"]
