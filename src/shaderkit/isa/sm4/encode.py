""":class:`Program` -> SHDR/SHEX token words; lengths, index dimensions and chaining bits recomputed."""

from __future__ import annotations

import struct

from shaderkit.errors import UnsupportedOperation
from shaderkit.isa.sm4.model import Instruction, Operand, Program
from shaderkit.isa.sm4.opcodes import OP_CUSTOMDATA, OPCODES, Layout
from shaderkit.isa.sm4.table import (
    EXTENDED_BIT,
    INDEX_FORMS,
    LENGTH_MASK,
    OPERAND_TOKEN,
    REP_AT,
    REP_MASK,
    pack_customdata,
    pack_opcode,
    pack_version,
    packer,
)

_MORE = 1 << EXTENDED_BIT
#: operand token without its index representations, from the table's fields
_pack_head = packer(OPERAND_TOKEN, "num_components", "selection_mode", "component_bits", "type",
                    "index_dimension", "extended")
_INDEX_FORMS = {rep: (form.immediate_words, form.relative) for rep, form in INDEX_FORMS.items()}
#: opcodes whose raw words come before the operands (fcall: the call-site word)
_RAW_FIRST = frozenset(v for v, info in OPCODES.items() if info.layout == Layout.CALL)


def _chain(tokens: list[int]) -> list[int]:
    """Extended tokens with bit 31 set on all but the last."""
    last = len(tokens) - 1
    return [t | _MORE if i < last else t for i, t in enumerate(tokens)]


def encode_operand(op: Operand, out: list[int]) -> None:
    """Append the tokens of ``op`` (head, extended, indices, immediates) to ``out``; UnsupportedOperation beyond 3 indices."""
    dim = len(op.indices)
    if dim > 3:
        raise UnsupportedOperation(f"operand has {dim} indices, at most 3 fit a token")
    token = _pack_head(op.num_components, op.selection_mode, op.component_bits, op.type, dim,
                       1 if op.extended else 0)
    for i, index in enumerate(op.indices):
        token |= (index.rep & REP_MASK) << REP_AT[i]
    out.append(token)
    if op.extended:
        out.extend(_chain(op.extended))
    if op.values:
        out.extend(op.values)
    for index in op.indices:
        form = _INDEX_FORMS.get(index.rep)
        if form is None:
            raise UnsupportedOperation(f"unknown index representation {index.rep}")
        words, relative = form
        if words:
            out.append(index.value & 0xFFFFFFFF)
            if words == 2:
                out.append(index.value >> 32 & 0xFFFFFFFF)
        if relative:
            if index.rel is None:
                raise UnsupportedOperation("relative index without its operand")
            encode_operand(index.rel, out)


def encode_instruction(inst: Instruction, out: list[int]) -> None:
    """Append the tokens of ``inst`` (opcode token with its length, operands, raw words) to ``out``."""
    if inst.opcode == OP_CUSTOMDATA:
        out.append(pack_customdata(OP_CUSTOMDATA, inst.controls))
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
    if length > LENGTH_MASK:
        raise UnsupportedOperation(f"instruction of {length} words exceeds the {LENGTH_MASK}-word limit")
    out[start] = pack_opcode(inst.opcode, inst.controls, length, 1 if inst.extended else 0)


def encode(prog: Program) -> list[int]:
    """Token words of ``prog`` (version, length, instructions, then any kept trailing words)."""
    out = [pack_version(prog.minor, prog.major, prog.version_extra, prog.program_type), 0]
    for inst in prog.instructions:
        encode_instruction(inst, out)
    out[1] = len(out)
    out.extend(prog.trailing)
    return out


def encode_bytes(prog: Program) -> bytes:
    """The token stream of ``prog`` as little-endian bytes."""
    words = encode(prog)
    return struct.pack(f"<{len(words)}I", *words)
