"""``shaderkit variation X.bfsha MODEL OPTION=CHOICE ...``: option -> program lookup (Wii U BFSHA)."""

from __future__ import annotations

import json
from typing import Any

import click

from shaderkit.formats.agl.variation import VariationError


def bfsha_variation(file: str, archive: Any, model_name: str, settings: tuple[str, ...], as_json: bool) -> None:
    """Print which program of BFSHA shading model ``model_name`` runs for OPTION=CHOICE ``settings``."""
    from shaderkit.formats.bfsha.wiiu import LookupFailed

    chosen: dict[str, str] = {}
    for item in settings:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise VariationError(f"{item!r} is not OPTION=CHOICE")
        chosen[name] = value
    try:
        model = archive.model(model_name)
        index, how = model.find_program(chosen)
    except LookupFailed as exc:
        raise VariationError(exc.message) from None
    if archive.format_name == "bfsha-switch":
        _switch_result(file, model, index, how, chosen, as_json)
        return
    shaders = archive.program_shaders(model_name, index)
    members = {stage: f"{file}//{model_name}/{index}/{stage}" for stage in shaders}
    if as_json:
        click.echo(json.dumps({
            "model": model.name,
            "program": index,
            "program_count": len(model.programs),
            "match": how,
            "options": model.program_choices(index),
            "stages": {stage: {**shader.summary(), "member": members[stage]} for stage, shader in shaders.items()},
        }, indent=2))
        return
    click.echo(f"model {model.name}: program {index} of {len(model.programs)} ({how})")
    for name, value in model.program_choices(index).items():
        if name in chosen:
            click.echo(f"  {name} = {value}")
    for stage, shader in shaders.items():
        click.echo(f"  {stage:<9} {len(shader.program):#x} bytes of microcode, mode {shader.mode}: {members[stage]}")


def _switch_result(file: str, model: Any, index: int, how: str, chosen: dict[str, str], as_json: bool) -> None:
    variation = model.programs[index].variation
    member = f"{file}//{model.name}.bnsh"
    if as_json:
        click.echo(json.dumps({
            "model": model.name, "program": index, "program_count": len(model.programs), "match": how,
            "options": model.program_choices(index), "bnsh": member, "bnsh_variation": variation,
        }, indent=2))
        return
    click.echo(f"model {model.name}: program {index} of {len(model.programs)} ({how})")
    for name, value in model.program_choices(index).items():
        if name in chosen:
            click.echo(f"  {name} = {value}")
    click.echo(f"  BNSH variation {variation} of {member}")
    click.echo(f"  (shaderkit extract '{member}' --variation {variation} --stage vertex -o code.bin)")
