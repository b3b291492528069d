"""A payment's total is a JSON number, rounded to the cent; a string or a boolean is refused, not converted."""

from __future__ import annotations

from decimal import Decimal

import pytest
from marshmallow import ValidationError

from prerender.schemas.actions import ConfirmBody


@pytest.mark.parametrize(
    ("total", "loaded"),
    [(12.5, Decimal("12.50")), (41, Decimal("41.00")), (0.1 + 0.2, Decimal("0.30")), (12.345, Decimal("12.35"))],
)
def test_json_numbers_are_amounts_to_the_cent(total, loaded) -> None:
    assert ConfirmBody().load({"store_id": "1001", "total": total})["total"] == loaded


@pytest.mark.parametrize("total", ["12.5", "0", True, None, [], float("nan"), float("inf"), -0.01, 100_000.01])
def test_anything_else_is_refused(total) -> None:
    with pytest.raises(ValidationError) as error:
        ConfirmBody().load({"store_id": "1001", "total": total})
    assert "total" in error.value.messages
