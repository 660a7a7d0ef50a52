"""``shaderkit run FILE`` for a bare Direct3D 9 shader (vs/ps 1.x-3.0): run it on the CPU with
:mod:`shaderkit.vm.d3d9`. ``run`` dispatches here when the file reads as format ``d3d9``.

Inputs (``--inputs``) as for DXBC (``.json``/``.npz`` of arrays by semantic or register,
``.csv`` with ``NAME.x`` columns): ``{"POSITION": [[x, y, z], ...], "v1": ...}``; without inputs
``--count`` lanes (default 1) of zeros. ``--cbuffer NAME=1,2,3`` sets a constant by its CTAB
name or by register (``c4=...``, ``i0=...``, ``b1=1``). Outputs (``-o``, JSON by default) by
semantic (``POSITION0``, ``TEXCOORD1``, ``COLOR0``) and, for pixel shaders, ``discarded``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shaderkit.cli.common import write_output


def run_d3d9(model: Any, inputs: str | None = None, constants: Sequence[str] = (), output: str = "-",
             count: int | None = None) -> None:
    """Run the D3D9 shader ``model`` and write its outputs to ``output`` (see the module text).
    Errors raise :class:`~shaderkit.vm.d3d9.VMError` (a ShaderkitError)."""
    from shaderkit.cli.run_sm4 import _encode, _numbers, _read_inputs
    from shaderkit.vm.d3d9 import D3D9Shader, VMError

    shader = D3D9Shader(model)
    for assignment in constants:
        name, sep, text = assignment.partition("=")
        if not sep:
            raise VMError(f"--cbuffer {assignment!r}: expected NAME=VALUES")
        shader.set(name.strip(), _numbers(text))
    feed: dict[str, Any] = {}
    if inputs:
        if inputs.lower().endswith(".npy"):
            raise VMError(f"{inputs}: D3D9 inputs must be .json, .npz or .csv (named by semantic or register)")
        feed = _read_inputs(shader, inputs)
    if not feed and count is None:
        count = 1
    outs = shader.run(feed, lanes=count)
    results: dict[str, Any] = {name: outs.registers[register] for name, register in outs.semantics.items()}
    if shader.pixel:
        results["discarded"] = outs.discarded
    write_output(output, _encode(results, output))
