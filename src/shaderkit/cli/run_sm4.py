"""``shaderkit run FILE.dxbc``: run a vertex, pixel, geometry, hull, domain or compute shader on
the CPU (shaderkit.vm.sm4).

The ``run`` command dispatches here for DXBC input (:func:`is_dxbc`), calling :func:`run_dxbc`.

Inputs (``--inputs``) by file extension:

* ``.json``: ``{"POSITION": [[x, y, z], ...], "TEXCOORD0": [[u, v], ...]}`` (semantic or ``v2``);
* ``.npz``: the same as named arrays;
* ``.npy``: one ``(n, k)`` array split over the input signature's elements in register order;
* ``.csv``: a header row of ``SEMANTIC`` or ``SEMANTIC.x`` names, columns of the same name before
  the dot forming one input.

Geometry and hull shaders take ``(primitives or patches, vertices or control points, k)`` arrays
(``--count`` patches of zeros without inputs). A domain shader's inputs hold its domain points
as ``SV_DomainLocation`` ((n, 2 or 3): u, v[, w]), optionally each point's patch index as
``SV_PrimitiveID`` (without it every patch runs every point), patch constants by
patch-constant semantic or ``vpc#``, and the control points ((patches, points, k)) by semantic
or ``v#``.

``--cbuffer NAME=1,2,3`` (or ``Buffer.NAME=...``) sets constant-buffer variables by their RDEF
names. Outputs (``-o``) by extension: ``.json`` (default, also for ``-``), ``.npz`` or ``.csv``;
outputs by semantic (geometry shaders add each vertex's ``primitive``, ``instance`` and
``strip``; hull shaders give the output control points by semantic and the patch constants as
``patch.SEMANTIC``; domain shaders add each point's ``patch``), compute results as the words of
every UAV.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shaderkit.cli.common import (
    encode_results,
    load_npy,
    parse_numbers,
    read_input_arrays,
    write_output,
)


def is_dxbc(data: bytes) -> bool:
    """True for a DXBC container (the bytes ``run`` should hand to :func:`run_dxbc`)."""
    return data[:4] == b"DXBC"


def run_dxbc(data: bytes, inputs: str | None = None, cbuffers: Sequence[str] = (), output: str = "-",
             count: int | None = None, groups: Sequence[int] = (1, 1, 1), uavs: Sequence[str] = ()) -> None:
    """Run the DXBC shader in ``data`` and write its outputs to ``output`` (see the module text).

    ``uavs``: ``NAME=FILE.npy`` initial UAV contents for compute shaders (default: 1024 zero words
    per declared UAV buffer). Errors raise :class:`~shaderkit.vm.sm4.VmError` (a ShaderkitError).
    """
    import numpy as np

    import shaderkit
    from shaderkit.vm.sm4 import Buffer, Shader, VmError

    shader = Shader(shaderkit.open(data))
    for assignment in cbuffers:
        name, sep, text = assignment.partition("=")
        if not sep:
            raise VmError(f"--cbuffer {assignment!r}: expected NAME=VALUES")
        shader.set_constant(name.strip(), _numbers(text))
    if shader.stage == "compute":
        for spec in uavs:
            name, sep, path = spec.partition("=")
            if not sep:
                raise VmError(f"--uav {spec!r}: expected NAME=FILE.npy")
            array = load_npy(path)
            slot: int | str = int(name[1:]) if name[:1] in "uU" and name[1:].isdigit() else name
            shader.bind_buffer(slot, Buffer(_as_words(array), shader.decl.structured.get((30, shader._slot(slot)), 0)),
                               uav=True)
        for slot, kind in shader.decl.uavs.items():
            if (30, slot) not in shader.buffers and slot not in shader.uav_textures and kind != "typed":
                shader.bind_buffer(slot, Buffer(np.zeros(1024, np.uint32), shader.decl.structured.get((30, slot), 0)),
                                   uav=True)
        shader.dispatch(tuple(groups))
        results = {f"u{slot}": (buf.words if buf.typed is None else buf.typed)
                   for (kind_, slot), buf in sorted(shader.buffers.items()) if kind_ == 30}
    elif shader.stage == "domain":
        results = _run_domain(shader, _read_inputs(shader, inputs) if inputs else {})
    else:
        feed = _read_inputs(shader, inputs) if inputs else {}
        if not feed and count is None:
            count = 1
        if shader.stage == "hull":
            hull = shader.run_hull(feed, count)
            results = _named(hull)
            results.update({f"patch.{key}": value for key, value in _named(hull.patch_constants).items()})
        elif shader.stage == "geometry":
            emitted = shader.run_geometry(feed, count)
            results = _named(emitted)
            results.update(primitive=emitted.primitive, instance=emitted.instance, strip=emitted.strip)
        else:
            run = shader.run_vertex if shader.stage == "vertex" else shader.run_pixel
            outs = run(feed, count)
            results = _named(outs)
            if shader.stage == "pixel":
                results["discarded"] = outs.discarded
    write_output(output, encode_results(results, output))


def _named(outputs: Any) -> dict[str, Any]:
    """The outputs named by semantic (``o#`` register keys left out)."""
    return {key: outputs[key] for key in outputs if not (key.startswith("o") and key[1:].isdigit())}


#: input keys of a domain shader that are not control points
DOMAIN_KEYS, PATCH_KEYS = ("SV_DOMAINLOCATION", "VDOMAIN"), ("SV_PRIMITIVEID", "VPRIM")


def _run_domain(shader: Any, feed: dict[str, Any]) -> dict[str, Any]:
    """A domain shader over ``feed``: the domain points (SV_DomainLocation or vDomain), optionally
    each point's patch (SV_PrimitiveID or vPrim), patch constants (by patch-constant semantic or
    vpc#) and the rest control points."""
    from shaderkit.vm.sm4 import VmError
    from shaderkit.vm.sm4.outputs import element_key, normalize_key

    domain = patch = None
    constants, control = {}, {}
    signature = getattr(shader.container, "patch_constant_signature", None)
    patch_names = {element_key(e) for e in (signature.elements if signature else [])}
    inputs = getattr(shader.container, "input_signature", None)
    point_names = {element_key(e) for e in (inputs.elements if inputs else [])}
    for key, value in feed.items():
        upper, full = key.upper(), normalize_key(key)
        if upper in DOMAIN_KEYS:
            domain = value
        elif upper in PATCH_KEYS:
            patch = value
        elif (upper.startswith("VPC") and upper[3:].isdigit()) or (full in patch_names and full not in point_names):
            constants[key] = value
        else:
            control[key] = value
    if domain is None:
        raise VmError("a domain shader needs --inputs with SV_DomainLocation: the (n, 2 or 3) domain points")
    outs = shader.run_domain(control, domain, constants, patch)
    results = _named(outs)
    results["patch"] = outs.patch
    return results


def _as_words(array: Any) -> Any:
    import numpy as np

    a = np.ascontiguousarray(array)
    if a.dtype in (np.float64, np.int64):
        a = a.astype(np.float32 if a.dtype.kind == "f" else np.int32)
    return a.view(np.uint8).reshape(-1).view("<u4").astype(np.uint32)


def _split(shader: Any, array: Any) -> dict[str, Any]:
    """Columns of one (n, k) array (geometry and hull shaders: (n, vertices, k)) over the input
    signature elements in register order."""
    from shaderkit.vm.sm4 import VmError

    if array.ndim == 1:
        array = array[:, None]
    signature = getattr(shader.container, "input_signature", None)
    elements = sorted((e for e in (signature.elements if signature else []) if not e.system_value),
                      key=lambda e: (e.register, e.mask & -e.mask))
    feed, column = {}, 0
    for element in elements:
        width = bin(element.mask).count("1")
        if column + width > array.shape[-1]:
            break
        feed[f"{element.semantic_name}{element.semantic_index}"] = array[..., column : column + width]
        column += width
    if column != array.shape[-1]:
        raise VmError(f"{array.shape[-1]} input columns; the signature takes {column} in order")
    return feed


def _numbers(text: str) -> Any:
    from shaderkit.vm.sm4 import VmError

    return parse_numbers(text, VmError)


def _read_inputs(shader: Any, path: str) -> dict[str, Any]:
    from shaderkit.vm.sm4 import VmError

    return read_input_arrays(path, VmError, lambda array: _split(shader, array))
