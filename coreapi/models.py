"""The catalog of the demo retailer (recipes, ingredients, kitchen equipment, products, stores,
suppliers), the users' likes, baskets, basket transfers, planner menus, preferences and favorite products
(per supplier), the outcomes of idempotent writes, and analytics events.

Identifiers of recipes, products, stores and suppliers are integers in the database and strings
in the JSON contract; categories, ingredients and equipment are keyed by their slug.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from coreapi.extensions import Base
from coreapi.services.identity import MAX_ID_LENGTH, IdentityKind

RECIPE_TYPES = ("starter", "main-dish", "dessert", "drink")
UNITS = ("g", "ml", "piece")
SUPPLIER_KINDS = ("retailer", "publisher")
LANGUAGES = ("fr", "en")

Money = Numeric(10, 2)
# The characters of a browser's key in a basket's rows (hex of a SHA-256 digest, cut: coreapi.services.cart_waits).
REPORTER_KEY_LENGTH = 32
Quantity = Numeric(12, 3)
# Degrees of latitude or longitude: six decimals place a point within some 10 cm.
Coordinate = Numeric(9, 6)
# The deferred group of a store's coordinates (``undefer_group`` loads them with the store).
STORE_COORDINATES = "coordinates"


def _one_of(column: str, values: tuple[str, ...]) -> str:
    quoted = ", ".join(f"'{value}'" for value in values)
    return f"{column} IN ({quoted})"


class Category(Base):
    __tablename__ = "categories"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    name_en: Mapped[str | None] = mapped_column(String(120))
    position: Mapped[int] = mapped_column(index=True)
    # A diet a shopper can require (preferences): every recipe kept must be in the category.
    diet: Mapped[bool] = mapped_column(default=False, server_default=false())


class RecipeCategory(Base):
    __tablename__ = "recipe_categories"

    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id", ondelete="CASCADE"), primary_key=True)
    category_id: Mapped[str] = mapped_column(
        ForeignKey("categories.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    position: Mapped[int]  # the recipe's own order of its categories


class Equipment(Base):
    """Kitchen equipment a recipe may need beyond a hob and pans (an oven, a blender...)."""

    __tablename__ = "equipment"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    name_en: Mapped[str | None] = mapped_column(String(120))
    position: Mapped[int]


class RecipeEquipment(Base):
    __tablename__ = "recipe_equipment"

    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id", ondelete="CASCADE"), primary_key=True)
    equipment_id: Mapped[str] = mapped_column(ForeignKey("equipment.id"), primary_key=True, index=True)


class Ingredient(Base):
    __tablename__ = "ingredients"
    __table_args__ = (CheckConstraint(_one_of("unit", UNITS), name="unit"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    name_en: Mapped[str | None] = mapped_column(String(120))
    unit: Mapped[str] = mapped_column(String(8))
    color: Mapped[str | None] = mapped_column(String(16))

    product_links: Mapped[list[ProductIngredient]] = relationship(
        back_populates="ingredient",
        order_by=lambda: (ProductIngredient.rank, ProductIngredient.product_id),
        viewonly=True,
    )


class Product(Base):
    __tablename__ = "products"
    __table_args__ = (
        CheckConstraint("size_value > 0", name="size_positive"),
        CheckConstraint("price >= 0", name="price_positive"),
        CheckConstraint(_one_of("size_unit", UNITS), name="size_unit"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(200))
    brand: Mapped[str | None] = mapped_column(String(120))
    size_value: Mapped[Decimal] = mapped_column(Quantity)
    size_unit: Mapped[str] = mapped_column(String(8))
    price: Mapped[Decimal] = mapped_column(Money)
    aisle: Mapped[str | None] = mapped_column(String(64))
    package: Mapped[str | None] = mapped_column(String(16))
    # Lower-cased, accent-free name and brand: the same search on SQLite and PostgreSQL.
    search_text: Mapped[str] = mapped_column(Text, default="")

    ingredient_links: Mapped[list[ProductIngredient]] = relationship(
        back_populates="product",
        order_by=lambda: (ProductIngredient.rank, ProductIngredient.ingredient_id),
        viewonly=True,
    )


class ProductIngredient(Base):
    """A product that can stand for an ingredient; rank 1 is the best match."""

    __tablename__ = "product_ingredients"
    __table_args__ = (
        CheckConstraint("rank >= 1", name="rank_positive"),
        Index("ix_product_ingredients_ingredient_rank", "ingredient_id", "rank"),
    )

    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), primary_key=True)
    ingredient_id: Mapped[str] = mapped_column(ForeignKey("ingredients.id", ondelete="CASCADE"), primary_key=True)
    rank: Mapped[int]

    product: Mapped[Product] = relationship(back_populates="ingredient_links")
    ingredient: Mapped[Ingredient] = relationship(back_populates="product_links")


class Store(Base):
    """A point of sale. ``latitude`` and ``longitude`` (WGS 84 degrees, both or neither) place it on a map, so
    that a shopper's location can list the nearest stores first; ``None`` when unknown.

    The coordinates are loaded only where a store is shown (``STORE_COORDINATES``, the ``/stores`` answers):
    pricing, baskets and menus load a store for its price factor and never read them.
    """

    __tablename__ = "stores"
    __table_args__ = (
        CheckConstraint("price_factor > 0", name="price_factor_positive"),
        CheckConstraint("latitude IS NULL OR latitude BETWEEN -90 AND 90", name="latitude"),
        CheckConstraint("longitude IS NULL OR longitude BETWEEN -180 AND 180", name="longitude"),
        CheckConstraint("(latitude IS NULL) = (longitude IS NULL)", name="coordinates_paired"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(120))
    price_factor: Mapped[Decimal] = mapped_column(Numeric(6, 4), default=Decimal(1))
    latitude: Mapped[Decimal | None] = mapped_column(Coordinate, deferred=True, deferred_group=STORE_COORDINATES)
    longitude: Mapped[Decimal | None] = mapped_column(Coordinate, deferred=True, deferred_group=STORE_COORDINATES)
    # When the retailer closed the store (``flask --app coreapi close-store``, coreapi/services/store_closing.py):
    # the store lists leave it out and every request naming it is refused as for an unknown store; the baskets,
    # menus and orders that name it keep it. None: open. Deferred: the queries test it, none reads it.
    closed_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), deferred=True)


class StoreProduct(Base):
    """A product's shelf price, availability and promotion at one store."""

    __tablename__ = "store_products"
    __table_args__ = (CheckConstraint("price >= 0", name="price_positive"),)

    store_id: Mapped[int] = mapped_column(ForeignKey("stores.id", ondelete="CASCADE"), primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), primary_key=True, index=True)
    price: Mapped[Decimal | None] = mapped_column(Money)
    available: Mapped[bool] = mapped_column(default=True)
    promoted: Mapped[bool] = mapped_column(default=False)


class Recipe(Base):
    __tablename__ = "recipes"
    __table_args__ = (
        CheckConstraint(_one_of("type", RECIPE_TYPES), name="type"),
        CheckConstraint("difficulty BETWEEN 1 AND 3", name="difficulty"),
        CheckConstraint("guests >= 1", name="guests_positive"),
        CheckConstraint("preparation_time >= 0 AND cooking_time >= 0", name="times"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    external_id: Mapped[str] = mapped_column(String(120), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    title_en: Mapped[str | None] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    description_en: Mapped[str | None] = mapped_column(Text)
    type: Mapped[str] = mapped_column(String(16), index=True)
    difficulty: Mapped[int]
    preparation_time: Mapped[int]
    cooking_time: Mapped[int]
    guests: Mapped[int]
    # Lower-cased, accent-free titles and descriptions in both languages (see Product).
    search_text: Mapped[str] = mapped_column(Text, default="")
    # When the catalog stopped offering the recipe (``flask --app coreapi retire-recipe``,
    # coreapi/services/retirement.py): every list, suggestion, lookup and new write then takes it for an unknown
    # recipe; the orders that hold it keep it. None: offered. Deferred: the queries test it, none reads it.
    retired_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), deferred=True)

    categories: Mapped[list[Category]] = relationship(
        secondary="recipe_categories", order_by=lambda: RecipeCategory.position, viewonly=True
    )
    ingredients: Mapped[list[RecipeIngredient]] = relationship(
        order_by=lambda: RecipeIngredient.position, viewonly=True
    )
    steps: Mapped[list[RecipeStep]] = relationship(
        order_by=lambda: (RecipeStep.language, RecipeStep.position), viewonly=True
    )
    equipment: Mapped[list[Equipment]] = relationship(
        secondary="recipe_equipment", order_by=lambda: Equipment.position, viewonly=True
    )

    @property
    def total_time(self) -> int:
        return self.preparation_time + self.cooking_time


class RecipeIngredient(Base):
    """An ingredient of a recipe, its quantity in the ingredient's unit for ``Recipe.guests``."""

    __tablename__ = "recipe_ingredients"
    __table_args__ = (
        CheckConstraint("quantity > 0", name="quantity_positive"),
        # Exactly one primary ingredient per recipe (the one the completion filter checks).
        Index(
            "uq_recipe_ingredients_primary",
            "recipe_id",
            unique=True,
            sqlite_where=text("is_primary"),
            postgresql_where=text("is_primary"),
        ),
    )

    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id", ondelete="CASCADE"), primary_key=True)
    ingredient_id: Mapped[str] = mapped_column(ForeignKey("ingredients.id"), primary_key=True, index=True)
    position: Mapped[int]
    quantity: Mapped[Decimal] = mapped_column(Quantity)
    is_primary: Mapped[bool] = mapped_column(default=False)
    display_unit: Mapped[str | None] = mapped_column(String(32))

    ingredient: Mapped[Ingredient] = relationship(viewonly=True)


class RecipeStep(Base):
    __tablename__ = "recipe_steps"
    __table_args__ = (CheckConstraint(_one_of("language", LANGUAGES), name="language"),)

    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id", ondelete="CASCADE"), primary_key=True)
    language: Mapped[str] = mapped_column(String(2), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    text: Mapped[str] = mapped_column(Text)


class Supplier(Base):
    __tablename__ = "suppliers"
    __table_args__ = (CheckConstraint(_one_of("kind", SUPPLIER_KINDS), name="kind"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(200))
    token: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    personalization: Mapped[bool] = mapped_column(default=True)
    affiliated_supplier_id: Mapped[int | None] = mapped_column(ForeignKey("suppliers.id"))
    # Routing configuration per environment ("local", "production", ...).
    routing: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # Since when the deployment refuses the supplier's requests (coreapi/services/supplier_suspension.py); deferred:
    # the lookups of every request test it in SQL (catalog.supplier_active) and never read it.
    suspended_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), deferred=True)
    # The token a rotation replaced, accepted until ``previous_token_expires_at`` so that the supplier's servers can
    # change theirs meanwhile (coreapi/services/token_rotation.py); deferred like ``suspended_at``.
    previous_token: Mapped[str | None] = mapped_column(String(200), unique=True, deferred=True)
    previous_token_expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), deferred=True)


class InstanceSecret(Base):
    """A secret the deployment made for itself (migration 0017), which every node reads from the database:
    ``public-ids``, the key of the ids a shopper's answers show for baskets and menus
    (coreapi/services/public_ids.py)."""

    __tablename__ = "instance_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class Like(Base):
    """A connected user's favourite recipe, under the supplier the user belongs to.

    Retailer user ids are per supplier: the same id under two suppliers is two users.
    """

    __tablename__ = "likes"

    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(MAX_ID_LENGTH), primary_key=True)
    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


BASKET_STATUSES = ("open", "confirmed")
MAX_IDEMPOTENCY_KEY_LENGTH = 128
MAX_IDEMPOTENCY_PATH_LENGTH = 512
IDENTITY_KINDS = tuple(kind.value for kind in IdentityKind)


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Basket(Base):
    """A shopper's basket, priced at one store: ``open`` while shopping, then ``confirmed``.

    A basket belongs to an identity under the supplier it shops with, like a like: the same
    identity under two suppliers is two shoppers with two baskets. A shopper has at most one open
    basket; an order id confirms at most one basket per shopper.
    """

    __tablename__ = "baskets"
    __table_args__ = (
        CheckConstraint(_one_of("identity_kind", IDENTITY_KINDS), name="identity_kind"),
        CheckConstraint(_one_of("status", BASKET_STATUSES), name="status"),
        CheckConstraint("total IS NULL OR total >= 0", name="total_positive"),
        Index(
            "uq_baskets_open_identity",
            "supplier_id",
            "identity_kind",
            "identity_id",
            unique=True,
            sqlite_where=text("status = 'open'"),
            postgresql_where=text("status = 'open'"),
        ),
        # NULL order ids never collide: confirmations without an order id are not limited.
        # Also the index of the supplier's foreign key (it leads with supplier_id).
        UniqueConstraint("supplier_id", "identity_kind", "identity_id", "order_id", name="uq_baskets_order"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id", ondelete="CASCADE"))
    identity_kind: Mapped[str] = mapped_column(String(16))
    identity_id: Mapped[str] = mapped_column(String(MAX_ID_LENGTH))
    store_id: Mapped[int] = mapped_column(ForeignKey("stores.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="open")
    # Set on confirmation: the basket's total at the store (checked against what the retailer
    # says the user paid), and the retailer's order id.
    total: Mapped[Decimal | None] = mapped_column(Money)
    order_id: Mapped[str | None] = mapped_column(String(MAX_ID_LENGTH))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow, onupdate=_utcnow)
    confirmed_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))

    entries: Mapped[list[BasketEntry]] = relationship(
        back_populates="basket",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: BasketEntry.position,
    )
    awaited: Mapped[list[AwaitedProduct]] = relationship(
        back_populates="basket",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: [AwaitedProduct.recipe_id, AwaitedProduct.product_id],
    )
    shown: Mapped[list[ShownProduct]] = relationship(
        back_populates="basket",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: [ShownProduct.recipe_id, ShownProduct.product_id, ShownProduct.reporter],
    )


class AwaitedProduct(Base):
    """Packages of a product that the basket's writes for one of its recipes asked the retailer cart to add (their
    ``changes``) and no reconciled cart has shown yet, and when the last of them was asked: a reconcile leaves them
    to the cart a while (``coreapi.services.cart_waits``). Per recipe, so that a write of another recipe sharing
    the product (another tab's) neither takes them nor is taken for them."""

    __tablename__ = "basket_awaited_products"
    __table_args__ = (CheckConstraint("quantity > 0", name="quantity_positive"),)

    basket_id: Mapped[int] = mapped_column(ForeignKey("baskets.id", ondelete="CASCADE"), primary_key=True)
    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id", ondelete="CASCADE"), primary_key=True, index=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), primary_key=True, index=True)
    quantity: Mapped[int]
    asked_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))

    basket: Mapped[Basket] = relationship(back_populates="awaited")


class ShownProduct(Base):
    """Packages of a recipe's product whose wait (``AwaitedProduct``) a cart one browser reported ended, and when
    that browser's clock says it reported it: a cart the same browser reported before that one, reaching the service
    after it (two tabs' reconciles crossed on their way), leaves them to the cart as if they were still awaited
    (``coreapi.services.cart_waits``)."""

    __tablename__ = "basket_shown_products"
    __table_args__ = (CheckConstraint("quantity > 0", name="quantity_positive"),)

    basket_id: Mapped[int] = mapped_column(ForeignKey("baskets.id", ondelete="CASCADE"), primary_key=True)
    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id", ondelete="CASCADE"), primary_key=True, index=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), primary_key=True, index=True)
    # A digest of the browser's id and the basket's (``cart_waits.reporter_key``): the same browser's reports of
    # this basket compare, and nothing links two baskets a browser reported carts for.
    reporter: Mapped[str] = mapped_column(String(REPORTER_KEY_LENGTH), primary_key=True)
    quantity: Mapped[int]
    # Milliseconds since the epoch on the reporting browser's clock (compared only with that browser's own).
    reported_at: Mapped[float] = mapped_column(Float)
    # When the service followed that report: the packages are left to an older report for ``cart_waits.CROSSING``.
    shown_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))

    basket: Mapped[Basket] = relationship(back_populates="shown")


class BasketEntry(Base):
    """A recipe in a basket, for a number of guests; ``position`` grows with each addition."""

    __tablename__ = "basket_entries"
    __table_args__ = (
        CheckConstraint("guests >= 1", name="guests_positive"),
        UniqueConstraint("basket_id", "recipe_id", name="uq_basket_entries_recipe"),
        # The order of addition is strict: two writers that were not serialised would collide.
        UniqueConstraint("basket_id", "position", name="uq_basket_entries_position"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    basket_id: Mapped[int] = mapped_column(ForeignKey("baskets.id", ondelete="CASCADE"))
    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id"), index=True)
    guests: Mapped[int]
    position: Mapped[int]
    added_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow)

    basket: Mapped[Basket] = relationship(back_populates="entries")
    recipe: Mapped[Recipe] = relationship()
    lines: Mapped[list[BasketLine]] = relationship(
        back_populates="entry",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: BasketLine.ingredient_id,
    )


class BasketLine(Base):
    """The product a basket entry buys for one of its recipe's ingredients, in packages."""

    __tablename__ = "basket_lines"
    __table_args__ = (CheckConstraint("quantity > 0", name="quantity_positive"),)

    entry_id: Mapped[int] = mapped_column(ForeignKey("basket_entries.id", ondelete="CASCADE"), primary_key=True)
    ingredient_id: Mapped[str] = mapped_column(ForeignKey("ingredients.id"), primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id"), index=True)
    quantity: Mapped[int]

    entry: Mapped[BasketEntry] = relationship(back_populates="lines")
    product: Mapped[Product] = relationship()


# A transfer no redeem or newer transfer has ended yet (it may have expired): one per shopper at most.
_PENDING_TRANSFER = "redeemed_at IS NULL AND revoked_at IS NULL"


class BasketTransfer(Base):
    """A shopper's basket handed over to the supplier's affiliated retailer through a one-time token
    (``coreapi.services.transfers``).

    The source shopper is (``supplier_id``, identity), as for a basket; ``target_supplier_id`` the only
    supplier that may redeem it. Only the SHA-256 of the token is kept (``token_hash``, hex). A transfer
    can be redeemed until ``expires_at``, once (``redeemed_at``), unless the shopper's next transfer
    revoked it first (``revoked_at``): a shopper has at most one transfer neither redeemed nor revoked.
    """

    __tablename__ = "basket_transfers"
    __table_args__ = (
        CheckConstraint(_one_of("identity_kind", IDENTITY_KINDS), name="identity_kind"),
        CheckConstraint("redeemed_at IS NULL OR revoked_at IS NULL", name="redeemed_or_revoked"),
        # The index of the source supplier's foreign key, and of a shopper's transfers.
        Index("ix_basket_transfers_source", "supplier_id", "identity_kind", "identity_id"),
        Index(
            "uq_basket_transfers_pending",
            "supplier_id",
            "identity_kind",
            "identity_id",
            unique=True,
            sqlite_where=text(_PENDING_TRANSFER),
            postgresql_where=text(_PENDING_TRANSFER),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id", ondelete="CASCADE"))
    identity_kind: Mapped[str] = mapped_column(String(16))
    identity_id: Mapped[str] = mapped_column(String(MAX_ID_LENGTH))
    target_supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id", ondelete="CASCADE"), index=True)
    # The store the source basket was at when handed over.
    store_id: Mapped[int] = mapped_column(ForeignKey("stores.id"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    redeemed_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class Menu(Base):
    """A shopper's meal plan (the planner's current menu): recipes for a number of guests, priced at
    a point of sale when it has one, with a budget.

    A menu belongs to an identity under a supplier, like a basket: the same identity under two
    suppliers is two menus. A shopper has at most one menu; finalizing it moves its selected
    products into the basket and deletes it (``coreapi.services.menus``).
    """

    __tablename__ = "menus"
    __table_args__ = (
        CheckConstraint(_one_of("identity_kind", IDENTITY_KINDS), name="identity_kind"),
        CheckConstraint("guests >= 1", name="guests_positive"),
        CheckConstraint("budget IS NULL OR budget >= 0", name="budget_positive"),
        # One menu per shopper; also the index of the supplier's foreign key (it leads with it).
        UniqueConstraint("supplier_id", "identity_kind", "identity_id", name="uq_menus_owner"),
        # A finalized menu's id is never given to the next one (SQLite would reuse the highest).
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id", ondelete="CASCADE"))
    identity_kind: Mapped[str] = mapped_column(String(16))
    identity_id: Mapped[str] = mapped_column(String(MAX_ID_LENGTH))
    # The point of sale; None: no prices, no products, no budget.
    store_id: Mapped[int | None] = mapped_column(ForeignKey("stores.id"), index=True)
    guests: Mapped[int]
    budget: Mapped[Decimal | None] = mapped_column(Money)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow, onupdate=_utcnow)

    recipes: Mapped[list[MenuRecipe]] = relationship(
        back_populates="menu",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: (MenuRecipe.position, MenuRecipe.id),
    )


class MenuRecipe(Base):
    """A recipe of a menu, for its own number of guests; the menu lists them by ``position``."""

    __tablename__ = "menu_recipes"
    __table_args__ = (
        CheckConstraint("guests >= 1", name="guests_positive"),
        UniqueConstraint("menu_id", "recipe_id", name="uq_menu_recipes_recipe"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    menu_id: Mapped[int] = mapped_column(ForeignKey("menus.id", ondelete="CASCADE"))
    recipe_id: Mapped[int] = mapped_column(ForeignKey("recipes.id"), index=True)
    guests: Mapped[int]
    position: Mapped[int]

    menu: Mapped[Menu] = relationship(back_populates="recipes")
    choices: Mapped[list[MenuChoice]] = relationship(
        back_populates="menu_recipe",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: MenuChoice.ingredient_id,
    )


class MenuChoice(Base):
    """What the shopper changed of an ingredient's product in a menu recipe.

    Without a row, the ingredient's product is the one a basket line would get at the menu's store (its first
    available one, or the shopper's favorite: ``coreapi.services.pricing.choose``), and it is selected.
    ``product_id``: a candidate the shopper chose instead (used while it is available at the store);
    ``selected`` false: the product is left out of the total and of the basket.
    """

    __tablename__ = "menu_choices"

    menu_recipe_id: Mapped[int] = mapped_column(ForeignKey("menu_recipes.id", ondelete="CASCADE"), primary_key=True)
    ingredient_id: Mapped[str] = mapped_column(ForeignKey("ingredients.id"), primary_key=True)
    product_id: Mapped[int | None] = mapped_column(ForeignKey("products.id"), index=True)
    selected: Mapped[bool] = mapped_column(default=True)

    menu_recipe: Mapped[MenuRecipe] = relationship(back_populates="choices")


# The number of guests a shopper may prefer (preferences; prerender pre-fills its guest counts with it).
MIN_PREFERRED_GUESTS = 1
MAX_PREFERRED_GUESTS = 12


class Preferences(Base):
    """A shopper's preferences, kept for the supplier it shops with (``coreapi.services.preferences``).

    One row per shopper, (supplier, identity) like a basket or a menu. The lists hold catalog ids:
    ``diets`` categories whose ``diet`` is true, ``avoided_ingredients`` ingredients,
    ``missing_equipment`` equipment; applied to the recipe filters on request (``preferences=apply``).
    """

    __tablename__ = "preferences"
    __table_args__ = (
        CheckConstraint(_one_of("identity_kind", IDENTITY_KINDS), name="identity_kind"),
        CheckConstraint(
            f"guests IS NULL OR guests BETWEEN {MIN_PREFERRED_GUESTS} AND {MAX_PREFERRED_GUESTS}", name="guests"
        ),
    )

    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id", ondelete="CASCADE"), primary_key=True)
    identity_kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    identity_id: Mapped[str] = mapped_column(String(MAX_ID_LENGTH), primary_key=True)
    diets: Mapped[list[str]] = mapped_column(JSON, default=list)
    avoided_ingredients: Mapped[list[str]] = mapped_column(JSON, default=list)
    missing_equipment: Mapped[list[str]] = mapped_column(JSON, default=list)
    guests: Mapped[int | None]
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow, onupdate=_utcnow)


# At most this many favorite products per shopper (docs/upstream.md, "Favorite products").
MAX_FAVORITE_ITEMS = 500


class FavoriteItems(Base):
    """The products a shopper marked as favorites at its retailer (``coreapi.services.favorite_items``):
    wherever coreapi picks the product of an ingredient for that shopper, a favorite candidate comes first.

    One row per shopper, (supplier, identity) like a basket or preferences: ``product_ids`` holds the
    products' keys in the order the shopper's list gave them, without duplicates, each a product of the
    catalog when it was stored. A write replaces the whole list (the last one wins, whole).
    """

    __tablename__ = "favorite_items"
    __table_args__ = (CheckConstraint(_one_of("identity_kind", IDENTITY_KINDS), name="identity_kind"),)

    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id", ondelete="CASCADE"), primary_key=True)
    identity_kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    identity_id: Mapped[str] = mapped_column(String(MAX_ID_LENGTH), primary_key=True)
    product_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow, onupdate=_utcnow)


class IdempotencyKey(Base):
    """The outcome of a basket, menu or preferences write sent with an ``Idempotency-Key``, kept so that a
    retry of it answers the same without applying it again (``coreapi.services.idempotency``).

    Keys belong to a shopper (supplier and identity, like baskets and menus). ``fingerprint`` is the
    SHA-256 of the request (method, path, query, body) the key was first used for. A row is only
    ever committed with its outcome, in the transaction of its write.
    """

    __tablename__ = "idempotency_keys"
    __table_args__ = (
        CheckConstraint(_one_of("identity_kind", IDENTITY_KINDS), name="identity_kind"),
        CheckConstraint("status BETWEEN 100 AND 599", name="status"),
    )

    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id", ondelete="CASCADE"), primary_key=True)
    identity_kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    identity_id: Mapped[str] = mapped_column(String(MAX_ID_LENGTH), primary_key=True)
    key: Mapped[str] = mapped_column(String(MAX_IDEMPOTENCY_KEY_LENGTH), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    # What the key was first used for, for the 422 of a reuse ("POST /api/v1/basket/recipes").
    method: Mapped[str] = mapped_column(String(16))
    path: Mapped[str] = mapped_column(String(MAX_IDEMPOTENCY_PATH_LENGTH))
    status: Mapped[int]
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow, index=True)


MAX_EVENT_ID_LENGTH = 64


class Event(Base):
    """An analytics event sent by a browser, with the session, supplier and identity of its call."""

    __tablename__ = "events"
    __table_args__ = (
        CheckConstraint(
            "identity_kind IS NULL OR " + _one_of("identity_kind", IDENTITY_KINDS),
            name="identity_kind",
        ),
        Index("ix_events_session_timestamp", "session_id", "timestamp", "id"),
        # The retention's nightly delete of the events stored before a time (coreapi/services/retention.py).
        Index("ix_events_received_at", "received_at"),
        # A browser's id for the event, unique per supplier: a batch sent again (a retry after a timeout whose
        # first attempt was stored) adds nothing. Events without one (older SDKs) are never compared (NULL).
        UniqueConstraint("supplier_id", "event_id", name="uq_events_supplier_event"),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True)
    event_id: Mapped[str | None] = mapped_column(String(MAX_EVENT_ID_LENGTH))
    name: Mapped[str] = mapped_column(String(64))
    path: Mapped[str | None] = mapped_column(String(512))
    props: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # When it happened (the browser's clock), and when coreapi stored it.
    timestamp: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    received_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_utcnow)
    session_id: Mapped[str | None] = mapped_column(String(MAX_ID_LENGTH))
    supplier_id: Mapped[int | None] = mapped_column(ForeignKey("suppliers.id", ondelete="SET NULL"), index=True)
    identity_kind: Mapped[str | None] = mapped_column(String(16))
    identity_id: Mapped[str | None] = mapped_column(String(MAX_ID_LENGTH))
