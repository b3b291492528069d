"""coreapi's one webargs parser: the shared ProblemParser (plumbing/parsing.py), whose validation failures are
`400` problem documents with the bad fields by dotted path."""

from __future__ import annotations

from plumbing.parsing import ProblemParser

parser = ProblemParser()
use_args = parser.use_args
