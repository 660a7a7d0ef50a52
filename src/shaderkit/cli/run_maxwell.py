"""``shaderkit run FILE.bnsh|.bin|.dksh``: run a Switch Maxwell program on the CPU (shaderkit.vm.maxwell).

The ``run`` command dispatches here for BNSH files, raw NVN program blobs and deko3d DKSH modules
(:func:`is_maxwell`). ``--shader N`` picks the Nth Maxwell program in the order ``disasm`` lists
them, under the same titles (``--stage`` narrows the choice to one stage; by default the first
vertex program, else the first program).

Inputs (``--inputs``): ``.json`` ``{"0": [[x, y, z, w], ...], "position": [...], "a[0x2fc]": [...]}``
(generic attribute index, ``attrN``, a name such as ``position``/``vertex_id``, or an attribute
address; values are float32, except ids and ``a[0x..]`` addresses, stored as integer words), or ``.npy`` (lanes, k, 4) for
generic attributes 0..k-1. ``--cbuffer SLOT=FILE`` gives constant buffer ``c[SLOT]`` as the bytes of
FILE (``.npy``: the array's float32/uint32 words), ``--cbuffer SLOT=1.0,2,3`` as float32 values;
``--texture INDEX=FILE.npy`` a texture by the instruction's texture index or bindless handle
(``*`` for any); ``--uav INDEX=FILE.npy`` a surface (SULD/SUST/SUATOM/SURED) the same way, whose
contents after the run the output lists under ``surfaces``. Output: JSON with the steps per lane, the vertex position and the generic
outputs the SPH declares (vertex shaders) or the render targets, depth and killed lanes (pixel
shaders).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from shaderkit.cli.common import json_rows, json_values, load_npy, parse_numbers, read_input, write_output

_FORMATS = ("bnsh", "nvn", "dksh")
#: JSON inputs stored as integer words (everything else is float32)
_INTEGER_INPUTS = ("vertex_id", "instance_id", "primitive_id", "layer", "viewport_index", "front_facing")


def is_maxwell(model: Any) -> bool:
    """True for a model holding Maxwell programs (BNSH, raw NVN program blob, DKSH)."""
    return getattr(model, "format_name", None) in _FORMATS


def _is_npy(path: str) -> bool:
    return path.lower().endswith(".npy")


def _values(text: str) -> Any:
    """A ``.npy`` file's array, comma-separated numbers as float32, else a file's bytes."""
    import numpy as np

    if _is_npy(text):
        return load_npy(text)
    try:
        return np.atleast_1d(parse_numbers(text)).astype(np.float32)
    except ValueError:  # not numbers: a file
        return read_input(text)


def _inputs(path: str | None) -> Any:
    import numpy as np

    if path is None:
        return None
    if _is_npy(path):
        return load_npy(path)
    if not path.lower().endswith(".json"):
        raise ValueError(f"{path}: Maxwell --inputs must be .json or .npy")
    doc = json.loads(read_input(path).decode("utf-8-sig"))
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: expected an object of attribute -> rows")
    out: dict[Any, Any] = {}
    for key, rows in doc.items():
        integer = str(key).lower() in _INTEGER_INPUTS or str(key).startswith("a[")
        out[int(key) if str(key).isdigit() else key] = np.asarray(rows, np.int64 if integer else np.float32)
    return out


def _pairs(specs: Sequence[str], option: str) -> list[tuple[str, str]]:
    out = []
    for spec in specs:
        key, sep, value = spec.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{option} {spec!r}: expected KEY=VALUE")
        out.append((key.strip(), value.strip()))
    return out


def _slot(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"--cbuffer {text}=...: a Switch constant buffer is a slot number (4=...)") from None


def _surface_file(path: str) -> Any:
    """A surface's array from a ``.npy`` file."""
    if not _is_npy(path):
        raise ValueError(f"--uav {path!r}: a surface is a .npy file")
    return load_npy(path)


def _key(text: str) -> int | str:
    return "*" if text == "*" else int(text, 0)


def run_maxwell(model: Any, program: int | None = None, stage: str | None = None, inputs: str | None = None,
                cbufs: Sequence[str] = (), textures: Sequence[str] = (), lanes: int | None = None,
                output: str = "-", max_steps: int | None = None, surfaces: Sequence[str] = ()) -> None:
    """Run one Maxwell program of ``model`` and write its outputs as JSON to ``output`` (see the module text).
    Bad options raise ValueError; VM errors raise :class:`~shaderkit.vm.maxwell.VMError`."""
    from shaderkit.formats.bnsh.nvn import VtgMaps
    from shaderkit.vm.maxwell import MaxwellShader

    programs = MaxwellShader.programs(model)
    if stage is not None:
        programs = [(title, shader) for title, shader in programs if shader.stage == stage]
    if not programs:
        raise ValueError("no Maxwell program in the file" if stage is None else f"no Maxwell {stage} program in the file")
    if program is None:
        vertex = [i for i, (_, shader) in enumerate(programs) if shader.stage == "vertex"]
        program = vertex[0] if vertex else 0
    if not 0 <= program < len(programs):
        raise ValueError(f"--shader {program} is not 0..{len(programs) - 1}")
    title, shader = programs[program]
    buffers = {_slot(slot): _values(value) for slot, value in _pairs(cbufs, "--cbuffer")}
    images = {_key(index): _values(value) for index, value in _pairs(textures, "--texture")}
    given = {_key(index): _surface_file(value) for index, value in _pairs(surfaces, "--uav")}
    result = shader.run(_inputs(inputs), buffers, images, lanes=lanes, max_steps=max_steps, surfaces=given)
    doc: dict[str, Any] = {"program": title, "stage": shader.stage, "lanes": int(result.steps.shape[0]),
                           "steps": [int(s) for s in result.steps]}
    if shader.stage == "pixel":
        doc["colors"] = {str(rt): json_rows(values) for rt, values in result.colors.items()}
        if result.depth is not None:
            doc["depth"] = json_rows(result.depth)
        doc["killed"] = [bool(k) for k in result.killed]
    else:
        doc["position"] = json_rows(result.position)
        maps = getattr(shader.sph, "maps", None)
        indices = sorted({int(item.split(".")[0]) for item in maps.output_attributes()}) if isinstance(maps, VtgMaps) \
            else []
        doc["outputs"] = {f"attr{i}": json_rows(result.attribute(i)) for i in indices}
    if given:
        doc["surfaces"] = {str(key): json_values(result.surfaces[key]) for key in given}
    write_output(output, json.dumps(doc) + "\n")
