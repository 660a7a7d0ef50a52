"""Level-9 vertex shaders with an integer loop: the Aon9 loop-register table and ``rep`` blocks.

fxc's listing of SlimShader's HLSLSample ``vs_4_0_level_9_x`` shader (public, DXDecompiler's test
set) lists an ``i0 cb1 0 0`` loop-register table above the constant-buffer table, indents the
body of ``rep i0`` ... ``endrep`` by two more spaces and counts ``rep`` as 3 and ``endrep`` as 2
instruction slots (27 for its 24 instructions). The chunk and program below are packed by hand
in the layout that file shows (sampler, constant-buffer, loop-register, runtime tables, program;
the empty unused table points where the loop-register table starts).
"""

from __future__ import annotations

import struct

from shaderkit.formats.dxbc.aon9 import ConstantBufferMapping, Level9Shader, LoopRegisterMapping
from shaderkit.formats.dxbc.header_aon9 import level9_chunks
from shaderkit.formats.dxbc.listing import level9_mappings
from shaderkit.io.reader import Reader
from shaderkit.isa.d3d9.text import listing_lines

_PROGRAM = struct.pack(
    "<18I",
    0xFFFE0200,  # vs_2_0
    0x0200001F, 0x80000005, 0x900F0000,  # dcl_texcoord v0
    0x02000001, 0x800F0000, 0xA0E40000,  # mov r0, c0
    0x01000026, 0xF0E40000,  # rep i0
    0x03000002, 0x800F0000, 0x80E40000, 0xA0E40000,  # add r0, r0, c0
    0x00000027,  # endrep
    0x02000001, 0xC00F0000, 0x80E40000,  # mov oPos, r0
    0x0000FFFF)  # end


def _payload() -> bytes:
    head_size = 36
    cb_off = head_size  # the sampler table is empty and points here too
    loop_off = cb_off + 12
    rt_off = loop_off + 8
    prog_off = rt_off
    tables = struct.pack("<4H4B", 0, 0, 1, 0, 0, 0, 0, 0) + struct.pack("<4H", 1, 0, 0, 0)
    head = struct.pack("<4I10H", prog_off + len(_PROGRAM), 0xFFFE0200, len(_PROGRAM), prog_off,
                       1, cb_off, 1, loop_off, 0, loop_off, 0, cb_off, 0, rt_off)
    return head + tables + _PROGRAM


def test_loop_register_table_parses_and_rebuilds() -> None:
    payload = _payload()
    r = Reader(payload, context="Aon9")
    assert Level9Shader.understood(r)
    chunk = Level9Shader.parse(r)
    assert chunk.loop_register_mappings == [LoopRegisterMapping(1, 0, 0, 0)]
    assert chunk.constant_buffer_mappings == [ConstantBufferMapping(0, 0, 1, 0, (0, 0, 0, 0))]
    assert chunk.build() == payload
    fresh = Level9Shader("Aon9", 0xFFFE0200, chunk.constant_buffer_mappings, [], [], _PROGRAM,
                         chunk.loop_register_mappings)
    assert fresh.build() == payload  # fxc's layout for a new chunk


_TABLES = [
    "//",
    "// Constant buffer to DX9 shader constant mappings:",
    "//",
    "// Target Reg Buffer  Source Reg Component",
    "// ---------- ------- ---------- ---------",
    "// i0         cb1              0         0",
    "//",
    "// Target Reg Buffer  Start Reg # of Regs        Data Conversion",
    "// ---------- ------- --------- --------- ----------------------",
    "// c0         cb0             0         1  ( FLT, FLT, FLT, FLT)",
    "//",
    "//",  # fxc's blank line before the "Level9 shader bytecode:" title
]
_PROGRAM_TEXT = [
    "    vs_2_0",
    "    dcl_texcoord v0",
    "    mov r0, c0",
    "    rep i0",
    "      add r0, r0, c0",
    "    endrep",
    "    mov oPos, r0",
    "",
    "// approximately 8 instruction slots used",
]


def test_listing_like_fxc() -> None:
    assert level9_mappings(_payload()) == _TABLES
    assert listing_lines(_PROGRAM) == _PROGRAM_TEXT


def test_tables_read_back_from_the_listing() -> None:
    lines = _TABLES + ["// Level9 shader bytecode:", "//", *_PROGRAM_TEXT]
    (chunk,) = level9_chunks(lines, len(lines))
    assert chunk.loop_register_mappings == [LoopRegisterMapping(1, 0, 0, 0)]
    assert chunk.constant_buffer_mappings == [ConstantBufferMapping(0, 0, 1, 0, (0, 0, 0, 0))]
    assert chunk.program == _PROGRAM
    assert chunk.build() == _payload()
