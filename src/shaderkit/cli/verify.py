"""``shaderkit verify``: parse + rebuild + compare every file under the given paths; one line per failure (or JSON Lines)."""

from __future__ import annotations

import os
import sys

import click

from shaderkit.cli.checks import verify_files, verify_targets


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=1),
              help="Worker processes (files go out in chunks; few files run in this process).")
@click.option("--json", "as_json", is_flag=True, help="JSON Lines: one object per file, then a summary object.")
def verify(paths: tuple[str, ...], jobs: int, as_json: bool) -> None:
    """Parse, rebuild and compare every file under PATHS; exit 1 if any fails."""
    files = verify_targets(paths)
    show_progress = sys.stderr.isatty() and not os.environ.get("CI") and not as_json and len(files) > 1
    status = verify_files(files, jobs, as_json, show_progress)
    if status:
        raise click.exceptions.Exit(status)
