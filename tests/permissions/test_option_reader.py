"""The one reader of option values (`option_names.option_pairs`) under each grammar."""

from __future__ import annotations

from tether.permissions.option_names import OptionGrammar, option_pairs, option_values


def test_plain_grammar_takes_each_spelling_and_stops_at_dashes() -> None:
    words = ("-r", "a", "-rb", "-r=c", "--req", "d", "--req=e", "x", "--", "-r", "f")
    assert option_values(words, ("-r", "--req")) == ["a", "b", "c", "d", "e"]


def test_prefixes_follow_the_program_and_known_names_win() -> None:
    grammar = OptionGrammar(("--requirement",), prefixes=True, known=("--re",))
    assert option_pairs(("--requ", "f", "--re", "g"), grammar) == [("--requirement", "f")]


def test_grouped_short_options_end_at_the_valued_one() -> None:
    grammar = OptionGrammar(("-f", "--file"), grouped=True, stops=False)
    assert option_values(("-0f", "x", "-vfy", "--", "-f", "z"), grammar) == ["x", "y", "z"]


def test_flags_count_with_an_empty_value_and_take_no_word() -> None:
    grammar = OptionGrammar(("-w", "-a", "--all"), flags=("-a", "--all"))
    assert option_pairs(("-a", "h", "--all", "-w", "n"), grammar) == [
        ("-a", ""),
        ("--all", ""),
        ("-w", "n"),
    ]
