"""The shop's carts, one per identity, kept server-side in process memory (a demo store, emptied when the
shop restarts). The cart page and its JSON routes are in cart.py; the login moves a cart (views.py)."""

from __future__ import annotations

import threading

from flask import Flask, current_app

from .visitor import Visitor

EXTENSION = "demo_shop_cart"
MAX_QUANTITY = 99


class CartStore:
    """Carts by identity key: {product id: quantity}. Thread-safe."""

    def __init__(self) -> None:
        self._carts: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()

    def lines(self, key: str) -> dict[str, int]:
        with self._lock:
            return dict(self._carts.get(key, {}))

    def apply(self, key: str, deltas: list[tuple[str, int]]) -> dict[str, int]:
        """Adds (positive) or removes (negative) quantities; a line at 0 goes away."""
        with self._lock:
            cart = self._carts.setdefault(key, {})
            for product_id, delta in deltas:
                quantity = min(MAX_QUANTITY, max(0, cart.get(product_id, 0) + delta))
                if quantity:
                    cart[product_id] = quantity
                else:
                    cart.pop(product_id, None)
            return dict(cart)

    def move(self, source: str, target: str) -> dict[str, int]:
        """Adds every line of the `source` cart to the `target` cart (quantities add up, to MAX_QUANTITY at
        most) and empties `source`; answers the target cart."""
        with self._lock:
            moving = self._carts.pop(source, {})
            cart = self._carts.setdefault(target, {})
            if source == target:
                cart.update(moving)
                return dict(cart)
            for product_id, quantity in moving.items():
                cart[product_id] = min(MAX_QUANTITY, cart.get(product_id, 0) + quantity)
            return dict(cart)


def init_carts(app: Flask) -> None:
    app.extensions[EXTENSION] = CartStore()


def carts() -> CartStore:
    """The carts of the current application."""
    store: CartStore = current_app.extensions[EXTENSION]
    return store


def cart_key(visitor: Visitor) -> str:
    """The cart follows the identity the fragments use: the logged-in user, else the authless id."""
    return f"user:{visitor.user_id}" if visitor.user_id is not None else f"authless:{visitor.authless_id}"
