"""Maxwell assembler: the listing text of :mod:`text` back to code bytes, generic over the table.

Lines carry ``[control]`` prefixes; every three prefixed lines form a bundle whose control word
is written in front of them (``.sched 0x...`` gives a bundle's control word verbatim). Lines
without a prefix (``.u64``) follow the program as data; ``.byte`` ends the code.
"""

from __future__ import annotations

import math
import re
import struct

from shaderkit.errors import AssemblyError
from shaderkit.isa.maxwell.decode import Control, Instruction, join_control
from shaderkit.isa.maxwell.encoding import BY_MNEMONIC, Encoding, Operand, bits_width
from shaderkit.isa.maxwell.table import COMPONENT_MASKS, ENUMS

_COMMENT = re.compile(r"/\*.*?\*/|//.*$")
_CONTROL = re.compile(
    r"\[B(?P<wait>[0-5-]{6}):R(?P<read>[0-7-]):W(?P<write>[0-7-]):(?P<yield>[Y-]):S(?P<stall>\d\d)"
    r"(?::U(?P<reuse>[0-9a-fA-F]))?\]")
_INSTRUCTION = re.compile(r"(?:@(?P<not>!?)(?P<guard>P[0-6T])\s+)?(?P<name>[A-Z0-9_]+)(?P<mods>(?:\.[A-Za-z0-9_]+)*)"
                          r"(?:\s+(?P<operands>.*))?$")
_REGISTER = re.compile(r"R(\d+)|RZ")
_OFFSET = re.compile(r"(?:(?P<reg>R\d+|RZ)(?:(?P<sign>[+-])(?P<off>0x[0-9a-fA-F]+|\d+))?|(?P<imm>-?(?:0x[0-9a-fA-F]+|\d+)))")


class _Mismatch(Exception):
    """This encoding does not take the text; another one may."""


def parse_control(text: str) -> Control:
    """The control fields of ``[B------:R-:W-:Y:S00]`` notation (raises the internal mismatch error otherwise)."""
    m = _CONTROL.fullmatch(text)
    if not m:
        raise _Mismatch(f"bad control notation {text!r}")
    wait = sum(1 << i for i, c in enumerate(m["wait"]) if c != "-")
    if any(c not in ("-", str(i)) for i, c in enumerate(m["wait"])):
        raise _Mismatch(f"wait mask {m['wait']!r}: barrier i is written as digit i")
    stall = int(m["stall"])
    if stall > 15:
        raise _Mismatch(f"stall {stall} is more than 15")
    return Control(stall, m["yield"] == "Y", 7 if m["write"] == "-" else int(m["write"]),
                   7 if m["read"] == "-" else int(m["read"]), wait, int(m["reuse"] or "0", 16))


def _int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise _Mismatch(f"{text!r} is not a number") from None


def _register(text: str) -> int:
    m = _REGISTER.fullmatch(text)
    if not m:
        raise _Mismatch(f"{text!r} is not a register")
    value = 255 if m[1] is None else int(m[1])
    if value > 255:
        raise _Mismatch(f"register {text} does not exist")
    return value


def _predicate(text: str) -> int:
    if text == "PT":
        return 7
    if re.fullmatch(r"P[0-6]", text):
        return int(text[1])
    raise _Mismatch(f"{text!r} is not a predicate")


def _fit(value: int, width: int, signed: bool, what: str) -> int:
    low = -(1 << (width - 1)) if signed else 0
    high = (1 << (width - 1)) - 1 if signed else (1 << width) - 1
    if not low <= value <= high:
        raise _Mismatch(f"{what} {value:#x} does not fit {width} bits")
    return value & ((1 << width) - 1)


def _float_bits(text: str, kind: str, width: int) -> int:
    if text.lower().startswith(("0x", "-0x")):
        return _fit(_int(text), width, False, "raw float")
    try:
        value = float(text)
    except ValueError:
        raise _Mismatch(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise _Mismatch("write infinities and NaNs as raw hex bits")
    if kind == "D20":
        bits, drop = struct.unpack("<Q", struct.pack("<d", value))[0], 44
    else:
        try:
            bits = struct.unpack("<I", struct.pack("<f", value))[0]
        except OverflowError:
            raise _Mismatch(f"{text} does not fit a float32") from None
        if struct.unpack("<f", struct.pack("<I", bits))[0] != value:
            raise _Mismatch(f"{text} is not exactly a float32")
        drop = 12 if kind == "F20" else 0
    if bits & ((1 << drop) - 1):
        raise _Mismatch(f"{text} needs more than the {width} bits of this immediate")
    return bits >> drop


def _enum_value(enum: str, text: str) -> int | None:
    """The value ``text`` names in ``ENUMS[enum]`` (or ``ENUM_<n>``), else None."""
    names = [n.lstrip("_").upper() for n in ENUMS[enum]]
    if text and text in names:
        return names.index(text)
    prefix = f"{enum}_".upper()
    if text.startswith(prefix) and text[len(prefix):].isdigit():
        return int(text[len(prefix):])
    return None


def _register_offset(text: str, width: int, signed: bool, shift: int = 0) -> tuple[int, int]:
    m = _OFFSET.fullmatch(text)
    if not m:
        raise _Mismatch(f"{text!r} is not register+offset")
    if m["imm"] is not None:
        register, offset = 255, _int(m["imm"])
    else:
        register, offset = _register(m["reg"]), _int(m["off"]) if m["off"] else 0
        offset = -offset if m["sign"] == "-" else offset
    if offset % (1 << shift):
        raise _Mismatch(f"offset {offset:#x} is not a multiple of {1 << shift}")
    return register, _fit(offset >> shift, width, signed, "offset")


def _operand(enc: Encoding, operand: Operand, text: str, values: list[int], address: int) -> None:
    if operand.not_ is not None and text.startswith("!"):
        values[operand.not_], text = 1, text[1:]
    if operand.neg is not None and text.startswith("-") and (operand.kind in ("R", "C", "K") or text[1:2] in "(|"):
        values[operand.neg], text = 1, text[1:]
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
    if operand.inv is not None and text.startswith("~"):
        values[operand.inv], text = 1, text[1:]
    if operand.abs is not None and len(text) > 1 and text.startswith("|") and text.endswith("|"):
        values[operand.abs], text = 1, text[1:-1]
    if operand.h1 is not None and text.endswith(".H1"):
        values[operand.h1], text = 1, text[:-3]
    if operand.part is not None and "." in text:
        head, _, tail = text.rpartition(".")
        value = _enum_value(operand.part_enum or "", tail)
        if value is not None:
            values[operand.part], text = value, head
    slots = operand.fields
    width = bits_width(enc.slots[slots[-1]])
    kind = operand.kind
    if kind == "R":
        if operand.cc is not None and text.endswith(".CC"):
            values[operand.cc], text = 1, text[:-3]
        values[slots[0]] = _register(text)
    elif kind == "P":
        values[slots[0]] = _predicate(text)
    elif kind == "N":
        value = _enum_value(operand.enum or "", text)
        if value is None:
            raise _Mismatch(f"{text!r} is not a {operand.enum} name")
        values[slots[0]] = _fit(value, width, False, "value")
    elif kind == "W":
        masks = COMPONENT_MASKS[operand.pair is not None and values[operand.pair] == 255]
        values[slots[0]] = masks.index(text) if text in masks else _fit(_int(text), width, False, "mask")
    elif kind in ("I", "H", "S"):
        values[slots[0]] = _fit(_int(text), width, kind == "S", "immediate")
    elif kind in ("F", "F20", "D20"):
        values[slots[0]] = _float_bits(text, kind, width)
    elif kind in ("C", "K"):
        m = re.fullmatch(r"c\[(?P<slot>[^\]]+)\]\[(?P<offset>[^\]]+)\]", text)
        if not m:
            raise _Mismatch(f"{text!r} is not c[slot][offset]")
        values[slots[0]] = _fit(_int(m["slot"]), bits_width(enc.slots[slots[0]]), False, "constant buffer")
        if kind == "C":
            offset = _int(m["offset"])
            if offset % 4:
                raise _Mismatch(f"constant offset {offset:#x} is not a multiple of 4")
            values[slots[1]] = _fit(offset // 4, width, False, "constant offset")
        else:
            register, values[slots[-1]] = _register_offset(m["offset"], width, True)
            if len(slots) == 3:
                values[slots[1]] = register
            elif register != 255:
                raise _Mismatch("this constant-buffer operand takes no register")
    elif kind in ("M", "A"):
        prefix = "a[" if kind == "A" else "["
        if not (text.startswith(prefix) and text.endswith("]")):
            raise _Mismatch(f"{text!r} is not {prefix}...]")
        values[slots[0]], values[slots[1]] = _register_offset(text[len(prefix):-1], width, kind == "M", operand.shift)
    else:  # "T"
        values[slots[0]] = _fit(_int(text) - address - 8, width, True, "branch distance")


def _encode(enc: Encoding, guard: tuple[int, int] | None, mods: list[str], operands: list[str],
            address: int) -> int:
    values = [0] * len(enc.slots)
    residual = 0
    if enc.guard is not None:
        values[enc.guard[0]], values[enc.guard[1]] = guard or (7, 0)
    elif guard is not None:
        raise _Mismatch(f"{enc.mnemonic} takes no guard predicate")
    if enc.suffix:
        if not mods or mods[0] != enc.suffix:
            raise _Mismatch(f"needs .{enc.suffix}")
        mods = mods[1:]
    for modifier in enc.modifiers:
        values[modifier.slot] = modifier.default
    position = 0
    for token in mods:
        if token.startswith("BITS_"):
            residual = _int(token[5:])
            if residual & ~enc.residual:
                raise _Mismatch(f"BITS_{residual:#x} sets bits that fields cover")
            continue
        for index in range(position, len(enc.modifiers)):
            value = enc.modifiers[index].parse(token)
            if value is not None:
                values[enc.modifiers[index].slot] = value
                position = index + 1
                break
        else:
            raise _Mismatch(f"modifier .{token} does not fit {enc.mnemonic} here")
    present = list(enc.operands)
    missing = len(present) - len(operands)
    while missing > 0 and present and present[-1].optional is not None:
        values[present[-1].fields[0]] = present[-1].optional
        present.pop()
        missing -= 1
    if len(present) != len(operands):
        raise _Mismatch(f"{enc.mnemonic} takes {len(enc.operands)} operands, {len(operands)} given")
    for operand, text in zip(present, operands):
        _operand(enc, operand, text, values, address)
    for bits, value in zip(enc.slots, values):
        if value >> bits_width(bits):
            raise _Mismatch(f"value {value:#x} does not fit its field")
    return Instruction(enc, tuple(values), residual).encode()


def assemble_instruction(text: str, address: int = 0) -> int:
    """One instruction (``@P0 FFMA.FTZ R0, R1, c[0x3][0x40], R2``) to its 64-bit word.
    Raises ``ValueError`` with the reason when no encoding takes the text."""
    m = _INSTRUCTION.fullmatch(text.strip().rstrip(";").strip())
    if not m:
        raise ValueError(f"cannot read instruction {text!r}")
    encodings = BY_MNEMONIC.get(m["name"])
    if not encodings:
        raise ValueError(f"unknown mnemonic {m['name']}")
    guard = (_predicate(m["guard"]), 1 if m["not"] else 0) if m["guard"] else None
    mods = [t for t in m["mods"].split(".") if t]
    operand_text = (m["operands"] or "").strip()
    operands = [t.strip() for t in operand_text.split(",")] if operand_text else []
    reasons = []
    for enc in encodings:
        try:
            return _encode(enc, guard, mods, operands, address)
        except _Mismatch as exc:
            reasons.append(f"{enc.name}: {exc}")
    raise ValueError("; ".join(reasons))


def assemble(source: str) -> bytes:
    """Code bytes from a listing; raises :class:`AssemblyError` with line and column."""
    slots: list[tuple[Control | None, int]] = []  # program slots (control, word)
    bundles: list[int | None] = []  # explicit control words, one per bundle (None: join controls)
    pending: int | None = None
    data: list[int] = []
    tail = b""
    for number, raw_line in enumerate(source.splitlines(), 1):
        line = _COMMENT.sub("", raw_line).strip().rstrip(";").strip()
        if not line:
            continue
        column = raw_line.find(line[:8]) + 1 if line else 1
        try:
            if tail:
                raise ValueError(".byte must come last")
            if line.startswith(".sched"):
                if len(slots) % 3:
                    raise ValueError(".sched must start a bundle")
                pending = _int(line[6:].strip()) & ((1 << 64) - 1)
                continue
            if line.startswith(".byte"):
                if pending is not None:
                    bundles.append(pending)
                    pending = None
                tail = bytes(_fit(_int(t.strip()), 8, False, "byte") for t in line[5:].split(","))
                continue
            control = None
            if line.startswith("["):
                end = line.find("]")
                control = parse_control(line[: end + 1])
                line = line[end + 1 :].strip()
            if control is None and line.startswith(".u64"):
                if pending is not None:  # a control word with no instruction after it
                    bundles.append(pending)
                    pending = None
                data.append(_fit(_int(line[4:].strip()), 64, False, "word"))
                continue
            if control is None:
                raise ValueError("a program line needs its [control] notation")
            if data:
                raise ValueError("program lines cannot follow data")
            if len(slots) % 3 == 0:
                bundles.append(pending)
                pending = None
            address = 0x20 * (len(slots) // 3) + 8 * (len(slots) % 3 + 1)
            if line.startswith(".u64"):
                word = _fit(_int(line[4:].strip()), 64, False, "word")
            else:
                word = assemble_instruction(line, address)
            slots.append((control, word))
        except (ValueError, _Mismatch) as exc:
            raise AssemblyError(str(exc), number, column) from None
    if pending is not None:
        bundles.append(pending)
    if len(slots) % 3 and bundles[-1] is None:
        raise AssemblyError("the last bundle has fewer than 3 instructions and no .sched word",
                            len(source.splitlines()), 1)
    out = bytearray()
    for index, explicit in enumerate(bundles):
        group = slots[3 * index : 3 * index + 3]
        controls = [c for c, _ in group if c is not None]
        out += struct.pack("<Q", explicit if explicit is not None else join_control(controls))
        for _, word in group:
            out += struct.pack("<Q", word)
    for word in data:
        out += struct.pack("<Q", word)
    return bytes(out + tail)
