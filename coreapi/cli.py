"""Command-line commands: ``flask --app coreapi init-db [--reset]``."""

from __future__ import annotations

import time
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from coreapi.extensions import db
from coreapi.seed import is_seeded, load_catalog


@click.command("init-db")
@click.option("--reset", is_flag=True, help="Drop every table first, then seed again.")
@with_appcontext
def init_db_command(reset: bool) -> None:
    """Create the tables and seed the demo catalog into an empty database."""
    if reset:
        db.drop_all()
        click.echo("Dropped every table.")
    db.create_all()
    if is_seeded(db.session):
        click.echo("The database already holds the catalog; nothing to do (--reset to reseed).")
        return
    started = time.perf_counter()
    counts = load_catalog(db.session, Path(current_app.config["SEED_DATA_DIR"]))
    db.session.commit()
    summary = ", ".join(f"{count} {table}" for table, count in counts.items())
    click.echo(f"Seeded the catalog in {time.perf_counter() - started:.2f}s: {summary}.")


def register_commands(app: Flask) -> None:
    app.cli.add_command(init_db_command)
