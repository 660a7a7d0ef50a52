"""``shaderkit demo``: write small sample shader files (made by shaderkit's own writers) to try the other verbs on."""

from __future__ import annotations

import os

import click


@click.command()
@click.option("-o", "--output", default="demo-out", show_default=True, help="Folder for the sample files.")
def demo(output: str) -> None:
    """Build small sample files of every format with shaderkit's own writers, then show, verify and
    disassemble them."""
    from pathlib import Path

    from rich.console import Console
    from rich.rule import Rule

    import shaderkit
    from shaderkit.cli.checks import check_file
    from shaderkit.cli.common import write_output
    from shaderkit.cli.render import render
    from shaderkit.errors import ShaderFormatError, UnsupportedOperation
    from shaderkit.samples import SAMPLES

    console = Console()
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for name, build in SAMPLES.items():
        path = os.path.join(output, name)
        write_output(path, build())
        model = shaderkit.open(Path(path).read_bytes())
        console.print(Rule(f"{path}  ({model.format_name})"))
        render(model.summary(), console)
        status, reason = check_file(Path(path))
        counts[status] += 1
        console.print(f"[bold]verify:[/bold] {status}{': ' + reason if reason else ' (parsed, rebuilt byte-exact)'}")
        try:
            text = model.disassemble()
        except (UnsupportedOperation, ShaderFormatError) as exc:
            console.print(f"[bold]disasm:[/bold] {exc}")
        else:
            console.print("[bold]disasm:[/bold]")
            console.print(text, markup=False, highlight=False)
        if model.format_name == "sharcfb":
            program = model.programs["basic"]  # type: ignore[attr-defined]
            chosen = program.variation({"FOG": "1"})
            console.print(f"[bold]variation basic FOG=1 (QUALITY defaults to hi):[/bold] {chosen}")
    console.print(Rule())
    console.print(f"{counts['passed']} passed, {counts['failed']} failed")
    if counts["failed"]:
        raise click.exceptions.Exit(1)
