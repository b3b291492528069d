"""The pictures of the catalog: SVG drawn from the data, no external host, no binary asset.

Two pure functions, deterministic (the same data always draws the same picture), fast (about a
millisecond), answering a complete SVG document (valid XML, a ``viewBox`` and no fixed pixel size, so
it scales to any width):

``recipe_picture_svg(*, recipe_id, recipe_type, colors, dish=None) -> str``
    A 4:3 top-down illustration of the dish (``viewBox="0 0 800 600"``): a tabletop, and the dish drawn as
    what it is (``dish``, one of ``DISHES``, as ``dish_of`` reads it from the recipe's title: a salad bowl,
    a soup, verrines, a tart, a gratin, a stew, pasta, a burger, crêpes...), filled with shapes coloured by
    the ingredients. Without a known ``dish``, the recipe type chooses: a plate (``main-dish``), a bowl
    (``starter``), a cake plate (``dessert``) or a glass (``drink``). ``colors`` are the ingredients'
    ``#rrggbb`` colours, the primary ingredient's first. The variations (table, crockery, layout) are seeded
    by the recipe id. No text.

``product_picture_svg(*, product_id, package, brand, name, color) -> str``
    A square packshot (``viewBox="0 0 400 400"``) of the package kind (``bag``, ``box``, ``bottle``,
    ``jar``, ``can``, ``tray``, ``loose``, ``carton``, ``pack``; anything else draws a box), coloured by
    the product's ingredient colour, with a label showing the brand and a short name (escaped).

They take plain data only; ``coreapi.services.pictures`` reads it from the catalog. Bad colours are
dropped, an unknown package kind draws a box, and every text is escaped.
"""

# ruff: noqa: E501  (SVG markup: an element per line reads better than its attributes wrapped)

from __future__ import annotations

import colorsys
import functools
import math
import random
import re
from collections.abc import Iterable, Sequence
from typing import Any
from xml.sax.saxutils import escape as _xml_escape

__all__ = ["DISHES", "dish_of", "product_picture_svg", "recipe_picture_svg"]

SVG_NS = "http://www.w3.org/2000/svg"
RECIPE_TYPES = ("starter", "main-dish", "dessert", "drink")
PACKAGES = ("bag", "box", "bottle", "jar", "can", "tray", "loose", "carton", "pack")

_HEX = re.compile(r"^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")
_DEFAULT_COLORS = ["#e8a33d", "#7aa34a", "#d9573b", "#f1e3c2"]
_FONT = "'Helvetica Neue', Helvetica, Arial, sans-serif"


# --------------------------------------------------------------------------- colours


@functools.lru_cache(maxsize=1024)
def _rgb(color: str) -> tuple[float, float, float]:
    """``#rrggbb`` (or ``#rgb``) as floats in [0, 1]."""
    match = _HEX.fullmatch(color.strip())
    if match is None:  # never: the colours drawn with are constants or went through _clean
        raise ValueError(f"Not a #rrggbb or #rgb colour: {color!r}")
    h = match.group(1)
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255


def _hex(rgb: Iterable[float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c * 255))):02x}" for c in rgb)


def _clean(color: Any) -> str | None:
    """A safe ``#rrggbb`` colour, or None."""
    if isinstance(color, str) and _HEX.fullmatch(color.strip()):
        return _hex(_rgb(color))
    return None


@functools.lru_cache(maxsize=4096)
def _mix(a: str, b: str, t: float) -> str:
    """``a`` moved towards ``b`` by ``t`` (0: a, 1: b)."""
    t = round(t, 2)
    (r1, g1, b1), (r2, g2, b2) = _rgb(a), _rgb(b)
    return _hex((r1 + (r2 - r1) * t, g1 + (g2 - g1) * t, b1 + (b2 - b1) * t))


def _light(color: str, t: float) -> str:
    return _mix(color, "#ffffff", t)


def _dark(color: str, t: float) -> str:
    return _mix(color, "#1e1208", t)


def _lum(color: str) -> float:
    r, g, b = _rgb(color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _hls(color: str) -> tuple[float, float, float]:
    return colorsys.rgb_to_hls(*_rgb(color))


def _is_green(color: str) -> bool:
    h, light, s = _hls(color)
    return 0.17 <= h <= 0.45 and s > 0.2 and 0.15 < light < 0.75


def _is_pale(color: str) -> bool:
    return _lum(color) > 0.84


def _is_dark(color: str) -> bool:
    return _lum(color) < 0.12


def _saturate(color: str, factor: float) -> str:
    h, light, s = _hls(color)
    return _hex(colorsys.hls_to_rgb(h, light, max(0.0, min(1.0, s * factor))))


# --------------------------------------------------------------------------- svg helpers


def _f(x: float) -> str:
    """A number as short as the picture allows: whole units from 20 up (positions and lengths: half a unit of
    an 800-unit drawing is a third of a pixel in the 480-pixel-wide drawer), one decimal below (opacities,
    offsets, stroke widths), without the zeros that say nothing ("12", ".5", "-.3")."""
    text = f"{x:.0f}" if abs(x) >= 20 else f"{x:.1f}".rstrip("0").rstrip(".")
    if text.startswith(("0.", "-0.")):
        text = text.replace("0.", ".", 1)
    return "0" if text in ("", "-0", "-") else text


def _attr(value: str) -> str:
    return _xml_escape(value, {'"': "&quot;", "'": "&apos;"})


def _text(value: str) -> str:
    return _xml_escape(value, {'"': "&quot;", "'": "&apos;"})


def _blob_path(
    rng: random.Random,
    cx: float,
    cy: float,
    r: float,
    points: int = 7,
    jitter: float = 0.22,
    squash: float = 1.0,
    angle: float = 0.0,
) -> str:
    """A closed organic shape around (cx, cy): a smooth Catmull-Rom loop through jittered points."""
    pts = []
    ca, sa = math.cos(angle), math.sin(angle)
    for i in range(points):
        a = 2 * math.pi * i / points + rng.uniform(-0.25, 0.25) * (2 * math.pi / points)
        rr = r * (1 + rng.uniform(-jitter, jitter))
        x, y = math.cos(a) * rr, math.sin(a) * rr * squash
        pts.append((cx + x * ca - y * sa, cy + x * sa + y * ca))
    return _smooth_loop(pts)


def _smooth_loop(pts: Sequence[tuple[float, float]]) -> str:
    n = len(pts)
    out = [f"M{_f(pts[0][0])},{_f(pts[0][1])}"]
    for i in range(n):
        p0, p1, p2, p3 = pts[i - 1], pts[i], pts[(i + 1) % n], pts[(i + 2) % n]
        c1 = (p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6)
        c2 = (p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6)
        out.append(f"C{_f(c1[0])},{_f(c1[1])} {_f(c2[0])},{_f(c2[1])} {_f(p2[0])},{_f(p2[1])}")
    out.append("Z")
    return "".join(out)


def _leaf(cx: float, cy: float, length: float, width: float, angle: float, color: str, opacity: float = 1.0) -> str:
    """A leaf with its midrib, pointing at ``angle`` degrees."""
    h = length / 2
    w = width / 2
    op = f' opacity="{_f(opacity)}"' if opacity < 1 else ""
    return (
        f'<g transform="translate({_f(cx)},{_f(cy)}) rotate({_f(angle)})"{op}>'
        f'<path d="M{_f(-h)},0 C{_f(-h / 2)},{_f(-w * 1.3)} {_f(h / 2)},{_f(-w * 1.1)} {_f(h)},0 '
        f'C{_f(h / 2)},{_f(w * 1.1)} {_f(-h / 2)},{_f(w * 1.3)} {_f(-h)},0Z" fill="{color}"/>'
        f'<path d="M{_f(-h * 0.85)},0 Q0,{_f(-w * 0.15)} {_f(h * 0.9)},0" stroke="{_dark(color, 0.35)}" '
        f'stroke-width="{_f(max(0.8, width / 14))}" fill="none" stroke-linecap="round"/></g>'
    )


def _in_disc(rng: random.Random, cx: float, cy: float, r: float) -> tuple[float, float]:
    a = rng.uniform(0, 2 * math.pi)
    d = r * math.sqrt(rng.random())
    return cx + math.cos(a) * d, cy + math.sin(a) * d


# --------------------------------------------------------------------------- recipe pictures

# (base, plank/line colour, accent) of the tabletops.
_TABLES = [
    ("#d8b48a", "#c39a6b", "wood"),  # light oak
    ("#8a5c3c", "#754b2f", "wood"),  # walnut
    ("#5d6670", "#4f5862", "stone"),  # slate
    ("#ece2d0", "#ddd0b8", "linen"),  # cream linen
    ("#a9bba3", "#98ab92", "linen"),  # sage cloth
    ("#c98462", "#b87355", "stone"),  # terracotta tiles
    ("#e7e3dc", "#d6d0c6", "stone"),  # marble
]
# (napkin base, napkin stripe) — bistro cloths.
_NAPKINS = [
    ("#f4efe6", "#c8423a"),
    ("#f4efe6", "#3d6b9e"),
    ("#f2e8d5", "#6f8f4e"),
    ("#e9d7b9", "#a8582f"),
    ("#f6f2ea", "#2f4858"),
]
# Crockery glazes: rim, inner.
_GLAZES = [
    ("#fbfaf6", "#f2efe8"),
    ("#f7f3ea", "#ece5d6"),
    ("#e9efe9", "#dce6de"),
    ("#2f4a63", "#f3efe6"),
    ("#d9e4ea", "#f1f4f5"),
    ("#f1e4cf", "#f8f1e4"),
    ("#6b8a6a", "#f3efe6"),
]


def _palette(colors: Sequence[str | None]) -> list[str]:
    """The valid colours, in order; the default palette when none is."""
    cleaned = [c for c in (_clean(c) for c in colors) if c]
    return cleaned or list(_DEFAULT_COLORS)


DISHES = (
    "soup",
    "salad",
    "fruit-salad",
    "dip",
    "eggs",
    "verrines",
    "tart",
    "savory-tart",
    "gratin",
    "stew",
    "plated",
    "pasta",
    "bowl",
    "burger",
    "toast",
    "crepes",
    "galette",
    "ramekins",
    "drink",
)

# What a recipe's title says it is: the first rule whose word the title holds (lower case, accents kept).
_DISH_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("verrines", ("verrine", "mousse au chocolat")),
    ("soup", ("velouté", "soupe", "gaspacho", "potage")),
    ("fruit-salad", ("salade de fruits",)),
    ("salad", ("salade", "taboulé", "carottes râpées", "vinaigrette")),
    ("eggs", ("œufs mimosa", "oeufs mimosa")),
    ("dip", ("houmous", "rillettes", "tapenade")),
    ("savory-tart", ("quiche", "tarte fine", "pissaladière")),
    ("tart", ("tarte", "far breton", "clafoutis", "gâteau", "fondant", "cake")),
    ("gratin", ("gratin", "parmentier", "lasagne", "tartiflette", "tiramisu", "moussaka")),
    ("pasta", ("spaghetti", "penne", "pâtes", "tagliatelle", "linguine")),
    ("bowl", ("bowl",)),
    ("burger", ("burger",)),
    ("toast", ("croque", "pain perdu", "tartine", "bruschetta")),
    ("crepes", ("crêpe",)),
    ("galette", ("galette",)),
    ("ramekins", ("crème brûlée", "île flottante", "riz au lait", "crème caramel", "poires", "panna cotta")),
    (
        "stew",
        (
            "bourguignon",
            "blanquette",
            "basquaise",
            "navarin",
            "pot-au-feu",
            "chili",
            "curry",
            "dahl",
            "ratatouille",
            "moules",
            "tajine",
            "daube",
        ),
    ),
)


def dish_of(title: str, recipe_type: str) -> str | None:
    """The dish a recipe's (French) title names (one of ``DISHES``), or None when it names none this module
    draws: a drink is a drink, a main dish without a known word is plated, anything else is left to its type."""
    if recipe_type == "drink":
        return "drink"
    lowered = title.lower()
    for dish, words in _DISH_RULES:
        if any(word in lowered for word in words):
            return dish
    return "plated" if recipe_type == "main-dish" else None


def recipe_picture_svg(
    *, recipe_id: str, recipe_type: str, colors: Sequence[str | None], dish: str | None = None
) -> str:
    """The 800x600 top-down illustration of a recipe (see the module docstring)."""
    rid, rtype, palette = str(recipe_id), recipe_type, _palette(colors)
    rng = random.Random(f"recipe-{rid}")
    uid = "r" + re.sub(r"[^A-Za-z0-9_-]", "", rid)[:24]
    d = _Drawing(rng, uid, palette)
    d.table()
    if dish is not None and dish in DISHES and dish != "drink" and rtype != "drink":
        d.dish(dish)
    elif rtype == "drink" or dish == "drink":
        d.drink()
    elif rtype == "dessert":
        d.dessert()
    elif rtype == "starter":
        d.starter()
    else:
        d.main_dish()
    return d.svg(800, 600)


class _Drawing:
    """Accumulates the elements of one recipe picture."""

    def __init__(self, rng: random.Random, uid: str, palette: list[str]) -> None:
        self.rng = rng
        self.uid = uid
        self.primary = palette[0]
        self.palette = palette
        # What the dish is made of, by role.
        rest = palette[1:]
        self.greens = [c for c in palette if _is_green(c)]
        self.pales = [c for c in rest if _is_pale(c)]
        self.darks = [c for c in rest if _is_dark(c)]
        self.pieces = [c for c in rest if not _is_pale(c) and not _is_dark(c) and not _is_green(c)]
        self.defs: list[str] = []
        self.body: list[str] = []
        self.table_kind = ""
        self.drawn = ""

    # -- plumbing

    def add(self, *parts: str) -> None:
        self.body.extend(parts)

    def id(self, name: str) -> str:
        return f"{self.uid}-{name}"

    def svg(self, w: int, h: int) -> str:
        # What was drawn, for whoever reads the file (a dish of DISHES, or the recipe type's picture).
        drawn = f' data-dish="{self.drawn}"' if self.drawn else ""
        return (
            f'<svg xmlns="{SVG_NS}" viewBox="0 0 {w} {h}" preserveAspectRatio="xMidYMid slice" '
            f'role="img"{drawn}><defs>{"".join(self.defs)}</defs>{"".join(self.body)}</svg>'
        )

    def shadow_filter(self, name: str, blur: float) -> str:
        fid = self.id(name)
        self.defs.append(
            f'<filter id="{fid}" x="-30%" y="-30%" width="160%" height="160%">'
            f'<feGaussianBlur stdDeviation="{_f(blur)}"/></filter>'
        )
        return fid

    def radial(
        self,
        name: str,
        stops: Sequence[tuple[float, str, float]],
        cx: float = 0.5,
        cy: float = 0.5,
        r: float = 0.5,
        fx: float | None = None,
        fy: float | None = None,
    ) -> str:
        gid = self.id(name)
        focus = ""
        if fx is not None:
            focus = f' fx="{_f(fx)}" fy="{_f(fy if fy is not None else cy)}"'
        s = "".join(
            f'<stop offset="{_f(o)}" stop-color="{c}"' + (f' stop-opacity="{_f(a)}"' if a < 1 else "") + "/>"
            for o, c, a in stops
        )
        self.defs.append(
            f'<radialGradient id="{gid}" cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}"{focus}>{s}</radialGradient>'
        )
        return gid

    def linear(self, name: str, stops: Sequence[tuple[float, str, float]], x2: float = 0, y2: float = 1) -> str:
        gid = self.id(name)
        s = "".join(
            f'<stop offset="{_f(o)}" stop-color="{c}"' + (f' stop-opacity="{_f(a)}"' if a < 1 else "") + "/>"
            for o, c, a in stops
        )
        self.defs.append(f'<linearGradient id="{gid}" x1="0" y1="0" x2="{_f(x2)}" y2="{_f(y2)}">{s}</linearGradient>')
        return gid

    # -- the table

    def table(self) -> None:
        rng = self.rng
        base, line, kind = _TABLES[rng.randrange(len(_TABLES))]
        self.table_kind = kind
        self.add(f'<rect width="800" height="600" fill="{base}"/>')
        if kind == "wood":
            y = -rng.uniform(0, 60)
            while y < 600:
                hgt = rng.uniform(95, 135)
                shade = rng.uniform(-0.06, 0.06)
                plank = _light(base, shade) if shade > 0 else _dark(base, -shade)
                self.add(f'<rect y="{_f(y)}" width="800" height="{_f(hgt)}" fill="{plank}"/>')
                for _ in range(3):
                    gy = y + rng.uniform(10, hgt - 10)
                    amp = rng.uniform(2, 7)
                    self.add(
                        f'<path d="M-10,{_f(gy)} C200,{_f(gy - amp)} 420,{_f(gy + amp)} 810,{_f(gy + rng.uniform(-4, 4))}" '
                        f'stroke="{line}" stroke-width="{_f(rng.uniform(1, 2.2))}" fill="none" opacity="0.55"/>'
                    )
                self.add(
                    f'<rect y="{_f(y + hgt - 2)}" width="800" height="3" fill="{_dark(base, 0.25)}" opacity="0.45"/>'
                )
                y += hgt
        elif kind == "linen":
            pid = self.id("weave")
            self.defs.append(
                f'<pattern id="{pid}" width="6" height="6" patternUnits="userSpaceOnUse">'
                f'<path d="M0,3H6M3,0V6" stroke="{line}" stroke-width="1" opacity="0.5"/></pattern>'
            )
            self.add(f'<rect width="800" height="600" fill="url(#{pid})"/>')
        else:  # stone: soft mottling
            for _ in range(14):
                x, y = rng.uniform(0, 800), rng.uniform(0, 600)
                self.add(
                    f'<path d="{_blob_path(rng, x, y, rng.uniform(60, 160), 6, 0.3)}" fill="{line}" '
                    f'opacity="{_f(rng.uniform(0.15, 0.35))}"/>'
                )
            if base == "#e7e3dc":  # marble veins
                for _ in range(4):
                    x = rng.uniform(-100, 800)
                    self.add(
                        f'<path d="M{_f(x)},-10 C{_f(x + 120)},150 {_f(x - 60)},350 {_f(x + 140)},610" '
                        f'stroke="#bdb6aa" stroke-width="{_f(rng.uniform(1, 2.5))}" fill="none" opacity="0.5"/>'
                    )
        # light falling from the top left
        vg = self.radial(
            "light", [(0, "#ffffff", 0.18), (0.6, "#ffffff", 0), (1, "#000000", 0.22)], cx=0.35, cy=0.3, r=0.85
        )
        self.add(f'<rect width="800" height="600" fill="url(#{vg})"/>')

    def napkin_and_cutlery(self, x: float, drink: bool = False) -> None:
        rng = self.rng
        nb, ns = _NAPKINS[rng.randrange(len(_NAPKINS))]
        pid = self.id("napkin")
        if rng.random() < 0.5:  # gingham
            self.defs.append(
                f'<pattern id="{pid}" width="22" height="22" patternUnits="userSpaceOnUse">'
                f'<rect width="22" height="22" fill="{nb}"/><rect width="11" height="22" fill="{ns}" opacity="0.45"/>'
                f'<rect width="22" height="11" fill="{ns}" opacity="0.45"/></pattern>'
            )
        else:  # stripes
            self.defs.append(
                f'<pattern id="{pid}" width="26" height="26" patternUnits="userSpaceOnUse">'
                f'<rect width="26" height="26" fill="{nb}"/><rect x="3" width="4" height="26" fill="{ns}"/>'
                f'<rect x="10" width="1.5" height="26" fill="{ns}"/></pattern>'
            )
        sh = self.shadow_filter("nshadow", 6)
        angle = rng.uniform(-8, 8)
        self.add(
            f'<g transform="rotate({_f(angle)} {_f(x + 60)} 300)">'
            f'<rect x="{_f(x + 6)}" y="70" width="130" height="470" rx="6" fill="#000" opacity="0.25" filter="url(#{sh})"/>'
            f'<rect x="{_f(x)}" y="60" width="130" height="470" rx="5" fill="url(#{pid})"/>'
            f'<rect x="{_f(x)}" y="60" width="130" height="470" rx="5" fill="none" stroke="{_dark(nb, 0.15)}" stroke-width="1.5"/>'
        )
        if not drink:
            self.cutlery(x + 40, x + 92)
        self.add("</g>")

    def cutlery(self, fx: float, kx: float) -> None:
        metal = self.linear("metal", [(0, "#f4f5f6", 1), (0.5, "#c9ccd1", 1), (1, "#8f949b", 1)], x2=1, y2=0)
        sh = self.shadow_filter("cshadow", 3)
        fork = (
            f"M{_f(fx - 14)},120 v45 q0,20 12,24 v250 q2,12 4,0 v-250 q12,-4 12,-24 v-45 h-3 v42 h-4 v-42 "
            f"h-3 v42 h-4 v-42 h-3 v42 h-4 v-42 Z"
        )
        knife = f"M{_f(kx)},110 q18,20 14,120 l-3,22 v185 q-3,12 -6,0 v-185 q-8,-2 -5,-22 Z"
        for path in (fork, knife):
            self.add(f'<path d="{path}" transform="translate(5,7)" fill="#000" opacity="0.25" filter="url(#{sh})"/>')
            self.add(f'<path d="{path}" fill="url(#{metal})" stroke="#7d828a" stroke-width="0.8"/>')

    def scatter_on_table(self, avoid: tuple[float, float, float], count: int) -> None:
        """A few leaves and crumbs around the crockery."""
        rng = self.rng
        greens = self.greens or ["#4f8f3a"]
        cx, cy, r = avoid
        for _ in range(count):
            for _try in range(12):
                x, y = rng.uniform(20, 780), rng.uniform(20, 580)
                if math.hypot(x - cx, y - cy) > r + 25 and not (600 < x < 780):
                    break
            else:
                continue
            c = greens[rng.randrange(len(greens))]
            self.add(_leaf(x, y, rng.uniform(20, 34), rng.uniform(10, 15), rng.uniform(0, 360), c))
        if self.pieces or self.primary:
            c = (self.pieces or [self.primary])[0]
            for _ in range(rng.randint(2, 4)):
                for _try in range(12):
                    x, y = rng.uniform(20, 600), rng.uniform(20, 580)
                    if math.hypot(x - cx, y - cy) > r + 20:
                        break
                else:
                    continue
                rr = rng.uniform(5, 10)
                self.add(
                    f'<path d="{_blob_path(rng, x, y, rr, 6, 0.25)}" fill="{c}" stroke="{_dark(c, 0.3)}" stroke-width="1"/>'
                )

    def plate(self, cx: float, cy: float, r: float, well: float, glaze: tuple[str, str], deep: bool = False) -> None:
        sh = self.shadow_filter("pshadow", 12)
        rim, inner = glaze
        self.add(
            f'<circle cx="{_f(cx + 10)}" cy="{_f(cy + 16)}" r="{_f(r)}" fill="#1c130c" opacity="0.35" filter="url(#{sh})"/>'
        )
        g = self.radial(
            "rim", [(0, _light(rim, 0.35), 1), (0.85, rim, 1), (1, _dark(rim, 0.12), 1)], cx=0.42, cy=0.38, r=0.7
        )
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}" fill="url(#{g})"/>')
        self.add(
            f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r - 3)}" fill="none" stroke="#ffffff" stroke-width="2" opacity="0.5"/>'
        )
        # the well
        if deep:
            gw = self.radial(
                "well", [(0, inner, 1), (0.8, inner, 1), (1, _dark(inner, 0.25), 1)], cx=0.55, cy=0.58, r=0.55
            )
        else:
            gw = self.radial(
                "well",
                [(0, _light(inner, 0.3), 1), (0.9, inner, 1), (1, _dark(inner, 0.08), 1)],
                cx=0.45,
                cy=0.42,
                r=0.6,
            )
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(well)}" fill="url(#{gw})"/>')
        self.add(
            f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(well)}" fill="none" stroke="{_dark(inner, 0.12)}" '
            f'stroke-width="{3 if deep else 1.5}" opacity="0.7"/>'
        )

    # -- the food

    def piece(self, x: float, y: float, size: float, color: str, kind: str) -> None:
        rng = self.rng
        edge = _dark(color, 0.28)
        hi = _light(color, 0.45)
        if kind == "dice":
            a = rng.uniform(0, 90)
            s = size
            self.add(
                f'<g transform="translate({_f(x)},{_f(y)}) rotate({_f(a)})">'
                f'<rect x="{_f(-s / 2 + 2)}" y="{_f(-s / 2 + 3)}" width="{_f(s)}" height="{_f(s)}" rx="{_f(s / 4)}" fill="#000" opacity="0.18"/>'
                f'<rect x="{_f(-s / 2)}" y="{_f(-s / 2)}" width="{_f(s)}" height="{_f(s)}" rx="{_f(s / 4)}" fill="{color}" stroke="{edge}" stroke-width="1"/>'
                f'<rect x="{_f(-s / 2 + s * 0.18)}" y="{_f(-s / 2 + s * 0.15)}" width="{_f(s * 0.35)}" height="{_f(s * 0.2)}" rx="{_f(s / 10)}" fill="{hi}" opacity="0.7"/></g>'
            )
        elif kind == "round":  # a slice: carrot, courgette, lemon...
            self.add(
                f'<circle cx="{_f(x + 2)}" cy="{_f(y + 3)}" r="{_f(size / 2)}" fill="#000" opacity="0.18"/>'
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(size / 2)}" fill="{color}" stroke="{edge}" stroke-width="1.2"/>'
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(size * 0.3)}" fill="{_light(color, 0.25)}" opacity="0.8"/>'
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(size * 0.07)}" fill="{_light(color, 0.5)}"/>'
            )
        elif kind == "sliver":  # strips, wedges, noodles of a colour
            a = rng.uniform(0, 180)
            L, W = size * 1.7, size * 0.5
            self.add(
                f'<g transform="translate({_f(x)},{_f(y)}) rotate({_f(a)})">'
                f'<rect x="{_f(-L / 2 + 2)}" y="{_f(-W / 2 + 3)}" width="{_f(L)}" height="{_f(W)}" rx="{_f(W / 2)}" fill="#000" opacity="0.18"/>'
                f'<rect x="{_f(-L / 2)}" y="{_f(-W / 2)}" width="{_f(L)}" height="{_f(W)}" rx="{_f(W / 2)}" fill="{color}" stroke="{edge}" stroke-width="1"/>'
                f'<rect x="{_f(-L / 2 + W / 2)}" y="{_f(-W / 4)}" width="{_f(L * 0.55)}" height="{_f(W / 4)}" rx="{_f(W / 8)}" fill="{hi}" opacity="0.6"/></g>'
            )
        elif kind == "leaf":
            self.add(_leaf(x, y, size * 1.6, size * 0.75, rng.uniform(0, 360), color))
        else:  # "chunk": an organic piece with a glossy highlight
            path = _blob_path(rng, x, y, size / 2, 6, 0.2)
            self.add(
                f'<path d="{path}" transform="translate(2.5,3.5)" fill="#000" opacity="0.2"/>'
                f'<path d="{path}" fill="{color}" stroke="{edge}" stroke-width="1.2"/>'
                f'<ellipse cx="{_f(x - size * 0.12)}" cy="{_f(y - size * 0.14)}" rx="{_f(size * 0.16)}" ry="{_f(size * 0.09)}" '
                f'fill="{hi}" opacity="0.55" transform="rotate(-30 {_f(x)} {_f(y)})"/>'
            )

    def main_piece(self, x: float, y: float, r: float, color: str) -> None:
        """A generous piece of the primary ingredient, seared and glazed."""
        rng = self.rng
        path = _blob_path(rng, x, y, r, 8, 0.16, squash=rng.uniform(0.7, 0.95), angle=rng.uniform(0, math.pi))
        g = self.radial(
            f"main{len(self.defs)}",
            [(0, _light(color, 0.18), 1), (0.7, color, 1), (1, _dark(color, 0.3), 1)],
            cx=0.42,
            cy=0.38,
            r=0.65,
        )
        self.add(
            f'<path d="{path}" transform="translate(4,6)" fill="#1c130c" opacity="0.28"/>'
            f'<path d="{path}" fill="url(#{g})" stroke="{_dark(color, 0.35)}" stroke-width="1.5"/>'
        )
        # texture: grill marks for deep colours, a few pores otherwise
        if _lum(color) < 0.55 and rng.random() < 0.5:
            for k in (-1, 0, 1):
                self.add(
                    f'<path d="M{_f(x - r * 0.5 + k * r * 0.35)},{_f(y - r * 0.45)} l{_f(r * 0.45)},{_f(r * 0.8)}" '
                    f'stroke="{_dark(color, 0.5)}" stroke-width="{_f(r * 0.09)}" stroke-linecap="round" opacity="0.55"/>'
                )
        else:
            for _ in range(5):
                px, py = _in_disc(rng, x, y, r * 0.6)
                self.add(
                    f'<circle cx="{_f(px)}" cy="{_f(py)}" r="{_f(r * 0.05)}" fill="{_dark(color, 0.2)}" opacity="0.45"/>'
                )
        self.add(
            f'<ellipse cx="{_f(x - r * 0.28)}" cy="{_f(y - r * 0.3)}" rx="{_f(r * 0.3)}" ry="{_f(r * 0.12)}" '
            f'fill="#ffffff" opacity="0.28" transform="rotate(-25 {_f(x)} {_f(y)})"/>'
        )

    def sauce(self, cx: float, cy: float, r: float, color: str, opacity: float = 1.0) -> None:
        path = _blob_path(self.rng, cx, cy, r, 9, 0.12)
        g = self.radial(f"sauce{len(self.defs)}", [(0, _light(color, 0.15), 1), (1, _dark(color, 0.1), 1)], r=0.6)
        op = f' opacity="{_f(opacity)}"' if opacity < 1 else ""
        self.add(f'<path d="{path}" fill="url(#{g})"{op}/>')

    def garnish(self, cx: float, cy: float, r: float, leaves: int, dots: int) -> None:
        rng = self.rng
        greens = self.greens or ["#4a8f3c", "#5da34a"]
        for _ in range(leaves):
            x, y = _in_disc(rng, cx, cy, r)
            c = greens[rng.randrange(len(greens))]
            self.add(_leaf(x, y, rng.uniform(14, 24), rng.uniform(7, 11), rng.uniform(0, 360), _light(c, 0.05)))
        dark = self.darks[0] if self.darks else "#2e2420"
        for _ in range(dots):
            x, y = _in_disc(rng, cx, cy, r)
            self.add(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(rng.uniform(1.2, 2.6))}" fill="{dark}" opacity="0.8"/>')

    def scatter_pieces(
        self,
        cx: float,
        cy: float,
        r: float,
        colors: Sequence[str],
        per_color: tuple[int, int],
        size: tuple[float, float],
    ) -> None:
        rng = self.rng
        kinds = ["dice", "round", "sliver", "chunk"]
        for c in colors:
            kind = "leaf" if _is_green(c) else kinds[rng.randrange(len(kinds))]
            for _ in range(rng.randint(*per_color)):
                x, y = _in_disc(rng, cx, cy, r)
                self.piece(x, y, rng.uniform(*size), c, kind)

    def main_dish(self) -> None:
        rng = self.rng
        cx, cy = rng.uniform(330, 370), rng.uniform(290, 310)
        self.napkin_and_cutlery(rng.uniform(625, 640))
        variant = rng.random()
        if variant < 0.5:
            self.scatter_on_table((cx, cy, 240), rng.randint(3, 6))
            glaze = _GLAZES[rng.randrange(len(_GLAZES))]
            self.plate(cx, cy, 238, 172, glaze)
            self.plated(cx, cy, glaze)
        elif variant < 0.75:
            self.scatter_on_table((cx, cy, 250), rng.randint(3, 5))
            self.gratin_dish(cx, cy)
        else:
            self.scatter_on_table((cx, cy, 250), rng.randint(3, 5))
            self.cocotte(cx, cy)

    def bed(self, cx: float, cy: float, r: float, color: str) -> None:
        """Rice, pasta, mash or a sauce under the dish."""
        rng = self.rng
        self.sauce(cx, cy, r, color)
        if _is_pale(color) or _lum(color) > 0.6:  # grains
            for _ in range(70):
                x, y = _in_disc(rng, cx, cy, r * 0.88)
                c = _dark(color, rng.uniform(0.05, 0.16)) if rng.random() < 0.5 else _light(color, 0.5)
                self.add(
                    f'<ellipse cx="{_f(x)}" cy="{_f(y)}" rx="{_f(rng.uniform(4, 7))}" ry="{_f(rng.uniform(1.6, 2.6))}" '
                    f'fill="{c}" transform="rotate({_f(rng.uniform(0, 180))} {_f(x)} {_f(y)})"/>'
                )
        else:  # a glossy sauce
            self.add(
                f'<ellipse cx="{_f(cx - r * 0.3)}" cy="{_f(cy - r * 0.35)}" rx="{_f(r * 0.35)}" ry="{_f(r * 0.12)}" '
                f'fill="#ffffff" opacity="0.22" transform="rotate(-28 {_f(cx)} {_f(cy)})"/>'
            )

    def herbs(self, cx: float, cy: float, r: float, bits: int) -> None:
        """Chopped herbs: tiny green flecks."""
        rng = self.rng
        greens = self.greens or ["#4a8f3c", "#5da34a"]
        for _ in range(bits):
            x, y = _in_disc(rng, cx, cy, r)
            c = greens[rng.randrange(len(greens))]
            self.add(
                f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(rng.uniform(3, 6))}" height="{_f(rng.uniform(2, 4))}" rx="1" '
                f'fill="{_light(c, rng.uniform(0, 0.2))}" transform="rotate({_f(rng.uniform(0, 180))} {_f(x)} {_f(y)})"/>'
            )

    def food(self, cx: float, cy: float, r: float, main_size: tuple[float, float], count: tuple[int, int]) -> None:
        """The primary ingredient in generous pieces among the others."""
        rng = self.rng
        others = self.pieces or [_light(self.primary, 0.35)]
        kinds = ["dice", "round", "sliver", "chunk"]
        plan = [(c, "leaf" if _is_green(c) else kinds[rng.randrange(len(kinds))]) for c in others[:5]]
        for c, kind in plan:  # under
            for _ in range(rng.randint(4, 7)):
                x, y = _in_disc(rng, cx, cy, r)
                self.piece(x, y, rng.uniform(15, 24), c, kind)
        n = rng.randint(*count)
        start = rng.uniform(0, 2 * math.pi)
        main = self.primary if not _is_pale(self.primary) else _mix(self.primary, "#e0a64a", 0.35)
        for i in range(n):
            a = start + 2 * math.pi * i / n + rng.uniform(-0.2, 0.2)
            d = rng.uniform(0.45, 0.68) * r
            self.main_piece(cx + math.cos(a) * d, cy + math.sin(a) * d, rng.uniform(*main_size), main)
        for i in range(max(2, n // 2)):
            a = start + math.pi / n + 2 * math.pi * i / max(2, n // 2)
            d = rng.uniform(0.05, 0.25) * r
            self.main_piece(cx + math.cos(a) * d, cy + math.sin(a) * d, main_size[0] * rng.uniform(0.85, 1.0), main)
        for c, kind in plan:  # over
            for _ in range(rng.randint(3, 5)):
                x, y = _in_disc(rng, cx, cy, r * 0.95)
                self.piece(x, y, rng.uniform(13, 20), c, kind)

    def plated(self, cx: float, cy: float, glaze: tuple[str, str]) -> None:
        rng = self.rng
        bed = self.pales[0] if self.pales else _mix(self.primary, glaze[1], 0.6)
        self.bed(cx, cy, rng.uniform(150, 162), bed)
        self.food(cx, cy, 146, (40, 52), (6, 8))
        if len(self.pales) > 1:
            cream = self.pales[-1]
            self.add(
                f'<path d="M{_f(cx - 100)},{_f(cy + 60)} c30,-40 60,30 90,-5 s55,-40 85,-5" fill="none" '
                f'stroke="{cream}" stroke-width="7" stroke-linecap="round" opacity="0.9"/>'
            )
        self.garnish(cx, cy, 120, rng.randint(4, 7), rng.randint(12, 20))
        self.herbs(cx, cy, 125, rng.randint(15, 30))

    def gratin_dish(self, cx: float, cy: float) -> None:
        """An oval baking dish, browned on top."""
        rng = self.rng
        dish = ["#f3ede2", "#2f4a63", "#b8322a", "#e9e1cf", "#3d5a48"][rng.randrange(5)]
        sh = self.shadow_filter("dshadow", 12)
        rx, ry = 250, 190
        self.add(
            f'<ellipse cx="{_f(cx + 10)}" cy="{_f(cy + 16)}" rx="{rx + 20}" ry="{ry}" fill="#1c130c" opacity="0.35" filter="url(#{sh})"/>'
        )
        # the ears
        for sx in (-1, 1):
            self.add(
                f'<ellipse cx="{_f(cx + sx * (rx + 8))}" cy="{_f(cy)}" rx="34" ry="52" fill="{_dark(dish, 0.08)}" stroke="{_dark(dish, 0.25)}" stroke-width="1.5"/>'
            )
        g = self.radial(
            "dish", [(0, _light(dish, 0.3), 1), (0.8, dish, 1), (1, _dark(dish, 0.2), 1)], cx=0.42, cy=0.38, r=0.7
        )
        self.add(f'<ellipse cx="{_f(cx)}" cy="{_f(cy)}" rx="{rx}" ry="{ry}" fill="url(#{g})"/>')
        self.add(f'<ellipse cx="{_f(cx)}" cy="{_f(cy)}" rx="{rx - 26}" ry="{ry - 24}" fill="{_dark(dish, 0.3)}"/>')
        # the browned top
        top = _mix(self.primary if not _is_pale(self.primary) else "#e8c872", "#e3a543", 0.45)
        gt = self.radial(
            "gratin", [(0, _light(top, 0.2), 1), (0.75, top, 1), (1, _dark(top, 0.35), 1)], cx=0.45, cy=0.42, r=0.55
        )
        self.add(f'<ellipse cx="{_f(cx)}" cy="{_f(cy)}" rx="{rx - 32}" ry="{ry - 30}" fill="url(#{gt})"/>')
        for _ in range(26):  # browned patches
            a = rng.uniform(0, 2 * math.pi)
            d = math.sqrt(rng.random())
            x, y = cx + math.cos(a) * (rx - 60) * d, cy + math.sin(a) * (ry - 55) * d
            self.add(
                f'<path d="{_blob_path(rng, x, y, rng.uniform(8, 22), 6, 0.3)}" fill="{_dark(top, rng.uniform(0.25, 0.45))}" '
                f'opacity="{_f(rng.uniform(0.35, 0.7))}"/>'
            )
        for _ in range(30):  # bubbles of melted cheese
            a = rng.uniform(0, 2 * math.pi)
            d = math.sqrt(rng.random())
            x, y = cx + math.cos(a) * (rx - 60) * d, cy + math.sin(a) * (ry - 55) * d
            self.add(
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(rng.uniform(3, 7))}" fill="{_light(top, 0.45)}" opacity="0.7"/>'
            )
        # a few pieces of the other ingredients peeking out
        for c in (self.pieces or [])[:3]:
            for _ in range(rng.randint(2, 4)):
                a = rng.uniform(0, 2 * math.pi)
                d = math.sqrt(rng.random()) * 0.8
                self.piece(
                    cx + math.cos(a) * (rx - 70) * d, cy + math.sin(a) * (ry - 65) * d, rng.uniform(14, 20), c, "chunk"
                )
        self.garnish(cx, cy, 110, rng.randint(3, 6), rng.randint(10, 16))
        self.herbs(cx, cy, 140, rng.randint(20, 30))

    def cocotte(self, cx: float, cy: float) -> None:
        """A cast-iron casserole of stew."""
        rng = self.rng
        enamel = ["#b8322a", "#2f4a6b", "#2b2b2b", "#4f6e55", "#d8732c"][rng.randrange(5)]
        sh = self.shadow_filter("cshadow2", 12)
        r = 205
        self.add(
            f'<circle cx="{_f(cx + 12)}" cy="{_f(cy + 18)}" r="{r + 10}" fill="#1c130c" opacity="0.4" filter="url(#{sh})"/>'
        )
        for sx in (-1, 1):  # handles
            self.add(
                f'<rect x="{_f(cx + sx * (r - 6) - (0 if sx > 0 else 40))}" y="{_f(cy - 34)}" width="46" height="68" rx="20" '
                f'fill="{_dark(enamel, 0.15)}" stroke="{_dark(enamel, 0.45)}" stroke-width="2"/>'
            )
        g = self.radial(
            "pot", [(0, _light(enamel, 0.35), 1), (0.8, enamel, 1), (1, _dark(enamel, 0.35), 1)], cx=0.4, cy=0.36, r=0.7
        )
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{r}" fill="url(#{g})"/>')
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{r - 16}" fill="#2a2320"/>')
        stew = _dark(_mix(self.primary, "#7a3b1c", 0.3), 0.15)
        gs = self.radial(
            "stew", [(0, _light(stew, 0.2), 1), (0.85, stew, 1), (1, _dark(stew, 0.4), 1)], cx=0.45, cy=0.42, r=0.55
        )
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{r - 24}" fill="url(#{gs})"/>')
        self.food(cx, cy, r - 45, (34, 44), (7, 9))
        self.garnish(cx, cy, r - 70, rng.randint(4, 7), rng.randint(8, 14))
        self.herbs(cx, cy, r - 60, rng.randint(15, 25))
        self.add(
            f'<path d="M{_f(cx - r * 0.8)},{_f(cy - r * 0.35)} A{_f(r * 0.92)},{_f(r * 0.92)} 0 0 1 {_f(cx - r * 0.2)},{_f(cy - r * 0.88)}" '
            f'fill="none" stroke="#ffffff" stroke-width="5" stroke-linecap="round" opacity="0.35"/>'
        )

    # -- the dish a recipe's title names (``dish_of``)

    def dish(self, kind: str) -> None:
        """The table's dish of a kind of ``DISHES`` (but ``drink``), in its crockery."""
        self.drawn = kind
        rng = self.rng
        cx, cy = rng.uniform(330, 370), rng.uniform(290, 310)
        self.napkin_and_cutlery(rng.uniform(625, 640))
        glaze = _GLAZES[rng.randrange(len(_GLAZES))]
        if kind in ("tart", "savory-tart"):
            self.tart(cx, cy, _GLAZES[rng.choice((0, 1, 4, 5))], savory=kind == "savory-tart")
            return
        if kind == "ramekins":
            self.ramekins(cx, cy, glaze)
            return
        if kind == "verrines":
            self.scatter_on_table((cx, cy, 230), rng.randint(3, 5))
            self.verrines(cx, cy)
            return
        self.scatter_on_table((cx, cy, 245), rng.randint(3, 6))
        if kind == "stew":
            self.cocotte(cx, cy)
        elif kind == "gratin":
            self.gratin_dish(cx, cy)
        elif kind in ("soup", "salad", "fruit-salad", "dip", "bowl"):
            # an under-plate, then a deep bowl
            self.plate(cx, cy, 236, 205, (glaze[1], glaze[1]))
            self.plate(cx, cy, 182, 150, glaze, deep=True)
            {
                "soup": self.soup,
                "salad": self.salad,
                "fruit-salad": self.fruit_salad,
                "dip": self.dip,
                "bowl": self.sections,
            }[kind](cx, cy, 150)
        else:
            self.plate(cx, cy, 238, 172, glaze)
            {
                "plated": lambda: self.plated(cx, cy, glaze),
                "pasta": lambda: self.pasta(cx, cy),
                "eggs": lambda: self.eggs(cx, cy),
                "burger": lambda: self.burger(cx, cy),
                "toast": lambda: self.toasts(cx, cy),
                "crepes": lambda: self.crepes(cx, cy),
                "galette": lambda: self.galette(cx, cy),
            }.get(kind, lambda: self.plated(cx, cy, glaze))()

    def fruit_salad(self, cx: float, cy: float, r: float) -> None:
        """Pieces of fruit in their juice, a few mint leaves."""
        rng = self.rng
        juice = _light(self.primary, 0.45)
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r - 4)}" fill="{juice}"/>')
        fruits = [c for c in self.palette if not _is_green(c)] or [self.primary]
        for k in range(44):
            x, y = _in_disc(rng, cx, cy, r * 0.8)
            self.piece(x, y, rng.uniform(22, 32), fruits[k % len(fruits)], ["dice", "round", "chunk"][k % 3])
        self.garnish(cx, cy, r * 0.5, rng.randint(3, 5), 0)

    def dip(self, cx: float, cy: float, r: float) -> None:
        """A smooth spread with a swirl and a drizzle, and toasts around the bowl."""
        rng = self.rng
        spread = self.primary if not _is_green(self.primary) else _mix(self.primary, "#e9d9b0", 0.5)
        g = self.radial("dip", [(0, _light(spread, 0.25), 1), (1, _dark(spread, 0.12), 1)], r=0.55)
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r - 4)}" fill="url(#{g})"/>')
        for k in range(3):  # the spoon's swirl
            self.add(
                f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r * (0.3 + 0.2 * k))}" fill="none" '
                f'stroke="{_dark(spread, 0.15)}" stroke-width="5" opacity="0.45" stroke-dasharray="{_f(60 + 40 * k)} 30"/>'
            )
        self.add(
            f'<path d="M{_f(cx - 40)},{_f(cy - 10)} q30,-30 60,0 t60,0" fill="none" stroke="#c9a227" '
            f'stroke-width="6" stroke-linecap="round" opacity="0.8"/>'
        )
        self.garnish(cx, cy, r * 0.4, 2, rng.randint(10, 16))
        for k in range(5):  # toasts on the under-plate
            a = math.radians(200 + k * 28)
            x, y = cx + math.cos(a) * 212, cy + math.sin(a) * 212
            self.add(
                f'<g transform="translate({_f(x)},{_f(y)}) rotate({_f(math.degrees(a) + 90)})">'
                f'<rect x="-26" y="-12" width="52" height="24" rx="7" fill="#d9a55b" stroke="#9c6a2f" stroke-width="1.5"/>'
                f'<rect x="-20" y="-7" width="40" height="14" rx="5" fill="#ecc98a"/></g>'
            )

    def sections(self, cx: float, cy: float, r: float) -> None:
        """A bowl of side-by-side sections over grains: one an ingredient."""
        rng = self.rng
        base = _mix(self.pales[0] if self.pales else "#efe6cf", "#d8c08a", 0.35)
        self.bed(cx, cy, r - 6, base)
        colors = [c for c in self.palette if not _is_pale(c)][:5] or [self.primary]
        n = max(3, len(colors))
        start = rng.uniform(0, 2 * math.pi)
        for i in range(n):
            c = colors[i % len(colors)]
            a = start + 2 * math.pi * (i + 0.5) / n
            x, y = cx + math.cos(a) * r * 0.52, cy + math.sin(a) * r * 0.52
            kind = "leaf" if _is_green(c) else ("dice" if i % 2 else "chunk")
            for _ in range(16):
                px, py = _in_disc(rng, x, y, r * 0.3)
                self.piece(px, py, rng.uniform(22, 32), c, kind)
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r * 0.18)}" fill="{_light(base, 0.3)}"/>')
        self.herbs(cx, cy, r * 0.8, rng.randint(15, 25))

    def verrines(self, cx: float, cy: float) -> None:
        """Three glasses seen from above at an angle: layers of the ingredients, a topping, a spoon."""
        rng = self.rng
        layers = [c for c in self.palette if not _is_dark(c)][:3] or [self.primary]
        layers = layers if len(layers) > 1 else [layers[0], _light(layers[0], 0.4)]
        tops = self.pieces[:2] or [self.primary]
        spots = [(cx - 150, cy + 20), (cx, cy - 40), (cx + 150, cy + 20)]
        for i, (x, y) in enumerate(spots):
            w, h = 118, 190
            sh = self.shadow_filter(f"vshadow{i}", 8)
            self.add(
                f'<ellipse cx="{_f(x + 10)}" cy="{_f(y + h / 2 + 8)}" rx="{_f(w * 0.6)}" ry="22" fill="#000" opacity="0.3" filter="url(#{sh})"/>'
            )
            top, bottom = y - h / 2, y + h / 2
            body = f"M{_f(x - w / 2)},{_f(top)} L{_f(x - w / 2 + 8)},{_f(bottom)} L{_f(x + w / 2 - 8)},{_f(bottom)} L{_f(x + w / 2)},{_f(top)} Z"
            cid = self.id(f"glass{i}")
            self.defs.append(f'<clipPath id="{cid}"><path d="{body}"/></clipPath>')
            parts = [f'<g clip-path="url(#{cid})">']
            y0 = bottom
            depth = h * 0.86
            for k, c in enumerate(layers):
                t = depth / len(layers)
                parts.append(
                    f'<rect x="{_f(x - w / 2)}" y="{_f(y0 - t)}" width="{_f(w)}" height="{_f(t + 1)}" fill="{_light(c, 0.05 * k)}"/>'
                )
                parts.append(
                    f'<path d="M{_f(x - w / 2)},{_f(y0 - t)} q{_f(w / 4)},{_f(-8)} {_f(w / 2)},0 t{_f(w / 2)},0" fill="none" stroke="{_dark(c, 0.2)}" stroke-width="2" opacity="0.6"/>'
                )
                y0 -= t
            parts.append("</g>")
            self.add("".join(parts))
            self.add(
                f'<ellipse cx="{_f(x)}" cy="{_f(top)}" rx="{_f(w / 2)}" ry="14" fill="{_light(layers[-1], 0.15)}" stroke="#ffffff" stroke-width="3" opacity="0.95"/>'
            )
            for _ in range(rng.randint(2, 3)):
                self.piece(
                    x + rng.uniform(-24, 24),
                    top + rng.uniform(-6, 4),
                    rng.uniform(18, 24),
                    tops[i % len(tops)],
                    "chunk",
                )
            greens = self.greens or ["#3f9b5a"]
            self.add(_leaf(x + 16, top - 4, 26, 12, rng.uniform(0, 360), greens[0]))
            self.add(f'<path d="{body}" fill="#ffffff" opacity="0.12" stroke="#ffffff" stroke-width="4"/>')
            self.add(
                f'<path d="M{_f(x - w / 2 + 14)},{_f(top + 18)} L{_f(x - w / 2 + 20)},{_f(bottom - 14)}" stroke="#ffffff" stroke-width="6" stroke-linecap="round" opacity="0.45"/>'
            )

    def eggs(self, cx: float, cy: float) -> None:
        """Halved eggs, yolk side up, on a bed of leaves."""
        rng = self.rng
        greens = self.greens or ["#6fae4a", "#4f8f3a"]
        for _ in range(14):
            x, y = _in_disc(rng, cx, cy, 120)
            self.add(
                _leaf(
                    x,
                    y,
                    rng.uniform(60, 80),
                    rng.uniform(30, 40),
                    rng.uniform(0, 360),
                    greens[rng.randrange(len(greens))],
                )
            )
        for k in range(6):
            a = 2 * math.pi * k / 6 + rng.uniform(-0.1, 0.1)
            x, y = cx + math.cos(a) * 92, cy + math.sin(a) * 92
            ang = math.degrees(a) + 90
            self.add(
                f'<g transform="translate({_f(x)},{_f(y)}) rotate({_f(ang)})">'
                f'<ellipse cx="3" cy="5" rx="40" ry="52" fill="#000" opacity="0.2"/>'
                f'<ellipse rx="40" ry="52" fill="#fbfaf4" stroke="#d9d3c3" stroke-width="1.5"/>'
                f'<circle cy="4" r="24" fill="#f2b632"/>'
                f'<circle cy="4" r="24" fill="none" stroke="#d9951f" stroke-width="2"/></g>'
            )
            for _ in range(10):  # the mimosa: crumbled yolk
                px, py = _in_disc(rng, x, y, 16)
                self.add(f'<circle cx="{_f(px)}" cy="{_f(py)}" r="{_f(rng.uniform(2, 4))}" fill="#f8d25a"/>')
        self.herbs(cx, cy, 130, rng.randint(12, 20))

    def pasta(self, cx: float, cy: float) -> None:
        """A nest of long pasta (or short ones for penne), its sauce and toppings."""
        rng = self.rng
        noodle = "#efc867"
        sauce = next((c for c in self.palette if not _is_pale(c)), self.primary)
        self.sauce(cx, cy, 150, _light(sauce, 0.1), 0.85)
        for k in range(44):
            r0 = rng.uniform(15, 135)
            a0 = rng.uniform(0, 2 * math.pi)
            sweep = rng.uniform(1.4, 3.2)
            pts = []
            for j in range(14):
                a = a0 + sweep * j / 13
                rr = r0 + math.sin(j / 2 + k) * 10
                pts.append(f"{_f(cx + math.cos(a) * rr)},{_f(cy + math.sin(a) * rr)}")
            c = _dark(noodle, 0.12) if k % 3 == 0 else noodle
            self.add(
                f'<polyline points="{" ".join(pts)}" fill="none" stroke="{c}" stroke-width="8" stroke-linecap="round" stroke-linejoin="round"/>'
            )
        others = [c for c in self.palette if not _is_pale(c)][:4]
        self.scatter_pieces(cx, cy, 110, others, (4, 6), (14, 20))
        self.garnish(cx, cy, 100, rng.randint(3, 6), rng.randint(15, 25))
        for _ in range(40):  # grated cheese
            x, y = _in_disc(rng, cx, cy, 90)
            self.add(f'<rect x="{_f(x)}" y="{_f(y)}" width="6" height="2.5" rx="1" fill="#fff6d8" opacity="0.9"/>')

    def burger(self, cx: float, cy: float) -> None:
        """A burger seen from above: its sesame bun, the filling showing at the edge; fries beside it."""
        rng = self.rng
        x, y = cx - 30, cy
        edge = next((c for c in self.palette if _is_green(c)), "#6fae4a")
        self.add(f'<path d="{_blob_path(rng, x, y, 118, 10, 0.08)}" fill="{edge}"/>')
        self.add(f'<circle cx="{_f(x + 4)}" cy="{_f(y + 6)}" r="112" fill="#f2b632"/>')
        bun = self.radial("bun", [(0, "#f2c27a", 1), (0.7, "#d9913f", 1), (1, "#a8642a", 1)], cx=0.4, cy=0.38, r=0.65)
        self.add(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="104" fill="url(#{bun})" stroke="#8c5222" stroke-width="1.5"/>')
        for _ in range(40):
            px, py = _in_disc(rng, x, y, 80)
            self.add(
                f'<ellipse cx="{_f(px)}" cy="{_f(py)}" rx="4.5" ry="2.4" fill="#fbf1d8" '
                f'transform="rotate({_f(rng.uniform(0, 180))} {_f(px)} {_f(py)})"/>'
            )
        for _ in range(14):  # fries
            fx, fy = cx + 150 + rng.uniform(-30, 30), cy + rng.uniform(-110, 110)
            self.add(
                f'<rect x="{_f(fx)}" y="{_f(fy)}" width="13" height="{_f(rng.uniform(50, 80))}" rx="4" fill="#f4c451" '
                f'stroke="#c88d22" stroke-width="1" transform="rotate({_f(rng.uniform(-40, 40))} {_f(fx)} {_f(fy)})"/>'
            )

    def toasts(self, cx: float, cy: float) -> None:
        """Two golden slices of bread (a croque, a pain perdu), browned, with their topping."""
        rng = self.rng
        top = _mix(self.primary if not _is_pale(self.primary) else "#f0c95a", "#e3a543", 0.5)
        for dx, dy, a in ((-60, -30, -12), (60, 40, 10)):
            x, y = cx + dx, cy + dy
            self.add(
                f'<g transform="translate({_f(x)},{_f(y)}) rotate({_f(a + rng.uniform(-4, 4))})">'
                f'<rect x="-88" y="-80" width="180" height="170" rx="36" fill="#000" opacity="0.22"/>'
                f'<rect x="-90" y="-84" width="180" height="170" rx="36" fill="#b8743a"/>'
                f'<rect x="-78" y="-72" width="156" height="146" rx="28" fill="{top}"/></g>'
            )
            for _ in range(14):
                px, py = _in_disc(rng, x, y, 60)
                self.add(
                    f'<path d="{_blob_path(rng, px, py, rng.uniform(6, 14), 6, 0.3)}" fill="{_dark(top, 0.35)}" opacity="0.55"/>'
                )
        if len(self.pales) > 0:
            self.add(f'<circle cx="{_f(cx + 150)}" cy="{_f(cy - 110)}" r="22" fill="{self.pales[0]}" opacity="0.9"/>')
        self.herbs(cx, cy, 140, rng.randint(10, 18))

    def crepes(self, cx: float, cy: float) -> None:
        """Crêpes folded in four, overlapping, sugar and a filling beside."""
        rng = self.rng
        crepe = "#eec27a"
        for k in range(3):
            a = rng.uniform(0, 360) if k == 0 else 120 * k + rng.uniform(-10, 10)
            x, y = cx + math.cos(math.radians(a)) * 40, cy + math.sin(math.radians(a)) * 40
            R = 150
            wedge = f"M0,0 L{R},0 A{R},{R} 0 0 1 0,{R} Z"
            self.add(
                f'<g transform="translate({_f(x)},{_f(y)}) rotate({_f(a + 135)})">'
                f'<path d="{wedge}" transform="translate(4,6)" fill="#000" opacity="0.2"/>'
                f'<path d="{wedge}" fill="{crepe}" stroke="#c98f3e" stroke-width="2"/>'
                f'<path d="M{_f(R * 0.7)},0 A{_f(R * 0.7)},{_f(R * 0.7)} 0 0 1 0,{_f(R * 0.7)}" fill="none" stroke="#d9a04c" stroke-width="2" opacity="0.6"/>'
                f'<circle cx="{_f(R * 0.45)}" cy="{_f(R * 0.3)}" r="9" fill="#c98236" opacity="0.4"/>'
                f'<circle cx="{_f(R * 0.25)}" cy="{_f(R * 0.6)}" r="6" fill="#c98236" opacity="0.35"/></g>'
            )
        for _ in range(70):
            x, y = _in_disc(rng, cx, cy, 120)
            self.add(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(rng.uniform(0.8, 2))}" fill="#ffffff" opacity="0.85"/>')
        fill = next((c for c in self.palette if not _is_pale(c)), "#b8324b")
        self.add(
            f'<circle cx="{_f(cx + 150)}" cy="{_f(cy - 120)}" r="38" fill="#fbfaf6" stroke="#d9d3c3" stroke-width="2"/>'
        )
        self.add(f'<circle cx="{_f(cx + 150)}" cy="{_f(cy - 120)}" r="28" fill="{_dark(fill, 0.1)}"/>')

    def galette(self, cx: float, cy: float) -> None:
        """A buckwheat galette folded square, its egg in the middle and its filling at the edges."""
        rng = self.rng
        s = 230
        self.add(
            f'<g transform="rotate({_f(rng.uniform(-8, 8))} {_f(cx)} {_f(cy)})">'
            f'<rect x="{_f(cx - s / 2 + 5)}" y="{_f(cy - s / 2 + 7)}" width="{s}" height="{s}" rx="18" fill="#000" opacity="0.22"/>'
            f'<rect x="{_f(cx - s / 2)}" y="{_f(cy - s / 2)}" width="{s}" height="{s}" rx="18" fill="#9c6232" stroke="#6f4220" stroke-width="2"/>'
            f'<rect x="{_f(cx - s / 2 + 30)}" y="{_f(cy - s / 2 + 30)}" width="{s - 60}" height="{s - 60}" rx="10" fill="#f3e0b5"/></g>'
        )
        for c in [c for c in self.palette if not _is_pale(c)][:3]:
            for _ in range(3):
                x, y = _in_disc(rng, cx, cy, 70)
                self.piece(x, y, rng.uniform(18, 24), c, "chunk")
        self.add(f'<path d="{_blob_path(rng, cx, cy, 52, 8, 0.12)}" fill="#fbfaf4"/>')
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="24" fill="#f2b632" stroke="#d9951f" stroke-width="2"/>')
        self.herbs(cx, cy, 90, rng.randint(10, 16))

    def starter(self) -> None:
        rng = self.rng
        cx, cy = rng.uniform(330, 370), rng.uniform(290, 310)
        self.napkin_and_cutlery(rng.uniform(625, 640))
        self.scatter_on_table((cx, cy, 240), rng.randint(3, 6))
        glaze = _GLAZES[rng.randrange(len(_GLAZES))]
        # an under-plate, then a deep bowl
        self.plate(cx, cy, 236, 205, (glaze[1], glaze[1]))
        self.plate(cx, cy, 182, 150, glaze, deep=True)
        if rng.random() < 0.5:
            self.soup(cx, cy, 150)
        else:
            self.salad(cx, cy, 150)

    def soup(self, cx: float, cy: float, r: float) -> None:
        rng = self.rng
        c = self.primary
        g = self.radial(
            "soup", [(0, _light(c, 0.22), 1), (0.75, c, 1), (1, _dark(c, 0.25), 1)], cx=0.45, cy=0.42, r=0.55
        )
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r - 2)}" fill="url(#{g})"/>')
        # a swirl of cream
        cream = self.pales[0] if self.pales else "#fbf6ea"
        pts = []
        for i in range(40):
            t = i / 39
            a = t * 4.2 * math.pi + rng.uniform(0, 0.1)
            rr = 8 + t * 78
            pts.append(f"{_f(cx + math.cos(a) * rr)},{_f(cy + math.sin(a) * rr)}")
        self.add(
            f'<polyline points="{" ".join(pts)}" fill="none" stroke="{cream}" stroke-width="6" '
            f'stroke-linecap="round" stroke-linejoin="round" opacity="0.92"/>'
        )
        # croutons and bits
        toppings = self.pieces or ["#d9a55b"]
        for c2 in toppings[:3]:
            for _ in range(rng.randint(3, 5)):
                x, y = _in_disc(rng, cx, cy, r * 0.7)
                self.piece(x, y, rng.uniform(11, 17), c2, "dice")
        self.garnish(cx, cy, r * 0.6, rng.randint(3, 6), rng.randint(10, 16))
        self.add(
            f'<ellipse cx="{_f(cx - r * 0.35)}" cy="{_f(cy - r * 0.45)}" rx="{_f(r * 0.35)}" ry="{_f(r * 0.1)}" fill="#ffffff" '
            f'opacity="0.18" transform="rotate(-30 {_f(cx)} {_f(cy)})"/>'
        )

    def salad(self, cx: float, cy: float, r: float) -> None:
        rng = self.rng
        greens = self.greens or ["#7fb24a", "#5f9a3c"]
        self.add(
            f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r * 0.92)}" fill="{_dark(greens[0], 0.2)}" opacity="0.8"/>'
        )
        for k in range(34):
            ring = 1 - k / 34
            x, y = _in_disc(rng, cx, cy, r * (0.35 + 0.55 * ring))
            c = greens[rng.randrange(len(greens))]
            c = _light(c, rng.uniform(0, 0.3))
            ang = math.degrees(math.atan2(y - cy, x - cx)) + rng.uniform(-40, 40)
            self.add(_leaf(x, y, rng.uniform(70, 105), rng.uniform(40, 58), ang, c))
        # the primary, then the rest, on top
        main = self.primary
        kind = "leaf" if _is_green(main) else ["chunk", "round", "dice"][rng.randrange(3)]
        for _ in range(rng.randint(7, 10)):
            x, y = _in_disc(rng, cx, cy, r * 0.68)
            self.piece(x, y, rng.uniform(26, 36), main, kind)
        others = [c for c in self.pieces + self.pales + self.darks if c != main]
        self.scatter_pieces(cx, cy, r * 0.72, others[:4], (4, 7), (14, 22))
        self.garnish(cx, cy, r * 0.7, 0, rng.randint(10, 16))

    def dessert(self) -> None:
        rng = self.rng
        cx, cy = rng.uniform(330, 370), rng.uniform(290, 310)
        self.napkin_and_cutlery(rng.uniform(625, 640))
        # no cutlery clutter in the scatter: a few petals of the primary
        glaze = _GLAZES[rng.randrange(len(_GLAZES))]
        if rng.random() < 0.55:
            self.tart(cx, cy, _GLAZES[rng.choice((0, 1, 4, 5))])
        else:
            self.ramekins(cx, cy, glaze)

    def tart(self, cx: float, cy: float, glaze: tuple[str, str], savory: bool = False) -> None:
        rng = self.rng
        # a scalloped cake plate
        sh = self.shadow_filter("pshadow", 12)
        pts = []
        for i in range(48):
            a = 2 * math.pi * i / 48
            rr = 240 if i % 2 == 0 else 232
            pts.append((cx + math.cos(a) * rr, cy + math.sin(a) * rr))
        outline = _smooth_loop(pts)
        self.add(
            f'<path d="{outline}" transform="translate(10,16)" fill="#1c130c" opacity="0.35" filter="url(#{sh})"/>'
        )
        g = self.radial(
            "cake",
            [(0, _light(glaze[0], 0.4), 1), (0.85, glaze[0], 1), (1, _dark(glaze[0], 0.1), 1)],
            cx=0.42,
            cy=0.38,
            r=0.7,
        )
        self.add(f'<path d="{outline}" fill="url(#{g})"/>')
        self.add(
            f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="200" fill="none" stroke="{_dark(glaze[0], 0.1)}" stroke-width="1.5" opacity="0.6"/>'
        )
        # the tart: a fluted golden crust
        crust = "#d9a35b"
        pts = []
        for i in range(64):
            a = 2 * math.pi * i / 64
            rr = 182 if i % 2 == 0 else 174
            pts.append((cx + math.cos(a) * rr, cy + math.sin(a) * rr))
        self.add(f'<path d="{_smooth_loop(pts)}" transform="translate(3,5)" fill="#000" opacity="0.2"/>')
        self._tart_start = len(self.body)
        gc = self.radial("crust", [(0, _light(crust, 0.2), 1), (1, _dark(crust, 0.25), 1)], r=0.55)
        self.add(f'<path d="{_smooth_loop(pts)}" fill="url(#{gc})" stroke="{_dark(crust, 0.3)}" stroke-width="1.2"/>')
        if savory:  # a golden custard, what the recipe is made of on it
            filling = _mix("#f2cf73", self.primary, 0.12)
        else:
            filling = self.primary if not _is_pale(self.primary) else _mix(self.primary, "#eec46a", 0.45)
        gf = self.radial(
            "filling",
            [(0, _light(filling, 0.25), 1), (0.85, filling, 1), (1, _dark(filling, 0.2), 1)],
            cx=0.45,
            cy=0.42,
            r=0.55,
        )
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="158" fill="url(#{gf})"/>')
        # topping: rings of slices, or berries and a dusting
        tops = [c for c in self.palette[1:] if not _is_pale(c) and not _is_green(c)]
        if savory:
            shown = [c for c in self.palette if not _is_pale(c)][:3] or [self.primary]
            for k, c in enumerate(shown):
                kind = "round" if k == 0 and not _is_dark(c) else ("leaf" if _is_green(c) else "dice")
                for _ in range(9 if k == 0 else 5):
                    x, y = _in_disc(rng, cx, cy, 130)
                    self.piece(x, y, rng.uniform(26, 34) if k == 0 else rng.uniform(14, 20), c, kind)
            for _ in range(14):  # browned spots of the custard
                x, y = _in_disc(rng, cx, cy, 140)
                self.add(
                    f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(rng.uniform(5, 12))}" fill="#c98a3a" opacity="0.35"/>'
                )
        elif not _is_dark(self.primary) and not _is_pale(self.primary) and rng.random() < 0.7:
            fruit = self.primary
            for ring, (rr, n, s_) in enumerate(((122, 16, 58), (62, 9, 50))):
                for i in range(n):
                    a = 2 * math.pi * i / n + ring * 0.3
                    x, y = cx + math.cos(a) * rr, cy + math.sin(a) * rr
                    ang = math.degrees(a) + 90 + 25
                    self.add(
                        f'<g transform="translate({_f(x)},{_f(y)}) rotate({_f(ang)})">'
                        f'<path d="M{_f(-s_ / 2)},0 Q0,{_f(-s_ / 2.4)} {_f(s_ / 2)},0 Q0,{_f(s_ / 8)} {_f(-s_ / 2)},0Z" '
                        f'fill="{_light(fruit, 0.18)}" stroke="{_dark(fruit, 0.35)}" stroke-width="1.2"/>'
                        f'<path d="M{_f(-s_ / 2.4)},-1 Q0,{_f(-s_ / 2.9)} {_f(s_ / 2.4)},-1" fill="none" '
                        f'stroke="{_dark(fruit, 0.2)}" stroke-width="3" opacity="0.8"/>'
                        f'<path d="M{_f(-s_ / 4)},{_f(-s_ / 7)} Q0,{_f(-s_ / 5)} {_f(s_ / 5)},{_f(-s_ / 7)}" fill="none" '
                        f'stroke="#ffffff" stroke-width="2" opacity="0.5"/></g>'
                    )
            self.add(
                f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="26" fill="{_light(fruit, 0.1)}" stroke="{_dark(fruit, 0.3)}"/>'
            )
            self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="150" fill="#f5c77a" opacity="0.12"/>')
        else:
            # glossy surface with berries/pieces and sugar dust
            self.add(
                f'<ellipse cx="{_f(cx - 50)}" cy="{_f(cy - 60)}" rx="70" ry="22" fill="#ffffff" opacity="0.2" '
                f'transform="rotate(-30 {_f(cx)} {_f(cy)})"/>'
            )
            berries = tops[:2] or ["#b8324b"]
            for i in range(10):
                a = 2 * math.pi * i / 10
                c = berries[i % len(berries)]
                x, y = cx + math.cos(a) * 128, cy + math.sin(a) * 128
                self.piece(x, y, rng.uniform(20, 26), c, "chunk")
            for _ in range(60):
                x, y = _in_disc(rng, cx, cy, 100)
                self.add(
                    f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(rng.uniform(0.8, 1.8))}" fill="#ffffff" opacity="0.75"/>'
                )
        self._tart_end = len(self.body)
        # a slice cut and pulled away: the plate shows through the gap
        a0 = rng.uniform(0, 2 * math.pi)
        a1 = a0 + math.radians(40)
        R = 186
        wedge = (
            f"M{_f(cx)},{_f(cy)} L{_f(cx + math.cos(a0) * R)},{_f(cy + math.sin(a0) * R)} "
            f"A{R},{R} 0 0 1 {_f(cx + math.cos(a1) * R)},{_f(cy + math.sin(a1) * R)} Z"
        )
        self.add(f'<path d="{wedge}" fill="{_light(glaze[0], 0.25)}"/>')
        self.add(f'<path d="{wedge}" fill="none" stroke="{_dark(glaze[0], 0.08)}" stroke-width="2" opacity="0.6"/>')
        mid = (a0 + a1) / 2
        dx, dy = math.cos(mid) * 58, math.sin(mid) * 58
        cid = self.id("slice")
        self.defs.append(f'<clipPath id="{cid}"><path d="{wedge}"/></clipPath>')
        inner = "".join(self.body[self._tart_start : self._tart_end])
        self.add(
            f'<path d="{wedge}" transform="translate({_f(dx + 5)},{_f(dy + 8)})" fill="#1c130c" opacity="0.3"/>'
            f'<g transform="translate({_f(dx)},{_f(dy)})"><g clip-path="url(#{cid})">{inner}</g>'
            f'<path d="M{_f(cx + math.cos(a0) * 6)},{_f(cy + math.sin(a0) * 6)} L{_f(cx + math.cos(a0) * R)},{_f(cy + math.sin(a0) * R)}" '
            f'stroke="{_dark(crust, 0.15)}" stroke-width="5" stroke-linecap="round"/>'
            f'<path d="M{_f(cx + math.cos(a1) * 6)},{_f(cy + math.sin(a1) * 6)} L{_f(cx + math.cos(a1) * R)},{_f(cy + math.sin(a1) * R)}" '
            f'stroke="{_dark(crust, 0.15)}" stroke-width="5" stroke-linecap="round"/></g>'
        )
        self.garnish(cx, cy, 60, rng.randint(2, 3), 0)

    def ramekins(self, cx: float, cy: float, glaze: tuple[str, str]) -> None:
        rng = self.rng
        self.plate(cx, cy, 238, 205, glaze)
        spots = [(cx - 85, cy - 70), (cx + 85, cy - 50), (cx - 10, cy + 90)]
        ramekin = "#fbfaf6" if glaze[0] != "#fbfaf6" else "#f4ece0"
        top = self.primary
        for i, (x, y) in enumerate(spots):
            r = 82
            sh = self.shadow_filter(f"rshadow{i}", 6)
            self.add(
                f'<circle cx="{_f(x + 6)}" cy="{_f(y + 9)}" r="{r}" fill="#000" opacity="0.3" filter="url(#{sh})"/>'
            )
            # fluted ramekin wall
            pts = []
            for k in range(40):
                a = 2 * math.pi * k / 40
                rr = r if k % 2 == 0 else r - 4
                pts.append((x + math.cos(a) * rr, y + math.sin(a) * rr))
            self.add(
                f'<path d="{_smooth_loop(pts)}" fill="{ramekin}" stroke="{_dark(ramekin, 0.15)}" stroke-width="1.2"/>'
            )
            g = self.radial(
                f"cream{i}",
                [(0, _light(top, 0.3), 1), (0.8, top, 1), (1, _dark(top, 0.3), 1)],
                cx=0.45,
                cy=0.42,
                r=0.55,
            )
            self.add(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{r - 14}" fill="url(#{g})"/>')
            if _is_pale(top) or _lum(top) > 0.6:  # caramelised sugar crust
                self.add(f'<path d="{_blob_path(rng, x, y, r - 26, 8, 0.15)}" fill="#c8822e" opacity="0.55"/>')
            self.add(
                f'<ellipse cx="{_f(x - 20)}" cy="{_f(y - 24)}" rx="24" ry="9" fill="#ffffff" opacity="0.3" '
                f'transform="rotate(-30 {_f(x)} {_f(y)})"/>'
            )
            tops = [c for c in self.palette[1:] if not _is_pale(c) and not _is_green(c)] or ["#b8324b"]
            c = tops[i % len(tops)]
            for _ in range(rng.randint(2, 3)):
                px, py = _in_disc(rng, x, y, 26)
                self.piece(px, py, rng.uniform(16, 22), c, "chunk")
            greens = self.greens or ["#3f9b5a"]
            self.add(_leaf(x + 14, y - 8, 26, 13, rng.uniform(0, 360), greens[0]))

    def drink(self) -> None:
        rng = self.rng
        self.napkin_and_cutlery(rng.uniform(625, 640), drink=True)
        cx, cy = rng.uniform(320, 350), rng.uniform(290, 310)
        # a wooden board as a tray
        sh = self.shadow_filter("bshadow", 10)
        self.add(
            f'<circle cx="{_f(cx + 10)}" cy="{_f(cy + 14)}" r="230" fill="#1c130c" opacity="0.3" filter="url(#{sh})"/>'
        )
        board = "#c08a5a" if self.table_kind != "wood" else "#e3d3bb"
        gb = self.radial("board", [(0, _light(board, 0.15), 1), (1, _dark(board, 0.15), 1)], r=0.6)
        self.add(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="230" fill="url(#{gb})"/>')
        for rr in (200, 150, 95):
            self.add(
                f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{rr}" fill="none" stroke="{_dark(board, 0.2)}" stroke-width="1" opacity="0.35"/>'
            )
        hot = _lum(self.primary) < 0.2
        if hot:
            self.mug(cx - 20, cy + 10, 120)
            self.mug(cx + 160, cy - 150, 62, small=True)
        else:
            self.glass(cx - 30, cy + 10, 140)
            self.glass(cx + 150, cy - 140, 78, small=True)
        # garnish on the board: citrus wheels or berries, and leaves
        citrus = self.citrus_color()
        for _ in range(2):
            a = rng.uniform(math.radians(100), math.radians(200))
            x, y = cx + math.cos(a) * 185, cy + math.sin(a) * 175
            if citrus:
                self.citrus(x, y, rng.uniform(28, 36), citrus)
            else:
                fruit = next((c for c in self.palette if not _is_pale(c) and not _is_green(c)), self.primary)
                for _k in range(3):
                    self.piece(x + rng.uniform(-18, 18), y + rng.uniform(-18, 18), rng.uniform(18, 24), fruit, "chunk")
        greens = self.greens or ["#3f9b5a"]
        for _ in range(rng.randint(3, 5)):
            a = rng.uniform(math.radians(60), math.radians(160))
            self.add(
                _leaf(
                    cx + math.cos(a) * 190,
                    cy + math.sin(a) * 180,
                    rng.uniform(22, 30),
                    rng.uniform(11, 15),
                    rng.uniform(0, 360),
                    greens[rng.randrange(len(greens))],
                )
            )

    def citrus_color(self) -> str | None:
        """The colour of a citrus-like ingredient (lemon, lime, orange), if any."""
        for c in self.palette:
            h, light, s = _hls(c)
            if 0.06 <= h <= 0.28 and s > 0.55 and 0.4 < light < 0.75:
                return c
        return None

    def mug(self, x: float, y: float, r: float, small: bool = False) -> None:
        """A cup of something hot, with its saucer."""
        rng = self.rng
        name = "sm" if small else "m"
        cup = ["#f6f1e7", "#e9dccb", "#2f4a63", "#b8322a", "#f0e2c4"][rng.randrange(5)]
        sh = self.shadow_filter(f"{name}shadow", 8)
        self.add(
            f'<circle cx="{_f(x + 10)}" cy="{_f(y + 14)}" r="{_f(r * 1.35)}" fill="#1c130c" opacity="0.3" filter="url(#{sh})"/>'
        )
        self.add(
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 1.35)}" fill="#fbf8f2" stroke="#d9d2c5" stroke-width="2"/>'
        )
        self.add(
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 1.12)}" fill="none" stroke="#e6dfd2" stroke-width="2"/>'
        )
        # the handle
        self.add(
            f'<path d="M{_f(x + r * 0.9)},{_f(y - r * 0.3)} q{_f(r * 0.55)},{_f(r * 0.02)} {_f(r * 0.55)},{_f(r * 0.3)} '
            f'q0,{_f(r * 0.28)} {_f(-r * 0.55)},{_f(r * 0.3)}" fill="none" stroke="{_dark(cup, 0.1)}" '
            f'stroke-width="{_f(r * 0.16)}" stroke-linecap="round"/>'
        )
        g = self.radial(f"{name}cup", [(0, _light(cup, 0.3), 1), (1, _dark(cup, 0.15), 1)], cx=0.4, cy=0.35, r=0.7)
        self.add(
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="url(#{g})" stroke="{_dark(cup, 0.25)}" stroke-width="1.5"/>'
        )
        c = self.primary
        gl = self.radial(
            f"{name}drink", [(0, _light(c, 0.25), 1), (0.8, c, 1), (1, _dark(c, 0.35), 1)], cx=0.45, cy=0.42, r=0.55
        )
        self.add(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 0.84)}" fill="url(#{gl})"/>')
        # foam and a swirl when there is milk, a floating slice otherwise, a dusting of spice
        citrus = self.citrus_color()
        if citrus:
            self.citrus(x + r * 0.15, y - r * 0.1, r * 0.36, citrus)
            return
        foam = self.pales[0] if self.pales else "#f3e6cf"
        self.add(f'<path d="{_blob_path(rng, x, y, r * 0.5, 9, 0.12)}" fill="{foam}" opacity="0.85"/>')
        self.add(
            f'<path d="M{_f(x - r * 0.3)},{_f(y)} c{_f(r * 0.1)},{_f(-r * 0.25)} {_f(r * 0.4)},{_f(-r * 0.25)} {_f(r * 0.45)},0 '
            f's{_f(-r * 0.25)},{_f(r * 0.3)} {_f(-r * 0.35)},{_f(r * 0.1)}" fill="none" stroke="{_mix(c, foam, 0.55)}" '
            f'stroke-width="{_f(max(2, r * 0.05))}" stroke-linecap="round"/>'
        )
        for _ in range(14 if not small else 6):
            px, py = _in_disc(rng, x, y, r * 0.45)
            self.add(
                f'<circle cx="{_f(px)}" cy="{_f(py)}" r="{_f(rng.uniform(0.8, 1.8))}" fill="{_dark(c, 0.2)}" opacity="0.7"/>'
            )
        self.add(
            f'<path d="M{_f(x - r * 0.7)},{_f(y - r * 0.5)} A{_f(r * 0.9)},{_f(r * 0.9)} 0 0 1 {_f(x + r * 0.1)},{_f(y - r * 0.88)}" '
            f'fill="none" stroke="#ffffff" stroke-width="{_f(r * 0.05)}" stroke-linecap="round" opacity="0.6"/>'
        )
        if not small:  # a cinnamon stick on the saucer
            self.add(
                f'<g transform="translate({_f(x - r * 1.05)},{_f(y + r * 0.55)}) rotate(-35)">'
                f'<rect x="-34" y="-6" width="68" height="12" rx="5" fill="#9c5a2e" stroke="#6e3d1c" stroke-width="1.2"/>'
                f'<path d="M-30,0 H30" stroke="#c07a44" stroke-width="2"/></g>'
            )

    def citrus(self, x: float, y: float, r: float, color: str) -> None:
        peel = _dark(color, 0.1)
        parts = [
            f'<circle cx="{_f(x + 2)}" cy="{_f(y + 3)}" r="{_f(r)}" fill="#000" opacity="0.2"/>',
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{peel}"/>',
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 0.86)}" fill="{_light(color, 0.75)}"/>',
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 0.78)}" fill="{_light(color, 0.2)}"/>',
        ]
        for k in range(8):
            a = 2 * math.pi * k / 8
            parts.append(
                f'<path d="M{_f(x)},{_f(y)} L{_f(x + math.cos(a) * r * 0.78)},{_f(y + math.sin(a) * r * 0.78)}" '
                f'stroke="{_light(color, 0.8)}" stroke-width="{_f(max(1.2, r / 14))}"/>'
            )
        parts.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 0.1)}" fill="{_light(color, 0.8)}"/>')
        self.add(*parts)

    def glass(self, x: float, y: float, r: float, small: bool = False) -> None:
        rng = self.rng
        c = self.primary
        name = "sg" if small else "g"
        sh = self.shadow_filter(f"{name}shadow", 8)
        self.add(
            f'<circle cx="{_f(x + 12)}" cy="{_f(y + 16)}" r="{_f(r)}" fill="{_dark(c, 0.5)}" opacity="0.35" filter="url(#{sh})"/>'
        )
        # the glass wall
        self.add(
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="#eef6f8" opacity="0.55" stroke="#ffffff" stroke-width="3"/>'
        )
        liquid = c if not _is_pale(c) else _mix(c, "#e9d6a8", 0.2)
        g = self.radial(
            f"{name}liquid",
            [(0, _light(liquid, 0.35), 0.95), (0.7, liquid, 0.95), (1, _dark(liquid, 0.3), 1)],
            cx=0.45,
            cy=0.42,
            r=0.55,
        )
        self.add(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 0.88)}" fill="url(#{g})"/>')
        if not small:
            # bubbles, ice cubes, a citrus wheel, mint, a straw
            for _ in range(18):
                bx, by = _in_disc(rng, x, y, r * 0.8)
                self.add(
                    f'<circle cx="{_f(bx)}" cy="{_f(by)}" r="{_f(rng.uniform(1.5, 3.5))}" fill="none" stroke="#ffffff" stroke-width="1" opacity="0.6"/>'
                )
            for _ in range(rng.randint(3, 4)):
                ix, iy = _in_disc(rng, x, y, r * 0.5)
                s = rng.uniform(36, 48)
                a = rng.uniform(0, 90)
                self.add(
                    f'<g transform="translate({_f(ix)},{_f(iy)}) rotate({_f(a)})">'
                    f'<rect x="{_f(-s / 2)}" y="{_f(-s / 2)}" width="{_f(s)}" height="{_f(s)}" rx="9" fill="#ffffff" opacity="0.35" '
                    f'stroke="#ffffff" stroke-width="1.5"/>'
                    f'<path d="M{_f(-s / 2 + 7)},{_f(-s / 2 + 10)} h{_f(s * 0.45)}" stroke="#ffffff" stroke-width="3" stroke-linecap="round" opacity="0.8"/></g>'
                )
            citrus = self.citrus_color()
            if citrus:
                self.citrus(x + r * 0.35, y - r * 0.3, r * 0.32, citrus)
            else:
                fruit = next((p for p in self.palette[1:] if not _is_pale(p) and not _is_green(p)), _dark(c, 0.2))
                for k in range(3):
                    self.piece(x + r * 0.3 + k * 14, y - r * 0.35 + (k % 2) * 14, 24, fruit, "chunk")
            greens = self.greens or ["#3f9b5a"]
            for k in range(3):
                self.add(
                    _leaf(
                        x - r * 0.3 + k * 12, y + r * 0.3 - k * 8, 30, 15, rng.uniform(0, 360), greens[k % len(greens)]
                    )
                )
            straw = ["#e4533d", "#3d7fb8", "#2f9a63", "#f2b134"][rng.randrange(4)]
            a = rng.uniform(-0.9, -0.4)
            x2, y2 = x + math.cos(a) * r * 1.9, y + math.sin(a) * r * 1.9
            pid = self.id("straw")
            self.defs.append(
                f'<pattern id="{pid}" width="16" height="16" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
                f'<rect width="16" height="16" fill="#ffffff"/><rect width="8" height="16" fill="{straw}"/></pattern>'
            )
            self.add(
                f'<path d="M{_f(x - 10)},{_f(y + 6)} L{_f(x2 + 6)},{_f(y2 + 8)}" stroke="#000" stroke-width="14" opacity="0.15" stroke-linecap="round"/>'
                f'<path d="M{_f(x - 10)},{_f(y + 6)} L{_f(x2)},{_f(y2)}" stroke="url(#{pid})" stroke-width="13" stroke-linecap="round"/>'
            )
        # rim highlights
        self.add(
            f'<path d="M{_f(x - r * 0.75)},{_f(y - r * 0.45)} A{_f(r * 0.9)},{_f(r * 0.9)} 0 0 1 {_f(x + r * 0.2)},{_f(y - r * 0.88)}" '
            f'fill="none" stroke="#ffffff" stroke-width="{_f(r * 0.06)}" stroke-linecap="round" opacity="0.75"/>'
        )


# --------------------------------------------------------------------------- product pictures


def _short_name(name: str) -> str:
    """The name as a label reads it: before a comma, without a trailing pack count."""
    short = name.split(",")[0].strip() or name.strip()
    return short


def _wrap(text: str, width: int, lines: int) -> list[str]:
    words = text.split()
    out: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}".strip()
        if len(candidate) <= width or not current:
            current = candidate
        else:
            out.append(current)
            current = word
    if current:
        out.append(current)
    if len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: max(1, width - 1)].rstrip() + "…"
    return [line if len(line) <= width else line[: width - 1] + "…" for line in out]


def product_picture_svg(*, product_id: str, package: str, brand: str, name: str, color: str | None) -> str:
    """The 400x400 packshot of a product (see the module docstring)."""
    pid, kind, brand_text, name_text = str(product_id), package if package in PACKAGES else "box", brand, name
    c = _clean(color) or "#c9a36b"
    rng = random.Random(f"product-{pid}")
    uid = "p" + re.sub(r"[^A-Za-z0-9_-]", "", pid)[:24]
    p = _Pack(rng, uid, c, brand_text, _short_name(name_text))
    p.backdrop()
    p.add('<g transform="translate(200,206) scale(1.16) translate(-200,-206)">')
    getattr(p, kind)()
    p.badge()
    p.add("</g>")
    return p.svg()


_BRAND_TONES = [
    "#2f5d8a",
    "#b8322a",
    "#3d7a4a",
    "#7a2438",
    "#d9732c",
    "#2a7a78",
    "#243b5a",
    "#c99a2e",
    "#5b3a7a",
    "#8a4b2a",
]


class _Pack:
    """Accumulates the elements of one packshot."""

    def __init__(self, rng: random.Random, uid: str, color: str, brand: str, name: str) -> None:
        self.rng = rng
        self.uid = uid
        self.color = color
        # a package colour that reads well: the ingredient's when it is lively enough, else the brand's
        _, light, sat = _hls(color)
        brand_tone = _BRAND_TONES[sum(map(ord, brand)) % len(_BRAND_TONES)]
        base = color if (sat > 0.3 and 0.2 < light < 0.78) else brand_tone
        self.brand_color = _saturate(_dark(base, 0.3), 1.1) if base == color else brand_tone
        self.pack_color = base
        self.organic = "bio" in brand.lower().split() or " bio" in f" {name.lower()}"
        self.brand = brand
        self.name = name
        self.defs: list[str] = []
        self.body: list[str] = []

    def add(self, *parts: str) -> None:
        self.body.extend(parts)

    def id(self, name: str) -> str:
        return f"{self.uid}-{name}"

    def svg(self) -> str:
        return (
            f'<svg xmlns="{SVG_NS}" viewBox="0 0 400 400" role="img">'
            f"<defs>{''.join(self.defs)}</defs>{''.join(self.body)}</svg>"
        )

    def linear(self, name: str, stops: Sequence[tuple[float, str]], horizontal: bool = True) -> str:
        gid = self.id(name)
        x2, y2 = ("1", "0") if horizontal else ("0", "1")
        s = "".join(f'<stop offset="{_f(o)}" stop-color="{c}"/>' for o, c in stops)
        self.defs.append(f'<linearGradient id="{gid}" x1="0" y1="0" x2="{x2}" y2="{y2}">{s}</linearGradient>')
        return gid

    def cylinder(self, name: str, color: str) -> str:
        """A horizontal shading that makes a flat shape look round."""
        return self.linear(
            name,
            [
                (0, _dark(color, 0.3)),
                (0.22, _light(color, 0.25)),
                (0.5, color),
                (0.85, _dark(color, 0.2)),
                (1, _dark(color, 0.4)),
            ],
        )

    def backdrop(self) -> None:
        bg = self.linear("bg", [(0, _light(self.color, 0.9)), (1, _light(self.color, 0.72))], horizontal=False)
        self.add(f'<rect width="400" height="400" fill="url(#{bg})"/>')
        fid = self.id("shadow")
        self.defs.append(
            f'<filter id="{fid}" x="-30%" y="-30%" width="160%" height="160%"><feGaussianBlur stdDeviation="9"/></filter>'
        )
        self.add(f'<ellipse cx="200" cy="352" rx="140" ry="16" fill="#2a1d12" opacity="0.28" filter="url(#{fid})"/>')

    def label(
        self,
        cx: float,
        cy: float,
        w: float,
        h: float,
        rx: float = 10,
        fill: str = "#fffdf7",
        border: str | None = None,
        max_lines: int = 2,
    ) -> None:
        """The label: brand on top, the short name below, both escaped, sized to fit."""
        border = border or self.brand_color
        self.add(
            f'<rect x="{_f(cx - w / 2)}" y="{_f(cy - h / 2)}" width="{_f(w)}" height="{_f(h)}" rx="{_f(rx)}" '
            f'fill="{fill}" stroke="{border}" stroke-width="2.5"/>'
        )
        inner = w - 16
        brand_size = max(8.0, min(14.0, h * 0.17, inner / (max(1, len(self.brand)) * 0.74)))
        chars = int(inner / (brand_size * 0.74))
        brand = self.brand if len(self.brand) <= chars else self.brand[: max(1, chars - 1)].rstrip() + "…"
        name_size, lines = 12.0, _wrap(self.name, max(4, int(inner / (12.0 * 0.56))), 3)
        for size in (22.0, 20.0, 18.0, 16.0, 14.5, 13.0, 12.0):
            width_chars = max(4, int(inner / (size * 0.56)))
            candidate = _wrap(self.name, width_chars, 3)
            height = brand_size + 8 + len(candidate) * size * 1.12
            if height <= h - 12 and not any(line.endswith("…") for line in candidate):
                name_size, lines = size, candidate
                break
        total = brand_size + 8 + len(lines) * name_size * 1.12
        y = cy - total / 2 + brand_size * 0.8
        self.add(
            f'<text x="{_f(cx)}" y="{_f(y)}" text-anchor="middle" font-family="{_attr(_FONT)}" font-size="{_f(brand_size)}" '
            f'font-weight="700" letter-spacing="0.6" fill="{self.brand_color}">{_text(brand.upper())}</text>'
        )
        y += brand_size * 0.2 + 4
        self.add(
            f'<rect x="{_f(cx - w * 0.16)}" y="{_f(y)}" width="{_f(w * 0.32)}" height="1.5" fill="{self.brand_color}" opacity="0.5"/>'
        )
        y += 4 + name_size * 0.95
        for line in lines:
            self.add(
                f'<text x="{_f(cx)}" y="{_f(y)}" text-anchor="middle" font-family="{_attr(_FONT)}" '
                f'font-size="{_f(name_size)}" font-weight="600" fill="#2b2622">{_text(line)}</text>'
            )
            y += name_size * 1.12

    def badge(self) -> None:
        """A green leaf roundel on organic products."""
        if not self.organic:
            return
        self.add(
            '<g transform="translate(300,300)"><circle r="25" fill="#3f8f3a" stroke="#ffffff" stroke-width="3"/>'
            '<path d="M-10,8 C-12,-8 2,-14 12,-12 C12,0 4,12 -10,8Z" fill="#bfe3a0"/>'
            '<path d="M-8,6 L8,-8" stroke="#3f8f3a" stroke-width="1.5"/>'
            f'<text y="19" text-anchor="middle" font-family="{_attr(_FONT)}" font-size="8" font-weight="700" '
            'fill="#ffffff">BIO</text></g>'
        )

    def contents(self, cx: float, cy: float, rx: float, ry: float, n: int, size: float) -> None:
        """What can be seen of the food through a window or in a tray."""
        rng = self.rng
        c = self.color
        for _ in range(n):
            a = rng.uniform(0, 2 * math.pi)
            d = math.sqrt(rng.random())
            x, y = cx + math.cos(a) * rx * d, cy + math.sin(a) * ry * d
            path = _blob_path(rng, x, y, size * rng.uniform(0.8, 1.2), 6, 0.18)
            self.add(
                f'<path d="{path}" fill="{c}" stroke="{_dark(c, 0.3)}" stroke-width="1.2"/>'
                f'<ellipse cx="{_f(x - size * 0.3)}" cy="{_f(y - size * 0.35)}" rx="{_f(size * 0.3)}" ry="{_f(size * 0.15)}" '
                f'fill="#ffffff" opacity="0.45"/>'
            )

    # -- the kinds

    def bag(self) -> None:
        c = self.pack_color
        g = self.cylinder("bag", c)
        body = "M110,80 L290,80 C300,160 306,260 298,340 Q200,352 102,340 C94,260 100,160 110,80 Z"
        self.add(f'<path d="{body}" fill="url(#{g})" stroke="{_dark(c, 0.35)}" stroke-width="2"/>')
        # crimped top seal
        teeth = "".join(f"L{112 + i * 9 + 4.5},{58 if i % 2 == 0 else 62} " for i in range(20))
        self.add(
            f'<path d="M110,84 L110,62 {teeth}L290,62 L290,84 Z" fill="{_dark(c, 0.15)}" stroke="{_dark(c, 0.35)}" stroke-width="2"/>'
            f'<path d="M112,74 H288" stroke="{_light(c, 0.3)}" stroke-width="2" stroke-dasharray="3 3"/>'
        )
        # a window onto the contents
        self.add(
            f'<ellipse cx="200" cy="282" rx="62" ry="38" fill="{_light(self.color, 0.6)}" stroke="#ffffff" stroke-width="3"/>'
        )
        self.contents(200, 284, 44, 22, 7, 14)
        self.label(200, 172, 168, 96)
        self.add(
            '<path d="M128,96 C122,170 122,260 128,330" stroke="#ffffff" stroke-width="7" opacity="0.25" stroke-linecap="round" fill="none"/>'
        )

    def box(self) -> None:
        c = self.pack_color
        front = self.linear("front", [(0, _light(c, 0.08)), (1, _dark(c, 0.12))], horizontal=False)
        # top and side faces (3/4 view)
        self.add(
            f'<path d="M110,90 L140,66 L310,66 L280,90 Z" fill="{_light(c, 0.28)}" stroke="{_dark(c, 0.35)}" stroke-width="2" stroke-linejoin="round"/>'
            f'<path d="M280,90 L310,66 L310,318 L280,342 Z" fill="{_dark(c, 0.25)}" stroke="{_dark(c, 0.35)}" stroke-width="2" stroke-linejoin="round"/>'
            f'<rect x="110" y="90" width="170" height="252" fill="url(#{front})" stroke="{_dark(c, 0.35)}" stroke-width="2"/>'
        )
        self.add(f'<rect x="110" y="90" width="170" height="34" fill="{_dark(c, 0.2)}"/>')
        self.add(
            f'<circle cx="195" cy="266" r="46" fill="{_light(self.color, 0.55)}" stroke="#ffffff" stroke-width="4"/>'
        )
        self.contents(195, 268, 28, 26, 6, 12)
        self.label(195, 180, 150, 92)

    def bottle(self) -> None:
        c = self.pack_color
        glass = self.cylinder("glass", _mix(self.color, "#6f7f5a", 0.15))
        self.add(
            f'<path d="M178,44 H222 V96 C222,120 262,132 262,170 V330 Q262,346 246,346 H154 Q138,346 138,330 V170 '
            f'C138,132 178,120 178,96 Z" fill="url(#{glass})" stroke="{_dark(self.color, 0.4)}" stroke-width="2"/>'
        )
        cap = self.cylinder("cap", _dark(c, 0.2))
        self.add(
            f'<rect x="174" y="30" width="52" height="34" rx="5" fill="url(#{cap})" stroke="{_dark(c, 0.45)}" stroke-width="2"/>'
        )
        for x in range(180, 224, 6):
            self.add(f'<path d="M{x},34 V60" stroke="{_dark(c, 0.45)}" stroke-width="1" opacity="0.5"/>')
        self.label(200, 248, 116, 118, rx=6)
        self.add('<path d="M152,176 V328" stroke="#ffffff" stroke-width="8" stroke-linecap="round" opacity="0.35"/>')

    def jar(self) -> None:
        c = self.color
        glass = self.cylinder("jar", _mix(c, "#ffffff", 0.05))
        self.add(
            f'<path d="M112,110 Q112,96 126,96 H274 Q288,96 288,110 V326 Q288,348 266,348 H134 Q112,348 112,326 Z" '
            f'fill="url(#{glass})" stroke="{_dark(c, 0.4)}" stroke-width="2"/>'
        )
        lid_c = _dark(self.pack_color, 0.1)
        lid = self.cylinder("lid", lid_c)
        self.add(
            f'<rect x="118" y="62" width="164" height="44" rx="8" fill="url(#{lid})" stroke="{_dark(lid_c, 0.4)}" stroke-width="2"/>'
        )
        for x in range(126, 278, 7):
            self.add(f'<path d="M{x},66 V102" stroke="{_dark(lid_c, 0.4)}" stroke-width="1.2" opacity="0.45"/>')
        self.label(200, 232, 150, 104)
        self.add('<path d="M128,120 V322" stroke="#ffffff" stroke-width="9" stroke-linecap="round" opacity="0.3"/>')

    def can(self) -> None:
        c = self.pack_color
        metal = self.cylinder("metal", "#c3c7cc")
        body = self.cylinder("body", c)
        self.add(
            f'<path d="M120,96 V320 A80,20 0 0 0 280,320 V96 Z" fill="url(#{metal})" stroke="#6e747b" stroke-width="2"/>'
            f'<path d="M120,116 V304 A80,20 0 0 0 280,304 V116 A80,20 0 0 1 120,116 Z" fill="url(#{body})"/>'
            f'<ellipse cx="200" cy="96" rx="80" ry="20" fill="#dfe2e6" stroke="#6e747b" stroke-width="2"/>'
            f'<ellipse cx="200" cy="96" rx="66" ry="14" fill="none" stroke="#9aa0a7" stroke-width="2"/>'
            f'<path d="M186,88 h28 a6,6 0 0 1 0,12 h-28 a6,6 0 0 1 0,-12 Z" fill="#b8bdc3" stroke="#7d838a"/>'
        )
        for y in (130, 290):
            self.add(
                f'<path d="M120,{y} A80,20 0 0 0 280,{y}" fill="none" stroke="{_dark(c, 0.35)}" stroke-width="1.5" opacity="0.6"/>'
            )
        self.label(200, 214, 140, 104)

    def tray(self) -> None:
        c = self.color
        tray_c = "#2d2a28" if _lum(c) > 0.35 else "#ece6dc"
        self.add(
            f'<path d="M62,150 L338,150 L318,330 Q316,342 304,342 H96 Q84,342 82,330 Z" fill="{tray_c}" stroke="{_dark(tray_c, 0.4)}" stroke-width="2"/>'
            f'<path d="M84,166 L316,166 L300,320 H100 Z" fill="{_light(tray_c, 0.12)}"/>'
        )
        self.contents(200, 240, 90, 55, 9, 28)
        # the film
        self.add(
            '<path d="M84,166 L316,166 L300,320 H100 Z" fill="#ffffff" opacity="0.16"/>'
            '<path d="M110,180 L170,300" stroke="#ffffff" stroke-width="6" opacity="0.35" stroke-linecap="round"/>'
        )
        self.label(268, 112, 180, 86, rx=8)

    def loose(self) -> None:
        rng = self.rng
        c = self.color
        # a pile of produce: rounded shapes with highlights
        spots = [(140, 296), (210, 304), (280, 298), (175, 246), (248, 250), (212, 200)]
        for i, (x, y) in enumerate(spots):
            r = rng.uniform(40, 48)
            g = self.id(f"fruit{i}")
            self.defs.append(
                f'<radialGradient id="{g}" cx="0.38" cy="0.35" r="0.7"><stop offset="0" stop-color="{_light(c, 0.4)}"/>'
                f'<stop offset="0.6" stop-color="{c}"/><stop offset="1" stop-color="{_dark(c, 0.35)}"/></radialGradient>'
            )
            path = _blob_path(rng, x, y, r, 7, 0.08, squash=rng.uniform(0.85, 1.0), angle=rng.uniform(0, 3))
            self.add(f'<path d="{path}" fill="url(#{g})" stroke="{_dark(c, 0.4)}" stroke-width="1.5"/>')
            self.add(
                f'<path d="M{_f(x - 4)},{_f(y - r * 0.85)} q6,-12 14,-14" stroke="#6b8a3a" stroke-width="4" fill="none" stroke-linecap="round"/>'
            )
        self.label(200, 98, 200, 74, rx=8)

    def carton(self) -> None:
        c = self.pack_color
        front = self.linear("front", [(0, "#ffffff"), (1, _light(c, 0.6))], horizontal=False)
        self.add(
            f'<path d="M138,110 L200,58 L262,110 Z" fill="{_light(c, 0.2)}" stroke="{_dark(c, 0.35)}" stroke-width="2" stroke-linejoin="round"/>'
            f'<rect x="186" y="42" width="28" height="20" fill="{_light(c, 0.45)}" stroke="{_dark(c, 0.35)}" stroke-width="2"/>'
            f'<path d="M262,110 L292,96 L292,328 L262,344 Z" fill="{_dark(c, 0.2)}" stroke="{_dark(c, 0.35)}" stroke-width="2" stroke-linejoin="round"/>'
            f'<path d="M262,110 L292,96 L232,50 L200,58 Z" fill="{_light(c, 0.05)}" stroke="{_dark(c, 0.35)}" stroke-width="2" stroke-linejoin="round"/>'
            f'<rect x="138" y="110" width="124" height="234" fill="url(#{front})" stroke="{_dark(c, 0.35)}" stroke-width="2"/>'
            f'<path d="M138,300 C170,284 230,316 262,296 V344 H138 Z" fill="{c}"/>'
            f'<circle cx="234" cy="84" r="9" fill="{_dark(c, 0.25)}" stroke="#ffffff" stroke-width="2"/>'
        )
        self.label(200, 210, 112, 110, rx=6)

    def pack(self) -> None:
        c = self.pack_color
        g = self.linear("pack", [(0, _light(c, 0.15)), (1, _dark(c, 0.15))], horizontal=False)
        self.add(
            f'<rect x="70" y="120" width="260" height="190" rx="14" fill="{_dark(c, 0.3)}" transform="translate(6,8)" opacity="0.5"/>'
            f'<rect x="70" y="120" width="260" height="190" rx="14" fill="url(#{g})" stroke="{_dark(c, 0.35)}" stroke-width="2"/>'
            f'<rect x="70" y="120" width="260" height="22" rx="10" fill="{_dark(c, 0.18)}"/>'
            f'<path d="M82,131 H318" stroke="{_light(c, 0.3)}" stroke-width="2" stroke-dasharray="4 4"/>'
        )
        self.add(
            f'<rect x="214" y="164" width="96" height="118" rx="12" fill="{_light(self.color, 0.55)}" stroke="#ffffff" stroke-width="3"/>'
        )
        self.contents(262, 223, 30, 40, 5, 13)
        self.label(144, 222, 128, 112, rx=8)
