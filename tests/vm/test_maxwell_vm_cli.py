"""`shaderkit run` on Switch Maxwell programs: a self-made deko3d module (vertex and fragment programs
assembled here, the fragment one reading its constbuf1 as c[1]) and a corpus BNSH."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from maxwell_build import build  # noqa: E402

from conftest import run_cli  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "dksh"))
import dksh_build as dk  # noqa: E402

VERTEX = ["ALD.128 R0, a[0x80]", "FADD R0, R0, 1", "AST.128 a[0x70], R0", "AST.128 a[0x80], R0"]
FRAGMENT = ["MOV R0, c[0x1][0x0]", "MOV R1, c[0x1][0x4]", "MOV R2, c[0x1][0x8]", "MOV R3, c[0x1][0xc]"]


def _module() -> bytes:
    vertex, fragment = build(VERTEX), build(FRAGMENT)
    assert len(vertex) <= 0x80 and len(fragment) <= 0x80
    control = dk.header(0x100, 0x300, 2)
    control += dk.program_header(0, 0x30, 8, 0, 0, 0, dk.vert_union())
    control += dk.program_header(1, 0x130, 4, 0x200, 16, 0x20, dk.frag_union())
    control += bytes(0x100 - len(control))
    code = bytearray(0x300)
    code[0x000:0x030] = dk.UAM_PADDING
    code[0x030:0x080] = dk.sph(1, 1)
    code[0x030 + 0x36] = 0x0F  # omap_generic_vector (SPH byte 0x36): output attribute 0 xyzw
    code[0x080:0x080 + len(vertex)] = vertex
    code[0x100:0x130] = dk.UAM_PADDING
    code[0x130:0x180] = dk.sph(2, 5)
    code[0x180:0x180 + len(fragment)] = fragment
    code[0x200:0x210] = dk.CONSTBUF1  # 1.0, 2.0, 3.0, 4.0
    return control + bytes(code)


def test_run_dksh_vertex_and_fragment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = tmp_path / "m.dksh"
    module.write_bytes(_module())
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"0": [[1, 2, 3, 4], [5, 6, 7, 8]]}))
    code, out, err = run_cli(capsys, "run", str(module), "--inputs", str(inputs))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["stage"] == "vertex" and doc["lanes"] == 2
    assert doc["position"] == [[2, 2, 3, 4], [6, 6, 7, 8]]
    assert doc["outputs"]["attr0"] == [[2, 2, 3, 4], [6, 6, 7, 8]]
    code, out, err = run_cli(capsys, "run", str(module), "--stage", "pixel", "--count", "3")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["colors"]["0"] == [[1, 2, 3, 4]] * 3 and doc["killed"] == [False] * 3


def test_run_bnsh_with_cbuffer_and_errors(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quad = corpus / "nx" / "wiixl_quad_carray.bnsh"
    code, out, err = run_cli(capsys, "run", str(quad), "--stage", "pixel", "--count", "1",
                             "--cbuffer", "4=0.5,0.25,1,0")
    assert code == 0, err
    assert json.loads(out)["colors"]["0"] == [[0.5, 0.25, 1, 0]]
    code, out, err = run_cli(capsys, "run", str(quad), "--stage", "pixel", "--count", "1")
    assert code != 0 and "c[0x4]" in err
    code, out, err = run_cli(capsys, "run", str(quad), "--shader", "7")
    assert code != 0 and "--shader 7" in err
    code, out, err = run_cli(capsys, "run", str(quad), "--stage", "pixel", "--cbuffer", "x=1")
    assert code != 0 and "slot number" in err


def test_dksh_compute_program_runs_one_block() -> None:
    # block 8x8x1 and 0x100 bytes of shared memory from the module: thread (x, y) stores its index
    # y * 8 + x at word index, then reads its neighbour's word (index + 1) % 64
    import shaderkit
    from shaderkit.vm.maxwell import MaxwellShader

    code = build(["S2R R0, SR_TID.X", "S2R R1, SR_TID.Y", "ISCADD R2, R1, R0, 0x3", "SHL R3, R2, 0x2",
                  "STS [R3], R2", "IADD32I R4, R3, 0x4", "LOP32I.AND R4, R4, 0xff", "LDS R5, [R4]"])
    assert len(code) <= 0x100
    control = dk.header(0x100, 0x100, 1)
    control += dk.program_header(5, 0, 8, 0, 0, 0, dk.comp_union())
    control += bytes(0x100 - len(control))
    module = control + code + bytes(0x100 - len(code))
    shader = MaxwellShader.from_dksh(shaderkit.open(module), 0)
    assert shader.stage == "compute" and shader.block_dims == (8, 8, 1) and shader.shared_memory == 0x100
    result = shader.run()
    index = np.arange(64)
    assert list(result.registers[:, 2]) == list(index)
    assert list(result.registers[:, 5]) == list((index + 1) % 64)


def test_dksh_tessellation_programs_take_bnsh_stage_names_and_disasm_titles() -> None:
    # deko3d program types 3 (tess_ctrl) and 4 (tess_eval) are BNSH's hull and domain stages; the
    # titles are the listing's "program N <deko3d type>"
    import shaderkit
    from shaderkit.vm.maxwell import MaxwellShader

    control = dk.header(0x100, 0x200, 2)
    control += dk.program_header(3, 0x30, 8, 0, 0, 0, bytes(36))
    control += dk.program_header(4, 0x130, 8, 0, 0, 0, bytes(36))
    control += bytes(0x100 - len(control))
    code = bytearray(0x200)
    for base, shader_type in ((0, 2), (0x100, 3)):
        code[base:base + 0x30] = dk.UAM_PADDING
        code[base + 0x30:base + 0x80] = dk.sph(1, shader_type)
        code[base + 0x80:base + 0xC0] = dk.CODE_64
    programs = MaxwellShader.programs(shaderkit.open(control + bytes(code)))
    assert [(title, shader.stage) for title, shader in programs] == [
        ("program 0 tess_ctrl", "hull"), ("program 1 tess_eval", "domain")]


def _storing_module(tmp_path: Path, store: list[str]) -> Path:
    """A deko3d module whose vertex program is ``store``."""
    vertex = build(store)
    control = dk.header(0x100, 0x100, 1) + dk.program_header(0, 0x30, 8, 0, 0, 0, dk.vert_union())
    control += bytes(0x100 - len(control))
    code = bytearray(0x100)
    code[0x000:0x030] = dk.UAM_PADDING
    code[0x030:0x080] = dk.sph(1, 1)
    code[0x080:0x080 + len(vertex)] = vertex
    module = tmp_path / "s.dksh"
    module.write_bytes(control + bytes(code))
    return module


def test_run_with_a_surface(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the vertex program of a deko3d module stores each lane's vertex id + 0x10 into texel (id, 0)
    # of surface 2 (SUSTD.B32: a raw word); --uav 2=FILE.npy gives it, the output lists it after
    module = _storing_module(tmp_path, ["ALD R0, a[0x2fc]", "MOV R1, RZ", "IADD32I R4, R0, 0x10",
                                        "SUSTD.2D.B32 R0, R4, 0x2"])
    surface = tmp_path / "surf.npy"
    np.save(surface, np.zeros((1, 4), np.uint32))
    code_, out, err = run_cli(capsys, "run", str(module), "--count", "3", "--uav", f"2={surface}")
    assert code_ == 0, err
    assert json.loads(out)["surfaces"] == {"2": [[0x10, 0x11, 0x12, 0]]}
    code_, out, err = run_cli(capsys, "run", str(module), "--count", "1")
    assert code_ != 0 and "surface 0x2" in err


def _no_constants(name: str) -> None:
    raise AssertionError(f"non-standard JSON constant {name}")


def test_a_float_surface_with_nan_and_inf_is_standard_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # lanes 0, 1, 2 store the words 0x7f800000 (+inf), 0x7f800001 and 0x7f800002 (NaNs) into a
    # float32 surface whose texel 3 holds 1.5; the file's extension is upper case
    module = _storing_module(tmp_path, ["ALD R0, a[0x2fc]", "MOV R1, RZ", "IADD32I R4, R0, 0x7f800000",
                                        "SUSTD.2D.B32 R0, R4, 0x2"])
    surface = tmp_path / "SURF.NPY"
    with surface.open("wb") as handle:
        np.save(handle, np.array([[0, 0, 0, 1.5]], np.float32))
    code_, out, err = run_cli(capsys, "run", str(module), "--count", "3", "--uav", f"2={surface}")
    assert code_ == 0, err
    assert json.loads(out, parse_constant=_no_constants)["surfaces"] == {"2": [["inf", "nan", "nan", 1.5]]}
