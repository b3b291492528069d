"""An upstream's answer checked against the schema of the JSON a route documents it to be (prerender/schemas/).

The browser's reads answer the upstream's basket or menu as it came, and the planner page and the basket preview
draw from them: an answer of another shape (a count that is a word, a list that is not one) would reach a shopper's
SDK as a 200 or turn into a 500 while a template reads it. Checked here, it is `UpstreamBadResponse`, an upstream
failure like any other: a 502 problem on a browser route, the degraded fragment on a page (prerender/web/degraded.py,
fragment_response.py). The forwarded writes check theirs the same way (prerender/web/forwarding.py).
"""

from __future__ import annotations

import functools
from typing import Any

from marshmallow import Schema

from prerender.gateway import UpstreamBadResponse


def checked_answer(answer: type[Schema], payload: dict[str, Any], what: str) -> dict[str, Any]:
    """The payload, once it matches `answer` (members the schema does not declare are let through: AnswerSchema);
    else `UpstreamBadResponse` naming `what` (the upstream call) and the mismatched members."""
    errors = _schema(answer).validate(payload)
    if errors:
        raise UpstreamBadResponse(f"{what}: the answer does not match {answer.__name__}: {errors}")
    return payload


@functools.cache
def _schema(answer: type[Schema]) -> Schema:
    """One instance per answer schema (a schema is safe to share once built)."""
    return answer()
