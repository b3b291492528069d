"""Card display variants per API version: what each version accepts and what it renders (v2 accepts 1 to 4
and normalizes them, README.md). The one place both the schemas and the renderer read.
"""

from __future__ import annotations

# Version -> requested display_variant -> the layout rendered (1: no badge, catalogs; 2: badge;
# 3: badge, like next to the price). v2's 4 renders as 3, the richest server layout (docs/decisions.md).
RENDERED_VARIANT: dict[str, dict[int, int]] = {
    "v1": {1: 1, 2: 2, 3: 3},
    "v2": {1: 1, 2: 2, 3: 3, 4: 3},
}
BADGE_VARIANTS = frozenset({2, 3})
LIKE_NEXT_TO_PRICE_VARIANTS = frozenset({3})


def accepted_variants(api_version: str) -> tuple[int, ...]:
    """The display_variant values a version accepts."""
    return tuple(RENDERED_VARIANT[api_version])


def rendered_variant(api_version: str, display_variant: int) -> int:
    """The layout a requested display_variant renders as in a version."""
    return RENDERED_VARIANT[api_version][display_variant]
