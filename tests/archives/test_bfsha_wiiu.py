"""The corpus Wii U BFSHA, standalone and inside its Yaz0 BFRES (st_BodyB_Ysi.szs).

Oracles: the original bytes, the MANIFEST (FSHA at decompressed offset 0x333000, 0x19300 bytes),
and counts read off the file by hand: models turbo_uber (12 programs, key 5+1 words, 122 static
and 3 dynamic options) and turbo_uber_xlu (4 programs, key 6+1, 129 + 3), 25 distinct GX2 structs.
"""

from __future__ import annotations

import hashlib
import struct

import pytest

from conftest import corpus_root
from shaderkit.formats.archive import yaz0
from shaderkit.formats.archive.path import resolve, split, walk, write_back
from shaderkit.formats.bfres.wiiu import WiiUBfres
from shaderkit.formats.bfsha.wiiu import LookupFailed, WiiUBfsha

BFSHA_SHA256 = "bf22216a765aa5c67fbc6cf4af5908f2bd2b828b8382598fc30e9d6bc3e7b0d1"
SZS_SHA256 = "03aa319afcf1386547e450d1d5fdfa2fbad97d7d571c88a204799af630436637"
MODELS = {"turbo_uber": (12, 5, 1, 122, 3), "turbo_uber_xlu": (4, 6, 1, 129, 3)}


@pytest.fixture(scope="module")
def files() -> tuple[bytes, bytes]:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found: set SHADERKIT_CORPUS or place it at ../shared/corpus")
    szs = (root / "wiiu" / "st_BodyB_Ysi.szs").read_bytes()
    bfsha = (root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha").read_bytes()
    assert hashlib.sha256(szs).hexdigest() == SZS_SHA256
    assert hashlib.sha256(bfsha).hexdigest() == BFSHA_SHA256
    return szs, bfsha


def test_standalone_parses_and_rebuilds(files: tuple[bytes, bytes]) -> None:
    _, data = files
    archive = WiiUBfsha.from_bytes(data)
    assert archive.name == "Turbo_UBER" and archive.version == (3, 4, 0, 2)
    got = {m.name: (len(m.programs), m.static_key_length, m.dynamic_key_length,
                    len(m.static_options), len(m.dynamic_options)) for m in archive.models}
    assert got == MODELS
    assert len(archive.shaders) == 25
    assert archive.code_regular and archive.code_start == 0xF500
    assert archive.to_bytes() == data


def test_inside_the_szs(files: tuple[bytes, bytes]) -> None:
    szs, data = files
    fres = yaz0.decompress(szs)
    assert fres[0x333000 : 0x333000 + 0x19300] == data  # the MANIFEST's cut
    steps, inner = resolve(szs, ["Turbo_UBER.bfsha"])
    assert inner == data
    assert write_back(steps, inner) == szs  # unchanged member: the original stream comes back
    assert WiiUBfres.from_bytes(fres).to_bytes() == fres


def test_every_program_reachable_by_path_and_lookup(files: tuple[bytes, bytes]) -> None:
    szs, data = files
    archive = WiiUBfsha.from_bytes(data)
    stage_paths = [item.path for item in walk(szs, "x.szs") if item.format == "gx2-microcode"]
    assert len(stage_paths) == 2 * (12 + 4)
    inner = resolve(szs, ["Turbo_UBER.bfsha"])[1]
    for model in archive.models:
        for program in model.programs:
            for stage in ("vertex", "pixel"):
                path = f"x.szs//Turbo_UBER.bfsha//{model.name}/{program.index}/{stage}"
                assert path in stage_paths
                _, code = resolve(inner, split(path)[1][1:])
                assert code == archive.program_shaders(model.name, program.index)[stage].program
                assert len(code) > 0
            # lookup: the program's own option choices lead back to it by its exact key
            assert model.find_program(model.program_choices(program.index)) == (program.index, "exact key")


def test_lookup_errors(files: tuple[bytes, bytes]) -> None:
    archive = WiiUBfsha.from_bytes(files[1])
    model = archive.model("turbo_uber")
    with pytest.raises(LookupFailed, match="no choice 'x'"):
        model.find_program({"gsys_assign_type": "x"})
    with pytest.raises(LookupFailed, match="no option 'nope'"):
        model.find_program({"nope": "1"})
    with pytest.raises(LookupFailed, match="no shading model"):
        archive.model("missing")


def _members(bfsha: bytes) -> dict[str, bytes]:
    return {item.path: item.data for item in walk(bfsha, "")}


def _edit_and_compare(szs: bytes, bfsha: bytes, member: str, new_code: bytes) -> tuple[bytes, bytes]:
    """Write ``new_code`` into the SZS; the reopened archive differs in that member only."""
    steps, _ = resolve(szs, split(member)[1])
    out = write_back(steps, new_code)
    inner = resolve(out, ["Turbo_UBER.bfsha"])[1]
    before, after = _members(bfsha), _members(inner)
    assert before.keys() == after.keys()
    name = "//" + member.split("//", 2)[2]
    assert {k for k in before if before[k] != after[k]} == {name}
    assert after[name] == new_code
    return out, inner


def test_edit_one_program_same_size(files: tuple[bytes, bytes]) -> None:
    szs, data = files
    member = "x.szs//Turbo_UBER.bfsha//turbo_uber/8/vertex"  # a VS no other program shares
    old = WiiUBfsha.from_bytes(data).program_shaders("turbo_uber", 8)["vertex"].program
    new_code = old[:-8] + b"\x80\0\0\0\0\0\0\0"
    _, inner = _edit_and_compare(szs, data, member, new_code)
    assert len(inner) == len(data)
    assert sum(a != b for a, b in zip(inner, data)) <= 8


def test_edit_one_program_new_size(files: tuple[bytes, bytes]) -> None:
    szs, data = files
    member = "x.szs//Turbo_UBER.bfsha//turbo_uber/0/pixel"
    old = WiiUBfsha.from_bytes(data).program_shaders("turbo_uber", 0)["pixel"].program
    new_code = old + bytes(0x400)
    out, inner_bytes = _edit_and_compare(szs, data, member, new_code)
    inner = WiiUBfsha.from_bytes(inner_bytes)
    assert inner.code_regular and len(inner.data) == len(data) + 0x400
    fres = WiiUBfres.from_bytes(yaz0.decompress(out))
    assert [f.name for f in fres.external_files] == ["Turbo_UBER.bfsha"]


def test_material_shader_references(files: tuple[bytes, bytes]) -> None:
    szs, data = files
    fres = WiiUBfres.from_bytes(yaz0.decompress(szs))
    assert fres.materials_error == ""
    got = {(m.model, m.material): (m.shader_archive, m.shading_model) for m in fres.materials}
    assert got == {
        ("ArmB_YsiL", "m_Arm"): ("Turbo_UBER", "turbo_uber"),
        ("ArmB_YsiM", "m_Arm"): ("Turbo_UBER", "turbo_uber"),
        ("ArmB_YsiS", "m_Arm"): ("Turbo_UBER", "turbo_uber"),
        ("BodyB_Ysi", "m_Body"): ("Turbo_UBER", "turbo_uber"),
        ("BodyB_Ysi", "m_Glass"): ("Turbo_UBER", "turbo_uber_xlu"),
        ("BodyB_Ysi", "m_Light"): ("Turbo_UBER", "turbo_uber"),
    }
    archive = WiiUBfsha.from_bytes(data)
    programs = dict(zip([(m.model, m.material) for m in fres.materials], fres.material_programs()))
    assert programs[("BodyB_Ysi", "m_Body")] == "Turbo_UBER.bfsha//turbo_uber/8"
    assert programs[("BodyB_Ysi", "m_Light")] == "Turbo_UBER.bfsha//turbo_uber/4"
    for material in fres.materials:
        path = programs[(material.model, material.material)]
        if "//" not in path:
            continue
        model = archive.model(material.shading_model)
        chosen = model.program_choices(int(path.rsplit("/", 1)[1]))
        # every option the material sets and the model knows agrees with the program's key
        assert all(chosen[k] == v for k, v in material.options.items() if k in chosen)


def test_typed_edits_are_written_back(files: tuple[bytes, bytes]) -> None:
    _, data = files
    archive = WiiUBfsha.from_bytes(data)
    model = archive.model("turbo_uber_xlu")
    shader = archive.program_shaders("turbo_uber_xlu", 3)["pixel"]
    shader.mode = 0
    shader.regs.sq_pgm_resources_ps ^= 1
    option = model.dynamic_options[0]
    option.default_choice = 2
    model.key_table[3][-1] = option.put(model.key_table[3][-1], 4)
    out = archive.to_bytes()
    assert len(out) == len(data)
    again = WiiUBfsha.from_bytes(out)
    edited = again.program_shaders("turbo_uber_xlu", 3)["pixel"]
    assert edited.mode == 0 and edited.regs.sq_pgm_resources_ps == shader.regs.sq_pgm_resources_ps
    assert again.model("turbo_uber_xlu").dynamic_options[0].default_choice == 2
    assert again.model("turbo_uber_xlu").program_choices(3)["gsys_assign_type"] == "gsys_assign_xlu_zprepass"
    # 4 bytes of mode, 4 of the register, 1 option byte, 4 key bytes at most
    assert sum(a != b for a, b in zip(out, data)) <= 13
    summary = again.summary()["models"][1]["options"]["gsys_assign_type"]
    assert summary == {"choices": option.choices, "default": "gsys_assign_gbuffer", "dynamic": True}


def _geometry_archive() -> tuple[bytes, int]:
    """A bare archive image with one GX2GeometryShader struct at 0x100 (GX2 layout: registers,
    program size and offset, copy program size and offset, mode, then the arrays), its program at
    0x200 and its copy program at 0x300 (alignment 0x100)."""
    from shaderkit.formats.gx2.types import GX2GeometryShaderRegs

    nregs = GX2GeometryShaderRegs.word_count()
    data = bytearray(0x400)
    struct.pack_into(">4sI", data, 0, b"FSHA", 0)
    struct.pack_into(">I", data, 0xC, len(data))
    size_at = 0x100 + 4 * nregs
    struct.pack_into(">IiIiI", data, size_at, 0x20, 0x200 - (size_at + 4), 0x40, 0x300 - (size_at + 12), 3)
    struct.pack_into(">I", data, size_at + 20, 0x5A5A5A5A)  # first word after mode
    data[0x200:0x220] = bytes(range(1, 0x21))
    data[0x300:0x340] = bytes(range(0x80, 0xC0))
    return bytes(data), size_at


def test_geometry_shader_reads_mode_after_its_copy_program() -> None:
    from shaderkit.formats.bfsha.wiiu import WiiUBfsha, _read_gx2
    from shaderkit.io.reader import Reader

    data, size_at = _geometry_archive()
    gs = _read_gx2(Reader(data, endian=">"), 0x100, "geometry")
    assert gs.mode == 3 and gs.tail_words[0] == 0x5A5A5A5A
    assert gs.program == bytes(range(1, 0x21)) and gs.copy_program == bytes(range(0x80, 0xC0))
    assert (gs.code_offset, gs.copy_code_offset) == (0x200, 0x300)
    assert gs.summary()["copy_program_size"] == 0x40
    archive = WiiUBfsha("a", "", (3, 4, 0, 2), 0x100, [], [gs], data)
    archive._check_code_layout()
    assert archive.code_regular and archive.to_bytes() == data
    # a copy program grown by 0x100 bytes moves nothing before it; the program keeps its place
    gs.copy_program = bytes(range(0x80, 0xC0)) + bytes(0x100)
    out = archive.to_bytes()
    assert len(out) == 0x500 and struct.unpack_from(">I", out, 0xC)[0] == 0x500
    again = _read_gx2(Reader(out, endian=">"), 0x100, "geometry")
    assert again.mode == 3 and again.program == gs.program and again.copy_program == gs.copy_program
    assert struct.unpack_from(">I", out, size_at + 8)[0] == 0x140
