"""A Wii U BFSHA member ``x.bfsha//MODEL/PROGRAM/STAGE`` (bare Latte microcode) opens as a typed
model for every verb: info (+ --json and its schema), disasm (+ --offsets --raw), cfg, verify, run,
asm --base; ``run x.bfsha --shader N`` runs the archive's shaders[N].

Oracles: the member bytes as ``get`` gives them (the file's bytes: each listing assembles back to
them), the whole-archive listing (the member's text is its section for that struct), and run
outputs worked out by hand from the two smallest programs' listings (see the run tests).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import corpus_root, run_cli
from shaderkit.cli.checks import FAILED, check_model
from shaderkit.formats.archive.path import walk
from shaderkit.formats.bfsha.wiiu import WiiUBfsha
from shaderkit.formats.bfsha.wiiu_stage import WiiUBfshaStage
from shaderkit.formats.gx2.listing import split_programs
from shaderkit.isa.latte import assemble

#: ``sk("info", PATH)``: (exit status, stdout, stderr)
Sk = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def files() -> tuple[Path, Path]:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found: set SHADERKIT_CORPUS or place it at ../shared/corpus")
    return root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha", root / "wiiu" / "st_BodyB_Ysi.szs"


def _members(path: Path) -> list[tuple[str, bytes]]:
    return [(item.path, item.data) for item in walk(path.read_bytes(), str(path)) if item.format == "gx2-microcode"]


@pytest.fixture
def sk(capsys: pytest.CaptureFixture[str]) -> Sk:
    """``shaderkit ARGS...`` through the console entry point: (exit status, stdout, stderr)."""
    return lambda *args: run_cli(capsys, *args)


def test_every_member_reads_with_every_verb(files: tuple[Path, Path], sk: Sk) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from shaderkit.schemas import schema_for

    standalone, szs = files
    members = _members(standalone) + _members(szs)
    assert len(members) == 64  # 12 + 4 programs with a vertex and a pixel stage, in each file
    for path, code in members:
        name = path.rsplit("//", 1)[1]
        model_name, program, stage = name.split("/")
        status, out, err = sk("info", "--json", path)
        assert status == 0, err
        record = json.loads(out)
        assert (record["format"], record["member"], record["stage"], record["program_size"]) == \
            ("gx2-microcode", name, stage, len(code))
        assert f"{model_name}/{program}" in record["used_by"]
        assert not list(jsonschema.Draft202012Validator(schema_for(record)).iter_errors(record))
        assert sk("info", path)[0] == 0
        status, text, err = sk("disasm", path)
        assert status == 0, err
        assert f"; ==== shaders[{record['shader_index']}]: {stage} shader (" in text
        (program_text,) = split_programs(text)
        assert assemble(program_text) == code  # the oracle: the member's bytes in the file
        status, annotated, err = sk("disasm", "--offsets", "--raw", path)
        assert status == 0 and "/*0000*/" in annotated, err
        status, graph, err = sk("cfg", path)
        assert status == 0 and graph.startswith("digraph"), err
        status, out, err = sk("verify", path)
        assert status == 0 and out.strip() == "1 passed, 0 failed", (out, err)


def test_member_reflection(files: tuple[Path, Path], sk: Sk) -> None:
    # the vertex stage of turbo_uber/1 (disasm's reflection lines: gsys_context at 2, gsys_shape at
    # 1, attribute _p0 float3 at location 0)
    record = json.loads(sk("info", "--json", f"{files[0]}//turbo_uber/1/vertex")[1])
    assert record["shader_index"] == 2 and record["mode_name"] == "uniform_block"
    assert record["used_by"] == ["turbo_uber/1", "turbo_uber/5", "turbo_uber/9"]
    assert [(b["name"], b["location"], b["size"]) for b in record["uniform_blocks"]] == \
        [("gsys_context", 2, 2236), ("gsys_shape", 1, 96)]
    assert [(a["name"], a["type"], a["location"]) for a in record["attributes"]] == [("_p0", "float3", 0)]


@pytest.mark.parametrize("member, message", [
    ("turbo_uber/99/pixel", "has programs 0..11, not 99"),
    ("nope/0/pixel", "no shading model 'nope'"),
    ("turbo_uber/1/hull", "has stages vertex, pixel, not 'hull'"),
    ("turbo_uber/x", "is not MODEL/PROGRAM/STAGE"),
])
def test_damaged_member_path_is_one_line(files: tuple[Path, Path], member: str, message: str, sk: Sk) -> None:
    for verb in ("info", "disasm", "cfg", "run"):
        status, out, err = sk(verb, f"{files[0]}//{member}")
        assert status == 2 and out == "", (verb, out)
        assert len(err.splitlines()) == 1 and message in err, (verb, err)


def test_verify_fails_on_microcode_that_does_not_decode(files: tuple[Path, Path]) -> None:
    archive = WiiUBfsha.from_bytes(files[0].read_bytes())
    stage = WiiUBfshaStage.of_member(archive, "turbo_uber/1/pixel")
    assert check_model(stage.code, stage) == ("passed", "")
    stage.code = bytes(range(40))  # its first CF word points past the end of the program
    status, reason = check_model(stage.code, stage)
    assert status == FAILED and "does not decode" in reason
    with pytest.raises(Exception, match="bare Latte microcode has no header"):
        WiiUBfshaStage.from_bytes(stage.code)


def _run(sk: Sk, *args: str) -> dict:
    status, out, err = sk("run", *args)
    assert status == 0, err
    return json.loads(out)


#: turbo_uber/2/pixel (disasm shaders[5]): interpolants R0 (texcoord), R1 (tangent, w the sign),
#: R2 (normal), for two lanes
PIXEL_INPUTS = {"R0": [[0.5, 0.5, 0, 0]] * 2, "R1": [[1, 0, 0, 1], [1, 0, 0, -1]], "R2": [[0, 0, 1, 0]] * 2}
#: gsys_material (location 2 = CB2, read as KC0[n]): row 8.x = 0.25, the rest 0
MATERIAL = ["--uniform", "gsys_material=" + ",".join(["0"] * 32 + ["0.25"])]


def _texture(tmp_path: Path, texel: list[float]) -> str:
    """A 2x2 texture of one ``texel``, saved."""
    import numpy as np

    return _save(tmp_path, f"t{texel}", np.tile(np.asarray(texel, np.float32), (2, 2, 1)))


def _pixel_run(sk: Sk, tmp_path: Path, target: list[str], *texture: str) -> list[list[float]]:
    inputs = tmp_path / "pixel.json"
    inputs.write_text(json.dumps(PIXEL_INPUTS))
    result = _run(sk, *target, "--inputs", str(inputs), *MATERIAL, *texture)
    assert result["killed"] == [False, False]
    return result["exports"]["PIX0"]  # type: ignore[no-any-return]


def test_run_pixel_member_by_hand(files: tuple[Path, Path], tmp_path: Path, sk: Sk) -> None:
    # turbo_uber/2/pixel (672 bytes): TEX "SAMPLE R0.xy__, R0.xy0x, t8, s8" (sampler _n0, location
    # 8) puts the texel's (x, y) = (tx, ty) in R0.xy; the ALU clause (KCACHE0 = CB2 = gsys_material)
    # then, with the inputs above, lane 0 (R1 = (1, 0, 0, 1), R2 = (0, 0, 1, 0)) and tx = 0, ty = 1:
    #   1: PV.y = R1.x*R2.z = 1, PV.z = tx*tx = 0, R127.y = R1.x*tx = 0 (PV.x = PV.w = 0)
    #   2: R123.y = ty*ty + 0 = 1, R123.z = -R1.z*R2.x + 1 = 1, R123.x = R123.w = 0, R127.x = R1.y*tx = 0
    #   3: PV.x = clamp(1 - 1) = 0, PV.w = R1.w*R123.z = 1, PV.y = PV.z = PS = 0
    #   4: R123.y = ty*1 + 0 = 1, R123.z = ty*0 + 0 = 0, R123.w = 0, PS = sqrt(0) = 0
    #   5: R127.xyz = R2.xyz*0 + (0, 1, 0) = (0, 1, 0); R2.w = KC0[8].x = 0.25
    #   6-7: DOT4 = 1, PS = rsqrt(1) / 2 = 0.5;  8: PV = R127.zyx * 0.5 = (0, 0.5, 0)
    #   9: R2.xyz = PV.zyx + 0.5
    #   PIX0 = (0.5, 1.0, 0.5, 0.25)
    # lane 1 (R1.w = -1): 3: PV.w = -1; 4: R123.y = -1; 5: R127 = (0, -1, 0); PIX0 = (0.5, 0.0, 0.5, 0.25)
    texture = ["--texture", f"_n0={_texture(tmp_path, [0, 1, 0, 0])}"]
    for target in ([f"{files[0]}//turbo_uber/2/pixel"], [str(files[0]), "--shader", "5"],
                   [f"{files[1]}//Turbo_UBER.bfsha//turbo_uber/2/pixel"]):
        assert _pixel_run(sk, tmp_path, target, *texture) == [[0.5, 1.0, 0.5, 0.25], [0.5, 0.0, 0.5, 0.25]]


#: gsys_shape rows 0-2 (the 3x4 world matrix the program reads as KC0[0..2]) and gsys_context rows
#: 0-2 (view) and 7-10 (projection), read as KC1[n]; the other rows 0
SHAPE = [1, 0, 0, 10, 0, 2, 0, 0, 0, 0, 1, 0]
CONTEXT = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -5] + [0] * 16 + [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0]


def test_run_vertex_member_by_hand(files: tuple[Path, Path], tmp_path: Path, sk: Sk) -> None:
    # turbo_uber/1/vertex (704 bytes; disasm shaders[2]): _p0 (location 0 = semantic 0 -> R1);
    # KC0 = CB1 = gsys_shape, KC1 = CB2 = gsys_context. Groups 0-4 compute world = rows 0-2 of
    # gsys_shape . (p, 1) (the .w terms through "KC0[n].w * 1.0"); groups 5-7 view = DOT4 of
    # (world, 1) with KC1[0..2]; groups 8-11 R1 = DOT4 of (view, 1) with KC1[7..10]; POS0 = R1.
    # p = (1, 2, 3): world = (1 + 10, 2 * 2, 3) = (11, 4, 3); view = (11, 4, 3 - 5) = (11, 4, -2);
    # clip = (11, 4, -2, -(-2)) = (11, 4, -2, 2). p = 0: world (10, 0, 0), view (10, 0, -5),
    # clip (10, 0, -5, 5).
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"_p0": [[1, 2, 3, 1], [0, 0, 0, 1]]}))
    uniforms = ["--uniform", "gsys_shape=" + ",".join(map(str, SHAPE)),
                "--uniform", "gsys_context=" + ",".join(map(str, CONTEXT))]
    for target in ([f"{files[0]}//turbo_uber/1/vertex"], [str(files[0]), "--shader", "2"],
                   [f"{files[1]}//Turbo_UBER.bfsha//turbo_uber/5/vertex"]):
        result = _run(sk, *target, "--inputs", str(inputs), *uniforms)
        assert result["exports"]["POS0"] == [[11.0, 4.0, -2.0, 2.0], [10.0, 0.0, -5.0, 5.0]]


def test_run_names_the_blocks_it_knows(files: tuple[Path, Path], sk: Sk) -> None:
    status, out, err = sk("run", str(files[0]), "--shader", "2", "--uniform", "nope=1")
    assert status == 2 and "gsys_context (block)" in err and "gsys_shape (block)" in err
    status, out, err = sk("run", str(files[0]), "--shader", "25")
    assert status == 2 and "the file has 25 shader programs" in err


def test_edited_member_listing_goes_back_into_the_archive(files: tuple[Path, Path], tmp_path: Path, sk: Sk) -> None:
    member = f"{files[0]}//turbo_uber/1/vertex"
    text = sk("disasm", member)[1]
    listing = tmp_path / "m.asm"
    listing.write_text(text)
    out = tmp_path / "same.bfsha"
    assert sk("asm", str(listing), "--base", member, "-o", str(out))[0] == 0
    assert out.read_bytes() == files[0].read_bytes()
    assert text.count("(0x3F800000, 1)") == 2
    listing.write_text(text.replace("(0x3F800000, 1)", "(0x40000000, 2)"))
    assert sk("asm", str(listing), "--base", member, "-o", str(out))[0] == 0
    before, after = WiiUBfsha.from_bytes(files[0].read_bytes()), WiiUBfsha.from_bytes(out.read_bytes())
    assert [i for i, (a, b) in enumerate(zip(before.shaders, after.shaders)) if a.program != b.program] == [2]
    assert after.shaders[2].program == before.shaders[2].program.replace(
        (0x3F800000).to_bytes(4, "little"), (0x40000000).to_bytes(4, "little"))


def test_geometry_and_copy_members(files: tuple[Path, Path]) -> None:
    # no corpus archive has a geometry shader: one built here from two of the corpus programs (the
    # 304-byte pixel program as the GS, the 704-byte vertex program as its copy program); the
    # whole archive's section of the GS struct is the geometry member's text, a blank line, then the
    # copy member's text (its own title line)
    from shaderkit.formats.archive.path import BfshaNode
    from shaderkit.formats.bfsha.wiiu import ResourceVar, ShaderProgram, ShadingModel, WiiUGX2Shader
    from shaderkit.formats.gx2.programs import gx2_listing, latte_codes
    from shaderkit.formats.gx2.types import GX2GeometryShaderRegs, GX2VertexShaderRegs

    corpus = WiiUBfsha.from_bytes(files[0].read_bytes())
    gs_code, copy_code, vs_code = corpus.shaders[3].program, corpus.shaders[2].program, corpus.shaders[0].program
    vs = WiiUGX2Shader("vertex", GX2VertexShaderRegs(), vs_code, 1)
    gs = WiiUGX2Shader("geometry", GX2GeometryShaderRegs(), gs_code, 2, copy_program=copy_code)
    program = ShaderProgram(0, 0, 1, [0] * 10, [], [(1, 3, -1)], {"vertex": 0, "geometry": 1})
    model = ShadingModel("m", 0, 0, [], [], [ResourceVar("_p0", 0, 0x10, 1, 0)], [],
                         [ResourceVar("blk", 0, 0, size=64)], 0, 0, [program], [[]])
    archive = WiiUBfsha("a", "", (3, 4, 0, 2), 0x100, [model], [vs, gs], b"")
    node = BfshaNode(archive)
    assert node.member_names() == ["m/0/vertex", "m/0/geometry", "m/0/geometry_copy"]
    geometry, copy = node.member_model("m/0/geometry"), node.member_model("m/0/geometry_copy")
    assert (geometry.code, copy.code) == (gs_code, copy_code)
    whole = gx2_listing(archive)
    assert whole is not None
    section = whole[whole.index("; ==== shaders[1]"):]
    assert section == geometry.disassemble() + "\n" + copy.disassemble()
    assert copy.disassemble().startswith("; ==== shaders[1]: geometry shader (m/0): copy (vertex) program ====\n\n")
    assert [title for title, _ in latte_codes(copy)] == ["shaders[1]: geometry shader (m/0): copy (vertex) program"]
    assert geometry.problems() == [] and copy.problems() == []
    # the block is at location 3 for the GS (the middle of the VS, GS, PS triple), the VS has it at 1
    assert [(b.name, b.location) for b in geometry.reflection()["uniform_blocks"]] == [("blk", 3)]
    assert [(b.name, b.offset) for b in node.member_model("m/0/vertex").vm_shader().uniform_blocks] == [("blk", 1)]
    assert copy.reflection() == {"samplers": [], "uniform_blocks": [], "attributes": []}
    assert copy.vm_shader().program == copy_code and geometry.vm_shader().program == gs_code
    record = copy.summary()
    assert record["stage"] == "geometry_copy" and "cemu_base_hash" not in record and "attributes" not in record
    # the whole archive's listing now carries the copy program, and an edit of it goes back into it
    from shaderkit.formats.gx2.programs import apply_listing

    assert apply_listing(archive, whole) == 0 and gs.copy_program == copy_code
    head, _, tail = whole.partition(": copy (vertex) program ====")
    assert "(0x3F800000, 1)" in tail
    assert apply_listing(archive, head + ": copy (vertex) program ====" + tail.replace("(0x3F800000, 1)", "(0x40000000, 2)")) == 1
    assert gs.program == gs_code and gs.copy_program == copy_code.replace(
        (0x3F800000).to_bytes(4, "little"), (0x40000000).to_bytes(4, "little"))


def test_run_texture_by_sampler_name(files: tuple[Path, Path], sk: Sk, tmp_path: Path) -> None:
    # turbo_uber/2/pixel samples t8 (its listing: "SAMPLE R0.xy__, R0.xy0x, t8, s8"); the reflection
    # puts sampler _n0 at location 8, so --texture _n0=... is the texture it reads. With texel
    # (tx, ty) = (1, 0), lane 0 of test_run_pixel_member_by_hand's inputs works out as:
    #   1: PV.y = 1, PV.z = tx*tx = 1, R127.y = R1.x*tx = 1;  2: R123.y = 0 + 1 = 1, R123.z = 1, R127.x = 0
    #   3: PV.x = clamp(1 - 1) = 0, PV.w = 1;  4: R123.y = ty*1 + R127.x = 0, R123.z = ty*0 + R127.y = 1,
    #   R123.w = 0, PS = 0;  5: R127.xyz = (1, 0, 0);  6-8: DOT4 = 1, PS = 0.5, PV = R127.zyx * 0.5 = (0, 0, 0.5)
    #   9: PIX0.xyz = PV.zyx + 0.5 = (1.0, 0.5, 0.5), w = gsys_material row 8.x = 0.25
    member = f"{files[0]}//turbo_uber/2/pixel"
    status, _, err = sk("run", member)
    assert status == 2 and "t8" in err
    texture = _texture(tmp_path, [1, 0, 0, 0])
    by_name = _pixel_run(sk, tmp_path, [member], "--texture", f"_n0={texture}")
    assert by_name[0] == [1.0, 0.5, 0.5, 0.25]
    assert _pixel_run(sk, tmp_path, [member], "--texture", f"t8={texture}") == by_name
    status, _, err = sk("run", member, "--texture", f"_b1={texture}")  # location 6: t8 still missing
    assert status == 2 and "t8" in err
    status, _, err = sk("run", member, "--texture", f"nope={texture}")
    assert status == 2 and "_n0" in err


def test_run_shader_numbers_as_disasm_with_an_empty_struct(files: tuple[Path, Path], tmp_path: Path, sk: Sk) -> None:
    # struct 0's microcode emptied: --shader N is still disasm's shaders[N] (no shift of the
    # others), and shaders[0] is refused by name rather than skipped
    archive = WiiUBfsha.from_bytes(files[0].read_bytes())
    archive.shaders[0].program = b""
    emptied = tmp_path / "emptied.bfsha"
    emptied.write_bytes(archive.to_bytes())
    assert "shaders[2]: vertex shader" in sk("disasm", str(emptied))[1]
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"_p0": [[1, 2, 3, 1]]}))
    uniforms = ["--uniform", "gsys_shape=" + ",".join(map(str, SHAPE)),
                "--uniform", "gsys_context=" + ",".join(map(str, CONTEXT))]
    result = _run(sk, str(emptied), "--shader", "2", "--inputs", str(inputs), *uniforms)
    assert result["exports"]["POS0"] == [[11.0, 4.0, -2.0, 2.0]]  # as test_run_vertex_member_by_hand
    status, _, err = sk("run", str(emptied), "--shader", "0")
    assert status == 2 and "no program" in err


def _save(tmp_path: Path, name: str, array: object) -> str:
    import numpy as np

    path = tmp_path / f"{name}.npy"
    np.save(path, np.asarray(array, np.float32))
    return str(path)


def test_run_cube_array_member_by_hand(files: tuple[Path, Path], tmp_path: Path, sk: Sk) -> None:
    # turbo_uber/0/pixel (2272 bytes; disasm shaders[1]) samples gsys_cube_map (t0) twice at the
    # same coordinates (R9): "SET_CUBEMAP_INDEX R0.wwww; SAMPLE_L R8" and "SET_CUBEMAP_INDEX
    # R4.wwww; SAMPLE_L R9" (TEX clause 05). Worked through the listing with the uniforms below
    # (CBn = the block at location n: CB2 gsys_material, CB3 gsys_context, CB4 gsys_shape; every
    # row not named is 0), the textures below and interpolants R1 = 0, R2.w = 1, R4 = R6 = (0, 0, 1)
    # (a unit normal and view vector: no 0 * inf), R7.z = 1:
    #   10: R0.w = CB4[5].x = 2, R4.w = CB4[5].y = 0.6: the cube indexes (2; 0.6 rounds to 1)
    #   S1 = cube 2's texel (21, 22, 23, 1), S2 = cube 1's (11, 12, 13, 1) (each cube one colour)
    #   43-47: the LOG/EXP pairs give 1 (CB3[75].y = 0), so PV46.w = PV47.w = a = CB3[75].x = 2:
    #          R8.zyx -> a * S1.xyz; 48: R9.wzy = a * (S2.xyz - S1.xyz)
    #   52: PV52.xwz = R9.wzy * b + a * S1.xyz = a * (b * S2 + (1 - b) * S1).xyz, b = CB4[5].z = 0.25
    #   53: + t2's texel (0) * R3.y; 54: * R2.w, R6.z, R5.y = t9.x (1) * CB2[24].xyz (1) * CB2[24].w
    #       (1) * c, c = CB3[78].x = 1.5 (R2.z, R8.w, R7.z are 0: CB3[73] = 0)
    #   55-62: R3.x = R4.w = R0.w = 1 and R3.w = R6.y = 0 (CB2[40].w = CB3[77].x = 0), R1 = 0:
    #       R11.xyz = PV54.ywx; R11.w = 1 (group 23)
    #   PIX0 = a * c * (0.25 * (11, 12, 13) + 0.75 * (21, 22, 23)) = 3 * (18.5, 19.5, 20.5)
    #        = (55.5, 58.5, 61.5, 1). Sampling cube 0 both times (the instruction ignored, as
    #        decaf does) would give 3 * (1, 2, 3) = (3, 6, 9).
    import numpy as np

    cubes = np.zeros((18, 2, 2, 4), np.float32)
    for k in range(3):
        cubes[6 * k:6 * k + 6] = [10 * k + 1, 10 * k + 2, 10 * k + 3, 1]
    zero, zero_cube = _save(tmp_path, "zero", np.zeros((2, 2, 4))), _save(tmp_path, "zc", np.zeros((6, 2, 2, 4)))
    context, material, shape = [0.0] * 316, [0.0] * 100, [0.0] * 24
    context[300], context[312] = 2, 1.5  # rows 75.x and 78.x
    material[96:100] = [1, 1, 1, 1]  # row 24
    shape[20:23] = [2, 0.6, 0.25]  # row 5
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"R0": [[0.5, 0.5, 0, 0]], "R1": [[0, 0, 0, 0]], "R2": [[0, 0, 0, 1]],
                                  "R3": [[1, 0, 0, 1]], "R4": [[0, 0, 1, 0]], "R5": [[0.5, 0.5, 0, 0]],
                                  "R6": [[0, 0, 1, 0]], "R7": [[0, 0, 1, 0]]}))
    args = ["--inputs", str(inputs),
            "--uniform", "gsys_context=" + ",".join(map(str, context)),
            "--uniform", "gsys_material=" + ",".join(map(str, material)),
            "--uniform", "gsys_shape=" + ",".join(map(str, shape)),
            "--texture", f"gsys_cube_map:cube_array={_save(tmp_path, 'env', cubes)}",
            "--texture", f"gsys_lightmap_diffuse:cube={zero_cube}",
            "--texture", f"_s0={_save(tmp_path, 'one', np.ones((2, 2, 4)))}"]
    for name in ("_a0", "_n0", "_b0", "gsys_static_depth_shadow", "gsys_projection0", "gsys_light_prepass"):
        args += ["--texture", f"{name}={zero}"]
    for target in ([f"{files[0]}//turbo_uber/0/pixel"], [str(files[0]), "--shader", "1"],
                   [f"{files[1]}//Turbo_UBER.bfsha//turbo_uber/0/pixel"]):
        assert _run(sk, *target, *args)["exports"]["PIX0"] == [[55.5, 58.5, 61.5, 1.0]]


def test_run_texture_kind_errors(files: tuple[Path, Path], tmp_path: Path, sk: Sk) -> None:
    import numpy as np

    member = f"{files[0]}//turbo_uber/0/pixel"
    seven = _save(tmp_path, "seven", np.zeros((7, 2, 2, 4)))
    status, _, err = sk("run", member, "--count", "1", "--texture", f"gsys_cube_map:cube_array={seven}")
    assert status == 2 and "6 faces per cube, not 7" in err and "gsys_cube_map:cube_array" in err
    status, _, err = sk("run", member, "--count", "1", "--texture", f"t0:sphere={seven}")
    assert status == 2 and "texture kind 'sphere': expected one of 1d, 2d, 2d_array, 3d, cube, cube_array" in err
    status, _, err = sk("run", member, "--count", "1", "--texture", f"nope:cube={seven}")
    assert status == 2 and "expected t<ID> or ID, or a sampler name (" in err


CUBE_PSH = """; $MODE = "UniformRegister"
; $SAMPLER_VARS[0].name = "env"
; $SAMPLER_VARS[0].type = "SAMPLERCUBE"
; $SAMPLER_VARS[0].location = 0
; $NUM_SPI_PS_INPUT_CNTL = 1
; $SPI_PS_INPUT_CNTL[0].SEMANTIC = 0
; $SPI_PS_INPUT_CNTL[0].DEFAULT_VAL = 1

00 TEX: ADDR(32) CNT(1) VALID_PIX
       0  SAMPLE R0, R0.xyzx, t0, s0
01 EXP_DONE: PIX0, R0
END_OF_PROGRAM
"""


def _sampling_gsh(tmp_path: Path, sk: Sk, sampler_type: str) -> Path:
    """CUBE_PSH with sampler ``env`` of ``sampler_type``, assembled to a GSH."""
    source = tmp_path / "env.psh"
    source.write_text(CUBE_PSH.replace('"SAMPLERCUBE"', f'"{sampler_type}"'))
    gsh = tmp_path / "env.gsh"
    status, _, err = sk("asm", str(source), "-o", str(gsh))
    assert status == 0, err
    return gsh


def _slices(tmp_path: Path, count: int) -> str:
    """``count`` 2x2 slices (faces or layers) whose every texel in slice k reads k + 1, saved."""
    import numpy as np

    return _save(tmp_path, "slices", np.arange(1, count + 1, dtype=np.float32)[:, None, None, None]
                 * np.ones((count, 2, 2, 4), np.float32))


def test_run_takes_a_samplers_kind_from_its_declared_type(tmp_path: Path, sk: Sk) -> None:
    gsh = _sampling_gsh(tmp_path, sk, "SAMPLERCUBE")
    cube = _slices(tmp_path, 6)  # every texel of face k reads k + 1
    inputs = tmp_path / "in.json"
    # CUBE + MULADD leave face coordinates in [1, 2] and the face in z: face 2 (+Y) for this lane
    inputs.write_text(json.dumps({"R0": [[1.25, 1.25, 2, 0]]}))
    for spec in ("env", "t0", "0"):  # a samplerCube: a cube map without :cube
        out = _run(sk, str(gsh), "--inputs", str(inputs), "--texture", f"{spec}={cube}")
        assert out["exports"]["PIX0"] == [[3, 3, 3, 3]], spec
    status, _, err = sk("run", str(gsh), "--inputs", str(inputs), "--texture", f"env:2d={cube}")
    assert status == 2 and "does not fit" in err  # an explicit kind still wins (and (6, 2, 2, 4) is no 2D image)


def test_run_takes_a_2d_array_kind_from_sampler_type_10(tmp_path: Path, sk: Sk) -> None:
    gsh = _sampling_gsh(tmp_path, sk, "SAMPLER2DARRAY")
    # GX2SamplerVarType 2D_ARRAY is 10 (the public GX2 readers' enum): the GX2SamplerVar's type word
    # (name offset, type, location: big-endian) sits right before its location 0
    data = gsh.read_bytes()
    assert b"\x00\x00\x00\x0a\x00\x00\x00\x00" in data and b"\x00\x00\x00\x04\x00\x00\x00\x00" not in data
    texture = _slices(tmp_path, 3)  # every texel of layer k reads k + 1
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"R0": [[0.25, 0.25, 2, 0]]}))  # z: the layer (2 reads 3)
    out = _run(sk, str(gsh), "--inputs", str(inputs), "--texture", f"env={texture}")
    assert out["exports"]["PIX0"] == [[3, 3, 3, 3]]
    status, out_text, _ = sk("disasm", str(gsh))
    assert status == 0 and "type=sampler2DArray" in out_text
