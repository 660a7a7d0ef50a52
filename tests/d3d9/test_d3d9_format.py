"""Bare D3D9 shaders: detection, the typed model, byte-exact rebuild, bad input, fxc's listing.

Every stream is built here token by token; the expected tokens and texts are worked out by hand
from d3d9types.h (opcode bits 0..15, SM2+ length bits 24..27, register type bits 28..30 + 11..12,
write mask 16..19, swizzle 16..23, source modifier 24..27, comment length 16..30).
"""

from __future__ import annotations

import struct

import pytest

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.d3d9.assemble import assemble_shader, assemble_with_base
from shaderkit.formats.d3d9.shader import D3D9Shader
from shaderkit.formats.registry import detect

END = 0x0000FFFF


def pack(*words: int) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


def ctab_payload() -> bytes:
    """A constant table: one ``float4 tint`` in c0, creator "Test compiler", target ps_3_0."""
    header = struct.pack("<7I", 28, 72, 0xFFFF0300, 1, 28, 0, 88)
    info = struct.pack("<I4HII", 64, 2, 0, 1, 0, 48, 0)  # name at 64, float4 register set, c0, 1 register, type at 48
    type_info = struct.pack("<6HI", 1, 3, 1, 4, 1, 0, 0)  # vector, float, 1 row, 4 columns, 1 element
    strings = b"tint\0\xab\xab\xab" + b"Test compiler\0\xab\xab" + b"ps_3_0\0\xab"
    payload = header + info + type_info + strings
    assert len(payload) == 96
    return payload


CTAB_COMMENT = pack(0x0019FFFE) + b"CTAB" + ctab_payload()  # 25 words after the comment token
# def c1, 1, 0, 0, 0 / mov oC0, c0
PS30_CODE = pack(0x05000051, 0xA00F0001, 0x3F800000, 0, 0, 0, 0x02000001, 0x800F0800, 0xA0E40000)
PS30 = pack(0xFFFF0300) + CTAB_COMMENT + PS30_CODE + pack(END) + b"\x01\x02"


def test_detection_by_version_token_only() -> None:
    spec = detect(PS30)
    assert spec is not None and spec.name == "d3d9"
    assert detect(pack(0xFFFE0101, END)).name == "d3d9"  # vs_1_1
    assert detect(pack(0xFFFF0104, END)).name == "d3d9"  # ps_1_4
    assert detect(pack(0x54580100, END)).name == "d3d9"  # tx_1_0
    assert detect(pack(0xFFFF0105, END)) is None  # there is no ps_1_5
    assert detect(pack(0xFFFE0400, END)) is None  # no vs_4_0 token stream
    assert detect(pack(0xFFFD0300, END)) is None
    assert detect(pack(0xFFFF0300)) is None  # no room for the end token


def test_model_and_byte_exact_rebuild() -> None:
    model = D3D9Shader.from_bytes(PS30)
    assert model.profile == "ps_3_0" and model.pixel
    assert [i.tokens for i in model.instructions] == [
        (0x05000051, 0xA00F0001, 0x3F800000, 0, 0, 0), (0x02000001, 0x800F0800, 0xA0E40000)]
    assert [i.name for i in model.instructions] == ["def", "mov"]
    assert [i.offset for i in model.instructions] == [4 + 104, 4 + 104 + 24]
    (comment,) = model.comments
    assert comment.tag == "CTAB" and comment.offset == 4 and comment.position == 0
    table = model.constant_table
    assert table is not None and [(c.name, c.register_set, c.register_index) for c in table.constants] == [("tint", 2, 0)]
    assert model.trailing == b"\x01\x02" and model.end_token == END
    assert model.to_bytes() == PS30
    summary = model.summary()
    assert summary["creator"] == "Test compiler" and summary["target"] == "ps_3_0"
    assert summary["constants"] == [{"name": "tint", "register_set": "c", "register_index": 0, "register_count": 1,
                                     "type": "float4"}]
    assert summary["instruction_count"] == 2 and summary["size"] == len(PS30)


def test_edits_recompute_lengths() -> None:
    model = D3D9Shader.from_bytes(PS30)
    model.instructions[1].tokens = (0x00000001, 0x800F0800, 0xA0E40000)  # length field left 0: recomputed
    assert model.to_bytes() == PS30
    model.comments[0].data += b"\0\0\0\0"  # the table is typed: its payload comes from the table
    model.comments[0].table = None
    assert model.to_bytes()[4:8] == pack(0x001AFFFE)


def test_sm1_parameters_are_the_tokens_with_bit_31() -> None:
    # vs_1_1: dcl_position v0 / def c4, 0.5, -2, 0, 1 (a negative float has bit 31 set) / m4x4 oPos, v0, c0
    data = pack(0xFFFE0101, 0x0000001F, 0x80000000, 0x900F0000,
                0x00000051, 0xA00F0004, 0x3F000000, 0xC0000000, 0, 0x3F800000,
                0x00000014, 0xC00F0000, 0x90E40000, 0xA0E40000, END)
    model = D3D9Shader.from_bytes(data)
    assert [len(i.tokens) for i in model.instructions] == [3, 6, 4]
    assert model.to_bytes() == data
    text = model.disassemble()
    assert text.splitlines()[:4] == ["    vs_1_1", "    dcl_position v0", "    def c4, 0.5, -2, 0, 1",
                                     "    m4x4 oPos, v0, c0"]


@pytest.mark.parametrize(("data", "message"), [
    (pack(0xFFFF0300, 0x02000001, 0x800F0800), "runs past"),  # instruction longer than the file
    (pack(0xFFFF0300, 0x0005FFFE, 1, 2), "comment of 5 words"),
    (pack(0xFFFF0300, 0x02000001, 0x800F0800, 0xA0E40000), "no end token"),
    (pack(0xFFFF0300, END)[:6], "no end token"),
    (pack(0x12345678, END), "version token"),
])
def test_bad_input_raises_shader_format_error(data: bytes, message: str) -> None:
    with pytest.raises(ShaderFormatError, match=message):
        D3D9Shader.from_bytes(data)


def test_listing_header_from_the_constant_table() -> None:
    text = D3D9Shader.from_bytes(PS30).disassemble()
    assert text == "\n".join([
        "//",
        "// Generated by Test compiler",
        "//",
        "// Parameters:",
        "//",
        "//   float4 tint;",
        "//",
        "//",
        "// Registers:",
        "//",
        "//   Name         Reg   Size",
        "//   ------------ ----- ----",
        "//   tint         c0       1",
        "//",
        "",
        "    ps_3_0",
        "    def c1, 1, 0, 0, 0",
        "    mov oC0, c0",
        "",
        "// approximately 1 instruction slot used",
    ]) + "\n"


def _ctab_comment(creator: bytes, constants: int) -> bytes:
    """A CTAB comment naming ``creator``, with ``tint`` (float4 in c0) as its one constant or none."""
    start = 64 if constants else 28  # the strings follow the header (28), constant info (20) and type (16)
    strings = (b"tint\0\xab\xab\xab" if constants else b"") + creator + b"\0"
    strings += b"\xab" * (-(start + len(strings)) % 4)
    header = struct.pack("<7I", 28, start + 8 if constants else start, 0xFFFF0300, constants, 28, 0,
                         start + len(strings))
    body = (struct.pack("<I4HII", 64, 2, 0, 1, 0, 48, 0) + struct.pack("<6HI", 1, 3, 1, 4, 1, 0, 0)
            if constants else b"")
    payload = header + body + strings + b"ps_3_0\0\xab"
    return pack(0xFFFE | (len(payload) // 4 + 1) << 16) + b"CTAB" + payload


FXC_9_30 = b"Microsoft (R) HLSL Shader Compiler 9.30.8400.0"


def test_fxc_9_30_stray_slash_before_the_parameters() -> None:
    # fxc 9.30 (Windows 8 SDK) listings: "//", "// Generated by ...", "//", "///", "// Parameters:"
    data = pack(0xFFFF0300) + _ctab_comment(FXC_9_30, 1) + PS30_CODE + pack(END)
    lines = D3D9Shader.from_bytes(data).disassemble().splitlines()
    assert lines[:6] == ["//", "// Generated by " + FXC_9_30.decode(), "//", "///", "// Parameters:", "//"]
    assert lines[6] == "//   float4 tint;"
    # 9.29 and 10.x have no such line
    other = pack(0xFFFF0300) + _ctab_comment(FXC_9_30.replace(b"9.30.8400.0", b"9.29.952.3111"), 1)
    assert D3D9Shader.from_bytes(other + PS30_CODE + pack(END)).disassemble().splitlines()[3] == "// Parameters:"


def test_fxc_9_30_stray_slash_without_constants() -> None:
    # a shader with no constants: the slash stands where the blank line before the program is
    data = pack(0xFFFF0300) + _ctab_comment(FXC_9_30, 0) + PS30_CODE + pack(END)
    lines = D3D9Shader.from_bytes(data).disassemble().splitlines()
    assert lines[:5] == ["//", "// Generated by " + FXC_9_30.decode(), "//", "/    ps_3_0", "    def c1, 1, 0, 0, 0"]
    # and the assembler reads the slashed version line back (asm --base of the listing: the same bytes)
    assert assemble_with_base("\n".join(lines), D3D9Shader.from_bytes(data)).to_bytes() == data
    from shaderkit.cli.asm import detect_syntax

    assert detect_syntax("\n".join(lines)) == "d3d9"  # (so `asm --base` takes the listing as D3D9 text)
    assert assemble_shader("/    ps_3_0\n    mov oC0, c0\n").to_bytes() == pack(0xFFFF0300, 0x02000001, 0x800F0800,
                                                                                 0xA0E40000, END)


def test_struct_parameter_is_set_off_by_indented_blank_lines() -> None:
    # public fxc 9.29 ps_3_0 listings: "//   float4 x;", "//   " (the indentation only), "//   struct",
    # "//   {", members 4 further in, "//", "//   } name;", "//   ", then the next parameter
    header = struct.pack("<7I", 28, 0, 0xFFFF0300, 2, 28, 0, 0)
    infos = struct.pack("<I4HII", 124, 2, 0, 1, 0, 68, 0) + struct.pack("<I4HII", 126, 2, 1, 2, 0, 84, 0)
    vector = struct.pack("<6HI", 1, 3, 1, 4, 1, 0, 0)  # at 68
    struct_type = struct.pack("<6HI", 5, 0, 1, 8, 1, 2, 100)  # at 84: two members listed at 100
    members = struct.pack("<4I", 128, 68, 130, 68)  # at 100 (16 bytes) .. 116
    names = b"\0" * 8 + b"a\0s\0p\0q\0"  # (padding to 124) a at 124, s at 126, p at 128, q at 130
    payload = header + infos + vector + struct_type + members + names
    assert len(payload) == 132
    data = pack(0xFFFF0300, 0x0022FFFE) + b"CTAB" + payload + pack(END)
    lines = D3D9Shader.from_bytes(data).disassemble().splitlines()
    assert lines[3:16] == [
        "// Parameters:", "//", "//   float4 a;", "//   ", "//   struct", "//   {", "//       float4 p;",
        "//       float4 q;", "//", "//   } s;", "//   ", "//", "//",
    ]


def test_struct_parameters_and_a_member_cycle() -> None:
    # a struct "s" (class 5) of two members at 80: "a" float4 (type at 48), "b" pointing back at the struct
    header = struct.pack("<7I", 28, 0, 0xFFFF0300, 1, 28, 0, 0)
    info = struct.pack("<I4HII", 96, 2, 0, 2, 0, 64, 0)
    vector = struct.pack("<6HI", 1, 3, 1, 4, 1, 0, 0)
    struct_type = struct.pack("<6HI", 5, 0, 1, 8, 1, 2, 80)
    members = struct.pack("<4I", 100, 48, 104, 48)
    names = b"s\0\0\0a\0\0\0b\0\0\0"
    payload = header + info + vector + struct_type + members + names
    assert len(payload) == 108
    data = pack(0xFFFF0300, 0x001CFFFE) + b"CTAB" + payload + pack(END)
    text = D3D9Shader.from_bytes(data).disassemble()
    # (fxc's exact struct layout is not checked here: no public listing of one was found)
    assert "float4 a;" in text and "float4 b;" in text and "} s;" in text
    cyclic = data.replace(members, struct.pack("<4I", 100, 64, 104, 64))  # a and b are the struct itself
    model = D3D9Shader.from_bytes(cyclic)
    assert model.to_bytes() == cyclic
    with pytest.raises(ShaderFormatError, match="declarations") as caught:
        model.disassemble()
    # the cycle is reported at the struct type: payload offset 64 + 12 (version token, comment token, "CTAB")
    assert caught.value.offset == 76


def test_constant_table_that_does_not_read_stays_raw() -> None:
    # the header claims 5000 constant infos (u32 at payload offset 12): not a table, but the file loads
    payload = bytearray(ctab_payload())
    payload[12:16] = struct.pack("<I", 5000)
    data = pack(0xFFFF0300, 0x0019FFFE) + b"CTAB" + bytes(payload) + PS30_CODE + pack(END)
    model = D3D9Shader.from_bytes(data)
    (comment,) = model.comments
    assert comment.tag == "CTAB" and comment.table is None and comment.data == b"CTAB" + bytes(payload)
    assert model.constant_table is None
    assert model.to_bytes() == data
    assert model.disassemble().splitlines()[:3] == ["    ps_3_0", "    def c1, 1, 0, 0, 0", "    mov oC0, c0"]


def test_default_values_section() -> None:
    """The layout of fxc's listing of the DirectX SDK's BasicHLSL vertex shader (public): Registers by
    register, then ``// Default values:`` of the float constants with one, four values per register."""
    header = struct.pack("<7I", 28, 204, 0xFFFE0101, 3, 28, 0, 208)
    infos = (struct.pack("<I4HII", 168, 2, 10, 1, 0, 88, 136)  # g_LightAmbient c10, default at 136
             + struct.pack("<I4HII", 184, 2, 9, 1, 0, 104, 152)  # g_LightDir c9, default at 152
             + struct.pack("<I4HII", 196, 2, 12, 1, 0, 120, 0))  # g_fTime c12, no default
    types = struct.pack("<6HI", 1, 3, 1, 4, 1, 0, 0) + struct.pack("<6HI", 1, 3, 1, 3, 1, 0, 0) + struct.pack(
        "<6HI", 0, 3, 1, 1, 1, 0, 0)
    defaults = struct.pack("<8f", 1, 1, 1, 1, 0.57735026, 0.57735026, 0.57735026, 0)
    strings = b"g_LightAmbient\0\xab" + b"g_LightDir\0\xab" + b"g_fTime\0" + b"fxc\0" + b"vs_1_1\0\xab"
    payload = header + infos + types + defaults + strings
    assert len(payload) == 216
    data = pack(0xFFFE0101, 0x0037FFFE) + b"CTAB" + payload + pack(0x00000001, 0xC00F0000, 0xA0E40009, END)
    model = D3D9Shader.from_bytes(data)
    assert model.to_bytes() == data
    assert model.disassemble().splitlines()[:31] == [
        "//",
        "// Generated by fxc",
        "//",
        "// Parameters:",
        "//",
        "//   float4 g_LightAmbient;",
        "//   float3 g_LightDir;",
        "//   float g_fTime;",
        "//",
        "//",
        "// Registers:",
        "//",
        "//   Name           Reg   Size",
        "//   -------------- ----- ----",
        "//   g_LightDir     c9       1",
        "//   g_LightAmbient c10      1",
        "//   g_fTime        c12      1",
        "//",
        "//",
        "// Default values:",
        "//",
        "//   g_LightDir",
        "//     c9   = { 0.57735, 0.57735, 0.57735, 0 };",
        "//",
        "//   g_LightAmbient",
        "//     c10  = { 1, 1, 1, 1 };",
        "//",
        "",
        "    vs_1_1",
        "    mov oPos, c9",
        "",
    ]



def _ctab_shader(constants: list[tuple[str, int, int, str]], types: dict[str, tuple[int, int, int, int, list[tuple[str, str]]]],
                 creator: bytes = b"") -> bytes:
    """A ps_3_0 whose CTAB lists ``constants`` (name, register set, index, type key); ``types``:
    key -> (class, type, rows, columns, members as (name, type key))."""
    infos_at = 28
    types_at = infos_at + 20 * len(constants)
    keys = list(types)
    type_at = {key: types_at + 16 * i for i, key in enumerate(keys)}
    members_at = types_at + 16 * len(keys)
    member_lists = {key: types[key][4] for key in keys if types[key][4]}
    member_at, at = {}, members_at
    for key, members in member_lists.items():
        member_at[key], at = at, at + 8 * len(members)
    strings, string_at = b"", {}
    for name in [c[0] for c in constants] + [m for ms in member_lists.values() for m, _ in ms] + [creator.decode()]:
        if name not in string_at:
            string_at[name], strings = at + len(strings), strings + name.encode() + b"\0"
    out = struct.pack("<7I", 28, string_at[creator.decode()], 0xFFFF0300, len(constants), infos_at, 0, 0)
    out += b"".join(struct.pack("<I4HII", string_at[n], rs, i, 1, 0, type_at[k], 0) for n, rs, i, k in constants)
    for key in keys:
        klass, kind, rows, columns, members = types[key]
        out += struct.pack("<6HI", klass, kind, rows, columns, 1, len(members), member_at.get(key, 0))
    for members in member_lists.values():
        out += b"".join(struct.pack("<2I", string_at[m], type_at[k]) for m, k in members)
    out += strings
    out += b"\0" * (-len(out) % 4)
    return pack(0xFFFF0300, (len(out) // 4 + 1) << 16 | 0xFFFE) + b"CTAB" + out + pack(0x02000001, 0x800F0800, 0xA0E40000, END)


def test_parameters_as_d3dcompiler_lists_them() -> None:
    # d3dcompiler_47 (10.1) on ps_3_0 shaders compiled from 3Dmigoto fixes: a struct first in the
    # list has no indentation-only line before it, two structs share one between them, and a
    # bool in b0 and c1 (one name in two register sets) is declared once and registered twice
    types = {"f4": (1, 3, 1, 4, []), "b": (0, 1, 1, 1, []), "s": (5, 0, 1, 4, [("p", "f4")])}
    data = _ctab_shader([("g_a", 2, 0, "s"), ("g_b", 2, 1, "s"), ("on", 0, 0, "b"), ("on", 2, 2, "b")], types,
                        b"Microsoft (R) HLSL Shader Compiler 10.1")
    lines = D3D9Shader.from_bytes(data).disassemble().splitlines()
    start = lines.index("// Parameters:")
    assert lines[start : start + 17] == [
        "// Parameters:", "//", "//   struct", "//   {", "//       float4 p;", "//", "//   } g_a;", "//   ",
        "//   struct", "//   {", "//       float4 p;", "//", "//   } g_b;", "//   ", "//   bool on;", "//", "//"]
    registers = lines[lines.index("// Registers:") :]
    assert [line.split()[2:4] for line in registers if line.startswith("//   on")] == [["b0", "1"], ["c2", "1"]]


def test_a_table_without_constants_ends_at_its_title() -> None:
    # d3dcompiler_47 on a ps_3_0 that uses no constants: "//", "// Generated by ...", "    ps_3_0"
    data = pack(0xFFFF0300) + _ctab_comment(b"Microsoft (R) HLSL Shader Compiler 10.1", 0) + PS30_CODE + pack(END)
    assert D3D9Shader.from_bytes(data).disassemble().splitlines()[:3] == [
        "//", "// Generated by Microsoft (R) HLSL Shader Compiler 10.1", "    ps_3_0"]
