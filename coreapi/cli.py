"""Command-line commands: ``flask --app coreapi init-db [--reset]``, ``db-upgrade``,
``db-downgrade``, ``db-revision``, ``set-personalization``, ``set-site-urls``, ``retire-recipe [--restore]``,
``close-store [--reopen]``, ``add-supplier``, ``suspend-supplier [--resume]``, ``rotate-token``,
``export-shopper``, ``forget-shopper``, ``prune``."""

from __future__ import annotations

import copy
import datetime as dt
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import click
from alembic.util import CommandError
from flask import Flask, current_app
from flask.cli import with_appcontext
from marshmallow import ValidationError
from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from coreapi import migrate
from coreapi.extensions import db
from coreapi.models import Supplier
from coreapi.schemas.fields import PUBLIC_ID_KEY
from coreapi.schemas.supplier_definition import SupplierDefinitionSchema, is_site_url
from coreapi.seed import is_seeded, load_catalog
from coreapi.services import (
    idempotency,
    preferences,
    retention,
    retirement,
    shopper_data,
    store_closing,
    supplier_onboarding,
    supplier_suspension,
    supplier_tokens,
    token_rotation,
)
from coreapi.services.baskets import BasketOwner
from coreapi.services.catalog import UnknownSupplier, get_supplier
from coreapi.services.identity import MAX_ID_LENGTH, IdentityKind, parse_authorization


@click.command("init-db")
@click.option("--reset", is_flag=True, help="Drop every table first (alembic_version too), then seed again.")
@with_appcontext
def init_db_command(reset: bool) -> None:
    """Migrate the database to the newest revision and seed the demo catalog if it is empty."""
    with migrate.schema_connection(db.engine) as connection:
        if reset:
            dropped = migrate.drop_everything(connection)
            click.echo(f"Dropped every table ({len(dropped)}).")
        _upgrade(connection, "head")
        with Session(bind=connection) as session:
            if is_seeded(session):
                click.echo("The database already holds the catalog; nothing to do (--reset to reseed).")
                return
            started = time.perf_counter()
            counts = load_catalog(session, Path(current_app.config["SEED_DATA_DIR"]))
            session.commit()
    summary = ", ".join(f"{count} {table}" for table, count in counts.items())
    click.echo(f"Seeded the catalog in {time.perf_counter() - started:.2f}s: {summary}.")


@click.command("db-upgrade")
@click.argument("revision", default="head")
@with_appcontext
def db_upgrade_command(revision: str) -> None:
    """Migrate the database's schema to REVISION (default: the newest), seeding nothing."""
    with migrate.schema_connection(db.engine) as connection:
        _upgrade(connection, revision)


@click.command("db-downgrade")
@click.argument("revision")
@click.option("--yes", is_flag=True, help="Do not ask before downgrading (a script, a deploy tool).")
@with_appcontext
def db_downgrade_command(revision: str, yes: bool) -> None:
    """Migrate the database's schema back to REVISION, older than its own, for a rollback to the release that
    REVISION is the newest revision of (docs/operations.md, "Rolling back a release"). What each revision's
    downgrade drops is in its script's "Downgrade" paragraph (coreapi/migrations/versions/)."""
    if not yes:
        click.confirm(
            f"Downgrade the database to revision {revision}? What the newer revisions added is dropped", abort=True
        )
    with migrate.schema_connection(db.engine) as connection:
        try:
            result = migrate.downgrade(connection, revision)
        except CommandError as error:  # an unknown revision, or one not older than the database's
            raise click.ClickException(f"{error}. Nothing was changed.") from error
    if result.before == result.after:
        click.echo(f"The database is at revision {result.after}.")
    else:
        click.echo(f"Migrated the database back from {result.before} to {result.after or 'empty'}.")


@click.command("db-revision")
@click.option("-m", "--message", required=True, help="What the revision changes, in a few words.")
@click.option("--empty", is_flag=True, help="An empty script to write by hand (no autogenerate).")
@with_appcontext
def db_revision_command(message: str, empty: bool) -> None:
    """Write a new migration from the models' differences with the (up to date) database."""
    try:
        with migrate.schema_connection(db.engine) as connection:
            script = migrate.new_revision(connection, message, autogenerate=not empty)
    except CommandError as error:  # e.g. the database is not at the newest revision
        raise click.ClickException(f"{error} (run `flask --app coreapi db-upgrade` first?)") from error
    if script is None:
        click.echo("The models and the database agree: no revision written.")
        return
    click.echo(f"Wrote {script.path}; review it (CHECK constraints are not compared) and test it.")


@click.command("set-personalization")
@click.argument("supplier_id")
@click.argument("state", type=click.Choice(["on", "off"]))
@with_appcontext
def set_personalization_command(supplier_id: str, state: str) -> None:
    """Turn a supplier's personalization on or off; off also deletes every preference its shoppers
    stored (in the same transaction)."""
    session = db.session()
    try:
        supplier = get_supplier(session, supplier_id)
    except UnknownSupplier as error:
        raise click.ClickException(str(error)) from error
    deleted = preferences.set_personalization(session, supplier, state == "on")
    session.commit()
    message = f"Personalization is {state} for supplier {supplier.id} ({supplier.name})"
    click.echo(f"{message}; deleted the preferences of {deleted} shopper(s)." if state == "off" else f"{message}.")


def _site_url(_context: click.Context, _parameter: click.Parameter, value: str | None) -> str | None:
    """An absolute http(s) URL without query or fragment, its trailing slash dropped (a routing base URL)."""
    if value is None:
        return None
    if not is_site_url(value):
        raise click.BadParameter(f"{value!r} is not an absolute http(s) URL without query or fragment.")
    return value.rstrip("/")


@click.command("set-site-urls")
@click.option(
    "--retailer-url", callback=_site_url, help="The retailers' site (the demo shop), e.g. http://127.0.0.1:8080."
)
@click.option(
    "--publisher-url", callback=_site_url, help="The publishers' site (the demo blog), e.g. http://127.0.0.1:8090."
)
@click.option("--environment", default="local", show_default=True, help="The routing environment to change.")
@click.option(
    "--supplier-id",
    "supplier_ids",
    multiple=True,
    help="Only this supplier (repeat for several); without it, every supplier of the database.",
)
@with_appcontext
def set_site_urls_command(
    retailer_url: str | None, publisher_url: str | None, environment: str, supplier_ids: tuple[str, ...]
) -> None:
    """Point the routing of an environment at the sites where the suppliers are served: the base URL of every
    retailer's routing becomes RETAILER_URL, every publisher's PUBLISHER_URL; with --supplier-id, of those
    suppliers only (a deployment serving several retailers, each at its own site). Suppliers without a routing
    for the environment are left alone; the paths of the routing are kept."""
    if retailer_url is None and publisher_url is None:
        raise click.UsageError("Give --retailer-url, --publisher-url or both.")
    urls = {"retailer": retailer_url, "publisher": publisher_url}
    session = db.session()
    chosen = select(Supplier).order_by(Supplier.id)
    if supplier_ids:
        unknown = sorted(set(supplier_ids) - {str(found) for found in session.scalars(select(Supplier.id))})
        if unknown:
            raise click.ClickException(f"No supplier {', '.join(map(repr, unknown))}; nothing was changed.")
        chosen = chosen.where(Supplier.id.in_([int(supplier_id) for supplier_id in supplier_ids]))
    changed = 0
    for supplier in session.scalars(chosen):
        url = urls.get(supplier.kind)
        routing = supplier.routing.get(environment) if isinstance(supplier.routing, dict) else None
        if url is None or not isinstance(routing, dict) or routing.get("baseUrl") == url:
            continue
        # A new value for the JSON column: SQLAlchemy does not see changes made inside the one it loaded.
        updated = copy.deepcopy(supplier.routing)
        updated[environment]["baseUrl"] = url
        supplier.routing = updated
        changed += 1
        click.echo(f"Supplier {supplier.id} ({supplier.name}): {environment} routing at {url}.")
    session.commit()
    if not changed:
        click.echo(f"The {environment} routing already names these sites; nothing to do.")


@click.command("retire-recipe")
@click.argument("recipe_id")
@click.option(
    "--restore", is_flag=True, help="Offer a retired recipe again (the baskets and menus it left do not get it back)."
)
@with_appcontext
def retire_recipe_command(recipe_id: str, restore: bool) -> None:
    """Stop offering RECIPE_ID: every list, suggestion and lookup leaves it out, and it leaves the open baskets
    and the menus (in the same transaction); the orders that hold it keep it. Again on a retired recipe: the
    baskets and menus are swept again."""
    session = db.session()
    try:
        if restore:
            restored = retirement.restore_recipe(session, recipe_id)
            session.commit()
            click.echo(
                f"Recipe {recipe_id} is offered again."
                if restored
                else f"Recipe {recipe_id} was not retired; nothing to do."
            )
            return
        done = retirement.retire_recipe(session, recipe_id, now=dt.datetime.now(dt.UTC))
        session.commit()
    except retirement.UnknownRecipe as error:
        session.rollback()
        raise click.ClickException(str(error)) from error
    click.echo(
        f"Recipe {done.recipe_id} ({done.title}) retired since {done.retired_at.isoformat(timespec='seconds')}: "
        f"taken out of {done.baskets} open basket(s) and {done.menus} menu(s); the orders that hold it keep it."
    )


@click.command("close-store")
@click.argument("store_id")
@click.option("--reopen", is_flag=True, help="Open a closed store again.")
@with_appcontext
def close_store_command(store_id: str, reopen: bool) -> None:
    """Close STORE_ID: the store lists leave it out and every request naming it is refused as for an unknown store;
    the open baskets and menus at it move to their shopper's next store, the orders keep it."""
    session = db.session()
    try:
        if reopen:
            reopened = store_closing.reopen_store(session, store_id)
            session.commit()
            click.echo(f"Store {store_id} is open again." if reopened else f"Store {store_id} was open; nothing to do.")
            return
        done = store_closing.close_store(session, store_id, now=dt.datetime.now(dt.UTC))
        session.commit()
    except store_closing.UnknownStore as error:
        session.rollback()
        raise click.ClickException(str(error)) from error
    click.echo(
        f"Store {done.store_id} ({done.name}) closed since {done.closed_at.isoformat(timespec='seconds')}: "
        f"{done.baskets} open basket(s) and {done.menus} menu(s) are still at it and move to their shopper's next "
        "store; the orders keep it."
    )


@click.command("suspend-supplier")
@click.argument("supplier_id")
@click.option("--resume", is_flag=True, help="Serve a suspended supplier again, with everything as it was.")
@with_appcontext
def suspend_supplier_command(supplier_id: str, resume: bool) -> None:
    """Suspend SUPPLIER_ID: every request naming it, by its token or by its id, is refused as for an unknown
    supplier; nothing of it or its shoppers is deleted (docs/operations.md, "Suspending a supplier")."""
    session = db.session()
    try:
        if resume:
            resumed = supplier_suspension.resume_supplier(session, supplier_id)
            session.commit()
            click.echo(
                f"Supplier {supplier_id} is served again."
                if resumed
                else f"Supplier {supplier_id} was not suspended; nothing to do."
            )
            return
        done = supplier_suspension.suspend_supplier(session, supplier_id, now=dt.datetime.now(dt.UTC))
        session.commit()
    except UnknownSupplier as error:
        session.rollback()
        raise click.ClickException(str(error)) from error
    click.echo(
        f"Supplier {done.supplier_id} ({done.name}) suspended since {done.suspended_at.isoformat(timespec='seconds')}: "
        "its requests are refused as an unknown supplier's; prerender forgets it within its supplier cache's time."
    )


@click.command("add-supplier")
@click.argument("definition", type=click.File("r", encoding="utf-8"))
@click.option("--token", "token", default=None, help="Its token (default: 256 random bits, made here).")
@with_appcontext
def add_supplier_command(definition: TextIO, token: str | None) -> None:
    """Add the supplier DEFINITION describes (a JSON file, '-' for the standard input: a row of the seed's
    suppliers.json without its token) and print its token (docs/operations.md, "Adding a supplier")."""
    try:
        document = json.load(definition)
    except ValueError as error:  # not JSON, or not UTF-8
        raise click.ClickException(f"The definition is not JSON: {error}") from error
    try:
        described = SupplierDefinitionSchema().load(document)
    except ValidationError as error:
        raise click.ClickException(
            f"The definition is refused: {json.dumps(error.messages, sort_keys=True)}"
        ) from error
    session = db.session()
    try:
        done = supplier_onboarding.add_supplier(session, described, token=token)
        session.commit()
    except (supplier_onboarding.RefusedSupplier, supplier_tokens.RefusedToken) as error:
        session.rollback()
        raise click.ClickException(str(error)) from error
    except IntegrityError as error:  # the same id or token, added meanwhile by another run
        session.rollback()
        raise click.ClickException(f"Supplier {described['id']} or its token exists already.") from error
    click.echo(f"Supplier {done.supplier_id} ({done.name}), a {done.kind}, added: its token below.")
    click.echo(done.token)


@click.command("rotate-token")
@click.argument("supplier_id")
@click.option(
    "--overlap-hours",
    type=click.FloatRange(0, token_rotation.MAX_OVERLAP.total_seconds() / 3600),
    default=token_rotation.DEFAULT_OVERLAP.total_seconds() / 3600,
    show_default=True,
    help="How long the replaced token is still accepted, while the supplier's servers change theirs; 0 for a "
    "leaked token.",
)
@click.option("--token", "token", default=None, help="The new token (default: 256 random bits, made here).")
@with_appcontext
def rotate_token_command(supplier_id: str, overlap_hours: float, token: str | None) -> None:
    """Give SUPPLIER_ID a new token and print it; the one it replaces is accepted for the overlap
    (docs/operations.md, "Rotating a supplier's token")."""
    session = db.session()
    try:
        done = token_rotation.rotate_token(
            session,
            supplier_id,
            now=dt.datetime.now(dt.UTC),
            overlap=dt.timedelta(hours=overlap_hours),
            token=token,
        )
        session.commit()
    except (UnknownSupplier, supplier_tokens.RefusedToken) as error:
        session.rollback()
        raise click.ClickException(str(error)) from error
    if done.cut_short:
        click.echo("The token replaced by the rotation before is no longer accepted: its overlap ended now.", err=True)
    replaced = (
        f"the token it replaces is accepted until {done.previous_accepted_until.isoformat(timespec='seconds')}"
        if done.previous_accepted_until is not None
        else "the token it replaces is no longer accepted"
    )
    click.echo(f"Supplier {done.supplier_id} ({done.name}): new token below; {replaced}.")
    click.echo(done.token)


def _shopper(supplier_id: str, user_id: str | None, authless_id: str | None) -> tuple[Supplier, BasketOwner]:
    """The shopper a command names: ``--supplier-id`` and exactly one of ``--user-id`` and ``--authless-id``, an id
    a request could carry (``parse_authorization``: no other id is stored)."""
    if (user_id is None) == (authless_id is None):
        raise click.UsageError("Give either --user-id or --authless-id (one of them).")
    kind = IdentityKind.USER if user_id is not None else IdentityKind.AUTHLESS
    try:
        identity = parse_authorization(f"{kind.value} {user_id if user_id is not None else authless_id}")
    except ValueError as error:
        raise click.BadParameter(
            f"an id is 1 to {MAX_ID_LENGTH} characters without spaces.", param_hint=f"--{kind.value.replace('_', '-')}"
        ) from error
    try:
        return shopper_data.find_shopper(db.session(), supplier_id, identity)
    except UnknownSupplier as error:
        raise click.ClickException(str(error)) from error


_SHOPPER_OPTIONS = (
    click.option("--supplier-id", required=True, help="The supplier the shopper shops with (its id)."),
    click.option("--user-id", help="The connected user's id, as the supplier gives it (Authorization: user_id)."),
    click.option("--authless-id", help="The logged-out visitor's id (Authorization: authless_id)."),
)


def _shopper_options(command: Callable[..., None]) -> Callable[..., None]:
    """``--supplier-id`` and one of ``--user-id`` and ``--authless-id``: a shopper (coreapi/services/identity.py)."""
    for option in reversed(_SHOPPER_OPTIONS):
        command = option(command)
    return command


@click.command("export-shopper")
@_shopper_options
@with_appcontext
def export_shopper_command(supplier_id: str, user_id: str | None, authless_id: str | None) -> None:
    """Print, as one JSON document, everything coreapi holds of a shopper at a supplier (the right of access): likes,
    baskets and orders with their recipes and products, menus, preferences, favorite products, the basket
    transfers it made, the analytics events stored with its identity, and how many idempotency outcomes are kept
    and until when (coreapi/services/shopper_data.py says which tables). A shopper coreapi holds nothing of is a
    document of empty lists."""
    session = db.session()
    if session.get_bind().dialect.name == "postgresql":
        # One snapshot for the whole document: the shopper's pages may write while it is read.
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
    _, owner = _shopper(supplier_id, user_id, authless_id)
    retention_seconds = float(current_app.config["IDEMPOTENCY_RETENTION_SECONDS"])
    document = shopper_data.export(
        session,
        owner,
        idempotency_retention=dt.timedelta(seconds=retention_seconds),
        public_id_key=current_app.extensions[PUBLIC_ID_KEY].get(session),
    )
    session.rollback()  # read only
    click.echo(json.dumps(document, indent=2, ensure_ascii=False))


@click.command("forget-shopper")
@_shopper_options
@with_appcontext
def forget_shopper_command(supplier_id: str, user_id: str | None, authless_id: str | None) -> None:
    """Delete everything coreapi holds of a shopper at a supplier (the right to erasure), in one transaction, and
    print how many rows of each kind went. Its orders (confirmed baskets) are kept, unlinked: an order is a record
    the retailer's accounts must keep, which the right to erasure gives way to (GDPR article 17(3)(b)), so it keeps
    its order id, store, total and products and loses the shopper's identity (no history shows it again); the
    retailer's own records tie the order id to its buyer. Again on a forgotten shopper: nothing to do. The same id
    at another supplier, or of the other kind, is another shopper and is left alone. Run it once the retailer has
    closed the shopper's account: a request in the shopper's name afterwards starts anew."""
    supplier, owner = _shopper(supplier_id, user_id, authless_id)
    session = db.session()
    try:
        done = shopper_data.forget(session, owner)
        session.commit()
    except Exception:
        session.rollback()  # all or nothing: a failed step leaves every row as it was
        raise
    where = f"supplier {supplier.id} ({supplier.name})"
    if done.nothing:
        click.echo(f"Nothing of this shopper at {where}; nothing to do.")
        return
    click.echo(f"Forgot the shopper at {where}:")
    for kind, count in done.deleted.items():
        if count:
            click.echo(f"  {kind}: {count} deleted")
    if done.orders_unlinked:
        click.echo(f"  orders: {done.orders_unlinked} kept for the retailer's accounts, without the shopper")


@click.command("prune")
@with_appcontext
def prune_command() -> None:
    """Delete what is kept past its time (coreapi/services/retention.py): the analytics events stored more than
    COREAPI_EVENT_RETENTION_DAYS ago (395: 13 months), and the logged-out visitors' baskets and menus that hold no
    recipe and were not written for COREAPI_IDLE_AUTHLESS_RETENTION_DAYS (90), the basket transfers expired that
    long ago, and the idempotency outcomes past COREAPI_IDEMPOTENCY_RETENTION_SECONDS (which the writes also prune).
    Run it daily (docs/operations.md)."""
    config = current_app.config
    now = dt.datetime.now(dt.UTC)
    session = db.session()
    done = retention.prune(
        session,
        events_before=now - dt.timedelta(days=float(config["EVENT_RETENTION_DAYS"])),
        idle_before=now - dt.timedelta(days=float(config["IDLE_AUTHLESS_RETENTION_DAYS"])),
    )
    session.commit()
    # The writes prune their outcomes now and then; a database no write reaches any more is pruned here.
    outcomes = idempotency.prune(session, now - dt.timedelta(seconds=float(config["IDEMPOTENCY_RETENTION_SECONDS"])))
    click.echo(
        f"Pruned {done.events} event(s) older than {config['EVENT_RETENTION_DAYS']} days, and {done.idle_baskets} "
        f"empty basket(s) and {done.idle_menus} empty menu(s) of logged-out visitors untouched for "
        f"{config['IDLE_AUTHLESS_RETENTION_DAYS']} days; {done.old_transfers} basket transfer(s) expired that long "
        f"ago; {outcomes} idempotency outcome(s) past their retention."
    )


def _upgrade(connection: Connection, revision: str) -> None:
    """Upgrade, saying what happened; what Alembic or the legacy check refuse is an error."""
    try:
        result = migrate.upgrade(connection, revision)
    except (migrate.SchemaMismatch, migrate.UpgradeLeftDifferences, migrate.NotAnUpgrade) as error:
        raise click.ClickException(str(error)) from error
    except CommandError as error:  # e.g. a revision these scripts do not know
        raise click.ClickException(
            f"{error}. Nothing was changed. A database a newer release of coreapi migrated is run by that "
            'release (docs/operations.md, "A new release"); `flask --app coreapi init-db --reset` drops every '
            "table, for a development database only."
        ) from error
    if result.adopted:
        click.echo(
            "The tables predate migrations (no alembic_version) and match the models: "
            f"stamped as revision {result.after} without changing them."
        )
    elif result.before != result.after:
        click.echo(f"Migrated the database from {result.before or 'empty'} to {result.after}.")
    else:
        click.echo(f"The database is at revision {result.after}.")


def register_commands(app: Flask) -> None:
    app.cli.add_command(init_db_command)
    app.cli.add_command(db_upgrade_command)
    app.cli.add_command(db_downgrade_command)
    app.cli.add_command(db_revision_command)
    app.cli.add_command(set_personalization_command)
    app.cli.add_command(set_site_urls_command)
    app.cli.add_command(retire_recipe_command)
    app.cli.add_command(close_store_command)
    app.cli.add_command(add_supplier_command)
    app.cli.add_command(suspend_supplier_command)
    app.cli.add_command(rotate_token_command)
    app.cli.add_command(export_shopper_command)
    app.cli.add_command(forget_shopper_command)
    app.cli.add_command(prune_command)
