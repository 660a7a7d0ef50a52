""":class:`Program` -> SHDR/SHEX token words; lengths, index dimensions and chaining bits recomputed."""

from __future__ import annotations

import struct

from shaderkit.errors import UnsupportedOperation
from shaderkit.isa.sm4.model import Instruction, Operand, Program
from shaderkit.isa.sm4.opcodes import OP_CUSTOMDATA, OPCODES, Layout

_REL_REPS = (2, 3, 4)
#: opcodes whose raw words come before the operands (fcall: the call-site word)
_RAW_FIRST = frozenset(v for v, info in OPCODES.items() if info.layout == Layout.CALL)


def _chain(tokens: list[int]) -> list[int]:
    """Extended tokens with bit 31 set on all but the last."""
    last = len(tokens) - 1
    return [t | (1 << 31) if i < last else t for i, t in enumerate(tokens)]


def encode_operand(op: Operand, out: list[int]) -> None:
    dim = len(op.indices)
    if dim > 3:
        raise UnsupportedOperation(f"operand has {dim} indices, at most 3 fit a token")
    token = (op.num_components & 3) | (op.selection_mode & 3) << 2 | (op.component_bits & 0xFF) << 4
    token |= (op.type & 0xFF) << 12 | dim << 20
    for i, index in enumerate(op.indices):
        token |= (index.rep & 7) << (22 + 3 * i)
    if op.extended:
        token |= 1 << 31
    out.append(token)
    out.extend(_chain(op.extended))
    out.extend(op.values)
    for index in op.indices:
        rep = index.rep
        if rep == 0 or rep == 3:
            out.append(index.value & 0xFFFFFFFF)
        elif rep == 1 or rep == 4:
            out.append(index.value & 0xFFFFFFFF)
            out.append(index.value >> 32 & 0xFFFFFFFF)
        if rep in _REL_REPS:
            if index.rel is None:
                raise UnsupportedOperation("relative index without its operand")
            encode_operand(index.rel, out)


def encode_instruction(inst: Instruction, out: list[int]) -> None:
    if inst.opcode == OP_CUSTOMDATA:
        out.append(OP_CUSTOMDATA | (inst.controls & 0x1FFFFF) << 11)
        out.append(len(inst.raw) + 2)
        out.extend(inst.raw)
        return
    start = len(out)
    out.append(0)
    out.extend(_chain(inst.extended))
    if inst.raw and inst.opcode in _RAW_FIRST:  # fcall: call-site word, operand, any padding
        out.append(inst.raw[0])
        for op in inst.operands:
            encode_operand(op, out)
        out.extend(inst.raw[1:])
    else:
        for op in inst.operands:
            encode_operand(op, out)
        out.extend(inst.raw)
    length = len(out) - start
    if length > 0x7F:
        raise UnsupportedOperation(f"instruction of {length} words exceeds the 127-word limit")
    out[start] = (inst.opcode & 0x7FF) | (inst.controls & 0x1FFF) << 11 | length << 24 | (
        (1 << 31) if inst.extended else 0
    )


def encode(prog: Program) -> list[int]:
    """Token words of ``prog`` (version, length, instructions, then any kept trailing words)."""
    out = [
        (prog.program_type & 0xFFFF) << 16 | (prog.version_extra & 0xFF) << 8 | (prog.major & 0xF) << 4
        | (prog.minor & 0xF),
        0,
    ]
    for inst in prog.instructions:
        encode_instruction(inst, out)
    out[1] = len(out)
    out.extend(prog.trailing)
    return out


def encode_bytes(prog: Program) -> bytes:
    words = encode(prog)
    return struct.pack(f"<{len(words)}I", *words)
