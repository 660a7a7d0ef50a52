"""Maxwell text in NVIDIA's SASS spelling: instruction text, control notation and listings.

A listing line is ``/*addr*/ [control] @P0 MNEMONIC.MODS operands;``. The control notation
``[B------:R-:W-:Y:S01]`` gives the wait mask (barrier digits), read and write barrier (``-`` =
none), the yield bit (``Y`` set, ``-`` clear), the stall count, and ``:U<hex>`` reuse flags when
any are set. Words after the program's terminal branch are data (``.u64``).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence

from shaderkit.isa.maxwell.decode import (
    BUNDLE_BYTES,
    Control,
    Instruction,
    component_mask,
    decode,
    operand_value,
    program_end,
    split_control,
    words_of,
)
from shaderkit.isa.maxwell.encoding import Operand
from shaderkit.isa.maxwell.table import ENUMS


def control_text(control: Control) -> str:
    """The control notation ``[B------:R-:W-:Y:S00]`` (with reuse flags when set)."""
    wait = "".join(str(i) if control.wait_mask >> i & 1 else "-" for i in range(6))
    read = "-" if control.read_barrier == 7 else str(control.read_barrier)
    write = "-" if control.write_barrier == 7 else str(control.write_barrier)
    text = f"[B{wait}:R{read}:W{write}:{'Y' if control.yield_flag else '-'}:S{control.stall:02}"
    if control.reuse:
        text += f":U{control.reuse:x}"
    return text + "]"


def register_text(value: int) -> str:
    """``R<n>``, or ``RZ`` for 255."""
    return "RZ" if value == 255 else f"R{value}"


def predicate_text(value: int) -> str:
    """``P<n>``, or ``PT`` for 7."""
    return "PT" if value == 7 else f"P{value}"


def signed_hex(value: int) -> str:
    """``value`` in hex with a leading minus for negatives (``-0x10``)."""
    return f"-{-value:#x}" if value < 0 else f"{value:#x}"


def float_text(value: float, raw: int) -> str:
    """Shortest decimal that reads back to the same bits; raw field bits (hex) when not finite."""
    if not math.isfinite(value):
        return f"{raw:#x}"
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def enum_value_text(enum: str, value: int) -> str:
    """The name of ``value`` in ``ENUMS[enum]`` as text (``ENUM_<n>`` when it has none)."""
    names = ENUMS[enum]
    return names[value].lstrip("_").upper() if value < len(names) and names[value] else f"{enum}_{value}".upper()


def _offset_text(register: int, offset: int) -> str:
    if register == 255:
        return signed_hex(offset)
    if offset == 0:
        return register_text(register)
    return f"{register_text(register)}{'-' if offset < 0 else '+'}{abs(offset):#x}"


def operand_text(instruction: Instruction, operand: Operand, address: int, force: bool = False,
                 hex_literals: bool = False) -> str | None:
    """The operand's text; None when it is optional, at its default and ``force`` is off;
    ``hex_literals``: float immediates as their field bits in hex (``0x3f800``), as the assembler reads them."""
    values = instruction.values
    raw = [values[slot] for slot in operand.fields]
    kind = operand.kind
    flags = [values[slot] for slot in (operand.neg, operand.abs, operand.not_, operand.inv, operand.cc, operand.h1,
                                       operand.part)
             if slot is not None]
    if not force and operand.optional is not None and raw[0] == operand.optional and not any(flags):
        return None
    if kind == "R":
        text = register_text(raw[0])
        if operand.cc is not None and values[operand.cc]:
            text += ".CC"
    elif kind == "P":
        text = predicate_text(raw[0])
    elif kind in ("I", "H"):
        text = f"{raw[0]:#x}"
    elif kind == "N":
        text = enum_value_text(operand.enum or "", raw[0])
    elif kind == "W":
        text = component_mask(instruction, operand) or f"{raw[0]:#x}"
    elif kind == "S":
        text = signed_hex(operand_value(instruction, operand)[0])
    elif hex_literals and kind in ("F", "F20", "D20"):
        text = f"{raw[0]:#x}"
    elif kind == "F":
        text = float_text(struct.unpack("<f", struct.pack("<I", raw[0]))[0], raw[0])
    elif kind == "F20":
        text = float_text(struct.unpack("<f", struct.pack("<I", operand_value(instruction, operand)[0]))[0], raw[0])
    elif kind == "D20":
        text = float_text(struct.unpack("<d", struct.pack("<Q", operand_value(instruction, operand)[0]))[0], raw[0])
    elif kind == "C":
        slot, offset = operand_value(instruction, operand)
        text = f"c[{slot:#x}][{offset:#x}]"
    elif kind == "K":
        slot, register, offset = operand_value(instruction, operand)
        text = f"c[{slot:#x}][{_offset_text(register, offset)}]"
    elif kind in ("M", "A"):
        register, offset = operand_value(instruction, operand)
        text = f"{'[' if kind == 'M' else 'a['}{_offset_text(register, offset)}]"
    else:  # "T"
        text = signed_hex(address + 8 + operand_value(instruction, operand)[0])
    if operand.h1 is not None and values[operand.h1]:
        text += ".H1"
    if operand.part is not None and values[operand.part]:
        text += "." + enum_value_text(operand.part_enum or "", values[operand.part])
    if operand.abs is not None and values[operand.abs]:
        text = f"|{text}|"
    if operand.inv is not None and values[operand.inv]:
        text = "~" + text
    if operand.neg is not None and values[operand.neg]:
        text = f"-{text}" if kind in ("R", "C", "K") or text.startswith("|") else f"-({text})"
    if operand.not_ is not None and values[operand.not_]:
        text = "!" + text
    return text


def instruction_text(instruction: Instruction, address: int = 0, hex_literals: bool = False) -> str:
    """``@P0 MNEMONIC.MODS op, op`` (no control, no trailing ``;``); ``hex_literals``: float
    immediates as field bits in hex."""
    enc, values = instruction.encoding, instruction.values
    head = ""
    if enc.guard is not None:
        guard, guard_not = values[enc.guard[0]], values[enc.guard[1]]
        if guard != 7 or guard_not:
            head = f"@{'!' if guard_not else ''}{predicate_text(guard)} "
    name = enc.mnemonic + (f".{enc.suffix}" if enc.suffix else "")
    for modifier in enc.modifiers:
        suffix = modifier.text(values[modifier.slot])
        if suffix is not None:
            name += "." + suffix
    if instruction.residual:
        name += f".BITS_{instruction.residual:#x}"
    operands = [operand_text(instruction, op, address, False, hex_literals) for op in enc.operands]
    while operands and operands[-1] is None:  # only trailing operands may be left out
        operands.pop()
    body = ", ".join(t if t is not None else operand_text(instruction, op, address, True, hex_literals) or ""
                     for t, op in zip(operands, enc.operands))
    return f"{head}{name} {body}".rstrip() if body else head + name


def word_text(word: int, address: int, hex_literals: bool = False) -> str:
    """Instruction text, or ``.u64`` for a word no encoding matches."""
    instruction = decode(word)
    return f".u64 {word:#018x}" if instruction is None else instruction_text(instruction, address, hex_literals)


def disassemble(code: bytes, hex_literals: bool = False,
                marker: Callable[[int, Sequence[int]], str] | None = None) -> str:
    """The listing of a code blob: the program with its controls, then data (``hex_literals``:
    float immediates as field bits in hex). ``marker(offset, words)`` (``disasm --offsets --raw``):
    its text is put at the end of each line showing a 64-bit word (instructions, ``.sched``,
    ``.u64``), with the word as two 32-bit halves, low first, and its byte offset in ``code``."""
    def mark(address: int, word: int) -> str:
        return "" if marker is None else marker(address, (word & 0xFFFFFFFF, word >> 32))

    words = words_of(code)
    end = program_end(code)
    lines = []
    count = 0
    bundle_end = 0
    for start in range(0, end, BUNDLE_BYTES):
        control_word = words[start // 8]
        controls, top = split_control(control_word)
        slots = min(3, len(words) - start // 8 - 1)
        if top or slots < 3:
            lines.append(f".sched {control_word:#018x};" + mark(start, control_word))
        for i in range(slots):
            address = start + 8 * (i + 1)
            word = words[address // 8]
            body = word_text(word, address, hex_literals) if address < end else f".u64 {word:#018x}"
            count += address < end and not body.startswith(".u64")
            lines.append(f"/*{address:04x}*/ {control_text(controls[i])} {body};" + mark(address, word))
        bundle_end = start + 8 * (slots + 1)
    if bundle_end < len(words) * 8:
        lines.append("// data after the program")
    for address in range(bundle_end, len(words) * 8, 8):
        lines.append(f"/*{address:04x}*/ .u64 {words[address // 8]:#018x};" + mark(address, words[address // 8]))
    tail = code[len(words) * 8:]
    if tail:
        lines.append(".byte " + ", ".join(f"{b:#04x}" for b in tail) + ";")
    header = f"// maxwell code: {len(code):#x} bytes, program {end:#x} bytes, {count} instructions"
    return "\n".join([header, *lines]) + "\n"
