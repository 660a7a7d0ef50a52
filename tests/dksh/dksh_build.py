"""Hand-built deko3d shader modules for the tests: every header word is written here with
``struct.pack`` from devkitPro's dksh.h (field order and sizes) and uam's layout (control and code
sections padded to 256, a graphics program's SPH at 0x30 into a 256-byte block after uam's
padding string, its code at 0x80, constbuf1 in a fresh 256-byte block). Nothing here calls the
code under test."""

from __future__ import annotations

import struct

MAGIC = 0x48534B44  # "DKSH"

# Maxwell words from nouveau/uam: EXIT, NOP, "BRA $" in slot 1 and uam's scheduling words
EXIT = 0xE30000000007000F
NOP = 0x50B0000000070F00
BRA_SELF_SLOT1 = 0xE2400FFFFF07000F
SCHED_PLAIN = 0x7E0 | 0x7E0 << 21 | 0x7E0 << 42
SCHED_BRA = 0x7FF | 0x7E0 << 21 | 0x7E0 << 42
#: 64 bytes: [sched, EXIT, NOP, NOP] [sched, BRA $, NOP, NOP] (what uam ends every program with)
CODE_64 = struct.pack("<8Q", SCHED_PLAIN, EXIT, NOP, NOP, SCHED_BRA, BRA_SELF_SLOT1, NOP, NOP)
#: 128 bytes: two NOP bundles in front of CODE_64
CODE_128 = struct.pack("<8Q", SCHED_PLAIN, NOP, NOP, NOP, SCHED_PLAIN, NOP, NOP, NOP) + CODE_64

UAM_PADDING = b"lol nvidia why did you make us waste space here\x00"
assert len(UAM_PADDING) == 0x30


def sph(sph_type: int, shader_type: int) -> bytes:
    """A 0x50-byte SPH: CommonWord0 = sph_type | version 3 << 5 | shader_type << 10 | sass 3 << 17,
    store_req_start 0xff in CommonWord4 (bits 12..19), zero maps except one generic attribute."""
    word0 = sph_type | 3 << 5 | shader_type << 10 | 3 << 17
    words = struct.pack("<5I", word0, 0, 0, 0, 0xFF << 12)
    area = bytearray(0x3C)
    if sph_type == 1:  # VTG: imap_generic_vector at 0x18 (attribute 0 xyzw), omap_generic_vector at 0x2C
        area[0x18 - 0x14] = 0x0F
        area[0x2C - 0x14] = 0x0F
    else:  # PS: imap_generic_vector at 0x18 (attribute 0 perspective), omap_target at 0x48 (RT 0 xyzw)
        area[0x18 - 0x14] = 0xAA
        area[0x48 - 0x14] = 0x0F
    return words + bytes(area)


def program_header(type_: int, entrypoint: int, num_gprs: int, constbuf1_off: int, constbuf1_sz: int,
                   per_warp_scratch_sz: int, union: bytes, reserved: int = 0) -> bytes:
    """DkshProgramHeader: six u32, the 36-byte union, one reserved u32 (64 bytes)."""
    assert len(union) == 36
    return struct.pack("<6I36sI", type_, entrypoint, num_gprs, constbuf1_off, constbuf1_sz, per_warp_scratch_sz,
                       union, reserved)


def header(control_sz: int, code_sz: int, num_programs: int, programs_off: int = 24, header_sz: int = 24) -> bytes:
    """DkshHeader: magic, header_sz, control_sz, code_sz, programs_off, num_programs."""
    return struct.pack("<6I", MAGIC, header_sz, control_sz, code_sz, programs_off, num_programs)


def vert_union(alt_entrypoint: int = 0, alt_num_gprs: int = 0) -> bytes:
    return struct.pack("<II", alt_entrypoint, alt_num_gprs) + bytes(28)


FRAG_TABLE_3D1 = (1, 2, 3, 4)


def frag_union() -> bytes:
    # has_table_3d1=1, early_fragment_tests=1, post_depth_coverage=0, persample_invocation=1,
    # table_3d1[4], param_d8=0x087F6080 (uam's default), param_65b=0x11 (writes depth), param_489=0
    return struct.pack("<4B4IIHH", 1, 1, 0, 1, *FRAG_TABLE_3D1, 0x087F6080, 0x11, 0) + bytes(8)


def comp_union() -> bytes:
    # block_dims 8x8x1, shared_mem_sz 0x100, local_pos 0x10, local_neg 0, crs_sz 0x800, num_barriers 1
    return struct.pack("<8I", 8, 8, 1, 0x100, 0x10, 0, 0x800, 1) + bytes(4)


CONSTBUF1 = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)


def vertex_fragment_module() -> bytes:
    """Two programs as uam lays out each: code section
    0x000 padding, 0x030 VTG SPH, 0x080 vertex code (64 bytes), zero to 0x100;
    0x100 padding, 0x130 PS SPH, 0x180 fragment code (64 bytes), zero to 0x200;
    0x200 fragment constbuf1 (16 bytes), zero to 0x300."""
    control = header(0x100, 0x300, 2)
    control += program_header(0, 0x30, 8, 0, 0, 0, vert_union())
    control += program_header(1, 0x130, 4, 0x200, 16, 0x20, frag_union())
    control += bytes(0x100 - len(control))
    code = bytearray(0x300)
    code[0x000:0x030] = UAM_PADDING
    code[0x030:0x080] = sph(1, 1)
    code[0x080:0x0C0] = CODE_64
    code[0x100:0x130] = UAM_PADDING
    code[0x130:0x180] = sph(2, 5)
    code[0x180:0x1C0] = CODE_64
    code[0x200:0x210] = CONSTBUF1
    return control + bytes(code)


def compute_module() -> bytes:
    """One compute program: code (128 bytes) at 0 of the code section, no SPH, zero to 0x100."""
    control = header(0x100, 0x100, 1)
    control += program_header(5, 0, 4, 0, 0, 0x10 * 32 + 0x800, comp_union())
    control += bytes(0x100 - len(control))
    return control + CODE_128 + bytes(0x100 - len(CODE_128))
