"""Corpus shaders run through the public API; expected values worked out by hand from their fxc listings."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import shaderkit
from shaderkit.formats.dxbc.assemble import assemble_with_base
from shaderkit.testing import HlslShader, assert_close
from shaderkit.vm.sm4 import Sampler, Shader, Texture, VmError


def load(corpus: Path, name: str) -> Shader:
    return Shader(shaderkit.open((corpus / "dxbc" / name).read_bytes()))


def test_clear_vs_reads_icb_by_vertex_id(corpus: Path) -> None:
    # mov r0.x, v0.x (SV_VertexID); mov o0.xy, icb[r0.x + 0].xyxx; mov o0.zw, l(0,0,0,1)
    shader = load(corpus, "angle__clear11vs__g_VS_Clear.dxbc")
    out = shader.run_vertex({}, count=6)
    expected = [[-1, 1, 0, 1], [1, -1, 0, 1], [-1, -1, 0, 1], [-1, 1, 0, 1], [1, 1, 0, 1], [1, -1, 0, 1]]
    assert out["SV_Position"].tolist() == expected


def test_hemi_ambient_ps(corpus: Path) -> None:
    # dp3 25 -> rsq 0.2 -> *v2.y(3) = 0.6 -> mad .5,.5 = 0.8 -> mad with cb0[1], cb0[0] -> * v3.xyz
    shader = load(corpus, "directxtk__DebugEffect_PSHemiAmbient.dxbc")
    shader.set_constant_buffer(0, np.array([[0.1, 0.2, 0.3, 0], [0.5, 0.25, 0.125, 0]], np.float32))
    out = shader.run_pixel({"TEXCOORD2": [[0.0, 3.0, 4.0], [0.0, 0.0, 1.0]], "COLOR": [[1, 2, 4, 0.5], [1, 1, 1, 1]]})
    # row 0: 0.1+0.8*0.5 = 0.5, 0.2+0.8*0.25 = 0.4, 0.3+0.8*0.125 = 0.4; times (1, 2, 4) -> (0.5, 0.8, 1.6)
    # row 1: y = 0 -> 0.5: (0.35, 0.325, 0.3625)
    assert_close(out["SV_Target"], [[0.5, 0.8, 1.6, 0.5], [0.35, 0.325, 0.3625, 1.0]], ulps=4)


def test_basic_effect_fog(corpus: Path) -> None:
    # mad r0.xyz, cb0[13].xyz, v0.w, -v0.xyz; mad o0.xyz, v1.w, r0.xyz, v0.xyz; mov o0.w, v0.w
    shader = load(corpus, "directxtk__BasicEffect_PSBasic.dxbc")
    table = np.zeros((14, 4), np.float32)
    table[13, :3] = (0.25, 0.5, 1.0)
    shader.set_constant_buffer(0, table)
    out = shader.run_pixel({"COLOR0": [[0.2, 0.4, 0.6, 0.5]], "COLOR1": [[0, 0, 0, 0.5]]})
    # r0 = (0.125-0.2, 0.25-0.4, 0.5-0.6) = (-0.075, -0.15, -0.1); o = 0.5*r0 + v0.xyz
    assert_close(out["SV_Target"], [[0.1625, 0.325, 0.55, 0.5]], ulps=2)


def test_compute_writes_a_typed_uav_texture(corpus: Path) -> None:
    # u0[id.xy] = (id.x / 1024, id.y / 1024, 0, 1) with 32x32 threads per group (l(0.000977) is 2^-10)
    unit = HlslShader.load(corpus / "dxbc" / "slimshader__VirtualMachine_CS_Simple.dxbc")
    unit.uav(0, np.zeros((64, 64, 4), np.float32))
    texels = unit.dispatch((2, 2, 1)).read_uav(0, np.float32)[0, 0]
    assert texels[5, 7].tolist() == [7 / 1024, 5 / 1024, 0.0, 1.0]
    assert texels[63, 40].tolist() == [40 / 1024, 63 / 1024, 0.0, 1.0]


def test_pixel_quads_give_real_derivatives(corpus: Path) -> None:
    # sample r0, v1.xy, t0, s0: implicit LOD from the quad's derivatives selects the mip.
    # A 4x4 texture whose mip 0 is zeros and mip 1 ones.
    shader = load(corpus, "sdl__D3D11_PixelShader_Textures.dxbc")
    base = np.zeros((4, 4, 4), np.float32)
    tex = Texture.from_array(base, mips=True)
    tex.levels[1][:] = 1.0
    shader.bind_texture(0, tex)
    shader.bind_sampler(0, Sampler(filter="point", mip_filter="point"))
    uv = [[0.1, 0.1], [0.6, 0.1], [0.1, 0.6], [0.6, 0.6]]  # one quad: 0.5 apart = 2 texels -> LOD 1
    color = [[1, 1, 1, 1]] * 4
    ours = shader.run_pixel({"TEXCOORD0": uv, "COLOR0": color}, quads=True)
    alone = shader.run_pixel({"TEXCOORD0": uv, "COLOR0": color})
    # o0.w = sample.w * v2.w (xyz are scaled by cb0[0].w, left 0 here)
    assert ours["SV_Target"][:, 3].tolist() == [1.0] * 4  # mip 1
    assert alone["SV_Target"][:, 3].tolist() == [0.0] * 4  # derivatives 0 -> mip 0


def test_unknown_names_raise_vm_error(corpus: Path) -> None:
    unit = HlslShader.load(corpus / "dxbc" / "slimshader__Tests_Sdk_Direct3D11_BasicHLSL11_BasicHLSL_PS.dxbc")
    with pytest.raises(VmError, match="no constant-buffer variable"):
        unit.set("NoSuchVariable", 1)
    with pytest.raises(VmError, match="no input"):
        unit.pixel(NOSUCHSEMANTIC=[[0, 0]])
    with pytest.raises(VmError, match="pixel shader"):
        unit.vertex(COLOR=[[0, 0, 0, 0]])


def test_cli_run_dxbc_writes_outputs(corpus: Path, tmp_path: Path) -> None:
    from shaderkit.cli.run_sm4 import is_dxbc, run_dxbc

    data = (corpus / "dxbc" / "slimshader__Tests_Sdk_Direct3D11_VarianceShadows11_RenderVarianceShadow_VS.dxbc").read_bytes()
    assert is_dxbc(data)
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"POSITION": [[1, 1, 1, 1], [0, 0, 0, 1]]}))
    out = tmp_path / "out.json"
    # a scale-and-translate matrix (row-vector convention: translation in the last row)
    matrix = "2,0,0,0,0,3,0,0,0,0,4,0,1,2,3,1"
    run_dxbc(data, str(inputs), [f"g_mWorldViewProjection={matrix}"], str(out))
    result = json.loads(out.read_text())
    assert result["SV_POSITION0"] == [[3, 5, 7, 1], [1, 2, 3, 1]]
    csv_in = tmp_path / "in.csv"
    csv_in.write_text("POSITION.x,POSITION.y,POSITION.z,POSITION.w\n1,1,1,1\n")
    run_dxbc(data, str(csv_in), [f"g_mWorldViewProjection={matrix}"], str(tmp_path / "out.csv"))
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "SV_POSITION0.x,SV_POSITION0.y,SV_POSITION0.z,SV_POSITION0.w"
    assert lines[1] == "3.0,5.0,7.0,1.0"
    with pytest.raises(VmError):
        run_dxbc(data, str(inputs), ["g_mWorldViewProjection"], str(out))


def test_malformed_programs_raise_vm_error(corpus: Path) -> None:
    # an indexable temp read past its declared size, through an out-of-range label call
    shader = load(corpus, "angle__clear11vs__g_VS_Clear.dxbc")
    shader.decl.icb = None
    with pytest.raises(VmError, match="immediate constant buffer"):
        shader.run_vertex({}, count=2)
    shader.functions.clear()
    shader.main = [shader.program.instructions[0]]
    shader.main[0].operands.clear()  # a declaration with no operands is skipped, not a crash
    shader.run_vertex({}, count=1)


def test_mutated_programs_raise_only_vm_error(corpus: Path) -> None:
    # operand registers and types scrambled with a fixed seed: every failure must be a VmError
    import random

    from shaderkit.vm.sm4.machine import build_tree, declarations

    rng = random.Random(7)
    names = ["directxtk__DebugEffect_PSHemiAmbient.dxbc", "slimshader__VirtualMachine_CS_Simple.dxbc"]
    for name in names:
        for _ in range(20):
            shader = load(corpus, name)
            instructions = list(shader.program.instructions)
            for ins in instructions:
                for op in ins.operands:
                    if rng.random() < 0.2 and op.indices:
                        op.indices[0] = type(op.indices[0])(0, rng.choice([0, 1, 7, 4095, 1 << 31]))
                    if rng.random() < 0.05:
                        op.type = rng.choice([0, 1, 2, 3, 7, 8, 9, 30, 31])
            try:
                shader.decl = declarations(instructions)
                shader.main, shader.functions = build_tree(instructions)
            except (VmError, IndexError, KeyError):  # the tree builder alone; Shader() wraps these
                continue
            try:
                if shader.stage == "compute":
                    shader.dispatch((1, 1, 1))
                else:
                    shader.run_pixel({}, count=2)
            except VmError:
                pass


def test_interface_calls_follow_the_bound_function_tables(corpus: Path) -> None:
    # fcall fp0/fp1/fp2 -> fb per table: ft0 r0 = v0, ft1 r0 = v0 * 0.5, ft3 nothing, ft4 r0 *= 0.5,
    # ft6 r0.x = 0.66, ft7 r0.x = 1; o0.xyz = r0 after fp1, o0.w = r0.x after fp2
    shader = load(corpus, "slimshader__Tests_HlslCrossCompiler_ps5_interfaces.dxbc")
    v0 = [[2.0, 4.0, 8.0]]
    first = shader.run_pixel({"v0": np.array(v0, np.float32)})
    assert_close(first["o0"].view(np.float32), [[2.0, 4.0, 8.0, 0.66]])
    shader.bind_interface(0, 1)
    shader.bind_interface(1, 4)
    shader.bind_interface(2, 7)
    second = shader.run_pixel({"v0": np.array(v0, np.float32)})
    assert_close(second["o0"].view(np.float32), [[0.5, 1.0, 2.0, 1.0]])
    with pytest.raises(VmError, match="may use tables"):
        shader.bind_interface(0, 5)


def test_system_values_sharing_a_register_fill_only_their_components(corpus: Path) -> None:
    # FxDis test_PS declares v3.x render target index, v3.y viewport index, v3.z primitive_id,
    # v5.x sampleIndex and v5.y is_front_face; its code, replaced, copies four of them out
    base = shaderkit.open((corpus / "dxbc" / "slimshader__Tests_FxDis_test_PS.dxbc").read_bytes())
    lines = base.disassemble().splitlines()
    last_declaration = max(i for i, line in enumerate(lines) if line.startswith("dcl_"))
    body = ["mov o0.x, v3.x", "mov o0.y, v3.z", "mov o0.z, v5.x", "mov o0.w, v5.y", "ret"]
    shader = Shader(assemble_with_base("\n".join(lines[: last_declaration + 1] + body) + "\n", base))
    out = np.ascontiguousarray(shader.run_pixel({}, count=3)["o0"]).view(np.uint32)
    assert out.tolist() == [[0, i, 0, 0xFFFFFFFF] for i in range(3)]  # index 0, primitive i, sample 0, front
    given = shader.run_pixel({"v3": np.full((3, 1), 7, np.uint32)}, count=3)["o0"]  # v3.x given, v3.z still i
    assert np.ascontiguousarray(given).view(np.uint32)[:, :2].tolist() == [[7, i] for i in range(3)]
