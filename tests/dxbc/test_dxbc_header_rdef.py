"""RDEF read back from an fxc listing's comment header (``shaderkit asm`` without ``--base``).

Expected values are worked out by hand from the header text (D3D_SHADER_VARIABLE_CLASS /
D3D_SHADER_INPUT_TYPE numbering); the corpus check compares listings with fxc's own files.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_files
from shaderkit.errors import AssemblyError
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.header_ifce import interfaces_from_header
from shaderkit.formats.dxbc.header_rdef import rdef_from_header
from shaderkit.formats.dxbc.listing import buffer_definitions, resource_bindings

HEADER = """//
// Buffer Definitions:
//
// cbuffer Globals
// {
//
//   float4 tint;                       // Offset:    0 Size:    16
//      = 0x3f800000 0x00000000 0x00000000 0x3f800000
//   row_major float4x3 bones[2];       // Offset:   16 Size:    96 [unused]
//   uint count;                        // Offset:  112 Size:     4
//
//   struct Light
//   {
//
//       float3 dir;                    // Offset:  128
//
//       struct
//       {
//
//           float a;                   // Offset:  144
//           int2 b[2];                 // Offset:  160
//
//       } inner;                       // Offset:  144
//
//   } lights[2];                       // Offset:  128 Size:   100
//
// }
//
// Resource bind info for items
// {
//
//   struct
//   {
//
//       float v;                       // Offset:    0
//
//   } $Element;                        // Offset:    0 Size:     4
//
// }
//
//
// Resource Bindings:
//
// Name                                 Type  Format         Dim      HLSL Bind  Count
// ------------------------------ ---------- ------- ----------- -------------- ------
// shadow                          sampler_c      NA          NA             s1      1
// tex                               texture  float4     2darray             t0      3
// msaa                              texture   uint2       2dMS4             t3      1
// items                                 UAV  struct         r/w             u2      1
// Globals                           cbuffer      NA          NA            cb0      1
//
""".splitlines()


def test_buffer_definitions_by_hand() -> None:
    rdef = rdef_from_header(HEADER, "Microsoft (R) HLSL Shader Compiler 10.1", 0xFFFF0500)
    assert rdef.is_sm5 and not rdef.is_sm51
    globals_, items = rdef.constant_buffers
    assert (globals_.name, globals_.cbuffer_type, globals_.size) == ("Globals", 0, 240)
    assert (items.name, items.cbuffer_type) == ("items", 3)
    tint, bones, count, lights = globals_.variables
    assert (tint.type.variable_class, tint.type.variable_type, tint.type.columns) == (1, 3, 4)
    assert tint.default_value == bytes.fromhex("0000803f 00000000 00000000 0000803f")
    assert (tint.start_offset, tint.size, tint.flags) == (0, 16, 2)
    # row_major float4x3 [2]: class 2 (matrix rows), 4 rows, 3 columns, 2 elements; unused
    assert (bones.type.variable_class, bones.type.rows, bones.type.columns, bones.type.elements) == (2, 4, 3, 2)
    assert bones.flags == 0
    assert (count.type.variable_class, count.type.variable_type) == (0, 19)
    # struct members: offsets relative to the enclosing struct
    light = lights.type
    assert (light.variable_class, light.name, light.elements) == (5, "Light", 2)
    assert [(m.name, m.offset) for m in light.members] == [("dir", 0), ("inner", 16)]
    inner = light.members[1].type
    assert [(m.name, m.offset) for m in inner.members] == [("a", 0), ("b", 16)]
    assert (inner.members[1].type.variable_type, inner.members[1].type.elements) == (2, 2)


def test_resource_bindings_by_hand() -> None:
    rdef = rdef_from_header(HEADER, "x", 0xFFFF0500)
    shadow, tex, msaa, items, cb = rdef.resource_bindings
    assert (shadow.input_type, shadow.flags, shadow.bind_point) == (3, 2, 1)
    # float4: return type 5, component count 4 in flags bits 2..3; 2darray = dimension 5
    assert (tex.input_type, tex.return_type, tex.flags, tex.dimension, tex.bind_count) == (2, 5, 12, 5, 3)
    assert (msaa.return_type, msaa.flags, msaa.dimension, msaa.num_samples, msaa.bind_point) == (4, 4, 6, 4, 3)
    # structured: return type mixed (6), element size (the bind-info block's $Element) as sample count
    assert (items.input_type, items.bind_point, items.return_type, items.num_samples) == (6, 2, 6, 4)
    assert (cb.input_type, cb.bind_point) == (0, 0)


def test_the_model_prints_the_header_it_was_read_from() -> None:
    rdef = rdef_from_header(HEADER, "x", 0xFFFF0500)
    printed = buffer_definitions(rdef) + resource_bindings(rdef, False)
    assert [line.rstrip() for line in printed] == [line.rstrip() for line in HEADER]


def test_sm51_and_fxc9_binding_tables() -> None:
    sm51 = [
        "// Resource Bindings:",
        "//",
        "// Name                                 Type  Format         Dim      ID      HLSL Bind  Count",
        "// ------------------------------ ---------- ------- ----------- ------- -------------- ------",
        "// g_tex                             texture  float4          2d      T2     t4,space1 unbounded ",
        "// cbPerObject                       cbuffer      NA          NA     CB0            cb0      1 ",
    ]
    tex, cb = rdef_from_header(sm51, "x", 0xFFFF0501).resource_bindings
    assert (tex.id, tex.bind_point, tex.space, tex.bind_count) == (2, 4, 1, 0)
    assert (cb.id, cb.input_type) == (0, 0)
    legacy = [
        "// Resource Bindings:",
        "//",
        "// Name                                 Type  Format         Dim Slot Elements",
        "// ------------------------------ ---------- ------- ----------- ---- --------",
        "// samLinear                         sampler      NA          NA    2        1",
    ]
    (sam,) = rdef_from_header(legacy, "x", 0xFFFF0400).resource_bindings
    assert (sam.input_type, sam.bind_point, sam.bind_count) == (3, 2, 1)


def test_unreadable_lines_give_their_line() -> None:
    bad = HEADER[:6] + ["//   float4 tint                          // Offset: zero"] + HEADER[7:]
    with pytest.raises(AssemblyError) as info:
        rdef_from_header(bad, "x", 0xFFFF0500)
    assert info.value.line == 7
    bad = HEADER[:-3] + ["// items                                 UAV  struct         r/w             t2      1 "]
    with pytest.raises(AssemblyError) as info:
        rdef_from_header(bad, "x", 0xFFFF0500)
    assert info.value.line == len(HEADER) - 2
    with pytest.raises(AssemblyError):
        rdef_from_header(HEADER[:5] + ["//   float4 tint;   // Offset:    0 Size:    16"], "x", 0xFFFF0500)


def test_no_base_containers_list_like_fxc() -> None:
    """Every fxc listing that shaderkit lists identically from the original (387 of 390): the
    container built from the text alone lists identically too, comment lines included (all 387,
    the 5 fx_4_0 effects included: their FX10 chunk is rebuilt from the text, see header_fx)."""
    from shaderkit.formats.dxbc.assemble import assemble_container
    from shaderkit.formats.dxbc.disasm import listing

    files = corpus_files("dxbc", "*.fxc.asm")
    if not files:
        pytest.skip("corpus not found")
    eligible = same = 0
    for asm in files:
        text = asm.read_text("latin-1")
        want = [line.rstrip() for line in text.splitlines()]
        original = DxbcContainer.from_bytes(Path(str(asm)[: -len(".fxc.asm")] + ".dxbc").read_bytes())
        if [line.rstrip() for line in listing(original).splitlines()] != want:
            continue
        eligible += 1
        try:
            built = DxbcContainer.from_bytes(assemble_container(text).to_bytes())
        except AssemblyError:
            continue
        same += [line.rstrip() for line in listing(built).splitlines()] == want
    assert eligible >= 387
    assert same >= 387  # measured 387 (382 shaders and libraries + 5 effects)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_edited_headers_give_assembly_errors_or_buildable_models(data: st.DataObject) -> None:
    """Lines of the header replaced, dropped or cut: either an AssemblyError or a model whose
    RDEF payload builds (never another exception)."""
    lines = list(HEADER)
    for _ in range(data.draw(st.integers(1, 4))):
        n = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["cut", "drop", "text", "number"]))
        if action == "cut":
            lines[n] = lines[n][: data.draw(st.integers(0, len(lines[n])))]
        elif action == "drop":
            del lines[n]
        elif action == "text":
            lines[n] = "// " + data.draw(st.text(max_size=40))
        else:
            lines[n] = re.sub(r"\d+", str(data.draw(st.integers(0, 1 << 40))), lines[n], count=1)
        if not lines:
            break
    try:
        rdef = rdef_from_header(lines, "x", 0xFFFF0500)
    except AssemblyError:
        return
    assert isinstance(rdef.build(), bytes)


CLASSES = """// Available Class Types:
//
// Name                             ID CB Stride Texture Sampler
// ------------------------------ ---- --------- ------- -------
// cClass2                           0         2       0       1
// cClass1                           1         3       0       0
//
// Available Class Instances:
//
// Name                        Type CB CB Offset Texture Sampler
// --------------------------- ---- -- --------- ------- -------
// gAbstractInterface2            1  0        13       -       4
//
// Interface slots, 3 total:
//
//             Slots
// +----------+---------+---------------------------------------
// | Type ID  |   0     |0    1
// | Table ID |         |0    1
// +----------+---------+---------------------------------------
// | Type ID  |   1-2   |1
// | Table ID |         |2
// +----------+---------+---------------------------------------
""".splitlines()


def test_interfaces_by_hand() -> None:
    model = interfaces_from_header(CLASSES)
    assert model is not None and model.interface_slot_count == 3
    assert [(c.name, c.constant_buffer_stride, c.sampler) for c in model.class_types] == [
        ("cClass2", 2, 1), ("cClass1", 3, 0)]
    (inst,) = model.class_instances
    assert (inst.name, inst.type, inst.constant_buffer_offset, inst.texture, inst.sampler) == (
        "gAbstractInterface2", 1, 13, 0xFFFF, 4)
    assert [(s.slot_span, s.type_ids, s.table_ids) for s in model.slots] == [(1, [0, 1], [0, 1]), (2, [1], [2])]
    assert interfaces_from_header(HEADER) is None
    bad = CLASSES[:4] + ["// cClass2                           x         2       0       1"] + CLASSES[5:]
    with pytest.raises(AssemblyError) as info:
        interfaces_from_header(bad)
    assert info.value.line == 5


LIBRARY = """//
// Library:  flags 0, 1 functions:
//   0  TestFunction
//
// Created by:  Microsoft (R) HLSL Shader Compiler 10.1
//
//
// Generated by Microsoft (R) HLSL Shader Compiler 10.1
//
//
//
// Function parameter signature (return: yes, parameters: 4):
//
// Name                 SemanticName         In 1st,Num,Mask Out 1st,Num,Mask Type
// -------------------- -------------------- --------------- ---------------- ------------------------------
// TestFunction         SV_TARGET                              o0    1   xyz  out float3
// in2                  COLOR                 v1    1   x                     in float1
// val3                                       v2    3   xy     o1    3   xy   inout float2x3
// val4                                                        o4    1   x    out uint
// val5                                       v5    2   yzw                   in row_major float2x3
//
lib_4_0
dcl_input v1.x
dcl_output o0.xyz
mov o0.xyz, v1.xxxx
ret
// Approximately 2 instruction slots used
"""


def test_library_from_text_by_hand() -> None:
    """A library listing: LIBH from the library lines, one LIBF per function, LFS0 from the
    parameter table (values worked out from the printed rows: float3 is a vector, class 1;
    float2x3 column-major, class 3, printed columns x rows; row_major float2x3 class 2)."""
    from shaderkit.formats.dxbc.assemble import assemble_container

    container = DxbcContainer.from_bytes(assemble_container(LIBRARY).to_bytes())
    header = container.library_header
    assert header is not None and [f.name for f in header.functions] == ["TestFunction"]
    assert header.creator == "Microsoft (R) HLSL Shader Compiler 10.1"
    (function,) = container.functions
    assert [c.fourcc for c in function.chunks] == ["RDEF", "LFS0", "SHDR", "STAT"]
    assert function.rdef is not None and function.rdef.is_sm5  # library RDEFs carry RD11
    sig = function.function_signature
    assert sig is not None
    rows = [(p.name, p.semantic_name, p.variable_type, p.variable_class, p.rows, p.columns, p.flags,
             p.first_in_register, p.first_in_component, p.first_out_register, p.first_out_component)
            for p in sig.parameters]
    none = 0xFFFFFFFF
    assert rows == [
        ("TestFunction", "SV_TARGET", 3, 1, 1, 3, 2, none, none, 0, 0),
        ("in2", "COLOR", 3, 1, 1, 1, 1, 1, 0, none, none),
        ("val3", "", 3, 3, 3, 2, 3, 2, 0, 1, 0),
        ("val4", "", 19, 0, 1, 1, 2, none, none, 4, 0),
        ("val5", "", 3, 2, 2, 3, 1, 5, 1, none, none),
    ]
    from shaderkit.formats.dxbc.disasm import listing

    assert [line.rstrip() for line in listing(container).splitlines()] == [
        line.rstrip() for line in LIBRARY.splitlines()]


#: 3Dmigoto's listings replace "// Offset: n Size: m" with the register index, the components and
#: the size in components (its replace_cb_offsets_with_indices); the offsets below are worked out
#: from the rule it states: index * 16 + first component * 4, size = components * 4 (+ the "+n" bytes)
MIGOTO_HEADER = """//
// Buffer Definitions:
//
// cbuffer Globals
// {
//
//   row_major float4x4 mvp;            // Index:    0 1 2 3          Components:    16 [unused]
//   float bias;                        // Index:    4.y              Components:     1
//   float2 res;                        // Index:    4.zw             Components:     2 [unused]
//   float4 rows[4];                    // Index:    5-8              Components:    16
//   float fade[4];                     // Index:    9-12.x           Components:    13
//
//   struct
//   {
//
//       float a;                       // Index:   13
//       float b;                       // Index:   13.y
//
//   } pair;                            // Index:   13.xy             Components:     2
//
// }
//
""".splitlines()


def test_3dmigoto_index_notes_read_as_offsets() -> None:
    rdef = rdef_from_header(MIGOTO_HEADER, "Microsoft (R) HLSL Shader Compiler 6.3.9600.16384", 0xFFFF0500)
    (cb,) = rdef.constant_buffers
    got = [(v.name, v.start_offset, v.size, v.flags) for v in cb.variables]
    assert got == [("mvp", 0, 64, 0), ("bias", 68, 4, 2), ("res", 72, 8, 0), ("rows", 80, 64, 2),
                   ("fade", 144, 52, 2), ("pair", 208, 8, 2)]
    pair = cb.variables[5].type
    assert [(m.name, m.offset) for m in pair.members] == [("a", 0), ("b", 4)]
    assert cb.size == 224  # 208 + 8 rounded up to whole registers


def test_unreadable_3dmigoto_index_note_gives_its_line() -> None:
    bad = MIGOTO_HEADER[:7] + ["//   float bias;                        // Index:    four"] + MIGOTO_HEADER[8:]
    with pytest.raises(AssemblyError) as info:
        rdef_from_header(bad, "x", 0xFFFF0500)
    assert info.value.line == 8
    assert "unreadable index note" in info.value.message


def test_3dmigoto_partial_register_size() -> None:
    """"Components: 1+2" is one component and 2 more bytes (a size that is not a multiple of 4)."""
    from shaderkit.formats.dxbc.header_rdef import _offset_tail

    body = "float x;   // Index:    2.y              Components:     1+2 [unused]"
    assert _offset_tail(body, body.index("// Index"), 0) == ("float x; // Offset: 36 Size: 6 [unused]", 9)
