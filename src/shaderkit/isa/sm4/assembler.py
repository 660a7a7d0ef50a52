"""fxc listing text -> :class:`Program` (the SM4/SM5/SM5.1 assembler).

Reads what the disassembler prints (fxc's ``D3DDisassemble`` syntax): the version line,
declarations (through the templates of :mod:`.dcl`), instructions (mnemonics, control suffixes,
``_aoffimmi``/``_indexable`` extended tokens, ``[precise]``), operands (registers, indices,
relative addressing, masks, swizzles, modifiers, ``{min16f}`` precision notes, ``l(...)`` and
``d(...)`` immediates), immediate constant buffers and ``printf``/``errorf`` messages. ``//``
comments, ``#line`` directives, blank lines and indentation are ignored; anything before the
first version line (fxc's comment header, level-9 D3D9 programs) belongs to the caller.

Operand component encodings follow fxc: a written operand's ``.xy`` is a mask, a read operand
takes a four-letter swizzle or one selected component (two or three letters in xyzw order are a
mask, as 3Dmigoto assembles hand-edited ``v1.xyz``), registers printed without components
get the component count fxc gives their type. ``[r0.x + 0]`` is a relative index, ``[r0.x + n]``
an immediate plus a relative index. Floats take fxc's ``%f`` text, the shortest round-trip text
``disasm --exact`` prints, or ``0x`` hex bits.

``disasm --exact`` text adds what fxc's text drops, in forms this module reads: ``raw(0x...)``
after the operands (padding words) and after a declaration's fields (vkd3d-shader's extra words),
``ctl(0x...)`` last (control bits the mnemonic does not show, e.g. vkd3d's test bit on endif), ``[r0.x + 0x0]`` (an immediate 0 plus a relative index),
``// customdata class n: 0x...`` (the words of blocks fxc prints as a comment), and interpolation
modes fxc 9.x omits.

Every error is an :class:`~shaderkit.errors.AssemblyError` with the line and column.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from typing import NamedTuple

from shaderkit.errors import AssemblyError
from shaderkit.isa.sm4 import dcl
from shaderkit.isa.sm4.model import Index, Instruction, Operand, Program
from shaderkit.isa.sm4.opcodes import (
    ICB_CLASS,
    MESSAGE_CLASS,
    MIN_PRECISION,
    OP_CUSTOMDATA,
    OPCODES,
    PROGRAM_TYPES,
    REGISTER_NAMES,
    REGISTER_TYPE_INFO,
    RESOURCE_DIMENSIONS,
    RESOURCE_OPERANDS,
    RESOURCE_TYPES,
    RETURN_TYPES,
    UPPER_51,
    Ctl,
    Imm,
    Layout,
)
from shaderkit.isa.sm4.table import (
    CUSTOMDATA_TOKEN,
    EXT_OPERAND_MODIFIER,
    EXTENDED_OPCODE_TOKENS,
    PRECISE_MASK,
    REP_AT,
    SATURATE,
    TEST_NONZERO,
    pack_extended_opcode,
    pack_extended_operand,
    pack_swizzle,
)

# -- register names and component rules ------------------------------------------------------

#: register prefix -> operand type ("l" is a label unless it opens an immediate)
REGISTER_TYPES: dict[str, int] = {name: t for t, name in REGISTER_NAMES.items() if t not in (4, 5)}
REGISTER_TYPES.update({name: t for t, name in UPPER_51.items()})
REGISTER_TYPES["l"] = 10
_NAME_RE = re.compile(r"[A-Za-z]+")
_SCALAR = frozenset(t for t, info in REGISTER_TYPE_INFO.items() if info.components == 1)
#: ``, raw(0x..., ...)`` ending a declaration in ``disasm --exact`` text
_DCL_RAW = re.compile(r", ?raw\(([^()]*)\)$")
#: ``, ctl(0x...)`` ending a declaration in ``disasm --exact`` text (control bits not printed)
_DCL_CTL = re.compile(r", ?ctl\(([^()]*)\)$")
_DCL_NONE = frozenset(t for t, info in REGISTER_TYPE_INFO.items() if info.components == 1 and not info.dcl_components)
_VECTOR = frozenset(t for t, info in REGISTER_TYPE_INFO.items() if info.components == 4)
_WRITABLE = frozenset(t for t, info in REGISTER_TYPE_INFO.items() if info.writable)
_SWIZZLE_XYZW = 0xE4
_INDEX_COUNTS = {t: info.indices for t, info in REGISTER_TYPE_INFO.items() if info.indices}
_COMPONENT = {"x": 0, "y": 1, "z": 2, "w": 3}
_PRECISION = {name: value for value, name in sorted(MIN_PRECISION.items(), reverse=True) if name}
_PRECISION["def32"] = 0

_VERSION_RE = re.compile(r"^(ps|vs|gs|hs|ds|cs|lib)_([45])_([01])(?:\s*//.*)?$")  # a comment may follow
#: version lines of the D3D9 programs of level-9 shaders (they end the SM4 program before them)
_D3D9_VERSION_RE = re.compile(r"^(lib_[45]_[01]_)?(ps|vs)_[1-3]_(0|1|x|sw)$")
_PROGRAM_TYPE = {name: n for n, name in enumerate(PROGRAM_TYPES)}
_PROGRAM_TYPE["lib"] = 0xFFF0
_HEAD_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\([^()]*\))*)([A-Za-z0-9_]*)")
_PRECISE_RE = re.compile(r" *\[precise(?:\(([xyzw]+)\))?\]")
#: the parenthesised parts and suffix of a mnemonic (``(texture2d)(float,float,float,float)_uint``)
_PARENS_TAIL_RE = re.compile(r"((?:\([^()]*\))*)([A-Za-z0-9_]*)")
_PAREN_RE = re.compile(r"\(([^()]*)\)")
#: three texel offsets, the first parentheses of a mnemonic (without ``_aoffimmi`` in fxc 9.29 text)
_OFFSETS_RE = re.compile(r" *[-+]?\w+ *, *[-+]?\w+ *, *[-+]?\w+ *")

# -- literals ---------------------------------------------------------------------------------
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")
_FLOAT_WORDS = {"inf": 0x7F800000, "-inf": 0xFF800000, "nan": 0x7FC00000}
#: the old MSVC CRT's ``%f`` of infinities and NaNs (``1.#INF00``; 3Dmigoto's d3dcompiler_46
#: listings print ``1.#INF0000``, ``-1.#IND0000``: one zero per decimal asked for): + and - bits
_CRT_SPECIAL_RE = re.compile(r"([-+]?)1\.#(INF|IND|QNAN|SNAN)0*")
_CRT_SPECIAL = {"INF": (0x7F800000, 0xFF800000), "IND": (0x7FC00000, 0xFFC00000),
                "QNAN": (0x7FC00000, 0xFFC00000), "SNAN": (0x7F800001, 0xFF800001)}
#: float32 bits of the smallest positive normal float (prints "0.000000" as a typeless value)
_SMALLEST_NORMAL = 0x00800000
_HEX_RE = re.compile(r"-?0[xX][0-9a-fA-F]+")
_DEC_RE = re.compile(r"[-+]?\d+")


class _Fail(Exception):
    """A problem at ``pos`` (column offset inside the text being read)."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def _int_word(text: str, pos: int) -> int:
    if _HEX_RE.fullmatch(text):
        value = int(text, 16)
    elif _DEC_RE.fullmatch(text):
        value = int(text)
    else:
        raise _Fail(f"expected an integer, found {text!r}", pos)
    if not -(1 << 31) <= value < (1 << 32):
        raise _Fail(f"{text} does not fit 32 bits", pos)
    return value & 0xFFFFFFFF


def _control_bits(inner: str, pos: int) -> int:
    """The bits of ``ctl(inner)`` (``disasm --exact``: control bits the text does not show);
    ``pos``: where ``inner`` starts. They must fit the opcode token's 13 control bits."""
    bits = _int_word(inner.strip(), pos)
    if bits >> 13:
        raise _Fail(f"ctl({inner}) does not fit the 13 control bits", pos)
    return bits


def float_word(text: str, pos: int = 0) -> int:
    """float32 bits of a float literal: fxc ``%f``, any decimal/exponent form, the old CRT's
    ``1.#INF00``, ``-1.#IND0000``, ``1.#QNAN0`` (any number of zeros) or ``0x`` hex bits."""
    word = _FLOAT_WORDS.get(text)
    if word is not None:
        return word
    if _HEX_RE.fullmatch(text):
        return _int_word(text, pos)
    special = _CRT_SPECIAL_RE.fullmatch(text)
    if special is not None:
        return _CRT_SPECIAL[special.group(2)][special.group(1) == "-"]
    try:
        value = float(text)
        return int(_U32.unpack(_F32.pack(value))[0])
    except (ValueError, OverflowError):
        raise _Fail(f"{text!r} is not a float32 literal", pos) from None


def _is_float_text(text: str) -> bool:
    if _HEX_RE.fullmatch(text):
        return False
    return "." in text or "e" in text.lower() or "#" in text or text.lower().lstrip("-") in ("inf", "nan")


def _double_words(text: str, pos: int) -> tuple[int, int]:
    body = text[:-1] if text.endswith("l") else text
    if _HEX_RE.fullmatch(body):
        value = int(body, 16)
        if value >> 64:
            raise _Fail(f"{body} does not fit 64 bits", pos)
    else:
        try:
            value = _U64.unpack(_F64.pack(float(body)))[0]
        except (ValueError, OverflowError):
            raise _Fail(f"{text!r} is not a double literal", pos) from None
    return value & 0xFFFFFFFF, value >> 32


def _split(text: str, pos: int) -> list[tuple[str, int]]:
    """Top-level comma-separated items of ``text`` (stripped) with their start offsets (+``pos``)."""
    if "(" in text or "[" in text or "{" in text:
        pieces = []
        depth = 0
        start = 0
        for i, ch in enumerate(text):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 0:
                pieces.append(text[start:i])
                start = i + 1
        pieces.append(text[start:])
    else:
        pieces = text.split(",")
    out = []
    at = pos
    for item in pieces:
        stripped = item.strip()
        out.append((stripped, at + len(item) - len(item.lstrip())))
        at += len(item) + 1
    return out


# -- operands ---------------------------------------------------------------------------------

#: per sm51: operands parsed from their text (errors are never cached)
_OPERAND_CACHES: tuple[dict[tuple[str, str, Imm], Operand], dict[tuple[str, str, Imm], Operand]] = ({}, {})


class _Notes:
    """The ``{...}`` notes of one operand: minimum precision and ``nonuniform``."""

    def __init__(self) -> None:
        self.precision = 0
        self.annotated = False  # an explicit precision (not "def32 as ...": no extended token)
        self.nonuniform = False

    def strip(self, body: str, at: int) -> str:
        """``body`` without its trailing notes, which are recorded."""
        while body.endswith("}") and "{" in body:
            open_at = body.rindex("{")
            note = body[open_at + 1 : -1].strip()
            body = body[:open_at].rstrip()
            if note == "nonuniform":
                self.nonuniform = True
                continue
            first = note.split(" as ")[0].strip()
            if first not in _PRECISION:
                raise _Fail(f"unknown precision {first!r}", at + open_at + 1)
            self.precision = _PRECISION[first]
            self.annotated = " as " not in note
        return body


class _OperandReader:
    """Reads one operand's text; ``role``: "dest" (mask), "src" (swizzle / one component) or
    "dcl" (declarations: masks, fxc's implicit components)."""

    def __init__(self, sm51: bool) -> None:
        self.sm51 = sm51
        #: operands read so far by (text, role, kind): texts repeat a lot (r0.xyzw, cb0[1].xyzw)
        self.cache: dict[tuple[str, str, Imm], Operand] = _OPERAND_CACHES[sm51]

    def read(self, text: str, pos: int, role: str, kind: Imm) -> Operand:
        key = (text, role, kind)
        known = self.cache.get(key)
        if known is None:
            known = self.parse(text, pos, role, kind)
            if len(self.cache) < 65536:
                self.cache[key] = known
        # a copy the caller may edit (indices are immutable; relative operands are not edited)
        return Operand(known.type, known.num_components, known.selection_mode, known.component_bits,
                       list(known.indices), list(known.extended), list(known.values))

    def parse(self, text: str, pos: int, role: str, kind: Imm) -> Operand:
        if not text:
            raise _Fail("missing operand", pos)
        modifier = 0
        body = text
        at = pos
        if body.startswith("-"):
            modifier |= 1
            body, at = body[1:], at + 1
        # annotations " {min16f}", " {min16f as def32}", " {nonuniform}": after the operand, or
        # inside an absolute value's bars (``|r2.xyzw {min16f}|``, as fxc writes them)
        notes = _Notes()
        body = notes.strip(body, at)
        if body.startswith("|"):
            if not body.endswith("|") or len(body) < 3:
                raise _Fail("unclosed |absolute value|", at)
            modifier |= 2
            body, at = body[1:-1], at + 1
            body = notes.strip(body, at)
        precision, annotated, nonuniform = notes.precision, notes.annotated, notes.nonuniform
        op = self.core(body, at, role, kind)
        if modifier or precision or nonuniform or annotated:
            if modifier and role != "src":
                raise _Fail("a written operand takes no modifier", pos)
            op.extended.append(pack_extended_operand(EXT_OPERAND_MODIFIER, modifier, precision, nonuniform))
        return op

    def core(self, text: str, pos: int, role: str, kind: Imm) -> Operand:
        if text.startswith(("l(", "d(")):
            if role != "src":
                raise _Fail("an immediate value cannot be written", pos)
            if not text.endswith(")"):
                raise _Fail("unclosed immediate value", pos)
            values = _split(text[2:-1], pos + 2)
            if text[0] == "d":
                if len(values) not in (1, 2):
                    raise _Fail("d(...) holds one or two doubles", pos)
                words: list[int] = []
                for item, at in values:
                    words.extend(_double_words(item, at))
                return Operand(5, 1 if len(values) == 1 else 2, 0, 0, [], [], words)
            if len(values) not in (1, 4):
                raise _Fail(f"l(...) holds 1 or 4 values, found {len(values)}", pos)
            return Operand(4, 1 if len(values) == 1 else 2, 0, 0, [], [], [self.literal(item, at, kind)
                                                                           for item, at in values])
        m = _NAME_RE.match(text)
        if m is None:
            raise _Fail(f"expected an operand, found {text!r}", pos)
        name = m.group(0)
        op_type = REGISTER_TYPES.get(name)
        if op_type is None:
            raise _Fail(f"unknown register {name!r}", pos)
        i = m.end()
        indices: list[Index] = []
        digits = re.match(r"\d+", text[i:])
        if digits:
            indices.append(Index(0, self.index_value(digits.group(0), pos + i)))
            i += digits.end()
        while i < len(text) and text[i] == "[":
            close = _closing(text, i)
            if close < 0:
                raise _Fail("unclosed [", pos + i)
            indices.append(self.index(text[i + 1 : close], pos + i + 1))
            i = close + 1
        if len(indices) > len(REP_AT):
            raise _Fail(f"{len(indices)} indices; an operand has at most {len(REP_AT)}", pos)
        op = Operand(op_type, 0, 0, 0, indices, [], [])
        if i < len(text):
            if text[i] != "." or i + 1 == len(text):
                raise _Fail(f"unexpected {text[i:]!r} after the register", pos + i)
            self.components(op, text[i + 1 :], pos + i + 1, role)
        else:
            self.implicit(op, role)
        return op

    def index_value(self, text: str, pos: int) -> int:
        value = int(text)
        if value >> 32:
            raise _Fail(f"register index {value} does not fit 32 bits", pos)
        return value

    def index(self, text: str, pos: int) -> Index:
        text_s = text.strip()
        pos += len(text) - len(text.lstrip())
        if text_s.isdigit():
            return Index(0, self.index_value(text_s, pos))
        plus = text_s.rfind("+")
        if plus < 0:
            raise _Fail(f"expected an index or 'register + offset', found {text_s!r}", pos)
        offset_text = text_s[plus + 1 :].strip()
        rel = self.read(text_s[:plus].strip(), pos, "src", Imm.INT)
        if _HEX_RE.fullmatch(offset_text) and not offset_text.startswith("-"):  # always immediate + relative
            return Index(3, _int_word(offset_text, pos + plus + 1), rel)
        if not offset_text.isdigit():
            raise _Fail(f"expected an index offset, found {offset_text!r}", pos + plus + 1)
        offset = self.index_value(offset_text, pos + plus + 1)
        # fxc prints "+ 0" for a relative-only index (it never writes an immediate 0 with one)
        return Index(3 if offset else 2, offset, rel)

    def components(self, op: Operand, letters: str, pos: int, role: str) -> None:
        if ";" in letters:  # hand edits in C style; 3Dmigoto would read "xyzw;" as a mask
            raise _Fail("unexpected ';' (comments start with //)", pos + letters.index(";"))
        if len(letters) > 4 or any(ch not in _COMPONENT for ch in letters):
            raise _Fail(f"bad component selection .{letters}", pos)
        comps = [_COMPONENT[ch] for ch in letters]
        op.num_components = 2
        if role in ("dest", "dcl"):
            if comps != sorted(set(comps)):
                raise _Fail(f"mask .{letters} must name components once each, in xyzw order", pos)
            op.selection_mode = 0
            op.component_bits = sum(1 << c for c in comps)
        elif len(comps) == 4:
            op.selection_mode = 1
            op.component_bits = pack_swizzle(comps)
        elif len(comps) == 1:
            op.selection_mode = 2
            op.component_bits = comps[0]
        elif comps == sorted(set(comps)):
            # two or three letters: a mask on a read operand, as 3Dmigoto's assembler encodes the
            # hand-written `mov r0.xyz, v1.xyz` (the disassembler prints such an operand the same way)
            op.selection_mode = 0
            op.component_bits = sum(1 << c for c in comps)
        else:
            raise _Fail(f".{letters}: a read operand takes a four-letter swizzle, one component or a mask "
                        "(two or three components once each, in xyzw order)", pos)

    def implicit(self, op: Operand, role: str) -> None:
        if role == "dcl":
            if op.type == 8 or len(op.indices) == 3:
                op.num_components, op.selection_mode, op.component_bits = 2, 1, _SWIZZLE_XYZW
            elif op.type in _SCALAR and op.type not in _DCL_NONE:
                op.num_components = 1
        elif op.type in _SCALAR:
            op.num_components = 1
        elif op.type in _VECTOR:
            op.num_components = 2  # an empty mask

    def literal(self, text: str, pos: int, kind: Imm) -> int:
        if kind == Imm.FLOAT:
            if _DEC_RE.fullmatch(text):
                raise _Fail(f"integer {text} where the opcode reads floats (write {text}.0 or hex bits)", pos)
            return float_word(text, pos)
        if kind == Imm.INT:
            if _is_float_text(text):
                raise _Fail(f"float {text} where the opcode reads integers", pos)
            return _int_word(text, pos)
        if not _is_float_text(text):
            return _int_word(text, pos)
        word = float_word(text, pos)
        # a typeless value printed as a float is never the word 0 (fxc prints that "0"): fxc's
        # "0.000000" is a float too small for six decimals; the smallest normal one prints so.
        # Other spellings of zero ("0.0", hand edits) are the zero they say.
        return _SMALLEST_NORMAL if word == 0 and text == "0.000000" else word


def _closing(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
            if depth == 0:
                return i
    return -1


# -- mnemonics --------------------------------------------------------------------------------

def _spellings() -> dict[str, tuple[int, int]]:
    """Mnemonic spelling (control suffixes included) -> (opcode, controls)."""
    out: dict[str, tuple[int, int]] = {}
    for info in OPCODES.values():
        if info.dcl or info.layout == Layout.CUSTOM or info.name.startswith("reserved"):
            continue
        if info.ctl == Ctl.TEST:
            out[info.name + "_z"] = (info.value, 0)
            out[info.name + "_nz"] = (info.value, TEST_NONZERO.put(1))
            if info.name == "discard":  # fxc 9.29's spelling of discard_nz
                out[info.name] = (info.value, TEST_NONZERO.put(1))
        elif info.ctl == Ctl.SYNC:
            for scope, sbits in (("", 0), ("_uglobal", 8), ("_ugroup", 4)):
                for group, gbits in (("", 0), ("_g", 2)):
                    for thread, tbits in (("", 0), ("_t", 1)):
                        out[info.name + scope + group + thread] = (info.value, sbits | gbits | tbits)
        elif info.ctl == Ctl.RESINFO:
            out[info.name] = (info.value, 0)
            if info.value == 111:  # sampleinfo
                out[info.name + "_uint"] = (info.value, 1)
            else:
                out[info.name + "_rcpFloat"] = (info.value, 1)
                out[info.name + "_uint"] = (info.value, 2)
        else:
            out[info.name] = (info.value, 0)
    return out


SPELLINGS = _spellings()
_DIMENSIONS = {name: n for n, name in enumerate(RESOURCE_DIMENSIONS)}
_RETURNS = {name: n for n, name in enumerate(RETURN_TYPES) if name}
_IMM_AT = {value: dict(info.imm_at) for value, info in OPCODES.items() if info.imm_at}
_DATA_CLASS_MASK = CUSTOMDATA_TOKEN["data_class"].mask
_STRIDE = EXTENDED_OPCODE_TOKENS[2]["stride"]
_RETURN_FIELDS = ("return_x", "return_y", "return_z", "return_w")
#: mnemonic text (precise note included) -> (opcode, controls, extended tokens)
_MNEMONIC_CACHE: dict[str, tuple[int, int, tuple[int, ...]]] = {}


class Assembled(NamedTuple):
    """One program of a listing: the program, each instruction's text (whitespace collapsed)
    and the line of its version token; ``unresolved``: instructions (indices) whose contents the
    text does not show (customdata blocks fxc prints as ``// customdata class n, m words``),
    ``lines``: each instruction's line."""

    program: Program
    texts: list[str]
    line: int
    unresolved: list[int]
    lines: list[int]

    def check_resolved(self) -> None:
        """Raise if an instruction's contents are missing from the text."""
        if self.unresolved:
            raise AssemblyError("the words of this customdata block are not in the text (assemble with a "
                                "base container, or from `disasm --exact` text)", self.lines[self.unresolved[0]], 1)


class _Statement(NamedTuple):
    text: str
    line: int  # 1-based
    column: int  # 1-based column of text[0]


def _strip_comment(line: str) -> str:
    if "//" not in line:
        return line
    if '"' not in line:
        return line[: line.index("//")]
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_string = not in_string
        elif ch == "/" and not in_string and line.startswith("//", i):
            return line[:i]
    return line


#: 32-bit words as the listings print them: ``0x%08x``, one space apart
HEX_WORDS = r"0x[0-9a-f]{8}(?: 0x[0-9a-f]{8})*"
_UNKNOWN_RE = re.compile(rf"^// unknown opcode \d+: ({HEX_WORDS}) ?$")
#: customdata blocks fxc prints as a comment: with their words (exact text) or without them
_CUSTOMDATA_RE = re.compile(rf"^// customdata class (\d+)(?::(?: ({HEX_WORDS}) ?)?|, (\d+) words)$")
#: the comment lines that are instructions (read by the two patterns above)
_RAW_STATEMENTS = ("// unknown opcode ", "// customdata class ")


def _statements(lines: list[str], first: int) -> list[_Statement]:
    """Statements of a program's lines (``first``: line number of lines[0])."""
    out: list[_Statement] = []
    pending: _Statement | None = None
    depth = 0
    for n, raw_line in enumerate(lines):
        number = first + n
        stripped = raw_line.strip()
        if stripped.startswith(_RAW_STATEMENTS):
            out.append(_Statement(stripped, number, raw_line.index("/") + 1))
            continue
        code = _strip_comment(raw_line).rstrip()
        if not code.strip() or code.lstrip().startswith("#line"):
            continue
        if pending is not None:
            pending = _Statement(pending.text + " " + code.strip(), pending.line, pending.column)
            depth += code.count("{") - code.count("}")
            if depth <= 0:
                out.append(pending)
                pending = None
            continue
        column = len(code) - len(code.lstrip()) + 1
        statement = _Statement(code.strip(), number, column)
        if statement.text.startswith("dcl_immediateConstantBuffer"):
            depth = statement.text.count("{") - statement.text.count("}")
            if depth > 0:
                pending = statement
                continue
        out.append(statement)
    if pending is not None:
        raise AssemblyError("unclosed dcl_immediateConstantBuffer", pending.line, pending.column)
    return out


class _ProgramAssembler:
    def __init__(self, version: str, line: int, column: int) -> None:
        m = _VERSION_RE.match(version)
        if m is None:
            raise AssemblyError(f"expected a version line such as ps_5_0, found {version!r}", line, column)
        kind, major, minor = m.group(1), int(m.group(2)), int(m.group(3))
        self.program = Program(_PROGRAM_TYPE[kind], major, minor)
        self.sm51 = (major, minor) >= (5, 1)
        self.operands = _OperandReader(self.sm51)
        self.temps: int | None = None
        self.texts: list[str] = []
        #: instructions whose contents the text does not hold (fxc's customdata comments)
        self.unresolved: list[int] = []
        self.lines: list[int] = []

    def fail(self, exc: _Fail, st: _Statement) -> AssemblyError:
        return AssemblyError(exc.message, st.line, st.column + exc.pos)

    def add(self, st: _Statement) -> None:
        try:
            inst = self.statement(st.text)
        except _Fail as exc:
            raise self.fail(exc, st) from None
        self.program.instructions.append(inst)
        self.texts.append(" ".join(st.text.split()))
        self.lines.append(st.line)

    # -- statements -----------------------------------------------------------------------------
    def statement(self, text: str) -> Instruction:
        custom = _CUSTOMDATA_RE.match(text)
        if custom is not None:
            cls, words, count = custom.groups()
            if count is not None:  # the words are not in the text: only a base can supply them
                self.unresolved.append(len(self.program.instructions))
                return Instruction(OP_CUSTOMDATA, int(cls) & _DATA_CLASS_MASK, [], [], [0] * min(int(count), 1 << 20))
            return Instruction(OP_CUSTOMDATA, int(cls) & _DATA_CLASS_MASK, [], [],
                               [int(w, 16) for w in (words or "").split()])
        unknown = _UNKNOWN_RE.match(text)
        if unknown is not None:
            return _raw_instruction([int(w, 16) for w in unknown.group(1).split()])
        if text.startswith(_RAW_STATEMENTS):
            raise _Fail("unreadable words: each one 0x and 8 lower-case hex digits, one space apart", 0)
        if text.startswith("dcl_immediateConstantBuffer"):
            return self.icb(text)
        if text.startswith(("printf ", "errorf ", "printf\t", "errorf\t")):
            return self.message(text)
        if text.startswith("dcl_"):
            return self.declaration(text)
        return self.instruction(text)

    def declaration(self, text: str) -> Instruction:
        normal = " ".join(text.split())
        shift = len(text) - len(text.lstrip())
        extra: list[int] = []
        hidden = 0
        ctl = _DCL_CTL.search(normal)
        if ctl is not None:  # --exact: control bits the template does not print (not from fxc)
            hidden = _control_bits(ctl.group(1), text.rfind("ctl(") + 4)
            normal = normal[: ctl.start()]
        tail = _DCL_RAW.search(normal)
        if tail is not None:  # --exact: words after the declaration's fields (not from fxc)
            at = text.rfind("raw(") + 4
            extra = [_int_word(w, p) for w, p in _split(text[at : text.index(")", at)], at)]
            normal = normal[: tail.start()]
        for prefix, opcode in dcl.BY_PREFIX:
            if not normal.startswith(prefix):
                continue
            m = dcl.patterns()[opcode, self.sm51].fullmatch(normal)
            if m is None:
                continue
            try:
                inst = dcl.fields_to_instruction(
                    opcode, m, self.sm51,
                    lambda t, at: self.dcl_operand(t, at + shift),
                    lambda t, at: float_word(t.strip(), at + shift))
            except dcl.FieldError as exc:
                raise _Fail(str(exc), m.start(exc.group) + shift) from None
            if opcode == 104 and inst.raw:
                self.temps = inst.raw[0]
            if extra:
                inst.raw = [*inst.raw, *(w & 0xFFFFFFFF for w in extra)]
            inst.controls |= hidden
            return inst
        word = normal.split(" ")[0]
        known = any(word.startswith(prefix.split(" ")[0].rstrip("_")) for prefix, _ in dcl.BY_PREFIX)
        if known:
            raise _Fail(f"{word}: the declaration's fields do not match its layout", len(word) + 1)
        raise _Fail(f"unknown declaration {word!r}", 0)

    def dcl_operand(self, text: str, pos: int) -> Operand:
        text = text.strip()
        m = re.fullmatch(r"([A-Za-z]+)(\d+)\[(\d+):(\d+|\*)\](.*)", text)
        if m is not None and self.sm51:  # T0[0:*] style register ranges
            op = self.operands.read(m.group(1) + m.group(2) + m.group(5), pos, "dcl", Imm.INT)
            upper = 0xFFFFFFFF if m.group(4) == "*" else self.operands.index_value(m.group(4), pos)
            op.indices[1:1] = [Index(0, int(m.group(3))), Index(0, upper)]
            op.num_components, op.selection_mode, op.component_bits = 2, 1, _SWIZZLE_XYZW
            return op
        return self.operands.read(text, pos, "dcl", Imm.INT)

    def instruction(self, text: str) -> Instruction:
        head = _HEAD_RE.match(text)
        if head is None:
            raise _Fail(f"expected an instruction, found {text!r}", 0)
        pos = head.end()
        precise = _PRECISE_RE.match(text, pos) if text.startswith(" [", pos) else None
        if precise is not None and not head.group(2) and not head.group(3) and text.startswith("(", precise.end()):
            # fxc prints the note before the resource parentheses: ``ld_uav_typed_indexable
            # [precise(x)](texture2d)(uint,uint,uint,uint)``; read it as if it followed them
            moved = _PARENS_TAIL_RE.match(text, precise.end())
            reordered = _HEAD_RE.match(text[: head.end()] + moved.group(0)) if moved is not None else None
            if moved is not None and reordered is not None:
                text = text[: head.end()] + moved.group(0) + precise.group(0) + text[moved.end() :]
                head, pos = reordered, reordered.end()
                precise = _PRECISE_RE.match(text, pos)
        if precise is not None:
            pos = precise.end()
        key = text[:pos]
        known = _MNEMONIC_CACHE.get(key)
        if known is None:
            known = self.mnemonic(head, precise)
            if len(_MNEMONIC_CACHE) < 4096:
                _MNEMONIC_CACHE[key] = known
        opcode, controls, extended_words = known
        return self.operands_of(text, pos, opcode, controls, list(extended_words))

    def mnemonic(self, head: re.Match[str], precise: re.Match[str] | None) -> tuple[int, int, tuple[int, ...]]:
        """(opcode, controls, extended tokens) of an instruction's mnemonic part."""
        word, parens_text, tail = head.group(1), head.group(2), head.group(3)
        saturate = False
        if tail.endswith("_sat"):
            tail, saturate = tail[:-4], True
        elif not tail and word.endswith("_sat"):
            word, saturate = word[:-4], True
        indexable = word.endswith("_indexable")
        if indexable:
            word = word[: -len("_indexable")]
        offsets = word.endswith("_aoffimmi")
        if offsets:
            word = word[: -len("_aoffimmi")]
        spelled = SPELLINGS.get(word + tail)
        if spelled is None:
            raise _Fail(f"unknown opcode {head.group(0)!r}", 0)
        opcode, controls = spelled
        info = OPCODES[opcode]
        if saturate:
            if info.ctl != Ctl.SAT and info.ctl != Ctl.RESINFO:
                raise _Fail(f"{info.name} takes no _sat", 0)
            controls |= SATURATE.put(1)
        extended = self.extended(parens_text, offsets, indexable, head.start(2))
        if precise is not None:
            mask = precise.group(1)
            bits = PRECISE_MASK.mask if mask is None else sum(1 << _COMPONENT[ch] for ch in mask)
            controls |= PRECISE_MASK.put(bits)
        return opcode, controls, tuple(extended)

    def operands_of(self, text: str, pos: int, opcode: int, controls: int, extended: list[int]) -> Instruction:
        info = OPCODES[opcode]
        rest = text[pos:]
        if rest and not rest[0].isspace():
            raise _Fail(f"unexpected {rest!r} after the mnemonic", pos)
        items = [] if not rest.strip() else _split(rest, pos)
        raw: list[int] = []
        if opcode == 120:  # fcall fp#[array][call site]
            return self.fcall(info.value, controls, extended, items, pos)
        if items and items[-1][0].startswith("ctl(") and items[-1][0].endswith(")"):
            # --exact: control bits the mnemonic does not show (vkd3d's else/endif test bit)
            item, at = items.pop()
            controls |= _control_bits(item[4:-1], at + 4)
        if items and items[-1][0].startswith("raw(") and items[-1][0].endswith(")"):
            # --exact: words after the operands that fxc does not print
            item, at = items.pop()
            raw = [_int_word(w, at) for w, at in _split(item[4:-1], at + 4)]
        count = info.num_operands
        if len(items) != count:
            where = items[count][1] if len(items) > count else len(text)
            raise _Fail(f"{info.name} takes {count} operand{'s' if count != 1 else ''}, found {len(items)}",
                        where)
        special = _IMM_AT.get(opcode)
        places = RESOURCE_OPERANDS.get(opcode, {})
        operands = []
        for n, (item, at) in enumerate(items):
            role = "dest" if n < info.dests else "src"
            kind = info.imm if special is None else special.get(n, info.imm)
            op = self.operands.read(item, at, role, kind)
            allowed = places.get(n)
            if allowed is not None:
                if op.type not in allowed:
                    names = " or ".join(sorted(REGISTER_NAMES[t] for t in allowed))
                    raise _Fail(f"operand {n + 1} of {info.name} must be a {names} register", at)
            elif op.type in RESOURCE_TYPES:
                raise _Fail(f"operand {n + 1} of {info.name} cannot be a {REGISTER_NAMES[op.type]} register", at)
            elif role == "dest" and op.type not in _WRITABLE:
                raise _Fail(f"{REGISTER_NAMES.get(op.type, op.type)} cannot be written", at)
            self.check_register(op, at)
            operands.append(op)
        return Instruction(opcode, controls, extended, operands, raw)

    def check_register(self, op: Operand, pos: int) -> None:
        expected = _INDEX_COUNTS.get(op.type)
        if expected is not None and len(op.indices) != expected:
            name = REGISTER_NAMES[op.type]
            raise _Fail(f"{name} registers take {expected} ind{'ex' if expected == 1 else 'ices'}, found "
                        f"{len(op.indices)}", pos)
        if op.type == 0 and op.indices and self.temps is not None and op.indices[0].value >= self.temps:
            raise _Fail(f"r{op.indices[0].value} is out of range: dcl_temps declares {self.temps}", pos)
        for index in op.indices:
            if index.rel is not None:
                self.check_register(index.rel, pos)

    def extended(self, text: str, offsets: bool, indexable: bool, pos: int) -> list[int]:
        groups = [(m.group(1), pos + m.start(1)) for m in _PAREN_RE.finditer(text)]
        out: list[int] = []
        if not offsets and groups and _OFFSETS_RE.fullmatch(groups[0][0]):
            offsets = True  # fxc 9.29 prints the offsets without ``_aoffimmi``: sample_l(0,1,0)
        if offsets:
            if not groups:
                raise _Fail("_aoffimmi needs (u,v,w) offsets", pos)
            body, at = groups.pop(0)
            values = [_int_word(v, a) for v, a in _split(body, at)]
            if len(values) != 3 or any(not -8 <= (v - (1 << 32) if v >> 31 else v) <= 7 for v in values):
                raise _Fail("_aoffimmi takes three offsets in -8..7", at)
            out.append(pack_extended_opcode(1, offset_u=values[0], offset_v=values[1], offset_w=values[2]))
        if indexable:
            if not groups:
                raise _Fail("_indexable needs a (resource dimension)", pos)
            body, at = groups.pop(0)
            parts = _split(body, at)
            dim = _DIMENSIONS.get(parts[0][0])
            if dim is None:
                raise _Fail(f"unknown resource dimension {parts[0][0]!r}", at)
            stride = 0
            if len(parts) == 2 and parts[1][0].startswith("stride="):
                stride = _int_word(parts[1][0][7:], parts[1][1] + 7)
                if stride > _STRIDE.mask:
                    raise _Fail(f"stride does not fit {_STRIDE.width} bits", parts[1][1])
            elif len(parts) != 1:
                raise _Fail("expected (dimension) or (dimension, stride=n)", at)
            out.append(pack_extended_opcode(2, dimension=dim, stride=stride))
        if groups:
            body, at = groups.pop(0)
            types = _split(body, at)
            if len(types) != 4 or any(t not in _RETURNS for t, _ in types):
                raise _Fail("expected four return types such as (float,float,float,float)", at)
            out.append(pack_extended_opcode(3, **{_RETURN_FIELDS[n]: _RETURNS[t] for n, (t, _) in enumerate(types)}))
        if groups:
            raise _Fail(f"unexpected ({groups[0][0]})", groups[0][1] - 1)
        return out

    def fcall(self, opcode: int, controls: int, extended: list[int], items: list[tuple[str, int]],
              pos: int) -> Instruction:
        if len(items) != 1:
            raise _Fail(f"fcall takes one operand, found {len(items)}", pos)
        item, at = items[0]
        if not item.endswith("]") or "[" not in item:
            raise _Fail("fcall needs fp#[array index][call site]", at)
        open_at = item.rindex("[")
        site = _int_word(item[open_at + 1 : -1], at + open_at + 1)
        op = self.operands.read(item[:open_at], at, "src", Imm.INT)
        return Instruction(opcode, controls, extended, [op], [site])

    def icb(self, text: str) -> Instruction:
        start = text.find("{")
        end = text.rfind("}")
        if start < 0 or end < start:
            raise _Fail("expected dcl_immediateConstantBuffer { { a, b, c, d}, ... }", 0)
        words: list[int] = []
        for row, at in _split(text[start + 1 : end], start + 1):
            if not row:
                continue
            if not (row.startswith("{") and row.endswith("}")):
                raise _Fail("each row of an immediate constant buffer is { a, b, c, d}", at)
            values = _split(row[1:-1], at + 1)
            if len(values) != 4:
                raise _Fail(f"an immediate constant buffer row holds 4 values, found {len(values)}", at)
            words.extend(self.operands.literal(v, a, Imm.UNTYPED) for v, a in values)
        return Instruction(OP_CUSTOMDATA, ICB_CLASS, [], [], words)

    def message(self, text: str) -> Instruction:
        name = text[:6]
        first = text.find('"')
        if first < 0:
            raise _Fail(f"{name} needs a \"format string\"", 7)
        # the string ends at the last quote followed by nothing or by ", operands"
        last = -1
        items: list[tuple[str, int]] = []
        for q in range(len(text) - 1, first, -1):
            if text[q] != '"':
                continue
            rest = text[q + 1 :]
            if not rest.strip():
                last, items = q, []
                break
            if rest.lstrip().startswith(","):
                candidate = _split(rest.lstrip()[1:], q + 1 + len(rest) - len(rest.lstrip()) + 1)
                try:
                    ops = [self.operands.read(t, a, "src", Imm.FLOAT) for t, a in candidate]
                except _Fail:
                    continue
                last, items = q, candidate
                del ops
                break
        if last < 0:
            raise _Fail(f"unterminated {name} string", first)
        body = _unescape(text[first + 1 : last])
        operands = [self.operands.read(t, a, "src", Imm.FLOAT) for t, a in items]
        from shaderkit.isa.sm4.encode import encode_operand

        words: list[int] = []
        for op in operands:
            encode_operand(op, words)
        data = body.encode("latin-1", "replace") + b"\0"
        data += bytes(-len(data) % 4)
        text_words = list(struct.unpack(f"<{len(data) // 4}I", data))
        msg_id = 0x200103 if name == "errorf" else 0x200102
        raw = [msg_id, 1, len(body), len(operands), len(words), *words, *text_words]
        return Instruction(OP_CUSTOMDATA, MESSAGE_CLASS, [], [], raw)


_UNESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "\\": "\\"}


def _unescape(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _UNESCAPES:
            out.append(_UNESCAPES[text[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _raw_instruction(words: list[int]) -> Instruction:
    from shaderkit.isa.sm4.decode import decode

    prog = decode([0, 2 + len(words), *words])
    return prog.instructions[0]


# -- listings ---------------------------------------------------------------------------------

def _is_version(stripped: str) -> bool:
    return _VERSION_RE.match(stripped) is not None


def assemble_listing(text: str) -> list[Assembled]:
    """Every SM4/5 program of a listing (one for a shader, one per function of a library, one
    per ``asm { }`` block of an effect), in order."""
    lines = text.splitlines()
    starts = [n for n, line in enumerate(lines) if _is_version(line.strip())]
    out: list[Assembled] = []
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
        body = lines[start + 1 : stop]
        # an effect's asm block ends at its closing brace; libraries repeat fxc's comment framing
        for n, line in enumerate(body):
            stripped = line.strip()
            if (stripped.startswith("}") and not stripped.startswith("{")) or _D3D9_VERSION_RE.match(stripped):
                body = body[:n]
                break
        version = lines[start]
        asm = _ProgramAssembler(version.strip(), start + 1, len(version) - len(version.lstrip()) + 1)
        for st in _statements(body, start + 2):
            asm.add(st)
        out.append(Assembled(asm.program, asm.texts, start + 1, asm.unresolved, asm.lines))
    return out


def assemble(text: str) -> Program:
    """The program of an fxc listing (or of its program part alone)."""
    programs = assemble_listing(text)
    if not programs:
        raise AssemblyError("no shader version line (such as ps_5_0) found", 1, 1)
    if len(programs) > 1:
        raise AssemblyError("the text holds several programs; use assemble_listing", programs[1].line, 1)
    programs[0].check_resolved()
    return programs[0].program


# -- keeping a base program's bits --------------------------------------------------------------

def keep_base_bits(new: Assembled, base: Program, base_texts: list[str]) -> list[Instruction]:
    """``new``'s instructions, where an instruction's text equals the base instruction it lines
    up with (``base_texts``: the base's printed instructions, whitespace collapsed) taking the
    base instruction as it is (every bit the text does not show is kept); immediates of edited
    instructions keep the base's bits when the base printed the same literal text."""
    import difflib

    from shaderkit.isa.sm4.text import Formatter

    base_insts = base.instructions
    out: list[Instruction] = []
    matcher = difflib.SequenceMatcher(None, base_texts, new.texts, autojunk=False)
    formatter = Formatter(base)
    everywhere = _literal_texts(formatter, base_insts)
    for tag, b0, b1, n0, n1 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(base_insts[b0:b1])
            continue
        missing = [n for n in new.unresolved if n0 <= n < n1]
        if missing:
            raise AssemblyError("this customdata block does not match the base's; its words are not in the text",
                                new.lines[missing[0]], 1)
        nearby = _literal_texts(formatter, base_insts[b0:b1])
        for inst in new.program.instructions[n0:n1]:
            _restore_literals(formatter, inst, nearby, everywhere)
            out.append(inst)
    return out


def _literal_kinds(inst: Instruction) -> list[Imm]:
    info = OPCODES.get(inst.opcode)
    if info is None:
        return []
    special = _IMM_AT.get(inst.opcode, {})
    return [special.get(n, info.imm) for n in range(len(inst.operands))]


def _value_texts(formatter: object, op: Operand, kind: Imm) -> list[str]:
    from shaderkit.isa.sm4.text import fmt_double, fmt_float, fmt_int, fmt_untyped

    if op.type == 5:
        return [fmt_double(op.values[i], op.values[i + 1]) for i in range(0, len(op.values) - 1, 2)]
    fmt = {Imm.FLOAT: fmt_float, Imm.INT: lambda w: fmt_int(w), Imm.UNTYPED: fmt_untyped}.get(kind, fmt_float)
    return [fmt(w) for w in op.values]


def _literal_values(formatter: object, inst: Instruction) -> Iterator[tuple[Operand, Imm, int, str]]:
    """(operand, immediate kind, first word index, printed text) of each value of each literal
    operand (one word per 32-bit value, two per double)."""
    for op, kind in zip(inst.operands, _literal_kinds(inst)):
        if op.type not in (4, 5):
            continue
        step = 2 if op.type == 5 else 1
        for n, text in enumerate(_value_texts(formatter, op, kind)):
            yield op, kind, n * step, text


def _literal_texts(formatter: object, insts: list[Instruction]) -> dict[str, list[int] | None]:
    """Printed literal text -> its words (None when two different bit patterns print alike)."""
    out: dict[str, list[int] | None] = {}
    for inst in insts:
        for op, _kind, at, text in _literal_values(formatter, inst):
            words = op.values[at : at + (2 if op.type == 5 else 1)]
            key = f"{op.type}:{text}"
            if key in out and out[key] != words:
                out[key] = None
            else:
                out.setdefault(key, words)
    return out


def _restore_literals(formatter: object, inst: Instruction, nearby: dict[str, list[int] | None],
                      everywhere: dict[str, list[int] | None]) -> None:
    """Give the literals of an edited instruction the base's bits where the base printed the
    same text, unless the text was more precise than fxc's (``disasm --exact`` text)."""
    from shaderkit.isa.sm4.text import exact_double, exact_float, exact_untyped

    for op, kind, at, text in list(_literal_values(formatter, inst)):
        step = 2 if op.type == 5 else 1
        words = op.values[at : at + step]
        precise = (exact_double(words[0], words[1]) if op.type == 5 else
                   exact_untyped(words[0]) if kind == Imm.UNTYPED else
                   exact_float(words[0]) if kind == Imm.FLOAT else text)
        if precise != text:  # this value is not what fxc's six decimals denote
            continue
        key = f"{op.type}:{text}"
        found = nearby.get(key) if key in nearby else everywhere.get(key)
        if found is not None:
            op.values[at : at + step] = found


__all__ = ["Assembled", "assemble", "assemble_listing", "float_word", "keep_base_bits"]
