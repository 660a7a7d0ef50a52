"""``shaderkit run`` for Wii U Latte shaders (GSH, SHARCFB, Wii U BFSHA and its members
``MODEL/PROGRAM/STAGE``): inputs by attribute / semantic name, uniforms and uniform blocks by
name, textures from .npy files; exports as JSON or CSV.

A texture is ``--texture KEY[:KIND]=FILE.npy``: KEY ``t<ID>``, ``ID`` or a sampler name, KIND one
of ``vm.latte.fetch.KINDS`` (default: the type of the sampler the file declares at that location,
``samplerCube`` a ``cube``; else ``2d``) with the shapes :meth:`Texture.of` takes: (H, W[, C])
for ``1d``/``2d``; (S, H, W[, C]) for ``2d_array`` (S layers), ``3d`` (S deep), ``cube`` (S = 6
faces +X, -X, +Y, -Y, +Z, -Z) and ``cube_array`` (S = 6N: cube k's faces at 6k..6k+5)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

import click

from shaderkit.cli.common import json_rows, texture_options, write_output

#: the Wii U BFSHA formats: ``--shader N`` is ``shaders[N]`` of their listing
_BFSHA_FORMATS = ("bfsha-wiiu", "gx2-microcode")


def is_latte_model(model: Any) -> bool:
    """True for the models whose shaders are Latte programs (GSH, SHARCFB, Wii U BFSHA and one
    BFSHA stage, ``FILE.bfsha//MODEL/PROGRAM/STAGE``)."""
    return getattr(model, "format_name", "") in ("gsh", "sharcfb", *_BFSHA_FORMATS)


def _shaders(model: Any) -> list[Any]:
    """The GX2 shaders ``--shader N`` counts: a BFSHA's structs in file order (``shaders[N]`` of
    ``disasm``, empty ones too) with the reflection of the first program using each; a BFSHA
    stage: itself; a GSH's or SHARCFB's shaders that have a program."""
    fmt = getattr(model, "format_name", "")
    if fmt == "gx2-microcode":
        return [model.vm_shader()]
    if fmt == "bfsha-wiiu":
        from shaderkit.formats.bfsha.wiiu_stage import shader_stages

        return [stage.vm_shader() for stage in shader_stages(model)]
    shaders = [binary.shader for binary in model.binaries] if hasattr(model, "binaries") else model.shaders
    return [s for s in shaders if s.program]


def _exports(result: Any) -> list[tuple[str, Any]]:
    out = []
    for kind, table in (("POS", result.pos), ("PARAM", result.param), ("PIX", result.pix)):
        for index in sorted(table):
            out.append((f"{kind}{index}", table[index]))
    return out


def result_json(result: Any) -> str:
    """The run's exports as JSON: lanes, export name -> rows of 4 values, killed lanes, steps."""
    doc = {
        "lanes": result.lanes,
        "exports": {name: json_rows(rows) for name, rows in _exports(result)},
        "param_semantics": {f"PARAM{k}": v for k, v in sorted(result.param_semantics.items())},
        "killed": [bool(k) for k in result.killed],
        "memory_writes": len(result.memory),
        "steps": result.steps,
    }
    return json.dumps(doc) + "\n"


def result_csv(result: Any) -> str:
    """The run's exports as CSV: one row per lane, columns ``POS0.x`` ... and ``killed``."""
    exports = _exports(result)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["lane"] + [f"{name}.{c}" for name, _ in exports for c in "xyzw"] + ["killed"])
    for lane in range(result.lanes):
        writer.writerow([lane] + [repr(float(x)) for _, rows in exports for x in rows[lane]]
                        + [int(result.killed[lane])])
    return buffer.getvalue()


def _inputs(path: str, names: list[str]) -> Any:
    from shaderkit.cli.run import load_inputs

    value = load_inputs(path)
    if isinstance(value, dict):
        return value
    import numpy as np

    array = np.asarray(value, dtype=np.float32)
    if array.ndim == 2:
        array = array[:, None, :]
    if array.ndim != 3 or array.shape[1] > len(names):
        raise click.ClickException(f"{path}: expected (n, 4) or (n, k, 4) with k <= {len(names)} inputs "
                                   f"({', '.join(names) or 'none'})")
    return {names[k]: array[:, k, :] for k in range(array.shape[1])}


def _texture(spec: str, array: Any, samplers: dict[str, int], kinds: dict[int, str]) -> tuple[int, Any]:
    """(resource id, :class:`Texture`) of ``--texture`` KEY[:KIND]=FILE's array: a sampler by name
    is the texture at its location; without KIND, the kind of the sampler declared at that location
    (``kinds``: from the sampler types of the shader's reflection: GSH, SHARCFB, BFSHA), else ``2d``."""
    from shaderkit.vm.latte import Texture

    key, kind = (spec, "") if spec in samplers or ":" not in spec else spec.rsplit(":", 1)
    key, kind = key.strip(), kind.strip()
    if key in samplers:
        rid = samplers[key]
    else:
        number = key[1:] if key.startswith("t") else key
        if not number.isdigit():
            named = f", or a sampler name ({', '.join(samplers)})" if samplers else ""
            raise click.ClickException(f"--texture {spec!r}: expected t<ID> or ID{named} (then :KIND)")
        rid = int(number)
    try:  # (Texture.of refuses a kind it does not know)
        return rid, Texture.of(array, kind or kinds.get(rid, "2d"))
    except ValueError as exc:
        raise click.ClickException(f"--texture {spec!r}: {exc}") from None


def run_latte(model: Any, file: str, index: int, inputs_path: str | None, uniforms: Sequence[str],
              textures: Sequence[str], count: int | None, output: str, max_steps: int | None) -> None:
    """Run shader ``index`` of a GSH / SHARCFB / Wii U BFSHA model (or a BFSHA stage: index 0) and
    write its exports to ``output``. ``--uniform NAME=...`` names a uniform variable, a register
    ``C<n>`` or a uniform block (its words from the block's start)."""

    from shaderkit.cli.run import parse_uniform
    from shaderkit.formats.gx2.types import SAMPLER_KINDS
    from shaderkit.vm.latte import LatteShader, VMError

    shaders = _shaders(model)
    if not 0 <= index < len(shaders):
        raise click.ClickException(f"{file}: --shader {index}: the file has {len(shaders)} shader programs")
    if not shaders[index].program:
        raise click.ClickException(f"{file}: --shader {index}: that shader has no program (empty microcode)")
    shader = LatteShader.from_gx2(shaders[index])
    names = list(shader.input_registers())
    inputs = _inputs(inputs_path, names) if inputs_path else {}
    uniform_values = dict(parse_uniform(text) for text in uniforms)
    gx2 = shader.shader
    sampler_vars = gx2.sampler_vars if gx2 is not None else []
    samplers = {v.name: v.location for v in sampler_vars}
    kinds = {v.location: SAMPLER_KINDS[v.type] for v in sampler_vars if v.type in SAMPLER_KINDS}
    texture_arrays: dict[int, Any] = {}
    for spec, array in texture_options(textures):
        rid, texture = _texture(spec, array, samplers, kinds)
        texture_arrays[rid] = texture
    try:
        result = shader.run(inputs, count, uniforms=uniform_values, textures=texture_arrays, max_steps=max_steps)
    except VMError as exc:
        raise click.ClickException(f"{file}: {exc}") from None
    text = result_csv(result) if output.lower().endswith(".csv") else result_json(result)
    write_output(output, text)
