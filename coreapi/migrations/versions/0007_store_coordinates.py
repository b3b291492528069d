"""Stores' coordinates.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-16

Written by hand after the model (``coreapi.models.Store``), then checked on SQLite and PostgreSQL against it
(the tests of ``tests/coreapi/test_migrations.py``): every name is spelled out (the naming convention of
``coreapi.extensions``), the CHECK constraints are the model's. SQLite adds CHECK constraints by copying the
table (batch mode, foreign keys off: ``coreapi.migrate``); the stores keep their rows and keys.

**Upgrade.** Two nullable columns, ``stores.latitude`` and ``stores.longitude`` (WGS 84 degrees,
``NUMERIC(9, 6)``), checked to lie within -90..90 and -180..180 and to be both set or both unknown. So that a
shopper's location (the browser SDK's ``user.setLocation``) lists the nearest stores first.

**Data.** The demo stores get the coordinates of the place their name says, as ``seed/data/stores.json`` has
them at this revision (frozen below, not read from the file: a later change of the seed is a later revision's).
A store is matched by its id **and** its name: a store of the same id that is not the demo one (an operator's
own catalog) is left unknown. A database without those stores gets nothing; ``init-db`` seeds them with
their coordinates.

**Downgrade.** The constraints and the two columns are dropped, the coordinates with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COORDINATE = sa.Numeric(precision=9, scale=6)  # coreapi.models.Coordinate

# The demo stores' coordinates at this revision: (id, name, latitude, longitude).
STORES = [
    (1001, "Demo Market Paris Bastille", Decimal("48.8533"), Decimal("2.3692")),  # Place de la Bastille, Paris
    (1002, "Demo Market Lyon Part-Dieu", Decimal("45.7606"), Decimal("4.8594")),  # La Part-Dieu, Lyon
]


def upgrade() -> None:
    """Add ``stores.latitude`` and ``stores.longitude`` with their checks; place the demo stores (see the
    module's doc)."""
    with op.batch_alter_table("stores") as batch:
        batch.add_column(sa.Column("latitude", COORDINATE, nullable=True))
        batch.add_column(sa.Column("longitude", COORDINATE, nullable=True))
        batch.create_check_constraint(op.f("ck_stores_latitude"), "latitude IS NULL OR latitude BETWEEN -90 AND 90")
        batch.create_check_constraint(
            op.f("ck_stores_longitude"), "longitude IS NULL OR longitude BETWEEN -180 AND 180"
        )
        batch.create_check_constraint(op.f("ck_stores_coordinates_paired"), "(latitude IS NULL) = (longitude IS NULL)")

    place = sa.text(
        "UPDATE stores SET latitude = :latitude, longitude = :longitude WHERE id = :id AND name = :name"
    ).bindparams(sa.bindparam("latitude", type_=COORDINATE), sa.bindparam("longitude", type_=COORDINATE))
    connection = op.get_bind()
    for store_id, name, latitude, longitude in STORES:
        connection.execute(place, {"id": store_id, "name": name, "latitude": latitude, "longitude": longitude})


def downgrade() -> None:
    """Drop the coordinates (see the module's doc)."""
    with op.batch_alter_table("stores") as batch:
        batch.drop_constraint(op.f("ck_stores_coordinates_paired"), type_="check")
        batch.drop_constraint(op.f("ck_stores_longitude"), type_="check")
        batch.drop_constraint(op.f("ck_stores_latitude"), type_="check")
        batch.drop_column("longitude")
        batch.drop_column("latitude")
