"""Free user text becomes safe search terms."""

from __future__ import annotations

from clawharness.store._postgres_sql import tsquery
from clawharness.store._sqlite_search import text_expr
from clawharness.store.search_query import SearchTerm, parse_search_query


def test_words_become_and_terms_with_a_trailing_star_as_prefix() -> None:
    assert parse_search_query("Hello wor* café") == [
        SearchTerm(("hello",)), SearchTerm(("wor",), prefix=True), SearchTerm(("café",))]


def test_punctuation_splits_a_term_into_a_phrase_and_syntax_is_dropped() -> None:
    assert parse_search_query('foo-bar "quoted" NEAR(x) -- ** a*') == [
        SearchTerm(("foo", "bar")), SearchTerm(("quoted",)), SearchTerm(("near", "x")),
        SearchTerm(("a",))]  # a one-letter prefix is a whole word


def test_duplicates_collapse_and_terms_are_capped() -> None:
    assert parse_search_query("x x X") == [SearchTerm(("x",))]
    assert len(parse_search_query(" ".join(f"w{i}" for i in range(40)))) == 16


def test_both_backends_render_the_terms_safely() -> None:
    terms = parse_search_query("it's foo-bar ba*")
    assert text_expr(terms) == 'text : ("it s" "foo bar" "ba"*)'
    assert tsquery(terms) == "('it' <-> 's') & ('foo' <-> 'bar') & ('ba':*)"
