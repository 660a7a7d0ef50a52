"""BNSH files built by shaderkit's own writer: several variations, source and source-array
programs, all six stages, empty reflection, and edits that force a new layout."""

from __future__ import annotations

import struct
import zlib

import pytest

from shaderkit.formats.bnsh.bnsh import Bnsh
from shaderkit.formats.bnsh.model import (
    STAGES,
    MemoryPool,
    NvnShaderCode,
    ReflectionStage,
    ShaderProgram,
    ShaderReflection,
    ShaderVariation,
    SourceArrayCode,
    SourceCode,
)
from shaderkit.formats.bnsh.nvn import NvnCode
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.rlt import RelocationTable
from shaderkit.formats.nn.strpool import read_string
from shaderkit.io.reader import Reader

# SHADER_TYPES of the SPH for vertex, hull (tessellation init), domain, geometry, pixel; compute has no SPH type
SPH_SHADER_TYPE = (1, 2, 3, 4, 5, 1)


def nvn_data(stage: int, code_size: int) -> bytes:
    sph_type = 2 if stage == 4 else 1
    word0 = sph_type | 3 << 5 | SPH_SHADER_TYPE[stage] << 10 | 3 << 17
    sph = struct.pack("<5I", word0, 0, 0, 0, 0) + bytes(0x3C)
    code = bytes((stage * 7 + i) & 0xFF for i in range(code_size))
    return struct.pack("<I", 0x12345678) + bytes(0x2C) + sph + code


def control(stage: int, size: int) -> bytes:
    return struct.pack("<5I", 0x98761234, 1, 0xF, 0x120, 0xB) + bytes([stage + 1]) * (size - 20)


def binary_program(reflection: ShaderReflection | None, sizes: int = 0x40) -> ShaderProgram:
    stages = [NvnShaderCode(control(i, 0x7D1 + 8 * i), nvn_data(i, sizes * (i + 1)), scratch_memory_per_warp=i)
              for i in range(6)]
    return ShaderProgram(flags=3, code_type=0, stages=list(stages), reflection=reflection)


def full_reflection() -> ShaderReflection:
    vertex = ReflectionStage(inputs=[("a_position", 0), ("a_normal", 1), ("a_uv0", 2)], outputs=[("v_uv", -1)],
                             constant_buffers=[("cb_view", 0), ("cb_model", 1)])
    hull = ReflectionStage(inputs=[], outputs=[])  # empty dictionaries
    domain = ReflectionStage(has_slot_array=False)  # no dictionaries at all
    pixel = ReflectionStage(outputs=[("o_color", 0)], samplers=[("s_albedo", 0), ("s_normal", 1)],
                            constant_buffers=[("cb_model", 1)], storage_buffers=[("sb_lights", 2)],
                            images=[("img_out", 3)])
    compute = ReflectionStage(storage_buffers=[("sb_data", 0)], compute_work_group_size=(8, 8, 1))
    return ShaderReflection([vertex, hull, domain, None, pixel, compute])


def make_model() -> Bnsh:
    source = ShaderProgram(flags=2, code_type=2, stages=[
        SourceCode(zlib.compress(b"void main() { gl_Position = vec4(0); }\n" * 4), 4 * 39),
        None, None, None, SourceCode(b"void main() {}\n"), None])
    source_array = ShaderProgram(flags=2, code_type=3, stages=[
        SourceArrayCode([b"#version 450\n", b"void main() {}\n"]), None, None, None, None, None])
    return Bnsh(
        name="synthetic",
        variations=[
            ShaderVariation(binary_program=binary_program(full_reflection())),
            ShaderVariation(source_program=source, binary_program=binary_program(ShaderReflection(), 0x20)),
            ShaderVariation(source_program=source_array),
            ShaderVariation(binary_program=binary_program(None, 0x10)),
        ],
        memory_pool=MemoryPool(),
        compiler_version=0x11502,
        low_level_compiler_version=0x11001800010010,
    )


def test_synthetic_file_parses_back_to_the_same_model() -> None:
    model = make_model()
    data = model.to_bytes()
    back = Bnsh.from_bytes(data)
    assert back == model
    assert back.to_bytes() == data
    assert back.relayout() == data
    assert all(not any(span.data) for span in back.layout().raw)
    assert struct.unpack_from("<I", data, 0x1C)[0] == len(data)
    assert data[:8] == b"BNSH\0\0\0\0" and data[0xC:0xE] == b"\xff\xfe"


def test_layout_rules() -> None:
    data = make_model().to_bytes()
    back = Bnsh.from_bytes(data)
    assert back._source is not None
    lay = {key: (p.offset, len(p.data)) for key, p in back._source.layout.items.items()}
    pool_at, pool_size = back._source.pool_region
    assert pool_at % 4096 == 0 and pool_size % 0x1000 == 0
    data_keys = [k for k in lay if k[0] == "data"]
    assert len(data_keys) == 18  # three binary programs x six stages
    for key in data_keys:
        offset, size = lay[key]
        assert offset % 0x100 == 0 and pool_at <= offset and offset + size <= pool_at + pool_size
    for key, (offset, _) in lay.items():
        if key[0] in ("program", "code", "control", "rstage", "dic", "slots", "pool"):
            assert offset % 8 == 0, key
    str_at = lay[("str",)][0]
    assert data[str_at : str_at + 4] == b"_STR"
    assert lay[("rlt",)][0] % 8 == 0


def test_relocation_table_covers_exactly_the_pointers() -> None:
    data = make_model().to_bytes()
    rlt_at = struct.unpack_from("<I", data, 0x18)[0]
    table = RelocationTable.read(Reader(data), rlt_at)
    assert len(table.sections) == 6
    str_at = data.rfind(b"_STR", 0, rlt_at)
    pool_section = table.sections[4]
    listed: set[int] = set()
    for index, section in enumerate(table.sections):
        for entry in section.entries:
            for pos in entry.pointers():
                (target,) = struct.unpack_from("<Q", data, pos)
                assert 0 < target < len(data)
                if index == 5:
                    assert target >= str_at
                elif index == 4:
                    assert pool_section.position <= target < pool_section.position + pool_section.size
                listed.add(pos)
    # pointers counted from the model by hand:
    # grsc 2; per variation 1 parent + its programs; per program 6 stage slots (set ones) +
    # obj + parent + reflection (if any); NvnShaderCode 2 each; ShaderCode 1; SourceArrayCode 2 + 1 per text;
    # reflection: 1 per present stage; stage: dictionaries + slot array; dictionary: one key per entry + root
    expected = 2 + 4 + 5  # grsc, variation parents, program pointers in variations
    expected += 3 * (6 + 2) + 3 * 6 * 2  # binary programs: stage ptrs, obj, parent; code control+data
    expected += 2 + 1  # reflection pointers of v0 and v1
    expected += 2 + 2 * 1 + 1 * 1 + 2 + 1 * 2 + 1 + 2  # source programs + their code + source array
    refl_stages = 5  # vertex, hull, domain, pixel, compute
    dicts = {"vertex": [3, 1, 2], "hull": [0, 0], "pixel": [1, 2, 1, 1, 1], "compute": [1]}
    expected += refl_stages + sum(len(d) for d in dicts.values()) + 4  # stage ptrs, dict ptrs, slot arrays
    expected += sum(n + 1 for d in dicts.values() for n in d)  # dictionary keys
    expected += 2  # memory pool: pMemory, pMemoryPool
    assert len(listed) == expected


def test_dictionaries_written_can_be_searched() -> None:
    data = make_model().to_bytes()
    r = Reader(data)
    found = 0
    pos = data.find(b"_DIC")
    while pos >= 0:
        entries = dic.read(r, pos, lambda ptr: read_string(r, ptr))
        assert entries[0].key == "" and entries[0].ref_bit == -1
        for index, entry in enumerate(entries[1:], 1):
            assert dic.find(entries, entry.key) == index
        found += 1
        pos = data.find(b"_DIC", pos + 4)
    assert found == 11


def test_source_programs_read_back() -> None:
    back = Bnsh.from_bytes(make_model().to_bytes())
    assert back.extract(1, "vertex", "source") == b"void main() { gl_Position = vec4(0); }\n" * 4
    assert back.extract(1, "pixel", "source") == b"void main() {}\n"
    assert back.extract(2, "vertex", "source") == b"#version 450\n\0void main() {}\n"
    summary = back.summary()
    assert summary["variation_count"] == 4
    rows = [(s["variation"], s["program"], s["stage"]) for s in summary["stages"]]
    assert (0, "binary", "compute") in rows and (1, "source", "vertex") in rows


def test_sph_summary_of_synthetic_stages() -> None:
    back = Bnsh.from_bytes(make_model().to_bytes())
    for index, stage in enumerate(STAGES[:5]):
        code = back.stage_code(0, stage)
        assert isinstance(code, NvnShaderCode)
        sph = NvnCode.from_bytes(code.data).sph
        assert sph.shader_type == SPH_SHADER_TYPE[index]
        assert sph.sph_type == (2 if stage == "pixel" else 1)


@pytest.mark.parametrize("stage", ["vertex", "pixel", "compute"])
def test_replace_changes_the_layout_and_reads_back(stage: str) -> None:
    model = make_model()
    original = Bnsh.from_bytes(model.to_bytes())
    code = original.stage_code(0, stage)
    assert isinstance(code, NvnShaderCode)
    new_data = code.data + bytes(range(256)) * 3
    new_control = code.control[:-5]
    blob = struct.pack("<II", len(new_control), len(new_data)) + new_control + new_data
    original.replace(0, stage, blob)
    out = original.to_bytes()
    assert out == original.relayout()
    back = Bnsh.from_bytes(out)
    assert back.extract(0, stage) == blob
    for other in STAGES:
        if other != stage:
            assert back.extract(0, other) == Bnsh.from_bytes(model.to_bytes()).extract(0, other)
    assert back == original


def test_renamed_key_rebuilds_the_string_pool() -> None:
    model = Bnsh.from_bytes(make_model().to_bytes())
    reflection = model.program(0).reflection
    assert reflection is not None and reflection.stages[0] is not None
    reflection.stages[0].inputs = [("a_position", 0), ("a_tangent_frame", 5)]
    out = model.to_bytes()
    assert b"a_tangent_frame\0" in out and b"a_normal\0" not in out and b"a_uv0\0" not in out
    back = Bnsh.from_bytes(out)
    stage = back.program(0).reflection.stages[0]  # type: ignore[union-attr]
    assert stage is not None and stage.inputs == [("a_position", 0), ("a_tangent_frame", 5)]
    assert stage.offsets()[1] == 2


def test_empty_file() -> None:
    model = Bnsh(name="empty", memory_pool=None)
    back = Bnsh.from_bytes(model.to_bytes())
    assert back == model and back.variations == []


def test_source_replace_recompresses() -> None:
    model = Bnsh.from_bytes(make_model().to_bytes())
    model.replace(1, "vertex", b"void main() { /* new */ }\n", "source")
    code = model.stage_code(1, "vertex", "source")
    assert isinstance(code, SourceCode) and code.compressed
    back = Bnsh.from_bytes(model.to_bytes())
    assert back.extract(1, "vertex", "source") == b"void main() { /* new */ }\n"
