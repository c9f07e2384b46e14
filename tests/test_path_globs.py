"""The `paths:` globs of rules and skills, read and expanded as Claude Code's code does."""

from __future__ import annotations

from tether.path_globs import MAX_EXPANDED, PathGlobs, expanded, path_globs, paths_matcher


def test_braces_expand_as_claude_code_expands_them() -> None:
    assert expanded(("src/**/*.{ts, tsx}",)) == ["src/**/*.ts", "src/**/*.tsx"]
    assert expanded(("{a,b}/x.{c,h}",)) == ["a/x.c", "a/x.h", "b/x.c", "b/x.h"]
    assert expanded(("{docs}/**",)) == ["docs"]  # one option: taken as it is, then `/**` off
    assert expanded(("a/{}.md", "b/{c.md")) == ["a/{}.md", "b/{c.md"]  # nothing to expand
    # Claude Code takes the first `}` as the end of the group: nested braces are not a tree.
    assert expanded(("{a,{b,c}}",)) == ["a}", "b", "c}"]
    assert expanded((r"x/\{a,b}",)) == ["x/\\a", "x/\\b"]  # no escapes either


def test_a_glob_past_the_budget_is_kept_as_written() -> None:
    many = "{" + ",".join(str(i) for i in range(MAX_EXPANDED + 1)) + "}.py"
    assert expanded((many,)) == [many]
    assert len(expanded(("{" + ",".join(str(i) for i in range(500)) + "}.py",))) == 500


def test_expanded_globs_match_as_gitignore_patterns() -> None:
    matches = paths_matcher(expanded(("web/**/*.{ts,tsx}", "*.css", "build/", "!x.css")))
    assert [
        p
        for p in ("web/a/b.ts", "web/c.tsx", "web/c.js", "a/b.css", "x.css", "build/o")
        if matches(p)
    ] == ["web/a/b.ts", "web/c.tsx", "a/b.css", "build/o"]


def test_paths_values_in_every_yaml_form() -> None:
    assert path_globs(["a/**", ["b/*.{c,h}"]]) == PathGlobs(("a/**", "b/*.{c,h}"))
    assert path_globs("x/**, 'y z/*.md'") == PathGlobs(("x/**", "y z/*.md"))
    assert path_globs(["**", "**/**"]) == PathGlobs(None)
    assert path_globs(None) == PathGlobs(None)
    assert path_globs({"src": "**"}) == PathGlobs(None, "`paths` is a dict, not globs")
