"""Declarations printed and read through :data:`~.opcodes.DCL_TEMPLATES` (one layout per opcode).

Each template is compiled once at import time into a list of pieces, and the pieces, on first
use, into one printing function per opcode (:data:`PRINTERS`, used by :func:`format_declaration` and the
one-pass printer); :func:`patterns` (a regular expression per template, one group per field,
compiled on first use) lets the assembler read the same text back with
:func:`fields_to_instruction`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from shaderkit.isa.sm4.model import Instruction, Operand
from shaderkit.isa.sm4.opcodes import (
    DCL_ENUMS,
    DCL_TEMPLATES,
    GLOBAL_FLAGS,
    INTERPOLATION_MODES,
    RETURN_TYPES,
)
from shaderkit.isa.sm4.table import CONTROLS_AT


class Piece:
    """One piece of a declaration's text template: its kind, literal text, word index or bit shift, width and names.

    (A plain class, not a NamedTuple: mypyc's NamedTuples load ``typing``, a share of start-up.)
    """

    __slots__ = ("kind", "text", "at", "width", "names", "legacy_omits")

    def __init__(self, kind: str, text: str = "", at: int = 0, width: int = 0, names: dict[int, str] | None = None,
                 legacy_omits: bool = False) -> None:
        self.kind = kind  # "lit", "op", "c", "r", "rt", "f", "hi", "space", "cbsize", "samples", "uav",
        #                   "interp", "flags", "bodies", "tables"
        self.text = text  # literal text
        self.at = at  # raw word index, or control bit shift
        self.width = width  # control field width
        self.names = names  # enumeration
        self.legacy_omits = legacy_omits  # {interp:legacy}

    def __repr__(self) -> str:
        return (f"Piece({self.kind!r}, {self.text!r}, at={self.at}, width={self.width}, names={self.names!r}, "
                f"legacy_omits={self.legacy_omits})")


_FIELD = re.compile(r"\{\{|\}\}|\{([a-z]+)(?::([0-9]+|legacy))?(?::([0-9]+))?(?::([A-Z_]+))?\}")


def _compile(template: str) -> list[Piece]:
    pieces: list[Piece] = []
    pos = 0
    for m in _FIELD.finditer(template):
        if m.start() > pos:
            pieces.append(Piece("lit", template[pos : m.start()]))
        pos = m.end()
        if m.group(0) in ("{{", "}}"):
            pieces.append(Piece("lit", m.group(0)[0]))
            continue
        kind, a, b, enum = m.groups()
        names = DCL_ENUMS[enum] if enum else None
        if kind == "c":
            pieces.append(Piece("c", at=int(a), width=int(b), names=names))
        elif kind in ("r", "rt", "f", "hi"):
            pieces.append(Piece(kind, at=int(a or 0), names=names))
        elif kind == "interp":
            pieces.append(Piece("interp", legacy_omits=a == "legacy"))
        else:
            pieces.append(Piece(kind))
    if pos < len(template):
        pieces.append(Piece("lit", template[pos:]))
    # merge adjacent literals
    merged: list[Piece] = []
    for piece in pieces:
        if piece.kind == "lit" and merged and merged[-1].kind == "lit":
            merged[-1] = Piece("lit", merged[-1].text + piece.text)
        else:
            merged.append(piece)
    return merged


#: opcode -> compiled template
LAYOUTS: dict[int, list[Piece]] = {op: _compile(text) for op, text in DCL_TEMPLATES.items()}
#: opcodes that end with the SM5.1 register space (the word after their fixed words)
SPACED = frozenset(op for op, pieces in LAYOUTS.items() if any(p.kind == "space" for p in pieces))
#: opcodes whose word count is variable (interface declarations: function bodies, tables)
_VARIABLE = frozenset(op for op, pieces in LAYOUTS.items() if any(p.kind in ("bodies", "tables") for p in pieces))


def _fixed_words(pieces: list[Piece], sm51: bool) -> int:
    """How many raw words a template reads (before the SM5.1 space; ``cbsize`` is word 0 in SM5.1)."""
    n = 0
    for piece in pieces:
        if piece.kind in ("r", "rt", "f", "hi"):
            n = max(n, piece.at + 1)
        elif piece.kind == "cbsize" and sm51:
            n = max(n, 1)
    return n


#: opcode -> raw words before the SM5.1 register space. The space is the word right after them
#: (as the runtime and vkd3d-shader read it), not simply the last word: vkd3d-shader 1.14 writes a
#: return-type word (0x4444...) into dcl_uav_raw / dcl_resource_raw, which fxc never does.
FIXED_WORDS = {(op, sm51): _fixed_words(pieces, sm51) for op, pieces in LAYOUTS.items() for sm51 in (False, True)}


def _shown_controls(pieces: list[Piece]) -> int:
    """The opcode control bits (relative to bit 11) a template prints."""
    shown = 0
    for piece in pieces:
        if piece.kind == "c":
            shown |= ((1 << piece.width) - 1) << piece.at
        elif piece.kind == "samples":
            shown |= 0x7F << 5
        elif piece.kind == "uav":
            shown |= sum(1 << bit for bit, _ in _UAV_FLAGS)
        elif piece.kind == "interp":
            shown |= 0xF
        elif piece.kind == "flags":
            shown |= 0x1FFF
    return shown


def extra_words(opcode: int, raw: Sequence[int], sm51: bool) -> Sequence[int]:
    """The raw words of a declaration that its template does not print (none in fxc output;
    ``disasm --exact`` shows them as ``raw(...)``)."""
    if opcode not in LAYOUTS or opcode in _VARIABLE:
        return ()
    used = FIXED_WORDS[opcode, sm51] + (1 if sm51 and opcode in SPACED else 0)
    return raw[used:]


_MULTISAMPLED = (4, 9)
_UAV_FLAGS = ((5, "_glc"), (6, "_rov"), (12, "_opc"))  # control bit, suffix
#: opcode -> the control bits its template prints; ``disasm --exact`` prints the others as
#: ``, ctl(0x...)`` (fxc sets none; vkd3d-shader 1.14 puts the buffer dimension into bits 11+ of
#: dcl_uav_raw / dcl_resource_raw)
SHOWN_CONTROLS = {op: _shown_controls(pieces) for op, pieces in LAYOUTS.items()}


def _name(names: dict[int, str] | None, value: int) -> str:
    if names is None:
        return str(value)
    text = names.get(value)
    return str(value) if text is None else text


def _return_type(value: int) -> str:
    return RETURN_TYPES[value] if value < len(RETURN_TYPES) else str(value)


#: a compiled template: (controls, raw words, operand text, float text, sm51, legacy) -> text
DeclarationPrinter = Callable[[int, Sequence[int], str, Callable[[int], str], bool, bool], str]


def _word(at: int) -> str:
    return f"(raw[{at}] if {at} < len(raw) else 0)"


def _piece_code(name: str, piece: Piece, fixed: int) -> str:
    """The Python expression of one template piece (``name`` holds its enumeration; ``fixed``:
    the SM5.1 raw words before the register space)."""
    kind = piece.kind
    if kind == "lit":
        return repr(piece.text)
    if kind == "op":
        return "op"
    if kind == "c":
        return f"_name({name}, (c >> {piece.at}) & {(1 << piece.width) - 1})"
    if kind == "r":
        return f"_name({name}, {_word(piece.at)})"
    if kind == "rt":
        return f"_return_types({_word(piece.at)})"
    if kind == "f":
        return f"float_text({_word(piece.at)})"
    if kind == "hi":
        return f"str({_word(piece.at)} >> 16)"
    if kind == "space":
        return "(f', space={raw[" + str(fixed) + "]}' if sm51 and len(raw) > " + str(fixed) + " else '')"
    if kind == "cbsize":
        return "(f'[{raw[0]}]' if sm51 and len(raw) > 1 else '')"
    if kind == "samples":
        return "(f'({(c >> 5) & 0x7F})' if c & 0x1F in _MULTISAMPLED else '')"
    if kind == "uav":
        return "''.join([suffix for bit, suffix in _UAV_FLAGS if c >> bit & 1])"
    if kind == "interp":
        return f"_interpolation(c, {'legacy' if piece.legacy_omits else 'False'})"
    if kind == "flags":
        return "_flags(c)"
    if kind == "bodies":
        return "', '.join([f'fb{b}' for b in raw[2:]])"
    if kind == "tables":
        return "', '.join([f'ft{t}' for t in raw[3 : 3 + ((raw[2] if len(raw) > 2 else 0) & 0xFFFF)]])"
    raise ValueError(f"unknown template piece {kind!r}")


def _compile_printer(op: int) -> DeclarationPrinter:
    """The function of one template: its pieces' expressions joined."""
    scope = dict(_PRINTER_SCOPE)
    codes = []
    for i, piece in enumerate(LAYOUTS[op]):
        name = f"N{i}"
        scope[name] = piece.names
        codes.append(_piece_code(name, piece, FIXED_WORDS[op, True]))
    printer: DeclarationPrinter = eval(  # noqa: S307
        "lambda c, raw, op, float_text, sm51, legacy: " + (" + ".join(codes) or "''"), scope)
    return printer


class _Printers(dict[int, DeclarationPrinter]):
    """opcode -> its compiled template, each compiled on first use (a program uses a few of them)."""

    def __missing__(self, op: int) -> DeclarationPrinter:
        if op not in LAYOUTS:
            raise KeyError(op)
        printer = self[op] = _compile_printer(op)
        return printer

    def __contains__(self, op: object) -> bool:
        return op in LAYOUTS


def _return_types(word: int) -> str:
    return ",".join([_return_type(word >> (4 * i) & 0xF) for i in range(4)])


def _interpolation(c: int, omitted: bool) -> str:
    mode = c & 0xF
    text = INTERPOLATION_MODES[mode] if mode < len(INTERPOLATION_MODES) else str(mode)
    return text + " " if text and not omitted else ""


def _flags(c: int) -> str:
    return " | ".join([label for bit, label in GLOBAL_FLAGS if (c << CONTROLS_AT) & bit])


#: what the compiled templates call
_PRINTER_SCOPE: dict[str, object] = {
    "_name": _name, "_return_types": _return_types, "_MULTISAMPLED": _MULTISAMPLED, "_UAV_FLAGS": _UAV_FLAGS,
    "_interpolation": _interpolation, "_flags": _flags}
#: opcode -> its compiled template (from :data:`LAYOUTS`, compiled on first use; ``in`` asks LAYOUTS)
PRINTERS: dict[int, DeclarationPrinter] = _Printers()
#: opcodes whose template prints the declared operand
WITH_OPERAND = frozenset(op for op, pieces in LAYOUTS.items() if any(p.kind == "op" for p in pieces))


def format_declaration(inst: Instruction, operand_text: Callable[[Operand], str], float_text: Callable[[int], str],
                       sm51: bool, legacy: bool, exact: bool = False) -> str:
    """The declaration's text from its template (``operand_text`` prints the declared operand).
    ``exact``: words the template does not print follow as ``, raw(0x...)``."""
    op = operand_text(inst.operands[0]) if inst.operands and inst.opcode in WITH_OPERAND else ""
    text = PRINTERS[inst.opcode](inst.controls, inst.raw, op, float_text, sm51, legacy)
    if exact:
        extra = extra_words(inst.opcode, inst.raw, sm51)
        if extra:
            text += ", raw(" + ", ".join(f"0x{w:08x}" for w in extra) + ")"
        hidden = inst.controls & ~SHOWN_CONTROLS[inst.opcode]
        if hidden:
            text += f", ctl(0x{hidden:x})"
    return text


# -- reading ----------------------------------------------------------------------------------

def _alternatives(names: dict[int, str]) -> str:
    texts = sorted((t for t in names.values() if t), key=len, reverse=True)
    return "|".join(re.escape(t) for t in texts)


_NUMBER = r"\d+"


def _pattern(pieces: list[Piece], sm51: bool) -> re.Pattern[str]:
    parts: list[str] = []
    for i, piece in enumerate(pieces):
        kind = piece.kind
        group = f"g{i}"
        if kind in ("space", "cbsize") and not sm51:
            parts.append(f"(?P<{group}>)")
        elif kind == "lit":
            text = piece.text.rstrip() if i == len(pieces) - 1 else piece.text
            parts.append(re.escape(text).replace(r"\ ", " +"))
        elif kind == "op":
            parts.append(f"(?P<{group}>[^,]+?)")
        elif kind in ("c", "r"):
            alts = _alternatives(piece.names) if piece.names else ""
            if piece.names is not None and "" in piece.names.values():
                parts.append(f"(?P<{group}>{alts}|{_NUMBER}|)")
            else:
                parts.append(f"(?P<{group}>{alts + '|' if alts else ''}{_NUMBER})")
        elif kind == "rt":
            parts.append(f"(?P<{group}>[^()]*)")
        elif kind == "f":
            parts.append(f"(?P<{group}>[^()]+)")
        elif kind == "hi":
            parts.append(f"(?P<{group}>{_NUMBER})")
        elif kind == "space":
            parts.append(f"(?:, *space=(?P<{group}>{_NUMBER}))?")
        elif kind == "cbsize":
            parts.append(rf"(?:\[(?P<{group}>{_NUMBER})\])?")
        elif kind == "samples":
            parts.append(rf"(?:\((?P<{group}>{_NUMBER})\))?")
        elif kind == "uav":
            parts.append(f"(?P<{group}>(?:_glc)?(?:_rov)?(?:_opc)?)")
        elif kind == "interp":
            alts = _alternatives(dict(enumerate(INTERPOLATION_MODES)))
            parts.append(f"(?:(?P<{group}>{alts}) +)?")
        elif kind == "flags":
            parts.append(f"(?P<{group}>[A-Za-z0-9_ |]*?)")
        elif kind in ("bodies", "tables"):
            parts.append(f"(?P<{group}>[^{{}}]*?)")
    return re.compile("".join(parts) + " *")


_patterns: dict[tuple[int, bool], re.Pattern[str]] = {}


def patterns() -> dict[tuple[int, bool], re.Pattern[str]]:
    """(opcode, sm51) -> the pattern reading a declaration's text; compiled on first use (the
    assembler's; printing needs none of it)."""
    if not _patterns:
        _patterns.update({(op, sm51): _pattern(pieces, sm51) for op, pieces in LAYOUTS.items()
                          for sm51 in (False, True)})
    return _patterns


#: declaration opcodes by the literal text their template starts with, longest first
BY_PREFIX: list[tuple[str, int]] = sorted(((pieces[0].text.rstrip(), op) for op, pieces in LAYOUTS.items()),
                                          key=lambda item: -len(item[0]))


class FieldError(ValueError):
    """A field that does not fit; ``group`` names the regex group (for its column)."""

    def __init__(self, message: str, group: str) -> None:
        super().__init__(message)
        self.group = group


def _u32(text: str, group: str) -> int:
    """A decimal field that must fit one 32-bit word."""
    value = int(text)
    if value >> 32:
        raise FieldError(f"{value} does not fit 32 bits", group)
    return value


def _value(piece: Piece, text: str, group: str) -> int:
    if piece.names is not None:
        for value, name in piece.names.items():
            if name == text:
                return value
    if text.isdigit():
        return int(text)
    raise FieldError(f"unknown value {text!r}", group)


def fields_to_instruction(opcode: int, m: re.Match[str], sm51: bool,
                          read_operand: Callable[[str, int], Operand],
                          read_float: Callable[[str, int], int]) -> Instruction:
    """The declaration instruction of a :func:`patterns` match. ``read_operand(text, start)``
    and ``read_float(text, start)`` read the operand and float fields (start: column in the
    matched text)."""
    controls = 0
    raw: dict[int, int] = {}
    operands: list[Operand] = []
    space: int | None = None
    for i, piece in enumerate(LAYOUTS[opcode]):
        group = f"g{i}"
        kind = piece.kind
        if kind == "lit":
            continue
        text = m.group(group)
        if kind == "op":
            operands.append(read_operand(text, m.start(group)))
        elif kind == "c":
            value = _value(piece, text, group)
            if value >> piece.width:
                raise FieldError(f"{value} does not fit {piece.width} bits", group)
            controls |= value << piece.at
        elif kind == "r":
            value = _value(piece, text, group)
            if value >> 32:
                raise FieldError(f"{value} does not fit 32 bits", group)
            raw[piece.at] = raw.get(piece.at, 0) | value
        elif kind == "rt":
            types = text.split(",")
            if len(types) != 4:
                raise FieldError("expected four return types", group)
            word = 0
            for n, name in enumerate(types):
                name = name.strip()
                if name in RETURN_TYPES[1:]:
                    word |= RETURN_TYPES.index(name) << (4 * n)
                elif name.isdigit() and int(name) < 16:
                    word |= int(name) << (4 * n)
                else:
                    raise FieldError(f"unknown return type {name!r}", group)
            raw[piece.at] = word
        elif kind == "f":
            raw[piece.at] = read_float(text, m.start(group))
        elif kind == "hi":
            value = int(text)
            if value >> 16:
                raise FieldError(f"{value} does not fit 16 bits", group)
            raw[piece.at] = raw.get(piece.at, 0) | value << 16
        elif kind == "space":
            if text:
                space = _u32(text, group)
        elif kind == "cbsize":
            if text:
                raw[0] = _u32(text, group)
        elif kind == "samples":
            if text is not None:
                if int(text) > 0x7F:
                    raise FieldError("sample count does not fit 7 bits", group)
                controls |= int(text) << 5
        elif kind == "uav":
            controls |= sum(1 << bit for bit, suffix in _UAV_FLAGS if suffix in text)
        elif kind == "interp":
            if text:
                controls |= INTERPOLATION_MODES.index(text)
        elif kind == "flags":
            for label in filter(None, (t.strip() for t in text.split("|"))):
                bits = [bit for bit, name in GLOBAL_FLAGS if name == label]
                if not bits:
                    raise FieldError(f"unknown global flag {label!r}", group)
                controls |= bits[0] >> CONTROLS_AT
        elif kind == "bodies":
            bodies = _numbered(text, "fb", group)
            raw[1] = len(bodies)
            raw.update({2 + n: b for n, b in enumerate(bodies)})
        elif kind == "tables":
            tables = _numbered(text, "ft", group)
            raw[2] = raw.get(2, 0) | len(tables)
            raw.update({3 + n: t for n, t in enumerate(tables)})
    words = [raw.get(n, 0) for n in range(max(raw) + 1)] if raw else []
    if sm51 and opcode in SPACED:
        words.append(space or 0)
    return Instruction(opcode, controls, [], operands, words)


def _numbered(text: str, prefix: str, group: str) -> list[int]:
    out = []
    for item in filter(None, (t.strip() for t in text.split(","))):
        if not item.startswith(prefix) or not item[len(prefix):].isdigit():
            raise FieldError(f"expected {prefix}<number>, found {item!r}", group)
        out.append(_u32(item[len(prefix):], group))
    return out
