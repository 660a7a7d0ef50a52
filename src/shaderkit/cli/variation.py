"""``shaderkit variation``: find the variation of a SHARCFB or BFSHA program selected by macro/option values."""

from __future__ import annotations

import json
from typing import Any

import click

from shaderkit.cli.common import load_model

_COUNTED = (
    ("uniform_blocks", "uniform block"),
    ("uniform_vars", "uniform"),
    ("initial_values", "initial value"),
    ("loop_vars", "loop var"),
    ("sampler_vars", "sampler"),
    ("attrib_vars", "attribute"),
)


def _binary_line(stage: str, index: int, binary: Any) -> str:
    shader = binary.shader
    parts = [f"{len(shader.program):#x} bytes of microcode", f"mode {shader.mode}"]
    for attr, label in _COUNTED:
        count = len(getattr(shader, attr))
        if count:
            parts.append(f"{count} {label}{'s' if count != 1 else ''}")
    if shader.vertex_program:
        parts.append(f"copy program {len(shader.vertex_program):#x} bytes")
    return f"  {stage:<9} binary {index}: " + ", ".join(parts)


@click.command()
@click.argument("file")
@click.argument("program")
@click.argument("settings", nargs=-1, metavar="[MACRO=VALUE]...")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def variation(file: str, program: str, settings: tuple[str, ...], as_json: bool) -> None:
    """Find the binaries of one variation of PROGRAM in a SHARCFB FILE.

    Macros not given take their default values. For a BFSHA (Wii U or Switch), PROGRAM is the
    shading model and the settings are OPTION=CHOICE.
    """
    from shaderkit.formats.agl.sharcfb import Sharcfb
    from shaderkit.formats.agl.variation import VariationError

    model = load_model(file)
    if model.format_name in ("bfsha-wiiu", "bfsha-switch"):
        from shaderkit.cli.bfsha_variation import bfsha_variation

        bfsha_variation(file, model, program, settings, as_json)
        return
    if not isinstance(model, Sharcfb):
        raise VariationError(f"{file}: variation looks programs up in SHARCFB and BFSHA files, not in {model.format_name}"
                             + (" (for BNSH variations use extract --variation N)" if model.format_name == "bnsh" else ""))
    chosen: dict[str, str] = {}
    for item in settings:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise VariationError(f"{item!r} is not MACRO=VALUE")
        chosen[name] = value
    try:
        prog = model.programs[program]
    except KeyError as exc:  # the message names the programs there are
        raise VariationError(exc.args[0]) from None
    result = prog.variation(chosen)
    values = {**prog.default_values(), **chosen}
    if as_json:
        click.echo(json.dumps({
            "program": prog.name,
            "variation": result.index,
            "variation_count": prog.variation_count,
            "macros": values,
            "binaries": {
                stage: {"index": i, **_binary_summary(result.binaries.get(stage))}
                for stage, i in result.binary_indices.items()
            },
        }, indent=2))
        return
    click.echo(f"program {prog.name}: variation {result.index} of {prog.variation_count}")
    for name, value in values.items():
        click.echo(f"  {name} = {value}")
    for stage, index in result.binary_indices.items():
        click.echo(_binary_line(stage, index, result.binaries[stage]))


def _binary_summary(binary: Any) -> dict[str, Any]:
    if binary is None:
        return {}
    return {"type": binary.stage, **binary.shader.summary()}
