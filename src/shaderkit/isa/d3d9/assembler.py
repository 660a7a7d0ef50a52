"""fxc's listing of a D3D9 program (level-9 ``ps_2_x``/``vs_2_x`` text) -> D3D9 token stream.

Reads what :mod:`.text` prints: the version line (``ps_2_0``, ``lib_4_0_vs_2_x``), ``def``/
``defi``/``defb``, ``dcl`` forms, instructions with their ``_sat``/``_pp``/``_centroid``
suffixes, comparisons (``if_gt``) and texld forms, source modifiers and swizzles, relative
addressing (``c0[a0.x]``). Opcodes, operand counts, register spellings, usages and token fields
all come from :mod:`.table`.

``#line`` directives and the ``// name<components>`` notes after instructions become a ``DBUG``
comment block that the printer reads back into the same text: each instruction gets the line
of the directive above it (drifting silently by up to 2 lines where the next directive would
otherwise not print), each note one variable with one element. What the listing does not show
(variable types, the HLSL source, the exact lines fxc did not print) is not rebuilt.

Every error is an :class:`~shaderkit.errors.AssemblyError` with its line and column.
"""

from __future__ import annotations

import math
import re
import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import AssemblyError
from shaderkit.isa.d3d9.table import (
    ADDR_TEXTURE_PREFIXES,
    COISSUE,
    COMMENT_LENGTH,
    COMPARED,
    COMPARISONS,
    CONST_BANKS,
    DBUG_TAG,
    DEST_MASK,
    DEST_MODIFIERS,
    DEST_MODIFIERS_TEXT,
    INSTRUCTION_CONTROLS,
    INSTRUCTION_LENGTH,
    INSTRUCTION_OPCODE,
    NAMED_REGISTERS,
    OP_COMMENT,
    OP_DCL,
    OP_DEF,
    OP_DEFB,
    OP_DEFI,
    OP_END,
    OPCODES,
    PARAMETER_BIT,
    PREDICATED,
    PS1_NAMES,
    REG_ADDR_TEXTURE,
    REG_LOOP,
    REG_OUTPUT,
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
    SOURCE_MODIFIER,
    SOURCE_MODIFIERS,
    SOURCE_SWIZZLE,
    TEXLD_FORMS,
    TX_KIND,
    USAGE,
    USAGE_INDEX,
    USAGES,
    VERSION_KINDS,
)

#: ``ps_2_0``; D3DX's assembler also reads ``ps.2.0`` (the D3D8-era spelling)
VERSION_RE = re.compile(r"^(lib_[45]_[01]_)?(ps|vs|tx)([_.])([1-3])\3(\d|x|sw)$")
_REGISTER_RE = re.compile(r"([A-Za-z]+)(\d*)")
_NOTE_RE = re.compile(r"(.*)<(\d+(?:,\d+)*)?>$")
_LINE_RE = re.compile(r'#line\s+(\d+)(?:\s+"([^"]*)")?\s*$')
_XYZW = "xyzw"
#: component letters of masks and swizzles: ``xyzw``, or ``rgba`` as D3DX's assembler also reads them
_COMPONENTS = {**{c: i for i, c in enumerate(_XYZW)}, **{c: i for i, c in enumerate("rgba")}}
_IDENTITY_SWIZZLE = 0xE4
#: DBUG line numbers and file indices are 16-bit (0xFFFF: no file)
_MAX_LINE = 0xFFFF - 1
_U32 = struct.Struct("<I")
_F32 = struct.Struct("<f")

#: mnemonic -> opcodes of that name (if/break/texld have several forms)
_BY_NAME: dict[str, list[int]] = {}
for _op, _info in OPCODES.items():
    _BY_NAME.setdefault(_info.name, []).append(_op)
_BY_NAME["break"].extend(_BY_NAME["breakp"])  # ``break p0.x``: breakp by its operand count
_COMPARISON_BY_SUFFIX = {text: n for n, text in enumerate(COMPARISONS) if text}
_TEXLD_CONTROLS = {name: n for n, name in enumerate(TEXLD_FORMS)}
_USAGE_BY_NAME = {name: n for n, name in enumerate(USAGES)}
_SAMPLER_BY_NAME = {text[1:]: kind for kind, text in SAMPLER_TYPES.items()}
_PREFIX_TYPES = {prefix: rtype for rtype, prefix in REGISTER_PREFIXES.items()}
_SOURCE_MODIFIER_BY_TEXT = {texts: mod for mod, texts in SOURCE_MODIFIERS.items()}
_SOURCE_SUFFIXES = sorted({after for _, after in SOURCE_MODIFIERS.values() if after}, key=len, reverse=True)
_SOURCE_PREFIXES = sorted({before for before, _ in SOURCE_MODIFIERS.values() if before}, key=len, reverse=True)
_MOD_SUFFIX_RE = re.compile(r"_mod(\d+)")
_SHIFT_BY_SUFFIX = {text: value for value, text in RESULT_SHIFTS.items()}
#: pixel shader 1.x mnemonics -> opcode (``tex``, ``texcoord``, ``texcrd``)
_PS1_OPCODES = {name: op for op, names in PS1_NAMES.items() for name in names}
#: the register a vs_3_0 output is (``o3``)
_OUTPUT_PREFIX = "o"
_PREDICATE_RE = re.compile(r"\((!?p\d+(?:\.[xyzw]+)?)\)\s*")


class _Fail(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


@dataclass
class Assembled:
    """A D3D9 program read from text: its tokens (version first, end token last) and where its
    version line was."""

    words: list[int]
    line: int
    #: the text's debug information (directives and notes) that went into the DBUG block
    has_debug: bool = False

    @property
    def program(self) -> bytes:
        """The tokens as little-endian bytes, as an Aon9 chunk stores the program."""
        return struct.pack(f"<{len(self.words)}I", *self.words)


@dataclass
class _Debug:
    files: list[str] = field(default_factory=list)
    #: per instruction: (line, file index), or None before the first directive
    lines: list[tuple[int, int] | None] = field(default_factory=list)
    #: (instruction index, label, components) in text order
    notes: list[tuple[int, str, list[int]]] = field(default_factory=list)


def version_token(text: str) -> int | None:
    """The version token of a D3D9 version line (``ps_2_0``, ``lib_4_0_vs_2_x``), else None."""
    m = VERSION_RE.match(text)
    if m is None:
        return None
    lib, kind_text, _, major, minor_text = m.groups()
    minor = {"x": 1, "sw": 0xFF}.get(minor_text) or int(minor_text)
    if kind_text == "tx":
        if lib is not None or major != "1" or minor != 0:
            return None
        return SHADER_VERSION_KIND.put(TX_KIND) | SHADER_VERSION_MAJOR.put(1)
    kind = VERSION_KINDS[(kind_text == "ps", lib is not None)]
    return SHADER_VERSION_KIND.put(kind) | SHADER_VERSION_MAJOR.put(int(major)) | SHADER_VERSION_MINOR.put(minor)


class _ProgramAssembler:
    def __init__(self, version: int) -> None:
        self.version = version
        self.pixel = (version >> 16) in (VERSION_KINDS[(True, False)], VERSION_KINDS[(True, True)])
        self.major = SHADER_VERSION_MAJOR.get(version)
        self.instructions: list[list[int]] = []
        self.debug = _Debug()
        self.current: tuple[int, int] | None = None

    # -- registers -------------------------------------------------------------------------------
    def register(self, text: str, pos: int, offset: int = 0) -> tuple[int, int]:
        """(register type, number) of a register name; ``offset`` (a ``[... + n]`` term) is added
        to the number, and with one the number may be left out (D3D8's ``c[a0.x + 5]``)."""
        named = NAMED_REGISTERS.get(text)
        if named is not None:
            return named
        m = _REGISTER_RE.fullmatch(text)
        if m is None or not (m.group(2) or offset):
            raise _Fail(f"expected a register, found {text!r}", pos)
        prefix, number = m.group(1), int(m.group(2) or 0) + offset
        if prefix == "c" and number > REGISTER_NUMBER.mask:  # c2048.. in the D3DSPR_CONST2/3/4 banks
            for bank, first in CONST_BANKS.items():
                if first <= number <= first + REGISTER_NUMBER.mask:
                    return bank, number - first
        if prefix == _OUTPUT_PREFIX and not self.pixel and self.major >= 3:
            rtype = REG_OUTPUT
        elif prefix in ADDR_TEXTURE_PREFIXES:
            if prefix != ADDR_TEXTURE_PREFIXES[self.pixel]:
                kind = "pixel" if self.pixel else "vertex"
                raise _Fail(f"register {text!r} does not exist in {kind} shaders", pos)
            rtype = REG_ADDR_TEXTURE
        else:
            found = _PREFIX_TYPES.get(prefix)
            if found is None:
                raise _Fail(f"unknown register {text!r}", pos)
            rtype = found
        if number > REGISTER_NUMBER.mask:
            raise _Fail(f"register number {number} is out of range (0..{REGISTER_NUMBER.mask})", pos + len(prefix))
        return rtype, number

    @staticmethod
    def register_bits(rtype: int, number: int) -> int:
        return (PARAMETER_BIT | REGISTER_TYPE_LOW.put(rtype) | REGISTER_TYPE_HIGH.put(rtype >> REGISTER_TYPE_LOW.width)
                | REGISTER_NUMBER.put(number))

    def dest(self, text: str, pos: int, modifiers: int, shift: int = 0) -> list[int]:
        """The destination parameter token (and its relative-address token: ``o[aL]``)."""
        open_at, close, relative, offset = self.relative_address(text, pos)
        if open_at >= 0:
            text = text[:open_at] + text[close + 1 :]
        name, dot, letters = text.partition(".")
        rtype, number = self.register(name, pos, offset)
        mask = DEST_MASK.mask
        if dot:
            mask = 0
            last = -1
            for i, ch in enumerate(letters):
                comp = _COMPONENTS.get(ch, -1)
                if comp <= last:
                    raise _Fail(f"bad write mask .{letters}", pos + len(name) + 1 + i)
                mask |= 1 << comp
                last = comp
            if not letters:
                raise _Fail("empty write mask", pos + len(name))
        token = (self.register_bits(rtype, number) | DEST_MASK.put(mask) | DEST_MODIFIERS.put(modifiers)
                 | RESULT_SHIFT.put(shift) | RELATIVE.put(1 if relative is not None else 0))
        return [token, *(relative or [])]

    def relative_address(self, text: str, pos: int) -> tuple[int, int, list[int] | None, int]:
        """Where the ``[...]`` of an operand opens and closes (-1, -1 without one), its
        relative-address tokens (None when no register addresses: ``c[5]``) and the constant it
        adds to the register number (D3D8's ``c[a0.x + 5]``); ``pos``: where ``text`` starts."""
        open_at = text.find("[")
        if open_at < 0:
            return -1, -1, None, 0
        close = text.find("]", open_at)
        if close < 0:
            raise _Fail("missing ]", pos + len(text))
        inner, at = text[open_at + 1 : close], pos + open_at + 1
        offset = 0
        register: tuple[str, int] | None = None
        for term in inner.split("+"):
            stripped = term.strip()
            where = at + len(term) - len(term.lstrip())
            at += len(term) + 1
            if stripped.isdigit():
                offset += int(stripped)
            elif register is None and stripped:
                register = stripped, where
            else:
                raise _Fail(f"bad address term {stripped!r}" if stripped else "empty address term", where)
        return open_at, close, None if register is None else self.address(*register), offset

    def address(self, inner: str, pos: int) -> list[int]:
        """The relative-address token of ``a0.x`` / ``aL`` (none before SM2: a0 is implied)."""
        reg_text, dot, comp = inner.partition(".")
        atype, anumber = self.register(reg_text.strip(), pos)
        if dot and (len(comp) != 1 or comp not in _COMPONENTS):
            raise _Fail(f"bad relative-address component .{comp}", pos + len(reg_text))
        component = _COMPONENTS[comp] if dot else 0
        if self.major < 2:
            return []
        swizzle = _IDENTITY_SWIZZLE if atype == REG_LOOP and not dot else component * 0x55  # [aL] / [a0.x]
        return [self.register_bits(atype, anumber) | SOURCE_SWIZZLE.put(swizzle)]

    def source(self, text: str, pos: int) -> list[int]:
        """The source parameter token (and its relative-address token): ``-r0_abs.w``, ``1 - r1``,
        ``c5[a0.x].y``, ``t0_bx2``."""
        before = next((b for b in _SOURCE_PREFIXES if text.startswith(b) and len(text) > len(b)), "")
        body = text[len(before):]
        pos += len(before)
        swizzle = _IDENTITY_SWIZZLE
        open_at, close, relative, offset = self.relative_address(body, pos)
        if open_at >= 0:
            name, rest, at = body[:open_at], body[close + 1 :], close + 1
        else:
            m = _REGISTER_RE.match(body)
            cut = m.end() if m is not None else len(body)
            name, rest, at = body[:cut], body[cut:], cut
        after = ""
        modifier = 0
        m = _MOD_SUFFIX_RE.match(rest)
        if m is not None:
            modifier = int(m.group(1))
            if modifier > SOURCE_MODIFIER.mask or before:
                raise _Fail(f"bad source modifier {text!r}", pos)
            rest, at = rest[m.end() :], at + m.end()
        else:
            after = next((a for a in _SOURCE_SUFFIXES if rest.startswith(a)), "")
            rest, at = rest[len(after) :], at + len(after)
            if not after and rest.endswith("_abs"):  # the earlier spelling r0.x_abs
                after, rest = "_abs", rest[:-4]
            if before or after:
                found = _SOURCE_MODIFIER_BY_TEXT.get((before, after))
                if found is None:
                    raise _Fail(f"unknown source modifier in {text!r}", pos)
                modifier = found
        if rest and not rest.startswith("."):
            raise _Fail(f"unexpected {rest!r}", pos + at)
        rtype, number = self.register(name, pos, offset)
        if rest:
            letters = rest[1:]
            comps = []
            for i, ch in enumerate(letters):
                if ch not in _COMPONENTS:
                    raise _Fail(f"bad swizzle component {ch!r}", pos + at + 1 + i)
                comps.append(_COMPONENTS[ch])
            if not 1 <= len(comps) <= 4:
                raise _Fail(f"bad swizzle .{letters}", pos + at)
            comps += [comps[-1]] * (4 - len(comps))  # the last component repeats
            swizzle = sum(c << (2 * i) for i, c in enumerate(comps))
        token = (self.register_bits(rtype, number) | SOURCE_SWIZZLE.put(swizzle) | SOURCE_MODIFIER.put(modifier)
                 | RELATIVE.put(1 if relative is not None else 0))
        return [token, *(relative or [])]

    # -- statements ------------------------------------------------------------------------------
    def statement(self, text: str) -> list[int]:
        predicate: list[int] = []
        skipped = 0
        m = _PREDICATE_RE.match(text)
        if m is not None:  # (p0) / (!p0.x): a predicate source after the destination
            predicate = self.source(m.group(1), 1)
            skipped, text = m.end(), text[m.end() :]
        coissue = text.startswith("+")
        if coissue:  # ``+mov`` or ``+ mov``
            rest = text[1:].lstrip()
            skipped, text = skipped + len(text) - len(rest), rest
        try:
            words = self.plain_statement(text, predicate)
        except _Fail as exc:
            raise _Fail(exc.message, exc.pos + skipped) from None
        if coissue:
            words[0] |= COISSUE.put(1)
        return words

    def plain_statement(self, text: str, predicate: list[int]) -> list[int]:
        if not text.strip():
            raise _Fail("expected an instruction", 0)
        head = text.split(None, 1)[0]  # fxc writes a space; hand edits also use a tab
        rest = text[len(head) + 1 :]
        items = _split(rest, len(head) + 1) if rest.strip() else []
        name = head
        modifiers = 0
        changed = True
        while changed:  # result modifiers end the mnemonic (_sat_pp)
            changed = False
            for bit, suffix in DEST_MODIFIERS_TEXT:
                if name.endswith(suffix) and not modifiers & bit and name != suffix:
                    name = name[: -len(suffix)]
                    modifiers |= bit
                    changed = True
        shift = 0
        base, sep, tail = name.rpartition("_")
        if sep and base and "_" + tail in _SHIFT_BY_SUFFIX:  # ps_1_x result shift (mul_x2_sat)
            name, shift = base, _SHIFT_BY_SUFFIX["_" + tail]
        if (predicate or shift) and (name == "dcl" or name.startswith("dcl_") or name in ("def", "defi", "defb")):
            raise _Fail(f"{name} takes no predicate or result shift", 0)
        if name == "dcl" or name.startswith("dcl_"):
            return self.declaration(name, items, modifiers)
        if name in ("def", "defi", "defb"):
            if modifiers:
                raise _Fail(f"{name} takes no result modifier", 0)
            return self.definition(name, items)
        forms = self.mnemonic(name)
        fitting = [(op, ctl) for op, ctl in forms
                   if len(items) - OPCODES[op].has_dest in (OPCODES[op].sources, OPCODES[op].other_sources)]
        if not fitting and self.major < 2 and len(forms) == 1:  # ps_1_x forms: tex t0, texld r0, t0
            fitting = forms
        if not fitting:
            expected = " or ".join(str(OPCODES[op].sources + OPCODES[op].has_dest) for op, _ in forms)
            raise _Fail(f"{name} takes {expected} operand(s), found {len(items)}", len(head))
        opcode, controls = fitting[0]
        info = OPCODES[opcode]
        params: list[int] = []
        if info.has_dest and items:
            params.extend(self.dest(*items[0], modifiers, shift))
        elif modifiers or shift:
            raise _Fail(f"{name} takes no result modifier", 0)
        params.extend(predicate)
        for item, pos in items[info.has_dest :]:
            params.extend(self.source(item, pos))
        token = self.instruction_token(opcode, controls, len(params))
        return [token | PREDICATED.put(1 if predicate else 0), *params]

    def instruction_token(self, opcode: int, controls: int, length: int) -> int:
        return (INSTRUCTION_OPCODE.put(opcode) | INSTRUCTION_CONTROLS.put(controls)
                | INSTRUCTION_LENGTH.put(length if self.major >= 2 else 0))

    def mnemonic(self, name: str) -> list[tuple[int, int]]:
        """(opcode, controls) of every form of an instruction mnemonic (``break`` has one
        without and one with a predicate operand)."""
        if self.major < 2 and name in _PS1_OPCODES:
            return [(_PS1_OPCODES[name], 0)]
        if name in _TEXLD_CONTROLS:
            return [(_BY_NAME["texld"][0], _TEXLD_CONTROLS[name])]
        base, sep, suffix = name.rpartition("_")
        if sep and "_" + suffix in _COMPARISON_BY_SUFFIX and base in _BY_NAME:
            compared = [op for op in _BY_NAME[base] if op in COMPARED]
            if compared:
                return [(compared[0], _COMPARISON_BY_SUFFIX["_" + suffix])]
        ops = [op for op in _BY_NAME.get(name, []) if op not in COMPARED]
        if not ops:
            raise _Fail(f"unknown D3D9 instruction {name!r}", 0)
        return [(op, 0) for op in ops]

    def declaration(self, name: str, items: list[tuple[str, int]], modifiers: int) -> list[int]:
        if len(items) != 1:
            raise _Fail(f"{name} takes 1 operand, found {len(items)}", len(name))
        text, pos = items[0]
        usage = PARAMETER_BIT
        kind = name[4:]
        register = self.dest(text, pos, modifiers)[0]
        rtype = REGISTER_TYPE_LOW.get(register) | REGISTER_TYPE_HIGH.get(register) << REGISTER_TYPE_LOW.width
        if kind in _SAMPLER_BY_NAME:
            if rtype != REG_SAMPLER:
                raise _Fail(f"dcl_{kind} declares a sampler (s#), found {text!r}", pos)
            usage |= SAMPLER_TYPE.put(_SAMPLER_BY_NAME[kind])
        elif kind:
            m = re.fullmatch(r"([a-z]+)(\d*)", kind)
            found = _USAGE_BY_NAME.get(m.group(1)) if m is not None else None
            if m is None or found is None:
                raise _Fail(f"unknown declaration usage {kind!r}", 4)
            index = int(m.group(2) or 0)
            if index > USAGE_INDEX.mask:
                raise _Fail(f"usage index {index} is out of range", 4 + len(m.group(1)))
            usage |= USAGE.put(found) | USAGE_INDEX.put(index)
        elif rtype == REG_SAMPLER:
            raise _Fail("a sampler declaration needs its type (dcl_2d, dcl_cube, dcl_volume)", 0)
        params = [usage, register]
        return [self.instruction_token(OP_DCL, 0, len(params)), *params]

    def definition(self, name: str, items: list[tuple[str, int]]) -> list[int]:
        count = 2 if name == "defb" else 5
        if len(items) != count:
            raise _Fail(f"{name} takes {count} operands, found {len(items)}", len(name))
        target = self.dest(*items[0], 0)[0]
        values: list[int] = []
        for text, pos in items[1:]:
            if name == "def":
                values.append(_float_word(text, pos))
            elif name == "defi":
                try:
                    value = int(text, 0)
                except ValueError:
                    raise _Fail(f"expected an integer, found {text!r}", pos) from None
                if not -(1 << 31) <= value < 1 << 32:
                    raise _Fail(f"integer {text} does not fit 32 bits", pos)
                values.append(value & 0xFFFFFFFF)
            elif text in ("true", "false"):
                values.append(int(text == "true"))
            else:
                raise _Fail(f"expected true or false, found {text!r}", pos)
        opcode = {"def": OP_DEF, "defi": OP_DEFI, "defb": OP_DEFB}[name]
        return [self.instruction_token(opcode, 0, 1 + len(values)), target, *values]

    # -- debug information -----------------------------------------------------------------------
    def directive(self, line: int, file: str | None) -> None:
        if line > _MAX_LINE:
            raise _Fail(f"line number {line} does not fit 16 bits", 0)
        if file is not None and file not in self.debug.files and len(self.debug.files) >= _MAX_LINE:
            raise _Fail("too many file names", 0)
        if file is not None:
            if file not in self.debug.files:
                self.debug.files.append(file)
            self.current = (line, self.debug.files.index(file))
        elif self.current is None:
            raise _Fail("#line without a file name before any #line with one", 0)
        else:
            self.current = (line, self.current[1])

    def note(self, text: str, pos: int) -> None:
        parts = text.split(", ")
        matches = [_NOTE_RE.fullmatch(part.strip()) for part in parts]
        if not all(matches):
            return  # a plain comment (hand edits explain their changes), not fxc's notes
        index = len(self.instructions) - 1
        if index < 0:
            raise _Fail("a variable note belongs after an instruction", pos)
        for part, m in zip(parts, matches):
            assert m is not None
            comps = [int(c) for c in m.group(2).split(",")] if m.group(2) else []
            if len(comps) > 4 or any(c >= 0xFFFF for c in comps):
                raise _Fail(f"a variable note holds up to 4 components below 65535: {part!r}", pos)
            self.debug.notes.append((index, m.group(1), comps))
            pos += len(part) + 2

    def add(self, words: list[int]) -> None:
        self.instructions.append(words)
        self.debug.lines.append(self.current)

    # -- output ----------------------------------------------------------------------------------
    def words(self, creator: str) -> list[int]:
        body = [w for inst in self.instructions for w in inst]
        out = [self.version]
        if self.debug.files or self.debug.notes:
            out += self.debug_block(creator)
        return out + body + [OP_END]

    def debug_block(self, creator: str) -> list[int]:
        debug = self.debug
        lines = _drift(debug.lines)
        labels = [label for _, label, _ in debug.notes]
        scopes = {label.split("::", 1)[0] for label in labels if "::" in label}
        entry = "main"
        while entry in scopes:
            entry += "_"
        strings = bytearray()
        offsets: dict[str, int] = {}
        header_size = 40
        tables = 4 * len(debug.files) + 8 * len(lines) + 32 * len(debug.notes)

        def string(text: str) -> int:
            if text not in offsets:
                offsets[text] = header_size + tables + len(strings)
                strings.extend(text.encode("latin-1", "replace") + b"\0")
                while len(strings) % 4:
                    strings.append(0xAB)
            return offsets[text]

        file_offsets = [string(name) for name in debug.files]
        entry_off = string(entry)
        variables = []
        for index, label, comps in debug.notes:
            scope, sep, name = label.rpartition("::")
            scope_off = (string(scope) if scope else 0) if sep else entry_off
            variables.append((scope_off, string(name), index, comps))
        creator_off = string(creator)
        file_off = header_size
        line_off = file_off + 4 * len(debug.files)
        var_off = line_off + 8 * len(lines)
        elem_off = var_off + 20 * len(variables)
        block = bytearray(struct.pack("<10I", header_size, creator_off, 0, len(debug.files), file_off,
                                      len(lines), line_off, len(variables), var_off, entry_off))
        for off in file_offsets:
            block += _U32.pack(off)
        # instruction byte offsets: after the version token, the comment token, the tag and the block
        first = 4 * (3 + (header_size + tables + len(strings)) // 4)
        offset = first
        for where, inst in zip(lines, self.instructions):
            line, file = where if where is not None else (0, 0xFFFF)
            block += struct.pack("<HHI", line, file, offset)
            offset += 4 * len(inst)
        for n, (scope_off, name_off, _, _) in enumerate(variables):
            block += struct.pack("<5I", scope_off, name_off, 0, 1, elem_off + 12 * n)
        for _, _, index, comps in variables:
            block += struct.pack("<I4H", index, *(comps + [0xFFFF] * (4 - len(comps))))
        block += strings
        words = list(struct.unpack(f"<{len(block) // 4}I", bytes(block)))
        size = len(words) + 1
        if size > COMMENT_LENGTH.mask:
            raise _Fail(f"debug information of {size} words does not fit a comment", 0)
        return [INSTRUCTION_OPCODE.put(OP_COMMENT) | COMMENT_LENGTH.put(size), DBUG_TAG, *words]


def _drift(lines: list[tuple[int, int] | None]) -> list[tuple[int, int] | None]:
    """Lines per instruction such that the printer shows the same directives: where a directive
    follows one of the same file within 2 lines, the instructions before it drift away (fxc
    prints ``#line`` only when the line moves by more than 2)."""
    out = list(lines)
    n = 0
    while n < len(out):
        start = n
        where = out[n]
        while n < len(out) and out[n] == where:
            n += 1
        if where is None or n >= len(out):
            continue
        following = out[n]
        if following is None or following[1] != where[1] or abs(following[0] - where[0]) > 2:
            continue
        # walk the run's lines away from the next directive in steps of at most 2
        step = -2 if following[0] >= where[0] else 2
        target = following[0] + (-3 if step < 0 else 3)
        line = where[0]
        for k in range(start + 1, n):
            line = max(line + step, target) if step < 0 else min(line + step, target)
            out[k] = (max(line, 0), where[1])
    return out


def _float_word(text: str, pos: int) -> int:
    """The float32 bits of a literal (``1.0``, ``.5``, ``1e2``; C's ``1.0f`` as D3DX reads it)."""
    number = text[:-1] if text[-1:] in ("f", "F") and any(c.isdigit() for c in text) else text
    try:
        value = float(number)
    except ValueError:
        raise _Fail(f"expected a number, found {text!r}", pos) from None
    if math.isfinite(value) and abs(value) > 3.4028235677973366e38:
        raise _Fail(f"{text} does not fit a 32-bit float", pos)
    word: int = _U32.unpack(_F32.pack(value))[0]
    return word


def _split(text: str, pos: int) -> list[tuple[str, int]]:
    items: list[tuple[str, int]] = []
    start = 0
    depth = 0
    for i, ch in enumerate(text + ","):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth <= 0:
            item = text[start:i]
            stripped = item.strip()
            if not stripped:
                raise _Fail("empty operand", pos + i)
            items.append((stripped, pos + start + len(item) - len(item.lstrip())))
            start = i + 1
    return items


def _comment_split(line: str) -> tuple[str, str, int]:
    """The code of ``line``, its ``//`` comment and where that starts; the D3D9 assembler also
    reads ``;`` as a comment to the end of the line (Unity's listings write ``; 45 ALU``)."""
    at = line.find("//")
    semicolon = line.find(";", 0, len(line) if at < 0 else at)
    if semicolon >= 0:
        return line[:semicolon], "", -1
    if at < 0:
        return line, "", -1
    return line[:at], line[at + 2 :], at + 2


def _without_block_comments(lines: list[str], first_line: int) -> list[str]:
    """``lines`` with every ``/* ... */`` comment (which may span lines) blanked out, so that the
    rest keeps its line and column; a ``/*`` inside a ``//`` or ``;`` comment opens nothing
    (D3DX's assembler reads the text through the C preprocessor)."""
    out: list[str] = []
    opened: tuple[int, int] | None = None
    for n, line in enumerate(lines):
        if opened is None and "/*" not in line:
            out.append(line)
            continue
        chars = list(line)
        i = 0
        while i < len(line):
            if opened is not None:
                end = line.find("*/", i)
                stop = len(line) if end < 0 else end + 2
                chars[i:stop] = " " * (stop - i)
                i = stop
                if end >= 0:
                    opened = None
                continue
            start = line.find("/*", i)
            if start < 0 or 0 <= line.find("//", i) < start or 0 <= line.find(";", i) < start:
                break
            opened = (first_line + n, start + 1)
            chars[start : start + 2] = "  "
            i = start + 2
        out.append("".join(chars))
    if opened is not None:
        raise AssemblyError("this /* comment has no closing */", *opened)
    return out


def assemble_lines(lines: list[str], first_line: int = 1, creator: str = "") -> Assembled:
    """The D3D9 program of ``lines`` (its version line first; blank lines, ``//`` comment lines
    and the ``// approximately ...`` footer are skipped). ``first_line`` numbers lines[0];
    ``creator`` goes into the DBUG block when the text has debug information. ``/* */``
    comments are blanks."""
    lines = _without_block_comments(lines, first_line)
    asm: _ProgramAssembler | None = None
    version_line = first_line
    for n, raw in enumerate(lines):
        number = first_line + n
        code, note, note_at = _comment_split(raw)
        stripped = code.strip()
        column = len(code) - len(code.lstrip()) + 1
        if not stripped:
            continue
        try:
            if asm is None:
                if stripped[0] == "/":  # fxc 9.30's stray slash in front of the version line
                    stripped = stripped[1:].lstrip()
                token = version_token(stripped)
                if token is None:
                    raise _Fail(f"expected a D3D9 version line such as ps_2_0, found {stripped!r}", 0)
                asm = _ProgramAssembler(token)
                version_line = number
                continue
            if stripped.startswith("#line"):
                m = _LINE_RE.match(stripped)
                if m is None:
                    raise _Fail(f"unreadable directive {stripped!r}", 0)
                asm.directive(int(m.group(1)), m.group(2))
                continue
            asm.add(asm.statement(stripped))
        except _Fail as exc:
            raise AssemblyError(exc.message, number, column + exc.pos) from None
        if note.strip():
            try:
                asm.note(note.strip(), note_at + len(note) - len(note.lstrip()))
            except _Fail as exc:
                raise AssemblyError(exc.message, number, exc.pos + 1) from None
    if asm is None:
        raise AssemblyError("no D3D9 version line (such as ps_2_0) found", first_line, 1)
    try:
        words = asm.words(creator)
    except _Fail as exc:
        raise AssemblyError(exc.message, version_line, 1) from None
    return Assembled(words, version_line, bool(asm.debug.files or asm.debug.notes))


def assemble(text: str) -> bytes:
    """The D3D9 token stream (bytes) of a level-9 program listing."""
    return assemble_lines(text.splitlines()).program
