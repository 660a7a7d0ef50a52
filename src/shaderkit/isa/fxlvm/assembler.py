"""fxc's ``eval(...)`` instruction text -> FXLC instructions (the reverse of :mod:`.code`).

An instruction is ``name output, inputs...``; its component count is the output's (a suffix's
letter count, four without one); an input of one component in an instruction of several sets
the scalar flag (only the first may). Operands: ``r<n>`` temporaries, ``expr`` / ``expr<n>`` /
``expr0.<c>`` the result, ``c<n>`` or a constant-table name (``m[3]`` the register inside a
constant spanning several) for inputs, ``array[index]`` a relative operand, ``(v, ...)``
literals: each value is looked up in the literal list (consecutive values together) and
appended when absent. A component suffix is consecutive letters from its first, wrapping
``w`` -> ``x``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from shaderkit.errors import AssemblyError
from shaderkit.io.float32 import f32_word
from shaderkit.isa.fxlvm.code import FxlcInstruction, FxlcOperand
from shaderkit.isa.fxlvm.table import COMPONENTS, OPCODE_BY_NAME, REG_INPUT, REG_LITERAL, REG_OUTPUT, REG_TEMP

#: resolves an input name and the register inside it (None when not bracketed) to a register;
#: None when no input has that name
InputResolver = Callable[[str, "int | None"], "int | None"]

_SPLIT = re.compile(r",\s*(?![^()]*\))")
_NAMED = re.compile(r"([A-Za-z_$][\w$]*)(?:\[(\d+)\])?(?:\.([xyzw]{1,4}))?")
_RELATIVE = re.compile(r"([A-Za-z_$][\w$]*)(?:\.([xyzw]{1,4}))?\[(.+)\]")


def literal_bits(text: str) -> int:
    """A literal as fxc printed it -> its 32 bits: ``%f`` floats, decimal or ``0x`` integers."""
    text = text.strip()
    try:
        if text.lower().startswith(("0x", "-0x")):
            return int(text, 16) & 0xFFFFFFFF
        if re.fullmatch(r"-?\d+", text):
            return int(text) & 0xFFFFFFFF
        return f32_word(float(text))
    except (ValueError, OverflowError):
        raise AssemblyError(f"cannot read the literal {text!r}", 0, 0) from None


def _suffix(text: str | None) -> tuple[int, int]:
    """``(first component, count)`` of a suffix; ``(0, 4)`` for none."""
    if not text:
        return 0, 4
    start = COMPONENTS.index(text[0])
    if any(COMPONENTS[(start + i) % 4] != c for i, c in enumerate(text)):
        raise AssemblyError(f"components .{text} are not consecutive", 0, 0)
    return start, len(text)


def _literal_offset(values: list[int], literals: list[int]) -> int:
    n = len(values)
    for at in range(len(literals) - n + 1):
        if literals[at : at + n] == values:
            return at
    literals.extend(values)
    return len(literals) - n


def parse_operand(text: str, literals: list[int], resolve: InputResolver,
                  known: dict[str, int] | None = None) -> tuple[FxlcOperand, int]:
    """One operand and the number of components it names; ``known`` gives the bits of literal
    texts whose bits ``%f`` does not keep (a base's literals as printed)."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        table = known or {}
        values = [table[v.strip()] if v.strip() in table else literal_bits(v) for v in text[1:-1].split(",")]
        return FxlcOperand(REG_LITERAL, _literal_offset(values, literals)), len(values)
    rel = _RELATIVE.fullmatch(text)
    if rel is not None and not rel.group(3).isdigit():
        name, suffix, index_text = rel.groups()
        index, _n = parse_operand(index_text, literals, resolve, known)
        array, count = _plain(name, None, suffix, resolve)
        return FxlcOperand(index.table, index.offset, (array.table, array.offset)), count
    m = _NAMED.fullmatch(text)
    if m is None:
        raise AssemblyError(f"cannot read the operand {text!r}", 0, 0)
    name, inner, suffix = m.groups()
    return _plain(name, None if inner is None else int(inner), suffix, resolve)


def _plain(name: str, inner: int | None, suffix: str | None, resolve: InputResolver) -> tuple[FxlcOperand, int]:
    start, count = _suffix(suffix)
    register = resolve(name, inner)
    if register is not None:
        return FxlcOperand(REG_INPUT, register * 4 + start), count
    reg = re.fullmatch(r"r(\d+)|expr(\d*)|c(\d+)", name) if inner is None else None
    if reg is None:
        raise AssemblyError(f"no input is named {name!r}", 0, 0)
    temp, out, const = reg.groups()
    if temp is not None:
        return FxlcOperand(REG_TEMP, int(temp) * 4 + start), count
    if out is not None:
        return FxlcOperand(REG_OUTPUT, int(out or 0) * 4 + start), count
    return FxlcOperand(REG_INPUT, int(const) * 4 + start), count


def parse_instruction(text: str, literals: list[int], resolve: InputResolver,
                      known: dict[str, int] | None = None) -> FxlcInstruction:
    """One instruction line; literals not yet in ``literals`` are appended to it (``known``: see
    :func:`parse_operand`)."""
    name, _, rest = text.strip().partition(" ")
    opcode = OPCODE_BY_NAME.get(name)
    if opcode is None:
        hexed = re.fullmatch(r"op([0-9a-f]+)", name)
        if hexed is None:
            raise AssemblyError(f"unknown FXLVM instruction {name!r}", 0, 0)
        opcode = int(hexed.group(1), 16)
    parts = _SPLIT.split(rest)
    if not rest or not parts:
        raise AssemblyError(f"{name} takes an output", 0, 0)
    output, comps = parse_operand(parts[0], literals, resolve, known)
    inputs, scalar = [], False
    for k, part in enumerate(parts[1:]):
        operand, count = parse_operand(part, literals, resolve, known)
        if count != comps:
            if k == 0 and count == 1:
                scalar = True
            else:
                raise AssemblyError(f"operand {part.strip()!r} has {count} component(s), {name} {comps}", 0, 0)
        inputs.append(operand)
    return FxlcInstruction(opcode, comps, inputs, output, scalar)


__all__ = ["InputResolver", "literal_bits", "parse_instruction", "parse_operand"]
