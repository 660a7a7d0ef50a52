"""``shaderkit run FILE`` for a bare Direct3D 9 shader (vs/ps 1.x-3.0): run it on the CPU with
:mod:`shaderkit.vm.d3d9`. ``run`` dispatches here when the file reads as format ``d3d9``.

Inputs (``--inputs``) as for DXBC (``.json``/``.npz`` of arrays by semantic or register,
``.csv`` with ``NAME.x`` columns): ``{"POSITION": [[x, y, z], ...], "v1": ...}``; without inputs
``--count`` lanes (default 1) of zeros. ``--uniform NAME=1,2,3`` (as for PICA200 and Latte;
``--cbuffer`` is taken as the same) sets a constant by its CTAB name or by register (``c4=...``,
``i0=...``, ``b1=true``); a shader with a preshader (an fx_2_0 effect's member) runs it first:
``--uniform`` then also takes the effect parameters its ``CTAB`` names, and its outputs fill the
registers it writes unless given by register or shader-CTAB name (:mod:`shaderkit.vm.d3d9`; a
preshader that does not run is a VMError: one line, exit status 2); a shader named as a member of
an effect (``E.fxo//TECHNIQUE/PASS/PixelShader``) starts from the effect's initial parameter
values, for its constants and its preshader alike; ``--texture ID=FILE.npy`` binds texels (``(h, w, c)`` 2D, ``(6, h, w, c)``
cube, ``(d, h, w, c)`` volume: the sampler's ``dcl`` type) to a sampler by CTAB name, ``s2`` or
2; ``--max-steps`` bounds the instructions run. Outputs (``-o``, JSON by default) by semantic
(``POSITION0``, ``TEXCOORD1``, ``COLOR0``) and, for pixel shaders, ``discarded``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shaderkit.cli.common import encode_results, read_input_arrays, texture_options, write_output


def run_d3d9(model: Any, inputs: str | None = None, uniforms: Sequence[str] = (), output: str = "-",
             count: int | None = None, textures: Sequence[str] = (), max_steps: int | None = None,
             defaults: Mapping[str, Any] | None = None) -> None:
    """Run the D3D9 shader ``model`` and write its outputs to ``output`` (see the module text);
    ``defaults``: the initial parameter values of the effect it is a member of, set before the
    ``uniforms``. Errors raise :class:`~shaderkit.vm.d3d9.VMError` (a ShaderkitError) or a
    ClickException."""
    import numpy as np

    from shaderkit.cli.run import parse_uniform
    from shaderkit.vm.d3d9 import DEFAULT_MAX_STEPS, D3D9Shader, VMError

    shader = D3D9Shader(model).set_defaults(defaults or {})
    for text in uniforms:
        name, values = parse_uniform(text)
        shader.set(name, np.array(values))
    for key, array in texture_options(textures):
        shader.texture(int(key) if key.isdigit() else key, array)
    feed = read_input_arrays(inputs, VMError) if inputs else {}
    outs = shader.run(feed, lanes=count, max_steps=max_steps or DEFAULT_MAX_STEPS)
    results: dict[str, Any] = {name: outs.registers[register] for name, register in outs.semantics.items()}
    if shader.pixel:
        results["discarded"] = outs.discarded
    write_output(output, encode_results(results, output))
