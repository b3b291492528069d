"""Shoppers' preferences, kitchen equipment, diets among the categories.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02

Written by hand after the models, then checked on SQLite and PostgreSQL against them (the tests of
``tests/coreapi/test_migrations.py``): every name is spelled out (the naming convention of
``coreapi.extensions``), the CHECK constraints are the models'.

**Upgrade.** One new column and three new tables:

- ``categories.diet`` (NOT NULL, default false): the categories a shopper can require as a diet;
- ``equipment``: kitchen equipment (an oven, a blender...), ordered and localised like categories;
- ``recipe_equipment``: the equipment each recipe needs (``ix_recipe_equipment_equipment_id`` indexes
  the equipment's foreign key);
- ``preferences``: one row per shopper, (supplier, identity) like a basket or a menu: the diets
  required, the ingredients avoided, the equipment missing (JSON lists of catalog ids) and the guests
  preferred (nullable, 1 to 12).

**Data.** A database that already holds the demo catalog (seeded by ``init-db`` before this
revision) gets what ``init-db`` now seeds with it: the equipment of ``seed/data/equipment.json``, the
recipes' equipment (matched by ``external_id``: a recipe this catalog does not have gets none) and the
diet flags of ``vegetarien`` and ``sans-gluten``, all as the seed data had them when this revision was
written (frozen below, not read from the files: a later change of the seed is a later revision's). A
database without a catalog gets nothing: ``init-db`` seeds it all.

**Downgrade.** The three tables and the column are dropped, the shoppers' preferences with them.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IDENTITY_ID = sa.String(length=200)  # coreapi.services.identity.MAX_ID_LENGTH
IDENTITY_KINDS = "('user_id', 'authless_id')"

# The demo catalog's equipment, diets and recipes' equipment (by external id) at this revision.
EQUIPMENT = [
    {"id": "four", "name": "Four", "name_en": "Oven", "position": 0},
    {"id": "mixeur", "name": "Mixeur", "name_en": "Blender", "position": 1},
    {"id": "cocotte", "name": "Cocotte en fonte", "name_en": "Casserole dish", "position": 2},
]
DIETS = ["vegetarien", "sans-gluten"]
RECIPES_NEEDING = {
    "four": [
        "pub-quiche-lorraine",
        "pub-gratin-dauphinois",
        "pub-croque-monsieur",
        "pub-soupe-a-l-oignon-gratinee",
        "pub-salade-chevre-chaud",
        "pub-tarte-fine-tomates",
        "pub-hachis-parmentier",
        "pub-buddha-bowl",
        "pub-poulet-roti",
        "pub-tartiflette",
        "pub-lasagnes-bolognaise",
        "pub-papillote-cabillaud",
        "pub-gratin-coquillettes",
        "pub-tarte-tatin",
        "pub-clafoutis-aux-cerises",
        "pub-creme-brulee",
        "pub-fondant-au-chocolat",
        "pub-far-breton",
        "pub-gateau-au-yaourt",
        "pub-tarte-citron-meringuee",
    ],
    "mixeur": [
        "pub-veloute-de-potiron",
        "pub-gaspacho",
        "pub-houmous",
        "pub-veloute-poireaux",
        "pub-smoothie-banane-fraise",
        "pub-smoothie-vert",
    ],
    "cocotte": [
        "pub-veloute-de-potiron",
        "pub-ratatouille-provencale",
        "pub-blanquette-de-veau",
        "pub-veloute-poireaux",
        "pub-buf-bourguignon",
        "pub-poulet-basquaise",
        "pub-chili-con-carne",
        "pub-navarin-agneau",
    ],
}


def upgrade() -> None:
    """Add ``categories.diet``, ``equipment``, ``recipe_equipment`` and ``preferences``; fill the
    catalog's part when the database holds a catalog (see the module's doc)."""
    op.add_column("categories", sa.Column("diet", sa.Boolean(), server_default=sa.false(), nullable=False))

    equipment = op.create_table(
        "equipment",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("name_en", sa.String(length=120), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_equipment")),
    )

    op.create_table(
        "recipe_equipment",
        sa.Column("recipe_id", sa.Integer(), nullable=False),
        sa.Column("equipment_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["equipment_id"], ["equipment.id"], name=op.f("fk_recipe_equipment_equipment_id_equipment")
        ),
        sa.ForeignKeyConstraint(
            ["recipe_id"], ["recipes.id"], name=op.f("fk_recipe_equipment_recipe_id_recipes"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("recipe_id", "equipment_id", name=op.f("pk_recipe_equipment")),
    )
    op.create_index(op.f("ix_recipe_equipment_equipment_id"), "recipe_equipment", ["equipment_id"])

    op.create_table(
        "preferences",
        sa.Column("supplier_id", sa.Integer(), nullable=False),
        sa.Column("identity_kind", sa.String(length=16), nullable=False),
        sa.Column("identity_id", IDENTITY_ID, nullable=False),
        sa.Column("diets", sa.JSON(), nullable=False),
        sa.Column("avoided_ingredients", sa.JSON(), nullable=False),
        sa.Column("missing_equipment", sa.JSON(), nullable=False),
        sa.Column("guests", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(f"identity_kind IN {IDENTITY_KINDS}", name=op.f("ck_preferences_identity_kind")),
        sa.CheckConstraint("guests IS NULL OR guests BETWEEN 1 AND 12", name=op.f("ck_preferences_guests")),
        sa.ForeignKeyConstraint(
            ["supplier_id"], ["suppliers.id"], name=op.f("fk_preferences_supplier_id_suppliers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("supplier_id", "identity_kind", "identity_id", name=op.f("pk_preferences")),
    )

    connection = op.get_bind()
    if connection.scalar(sa.text("SELECT id FROM recipes LIMIT 1")) is None:
        return  # no catalog yet: init-db seeds it, equipment included
    op.bulk_insert(equipment, EQUIPMENT)
    for equipment_id, external_ids in RECIPES_NEEDING.items():
        connection.execute(
            sa.text(
                "INSERT INTO recipe_equipment (recipe_id, equipment_id) "
                "SELECT id, :equipment FROM recipes WHERE external_id IN :external_ids"
            ).bindparams(sa.bindparam("external_ids", expanding=True)),
            {"equipment": equipment_id, "external_ids": external_ids},
        )
    connection.execute(
        sa.text("UPDATE categories SET diet = :diet WHERE id IN :ids").bindparams(
            sa.bindparam("ids", expanding=True), sa.bindparam("diet", type_=sa.Boolean())
        ),
        {"diet": True, "ids": DIETS},
    )


def downgrade() -> None:
    """Drop the preferences, the equipment and the diet flags (see the module's doc)."""
    op.drop_table("preferences")
    op.drop_index(op.f("ix_recipe_equipment_equipment_id"), table_name="recipe_equipment")
    op.drop_table("recipe_equipment")
    op.drop_table("equipment")
    with op.batch_alter_table("categories") as batch:
        batch.drop_column("diet")
