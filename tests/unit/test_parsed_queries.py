"""The memo of parsed query strings (prerender/web/parsing.py): the same answers as parsing, never
shared, never an error remembered."""

from __future__ import annotations

from flask import Flask
from marshmallow import Schema, fields, validate

from plumbing.problems import ValidationProblem
from prerender.web.parsing import ParsedQueries, RouteParser


class Query(Schema):
    ids = fields.List(fields.String(), load_default=list)
    n = fields.Integer(validate=validate.Range(1, 5), load_default=1)


QUERY = Query()


def parse(parser: RouteParser, query: str, argmap=QUERY):
    app = Flask(__name__)
    with app.test_request_context(f"/?{query}"):
        return parser.parse(argmap, location="query")


def test_a_known_query_string_is_answered_from_the_memo(monkeypatch):
    parser = RouteParser()
    first = parse(parser, "n=3&ids=a&ids=b")
    calls = []
    monkeypatch.setattr(Query, "load", lambda self, *a, **k: calls.append(1))
    assert parse(parser, "n=3&ids=a&ids=b") == first == {"n": 3, "ids": ["a", "b"]}
    assert calls == []  # not parsed again


def test_every_caller_gets_its_own_copy():
    parser = RouteParser()
    parse(parser, "ids=a")["ids"].append("mutated")
    assert parse(parser, "ids=a") == {"n": 1, "ids": ["a"]}


def test_errors_are_never_remembered():
    parser = RouteParser()
    for _ in range(2):
        try:
            parse(parser, "n=9")
        except ValidationProblem as problem:
            assert problem.errors == {
                "query": {"n": ["Must be greater than or equal to 1 and less than or equal to 5."]}
            }
        else:
            raise AssertionError("n=9 must be rejected every time")
    assert len(parser.parsed_queries._parsed) == 0


def test_schemas_made_per_call_are_not_memoized():
    parser = RouteParser()
    parse(parser, "n=2", argmap=Query)
    parse(parser, "n=2", argmap={"n": fields.Integer()})
    assert len(parser.parsed_queries._parsed) == 0


def test_the_memo_is_bounded():
    memo = ParsedQueries(size=2)
    for n in range(5):
        memo.put(QUERY, str(n).encode(), {"n": n})
    assert memo.get(QUERY, b"0") is None and memo.get(QUERY, b"4") == {"n": 4}


def test_size_zero_keeps_nothing():
    memo = ParsedQueries(size=0)
    memo.put(QUERY, b"n=1", {"n": 1})
    assert memo.get(QUERY, b"n=1") is None and len(memo._parsed) == 0


def test_a_parameter_of_one_value_given_twice_with_two_values_is_refused():
    """Which of two values the caller meant is a guess: a 400 naming the parameter. The same value twice is that
    value; a list parameter takes every value; unknown parameters are not looked at."""
    parser = RouteParser()
    try:
        parse(parser, "n=2&n=3&ids=a")
    except ValidationProblem as problem:
        assert problem.errors == {"query": {"n": ["Given more than once, with different values: give it once."]}}
    else:
        raise AssertionError("n=2&n=3 was taken")
    assert parse(parser, "n=2&n=2&ids=a&ids=b&other=x&other=y") == {"n": 2, "ids": ["a", "b"]}
