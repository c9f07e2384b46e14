"""The files a pattern prettier, eslint or stylelint expands itself matches, judged as the
paths they are (bash_judge_files' part for those tools: tool_globs reads the patterns)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tether.permissions.bash_judge_uses import UseJudge
from tether.permissions.file_targets import Target
from tether.permissions.js_tool_files import js_tool_globs
from tether.permissions.script import Invocation
from tether.permissions.shell_words import readable
from tether.permissions.tool_globs import (
    TOOL_OPTIONS,
    below_matcher,
    is_pattern,
    literal_start,
    may_go_below,
    skipped,
)
from tether.permissions.verdict import Verdict


class GlobJudge(UseJudge):
    """The glob side of bash_policy's judge's file part."""

    def _tool_globs(self, inv: Invocation, explicit: bool) -> list[Verdict]:
        """The files a pattern prettier or eslint expands itself matches (js_tool_globs):
        read, and rewritten with `--write`/`--fix`. Listed below its literal start as the
        tools walk (symlinks named, not entered; `node_modules` and `.git` left out), each
        match judged as the path it is; past the listing's bound, or with text known only at
        run time, the pattern is judged as bash's globs are with the tools' own options (dot
        names, `**` any depth)."""
        words, rewrites = js_tool_globs(inv.argv)
        found: list[Verdict] = []
        starts: set[Path] = set()
        for word in words:
            targets = self._tool_matches(inv, word, starts)
            if targets is None:
                options = self.places.options
                self.places.options = options | TOOL_OPTIONS
                try:
                    targets = self._targets(inv, word)
                finally:
                    self.places.options = options
            for target in targets:
                # Not files the command names: read outside the workspace they are asked, as
                # are those a symlink among the matches leads out to (a write there is asked
                # whatever names it).
                verdicts = [self.files.read(target, explicit=False)]
                if rewrites:
                    self.read_only = False
                    verdicts.append(self.files.write(target, explicit=explicit))
                if isinstance(target, Path):
                    how = "is listed in" if target in starts else "matches"
                    shown = f"{readable(word)} {how} {target.as_posix()}"
                    verdicts = [
                        v if v.outcome == "allow" else replace(v, reason=f"{shown}: {v.reason}")
                        for v in verdicts
                    ]
                found += verdicts
        return found

    def _tool_matches(self, inv: Invocation, word: str, starts: set[Path]) -> list[Target] | None:
        """The paths `word` matches now below its literal start (the start itself when that
        is outside the workspace); None when not known (a symlink it may go through: the
        listing does not enter it)."""
        start, pattern = literal_start(word)
        matcher = below_matcher(pattern) if is_pattern(word) else None
        targets = self._targets(inv, start)
        if matcher is None or len(targets) != 1 or not isinstance(targets[0], Path):
            return None
        if not self.places.inside(start):  # listed there: a read outside, whatever it holds
            starts.add(targets[0])
            return [targets[0]]
        real = self.files.real(targets[0])
        names = self.ctx.list_tree_unentered(real) if real is not None else None
        plain = self.ctx.list_tree_unfollowed(real) if real is not None else None
        if names is None or plain is None:
            return None
        if any(may_go_below(pattern, link) for link in set(names) - set(plain)):
            return None
        return [
            targets[0] / name
            for name in names
            if matcher.fullmatch(name) and not skipped(name, word)
        ]
