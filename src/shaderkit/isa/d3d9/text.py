"""fxc's listing of a D3D9 token program (the ``program`` of a level-9 ``Aon9``/``XNAS``/``XNAP``
chunk model, or a bare vs/ps 1.x-3.0 shader): the text of every SM1-3 form (ps_1_x texture
operations, result shifts and source modifiers, co-issue ``+``, predicates ``(!p0.x)``, relative
``c2[aL]``/``c5[a0.x]``, vs_3_0 ``o#``, ``vPos``/``vFace``) with the ``#line`` directives and
``// variable<components>`` notes fxc derives from the program's ``DBUG`` comment block, and the
slot count fxc prints. :func:`split_program` splits a stream into instructions and comments
(SM2+ by the length field, SM1 by the parameter tokens' bit 31). Untrusted input raises
ShaderFormatError.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.isa.d3d9.table import (
    ADDRESS_COMPONENT,
    BLOCK_CLOSES,
    BLOCK_OPENS,
    COMMENT_LENGTH,
    COMPARED,
    CONST_BANKS,
    DBUG_TAG,
    DEST_MASK,
    DEST_MODIFIERS,
    DEST_MODIFIERS_TEXT,
    INSTRUCTION_CONTROLS,
    INSTRUCTION_LENGTH,
    INSTRUCTION_OPCODE,
    LIBRARY_KINDS,
    MISC_REGISTERS,
    OP_COMMENT,
    OP_DCL,
    OP_DEF,
    OP_DEFB,
    OP_DEFI,
    OP_END,
    OPCODES,
    PIXEL_KINDS,
    PS1_NAMES,
    RASTOUT,
    REG_ADDR_TEXTURE,
    REG_DEPTH_OUT,
    REG_LOOP,
    REG_MISC,
    REG_OUTPUT,
    REG_RASTOUT,
    REG_SAMPLER,
    REGISTER_NUMBER,
    REGISTER_PREFIXES,
    REGISTER_TYPE_HIGH,
    REGISTER_TYPE_LOW,
    RELATIVE,
    RESULT_SHIFT,
    RESULT_SHIFTS,
    SAMPLER_TYPE,
    SAMPLER_TYPES,
    SHADER_VERSION_KIND,
    SHADER_VERSION_MAJOR,
    SHADER_VERSION_MINOR,
    SLOTS,
    SOFTWARE_MINOR,
    SOURCE_MODIFIER,
    SOURCE_MODIFIERS,
    SOURCE_SWIZZLE,
    TEXTURE_OPCODES,
    TEXTURE_SLOTS,
    TX_KIND,
    UNCOUNTED,
    USAGE,
    USAGE_INDEX,
    comparison,
    is_sm1,
    register_type,
    texld_form,
    usage_name,
)

_U32 = struct.Struct("<I")
_F32 = struct.Struct("<f")
_DBUG = struct.Struct("<10I")
_LINE = struct.Struct("<HHI")
_VAR = struct.Struct("<5I")
_ELEM = struct.Struct("<I4H")
_XYZW = "xyzw"
_IDENTITY_SWIZZLE = 0xE4
#: largest program read (words)
MAX_WORDS = 1 << 20


@dataclass
class DebugInfo:
    """The parts of a D3D9 ``DBUG`` comment block the listing uses."""

    files: list[str] = field(default_factory=list)
    #: per instruction index: (line, file index or 0xFFFF)
    lines: list[tuple[int, int]] = field(default_factory=list)
    #: per instruction index: notes such as ``pin<0,1,2>``
    notes: dict[int, list[str]] = field(default_factory=dict)


def _cstring(data: bytes, offset: int) -> str:
    end = data.find(b"\0", offset)
    if not 0 <= offset < len(data) or end < 0:
        raise ShaderFormatError(f"DBUG string at {offset:#x} is out of range", offset, "Aon9.DBUG")
    return data[offset:end].decode("latin-1")


def _unpack(st: struct.Struct, data: bytes, offset: int, what: str) -> tuple[int, ...]:
    if offset < 0 or offset + st.size > len(data):
        raise ShaderFormatError(f"{what} at {offset:#x} runs past {len(data)} bytes", offset, "Aon9.DBUG")
    return tuple(st.unpack_from(data, offset))


def parse_debug(data: bytes) -> DebugInfo:
    """A ``DBUG`` block (bytes after the FourCC; offsets inside are relative to its start)."""
    (_size, _creator, _source, file_count, file_off, inst_count, inst_off, var_count, var_off,
     entry_off) = _unpack(_DBUG, data, 0, "DBUG header")
    limit = len(data)
    for count, item in ((file_count, 4), (inst_count, 8), (var_count, 20)):
        if count * item > limit:
            raise ShaderFormatError(f"DBUG count {count} does not fit {limit} bytes", 0, "Aon9.DBUG")
    info = DebugInfo()
    for i in range(file_count):
        (name_off,) = _unpack(_U32, data, file_off + 4 * i, "DBUG file")
        info.files.append(_cstring(data, name_off))
    for i in range(inst_count):
        line, file, _offset = _unpack(_LINE, data, inst_off + 8 * i, "DBUG line")
        info.lines.append((line, file))
    entry = _cstring(data, entry_off) if entry_off else ""
    for i in range(var_count):
        scope_off, name_off, _type, elem_count, elem_off = _unpack(_VAR, data, var_off + 20 * i, "DBUG variable")
        if elem_count * 12 > limit:
            raise ShaderFormatError(f"DBUG element count {elem_count} does not fit", 0, "Aon9.DBUG")
        name = _cstring(data, name_off)
        scope = _cstring(data, scope_off) if scope_off else ""
        label = name if scope == entry and scope else f"{scope}::{name}"
        for j in range(elem_count):
            index, *comps = _unpack(_ELEM, data, elem_off + 12 * j, "DBUG element")
            used = ",".join(str(c) for c in comps if c != 0xFFFF)
            info.notes.setdefault(index, []).append(f"{label}<{used}>")
    return info


def msvc_exponent(text: str) -> str:
    """A ``%g`` text with MSVC's three-digit exponent (``1e-05`` -> ``1e-005``)."""
    if "e" in text:
        mantissa, exp = text.split("e")
        text = f"{mantissa}e{exp[0]}{abs(int(exp)):03d}"
    return text


def fmt_def(word: int) -> str:
    """``def`` constants: ``%.9g`` with MSVC's three-digit exponent."""
    return _def_text(word, _F32.unpack(_U32.pack(word))[0])


def fmt_defs(words: Sequence[int]) -> list[str]:
    """:func:`fmt_def` of each word, the floats unpacked at once (effect values of any length)."""
    count = len(words)
    values = struct.unpack(f"<{count}f", struct.pack(f"<{count}I", *words)) if count else ()
    return [_def_text(word, value) for word, value in zip(words, values)]


def _def_text(word: int, value: float) -> str:
    """The text of ``value``, the float of ``word``: ``0``/``-0`` by the sign bit, else ``%.9g``
    with MSVC's three-digit exponent."""
    if value == 0:
        return "-0" if word >> 31 else "0"
    text = f"{value:.9g}"
    return msvc_exponent(text) if "e" in text else text


def _swizzle_suffix(swizzle: int) -> str:
    """``.xyzw`` text of a source swizzle: identity prints nothing, a replicate one letter, else all four."""
    comps = [_XYZW[(swizzle >> (2 * i)) & 3] for i in range(4)]
    if swizzle == _IDENTITY_SWIZZLE:
        return ""
    return "." + (comps[0] if comps.count(comps[0]) == 4 else "".join(comps))


# the parameter-token fields as shifts and masks (locals of the hot path)
_TYPE_LOW_AT, _TYPE_LOW_MASK, _TYPE_LOW_WIDTH = REGISTER_TYPE_LOW.low, REGISTER_TYPE_LOW.mask, REGISTER_TYPE_LOW.width
_TYPE_HIGH_AT, _TYPE_HIGH_MASK = REGISTER_TYPE_HIGH.low, REGISTER_TYPE_HIGH.mask
_NUMBER_AT, _NUMBER_MASK = REGISTER_NUMBER.low, REGISTER_NUMBER.mask
_MASK_AT, _MASK_MASK = DEST_MASK.low, DEST_MASK.mask
_DEST_MODIFIERS_AT, _DEST_MODIFIERS_MASK = DEST_MODIFIERS.low, DEST_MODIFIERS.mask
_SWIZZLE_AT, _SWIZZLE_MASK = SOURCE_SWIZZLE.low, SOURCE_SWIZZLE.mask
_MODIFIER_AT, _MODIFIER_MASK = SOURCE_MODIFIER.low, SOURCE_MODIFIER.mask
_RELATIVE_AT = RELATIVE.low
_SHIFT_AT, _SHIFT_MASK = RESULT_SHIFT.low, RESULT_SHIFT.mask
_USAGE_BITS = USAGE.mask << USAGE.low | USAGE_INDEX.mask << USAGE_INDEX.low
_OPCODE_MASK = INSTRUCTION_OPCODE.mask
_COMMENT_LENGTH_AT, _COMMENT_LENGTH_MASK = COMMENT_LENGTH.low, COMMENT_LENGTH.mask
_LENGTH_AT, _LENGTH_MASK = INSTRUCTION_LENGTH.low, INSTRUCTION_LENGTH.mask
assert RELATIVE.width == 1 and INSTRUCTION_OPCODE.low == 0

# per-value texts of the parameter-token fields, built once from the table (the printer's hot path)
#: per swizzle field value: its suffix
_SWIZZLE_SUFFIXES = tuple(_swizzle_suffix(s) for s in range(SOURCE_SWIZZLE.mask + 1))
#: per write-mask field value: its suffix (the full mask prints nothing)
_MASK_SUFFIXES = tuple("" if m == DEST_MASK.mask else "." + "".join(_XYZW[i] for i in range(4) if m >> i & 1)
                       for m in range(DEST_MASK.mask + 1))
#: per result-modifier field value: the instruction suffix (``_sat_pp``)
_DEST_SUFFIXES = tuple("".join(text for bit, text in DEST_MODIFIERS_TEXT if mods & bit)
                       for mods in range(DEST_MODIFIERS.mask + 1))
#: per register type: its prefix when it prints as prefix and number, else None
_PREFIXES = tuple(REGISTER_PREFIXES.get(t) for t in range(1 << (REGISTER_TYPE_LOW.width + REGISTER_TYPE_HIGH.width)))


def split_program(words: Sequence[int], start: int = 1,
                  walked: tuple[set[int], list[int], int] | None = None) -> tuple[list[tuple[int, int, bool]], int]:
    """The items of a D3D9 token stream from word ``start`` (after the version token): a list of
    (first word, end word, is a comment) and the position of the end token. SM2+ instructions
    carry their length; ps/vs 1.x parameter tokens are the following words with bit 31 set
    (``def``: always 4 values). ShaderFormatError when an item runs past the words or the end
    token is missing.

    ``walked`` (dead ends, trail, origin) serves searches that walk from many starts in one byte
    string, ``words[0]`` lying at byte ``origin``: an item starting at a byte in ``dead_ends``
    fails at once, and the byte of every item start this walk reaches is appended to ``trail``
    (for the caller to add to the dead ends when the walk fails).
    """
    sm1 = is_sm1(words[0] if words else 0)
    items: list[tuple[int, int, bool]] = []
    pos = start
    total = len(words)
    while pos < total:
        if walked is not None:
            dead_ends, trail, origin = walked
            if origin + 4 * pos in dead_ends:
                raise ShaderFormatError("the stream joins one that has no end token", 4 * pos, "D3D9")
            trail.append(origin + 4 * pos)
        token = words[pos]
        opcode = token & _OPCODE_MASK
        if opcode == OP_END:
            return items, pos
        if opcode == OP_COMMENT:
            end = pos + 1 + ((token >> _COMMENT_LENGTH_AT) & _COMMENT_LENGTH_MASK)
            if end > total:
                raise ShaderFormatError(f"comment of {end - pos - 1} words runs past the {total} words of the program",
                                        4 * pos, "D3D9")
            items.append((pos, end, True))
            pos = end
            continue
        if sm1:
            if opcode == OP_DEF:
                end = pos + 6
            else:
                end = pos + 1
                while end < total and words[end] >> 31:
                    end += 1
        else:
            end = pos + 1 + ((token >> _LENGTH_AT) & _LENGTH_MASK)
        if end > total:
            raise ShaderFormatError(f"instruction of {end - pos - 1} parameter tokens runs past the {total} words "
                                    "of the program", 4 * pos, "D3D9")
        items.append((pos, end, False))
        pos = end
    raise ShaderFormatError("the program has no end token (0x0000FFFF)", 4 * total, "D3D9")


class _Program:
    """A D3D9 token stream and its printer."""

    def __init__(self, words: Sequence[int], prefix: str) -> None:
        self.words = words
        version = words[0] if words else 0
        kind = SHADER_VERSION_KIND.get(version)
        self.pixel = kind in PIXEL_KINDS
        self.prefix = prefix if kind in LIBRARY_KINDS else ""
        self.kind = kind
        self.major = SHADER_VERSION_MAJOR.get(version)
        self.minor = SHADER_VERSION_MINOR.get(version)

    def fail(self, message: str, pos: int) -> ShaderFormatError:
        return ShaderFormatError(message, 4 * pos, "Aon9")

    def version_line(self) -> str:
        return self.prefix + version_name(self.words[0] if self.words else 0)

    def register(self, token: int) -> str:
        rtype = ((token >> _TYPE_LOW_AT) & _TYPE_LOW_MASK) | ((token >> _TYPE_HIGH_AT) & _TYPE_HIGH_MASK) << _TYPE_LOW_WIDTH
        num = (token >> _NUMBER_AT) & _NUMBER_MASK
        prefix = _PREFIXES[rtype]
        if prefix is not None:
            if rtype == REG_OUTPUT and not self.pixel and self.major >= 3:
                return f"o{num}"
            return prefix + str(num)
        if rtype == REG_ADDR_TEXTURE:
            return f"t{num}" if self.pixel else f"a{num}"
        if rtype == REG_RASTOUT:
            return RASTOUT[num] if num < len(RASTOUT) else f"oRast{num}"
        if rtype == REG_DEPTH_OUT:
            return "oDepth"
        if rtype == REG_LOOP:
            return "aL"
        if rtype == REG_MISC:
            return MISC_REGISTERS[num] if num < len(MISC_REGISTERS) else f"vMisc{num}"
        if rtype in CONST_BANKS:
            return f"c{CONST_BANKS[rtype] + num}"
        return f"reg{rtype}_{num}"

    def relative(self, pos: int, end: int) -> tuple[str, int]:
        """``[a0.x]`` / ``[aL]`` of a relative operand: SM2+ read the address token at ``pos``."""
        if self.major < 2:
            return "[a0.x]", pos
        if pos >= end:
            raise self.fail("relative address token runs past the instruction", pos)
        addr = self.words[pos]
        name = self.register(addr)
        if register_type(addr) == REG_LOOP and (addr >> _SWIZZLE_AT) & _SWIZZLE_MASK == _IDENTITY_SWIZZLE:
            return f"[{name}]", pos + 1  # (an aL token with another swizzle prints its component)
        return f"[{name}.{_XYZW[ADDRESS_COMPONENT.get(addr)]}]", pos + 1

    def dest(self, pos: int, end: int) -> tuple[str, str, int]:
        """(operand text, instruction modifier suffix, next position) of a destination parameter."""
        token = self.words[pos]
        text = self.register(token)
        pos += 1
        if (token >> _RELATIVE_AT) & 1:
            inner, pos = self.relative(pos, end)
            text += inner
        shift = RESULT_SHIFTS.get((token >> _SHIFT_AT) & _SHIFT_MASK, "")
        return (text + _MASK_SUFFIXES[(token >> _MASK_AT) & _MASK_MASK],
                shift + _DEST_SUFFIXES[(token >> _DEST_MODIFIERS_AT) & _DEST_MODIFIERS_MASK], pos)

    def source(self, pos: int, end: int) -> tuple[str, int]:
        token = self.words[pos]
        pos += 1
        text = self.register(token)
        if (token >> _RELATIVE_AT) & 1:
            inner, pos = self.relative(pos, end)
            text += inner
        mod = (token >> _MODIFIER_AT) & _MODIFIER_MASK
        swizzle = _SWIZZLE_SUFFIXES[(token >> _SWIZZLE_AT) & _SWIZZLE_MASK]
        if mod:
            before, after = SOURCE_MODIFIERS.get(mod, ("", f"_mod{mod}"))
            return before + text + after + swizzle, pos
        return text + swizzle, pos

    def instructions(self) -> list[tuple[str, int, int]]:
        """(text, word offset, instruction token) for every instruction, comments skipped."""
        words = self.words
        items, _end = split_program(words)
        return [(self.instruction(words[first], first + 1, last), first, words[first])
                for first, last, comment in items if not comment]

    def instruction(self, token: int, pos: int, end: int) -> str:
        words = self.words
        opcode = INSTRUCTION_OPCODE.get(token)
        controls = INSTRUCTION_CONTROLS.get(token)
        lead = "+" if self.major < 2 and (token >> 30) & 1 else ""
        if opcode == OP_DCL:
            if end - pos < 2:
                raise self.fail("dcl needs 2 parameter tokens", pos)
            usage, reg = words[pos], words[pos + 1]
            text, suffix, _ = self.dest(pos + 1, end)
            rtype = register_type(reg)
            if rtype == REG_SAMPLER:
                name = "dcl" + SAMPLER_TYPES.get(SAMPLER_TYPE.get(usage), "")
            elif ((self.pixel and self.major < 3) or rtype == REG_MISC) and not usage & _USAGE_BITS:
                name = "dcl"  # (ps_2_x inputs and vPos/vFace carry no usage; one that does prints it)
            else:
                uname, uindex = usage_name(usage)
                name = f"dcl_{uname}{uindex if uindex else ''}"
            return f"{name}{suffix} {text}"
        if opcode in (OP_DEF, OP_DEFI, OP_DEFB):
            if end - pos < 2:
                raise self.fail("def needs a register and values", pos)
            target = self.register(words[pos])
            values = words[pos + 1 : end]
            if opcode == OP_DEF:
                return "def " + ", ".join([target, *(fmt_def(v) for v in values)])
            if opcode == OP_DEFI:
                return "defi " + ", ".join([target, *(str(v - (1 << 32) if v >> 31 else v) for v in values)])
            return f"defb {target}, {'true' if values[0] else 'false'}"
        info = OPCODES.get(opcode)
        if info is None:
            return f"// unknown D3D9 opcode {opcode}"
        name = info.name
        if opcode in COMPARED:
            name += comparison(controls)
        if opcode == 66 and self.major >= 2:
            name = texld_form(controls)
        if self.major < 2 and opcode in PS1_NAMES:
            name = PS1_NAMES[opcode][1 if self.minor >= 4 else 0]
        parts: list[str] = []
        suffix = ""
        p = pos
        if info.has_dest:
            if p >= end:
                raise self.fail(f"{name} without destination", p)
            text, suffix, p = self.dest(p, end)
            parts.append(text)
        predicate = ""
        if self.major >= 2 and (token >> 28) & 1:
            if p >= end:
                raise self.fail(f"{name}: predicate token runs past the instruction", p)
            text, p = self.source(p, end)
            predicate = f"({text}) "
        while p < end:
            token = words[p]
            prefix = _PREFIXES[((token >> _TYPE_LOW_AT) & _TYPE_LOW_MASK)
                               | ((token >> _TYPE_HIGH_AT) & _TYPE_HIGH_MASK) << _TYPE_LOW_WIDTH]
            if prefix is None or prefix == "oT" or (token >> _RELATIVE_AT) & 1 or (token >> _MODIFIER_AT) & _MODIFIER_MASK:
                text, p = self.source(p, end)
            else:  # what source() prints for a plain numbered register: r0.xyz, c3.x ...
                text = prefix + str((token >> _NUMBER_AT) & _NUMBER_MASK) + _SWIZZLE_SUFFIXES[
                    (token >> _SWIZZLE_AT) & _SWIZZLE_MASK]
                p += 1
            parts.append(text)
        return f"{predicate}{lead}{name}{suffix}" + (" " + ", ".join(parts) if parts else "")


def version_name(version: int) -> str:
    """``ps_3_0``-style profile of a D3D9 version token (``ps_2_x``, ``vs_2_sw``, ``tx_1_0``)."""
    kind = SHADER_VERSION_KIND.get(version)
    major, minor = SHADER_VERSION_MAJOR.get(version), SHADER_VERSION_MINOR.get(version)
    name = "tx" if kind == TX_KIND else "ps" if kind in PIXEL_KINDS else "vs"
    if minor == SOFTWARE_MINOR:
        text = "sw"
    elif minor == 1 and major >= 2:
        text = "x"
    else:
        text = str(minor)
    return f"{name}_{major}_{text}"


def program_words(program: bytes) -> tuple[int, ...]:
    """The u32 words of a D3D9 token program."""
    if len(program) % 4 or len(program) > 4 * MAX_WORDS:
        raise ShaderFormatError(f"D3D9 program of {len(program)} bytes is not a whole number of words "
                                f"up to {MAX_WORDS}", 0, "Aon9")
    return struct.unpack(f"<{len(program) // 4}I", program)


def _debug_of(words: Sequence[int]) -> DebugInfo | None:
    pos = 1
    while pos < len(words):
        token = words[pos]
        if INSTRUCTION_OPCODE.get(token) != OP_COMMENT:
            return None
        size = COMMENT_LENGTH.get(token)
        if pos + 1 < len(words) and words[pos + 1] == DBUG_TAG:
            body = words[pos + 2 : pos + 1 + size]
            return parse_debug(struct.pack(f"<{len(body)}I", *body))
        pos += 1 + size
    return None


def _checked_words(program: bytes | Sequence[int]) -> Sequence[int]:
    """The words of a D3D9 token program given as bytes or words, checked for size."""
    if isinstance(program, (bytes, bytearray)):
        return program_words(bytes(program))
    if len(program) > MAX_WORDS:
        raise ShaderFormatError(f"D3D9 program of {len(program)} words is longer than {MAX_WORDS}", 0, "Aon9")
    return program


def instruction_texts(program: bytes | Sequence[int]) -> list[tuple[str, int, int]]:
    """(text as listed, word offset, instruction token) of every instruction of a D3D9 token
    program (comments skipped, no indentation)."""
    return _Program(_checked_words(program), "").instructions()


def listing_lines(program: bytes | Sequence[int], prefix: str = "lib_4_0_") -> list[str]:
    """A D3D9 token program (``Level9Shader.program``, or its words as a bare shader's model
    gives them) as fxc lists it (4-space indentation, 2 more inside each rep/loop/if block);
    ``prefix`` starts the version line of library functions (``lib_4_0_vs_2_x``)."""
    words = _checked_words(program)
    prog = _Program(words, prefix)
    debug = _debug_of(words)
    out = ["    " + prog.version_line()]
    current: tuple[int, int] | None = None
    texture = arithmetic = depth = 0
    for index, (text, _, token) in enumerate(prog.instructions()):
        if debug is not None and index < len(debug.lines):
            line, file = debug.lines[index]
            # fxc repeats #line when the file changes or the line moves by more than 2
            if file != 0xFFFF:
                if current is None or current[1] != file:
                    name = debug.files[file] if file < len(debug.files) else ""
                    out.extend(("", f'#line {line} "{name}"'))
                elif abs(line - current[0]) > 2:
                    out.extend(("", f"#line {line}"))
                current = (line, file)
        notes = debug.notes.get(index) if debug is not None else None
        opcode = INSTRUCTION_OPCODE.get(token)
        if opcode in BLOCK_CLOSES:
            depth = max(depth - 1, 0)
        paired = text.startswith("+")  # ps_1_x co-issue: ``  + mov r0.w, t2.w``, in the slot before
        lead, text = ("  + ", text[1:]) if paired else ("    ", text)
        out.append(lead + "  " * depth + text + ("  // " + ", ".join(notes) if notes else ""))
        if opcode in BLOCK_OPENS:
            depth += 1
        if opcode in UNCOUNTED or paired:
            continue
        textures = TEXTURE_SLOTS.get(opcode, 1) if opcode in TEXTURE_OPCODES else 0
        texture += textures
        arithmetic += SLOTS.get(opcode, 1) - textures
    total = texture + arithmetic
    plural = "slot" if total == 1 else "slots"
    split = f" ({texture} texture, {arithmetic} arithmetic)" if texture else ""
    out.extend(("", f"// approximately {total} instruction {plural} used{split}"))
    return out
