"""fxc-identical text for a decoded :class:`Program` (the D3DDisassemble listing body).

Rules were read off the corpus listings: version line, one instruction per line, 2 spaces per
nesting level, operand-less opcodes end with a blank, typed immediates ``l(a, b)`` print per the
opcode's data type (floats ``%f``, integers decimal up to 10000 else ``0x%08x``), typeless
``mov``/``movc``/ICB values ``l(a,b,c,d)`` guess per component, SM5.1 resources are upper case
with ranges. ``legacy=True`` selects the spelling of fxc before the Windows 10 SDK (9.x of the
DirectX and Windows 8 SDKs, 6.3 of the Windows 8.1 SDK; old CRT): floats keep 17 significant
digits, ``dcl_constantbuffer cb#`` is lower case, ``dcl_input_ps_sgv`` omits the interpolation
mode. ``aoffimmi=False`` is fxc 9.29's spelling: texel offsets without ``_aoffimmi``
(``sample_l(0,1,0)``) and ``discard`` for ``discard_nz``. fxc writes
``[precise(...)]`` after the mnemonic and before resource parentheses.
"""

from __future__ import annotations

import struct

from shaderkit.isa.sm4.dcl import format_declaration
from shaderkit.isa.sm4.model import Index, Instruction, Operand, Program
from shaderkit.isa.sm4.opcodes import (
    ICB_CLASS,
    MESSAGE_CLASS,
    MIN_PRECISION,
    OPCODES,
    REGISTER_NAMES,
    RESOURCE_DIMENSIONS,
    RETURN_TYPES,
    UPPER_51,
    Block,
    Ctl,
    Imm,
    OpInfo,
)
from shaderkit.isa.sm4.table import (
    COMPONENTS_MASK,
    PRECISE_MASK,
    SATURATE,
    SWIZZLE_FIELDS,
    TEST_NONZERO,
)

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")
_XYZW = "xyzw"
_MASKS = ["".join(_XYZW[i] for i in range(4) if m >> i & 1) for m in range(16)]
_MASKS_DOT = ["." + m if m else "" for m in _MASKS]
_SWIZZLE_AT = [(f.low, f.mask) for f in SWIZZLE_FIELDS]  # (as swizzle_of reads them)
_SWIZZLES = ["." + "".join([_XYZW[(b >> low) & mask] for low, mask in _SWIZZLE_AT]) for b in range(COMPONENTS_MASK + 1)]
_SELECT = [".x", ".y", ".z", ".w"]
_INDENT = ["  " * n for n in range(64)]
_INF = float("inf")

# Operand types whose first immediate index is glued to the name (r0, cb0[1], fp0[0][1]).
_GLUED = frozenset({0, 1, 2, 3, 6, 7, 8, 10, 16, 17, 18, 19, 27, 30, 31})
# Inputs/outputs with two or more indices bracket every index (GS/HS input v[1][0]).
_INPUT_LIKE = frozenset({1, 2})
#: per sm51 flag: names of the glued register types (read only)
_GLUED_NAMES = tuple({t: (UPPER_51[t] if sm51 and t in UPPER_51 else REGISTER_NAMES[t]) for t in _GLUED}
                     for sm51 in (False, True))


def _f32(word: int) -> float:
    return float(_F32.unpack(_U32.pack(word & 0xFFFFFFFF))[0])


def fmt_float(word: int, legacy: bool = False) -> str:
    """MSVC ``%f`` of a float32 bit pattern."""
    return _msvc_f(_f32(word), word >> 31 & 1, legacy)


def _msvc_f(value: float, sign: int, legacy: bool) -> str:
    """``%f`` as fxc prints it (exact value, ties to even); the old CRT behind fxc 9.x keeps
    only 17 significant digits and pads the rest of the integer part with zeros."""
    if value != value:
        return "-1.#QNAN0" if sign else "1.#QNAN0"
    if value in (_INF, -_INF):
        return "-1.#INF00" if value < 0 else "1.#INF00"
    text = f"{value:f}"
    if legacy:
        digits = len(text.lstrip("-").split(".")[0])
        if digits > 17:
            mantissa = f"{abs(value):.16e}".split("e")[0].replace(".", "")
            text = ("-" if value < 0 else "") + mantissa + "0" * (digits - 17) + ".000000"
        else:
            scaled = abs(value) * 1e6
            if abs(scaled - int(scaled) - 0.5) < 1e-4:
                text = _old_crt_tie(value, text)
    return text


def _old_crt_tie(value: float, text: str) -> str:
    """``%f`` of a value (nearly) halfway between two six-decimal texts as the old CRT writes it:
    its 17 significant digits rounded half away from zero (-118410.8203125 gives -118410.820313
    in a d3dcompiler_46 listing; Python's exact ties-to-even gives ...312)."""
    from decimal import ROUND_HALF_UP, Decimal

    rounded = Decimal(f"{abs(value):.16e}").quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)
    return ("-" if text.startswith("-") else "") + f"{rounded:f}"


def _annotated(text: str, note: str) -> str:
    """An operand with a ``{...}`` note; inside an absolute value's bars (``|r2.xyzw {min16f}|``,
    as d3dcompiler_47's disassembler writes it)."""
    return text[:-1] + note + "|" if text.endswith("|") else text + note


def fmt_int(word: int) -> str:
    """Integer immediates: small values decimal, others ``0x%08x``."""
    signed = word - (1 << 32) if word & 0x80000000 else word
    if -10000 <= signed <= 10000:
        return str(signed)
    return f"0x{word & 0xFFFFFFFF:08x}"


def fmt_untyped(word: int, legacy: bool = False) -> str:
    """mov/movc/ICB per-component guess: normal floats ``%f``, others integers."""
    if word == 0x80000000:
        return "-0.000000"
    exponent = (word >> 23) & 0xFF
    if exponent != 0 and exponent != 0xFF:
        return fmt_float(word, legacy)
    return fmt_int(word)


def untyped_texts(values: list[int] | tuple[int, ...], legacy: bool = False) -> list[str]:
    """:func:`fmt_untyped` of every word (the floats converted in one go)."""
    n = len(values)
    floats = struct.unpack(f"<{n}f", struct.pack(f"<{n}I", *values))
    out = []
    for word, value in zip(values, floats):
        exponent = word >> 23 & 0xFF
        if word == 0x80000000:
            out.append("-0.000000")
        elif exponent == 0 or exponent == 0xFF:
            out.append(fmt_int(word))
        else:
            out.append(_msvc_f(value, word >> 31, True) if legacy else f"{value:f}")
    return out


def fmt_double(lo: int, hi: int) -> str:
    """fxc's text of the double whose low/high words are ``lo``/``hi`` (``1.000000l``)."""
    value = float(_F64.unpack(_U64.pack(lo | hi << 32))[0])
    return f"{value:f}l"


def exact_float(word: int) -> str:
    """A float32 text that reads back to exactly ``word``: fxc's ``%f`` when it does, else the
    shortest ``%g`` text that does, ``0x`` hex bits for NaNs."""
    word &= 0xFFFFFFFF
    value = _f32(word)
    if value != value:
        return f"0x{word:08x}"
    text = fmt_float(word)
    if _f32_bits(text) == word:
        return text
    for digits in range(6, 10):
        text = f"{value:.{digits}g}"
        if _f32_bits(text) == word:
            break
    return text if "." in text or "e" in text or "inf" in text else text + ".0"


def _f32_bits(text: str) -> int:
    try:
        return int(_U32.unpack(_F32.pack(float(text.replace("1.#INF00", "inf"))))[0])
    except (ValueError, OverflowError):
        return -1


def exact_untyped(word: int) -> str:
    """:func:`fmt_untyped` that reads back to exactly ``word``."""
    exponent = (word >> 23) & 0xFF
    if word != 0x80000000 and exponent != 0 and exponent != 0xFF:
        return exact_float(word)
    return fmt_untyped(word)


def exact_double(lo: int, hi: int) -> str:
    """A double text (``l`` suffix) that reads back to exactly these words."""
    bits = lo | hi << 32
    value = float(_F64.unpack(_U64.pack(bits))[0])
    if value != value:
        return f"0x{bits:016x}l"
    text = fmt_double(lo, hi)
    if _U64.unpack(_F64.pack(float(text[:-1])))[0] == bits:
        return text
    return repr(value) + "l"


def hex_immediate(op: Operand) -> str:
    """An immediate with every value as its bits: ``l(0x3f800000, ...)``, doubles ``d(0x...l)``."""
    values = op.values
    if op.type == 5:
        return "d(" + ", ".join(f"0x{values[i] | values[i + 1] << 32:016x}l"
                                for i in range(0, len(values) - 1, 2)) + ")"
    return "l(" + ", ".join(f"0x{v:08x}" for v in values) + ")"


class Formatter:
    """Formats operands and instructions; one per program (holds the style and the version)."""

    def __init__(self, prog: Program, legacy: bool = False, exact: bool = False, hex_literals: bool = False,
                 since_9_30: bool = True) -> None:
        self.prog = prog
        self.legacy = legacy
        #: the spellings of fxc 9.30 and later; fxc 9.29 and older print texel offsets without
        #: ``_aoffimmi`` (``sample_l(0,1,0)``, ``sample_l_indexable(0,-1,0)(texture2d)(...)``) and
        #: ``discard`` for ``discard_nz``
        self.since_9_30 = since_9_30
        #: floats printed so that they read back bit for bit (and unprinted padding words shown)
        self.exact = exact
        #: every literal as its bits in hex (fxc ``/Lx``): ``l(0x3f800000)``, ``d(0x3ff0000000000000l)``
        self.hex_literals = hex_literals
        self.sm51 = (prog.major, prog.minor) >= (5, 1)
        #: prefixes of the register types whose first index is glued to the name
        self.glued = _GLUED_NAMES[self.sm51]

    # -- operands ----------------------------------------------------------------------
    def immediate(self, op: Operand, kind: Imm) -> str:
        """The text of an immediate operand ``l(...)``/``d(...)``, floats or integers as ``kind`` says."""
        values = op.values
        if self.hex_literals:
            return hex_immediate(op)
        if self.exact:
            return self.exact_immediate(op, kind)
        if op.type == 5:
            pairs = [fmt_double(values[i], values[i + 1]) for i in range(0, len(values), 2)]
            return "d(" + ", ".join(pairs) + ")"
        if kind == Imm.UNTYPED:
            legacy = self.legacy
            return "l(" + ",".join(fmt_untyped(v, legacy) for v in values) + ")"
        if kind == Imm.INT:
            return "l(" + ", ".join(fmt_int(v) for v in values) + ")"
        legacy = self.legacy
        return "l(" + ", ".join(fmt_float(v, legacy) for v in values) + ")"

    @staticmethod
    def exact_immediate(op: Operand, kind: Imm) -> str:
        """The immediate's text with every value readable back to the same bits."""
        values = op.values
        if op.type == 5:
            return "d(" + ", ".join(exact_double(values[i], values[i + 1]) for i in range(0, len(values) - 1, 2)) + ")"
        if kind == Imm.UNTYPED:
            return "l(" + ",".join(exact_untyped(v) for v in values) + ")"
        if kind == Imm.INT:
            return "l(" + ", ".join(fmt_int(v) for v in values) + ")"
        return "l(" + ", ".join(exact_float(v) for v in values) + ")"

    def index(self, index: Index) -> str:
        """The text of one index: ``[n]``, ``[r0.x + n]``."""
        rep = index.rep
        if rep == 0 or rep == 1:
            return f"[{index.value}]"
        if index.rel is None:  # a hand-built model without its relative operand
            return f"[{index.value}]"
        rel = self.operand(index.rel, Imm.INT)
        if self.exact and rep == 3 and index.value == 0:  # fxc prints it like a relative-only index
            return f"[{rel} + 0x0]"
        return f"[{rel} + {index.value}]"

    def register(self, op: Operand) -> str:
        """The register name with its indices (``cb0[3]``, ``CB0[0][1]`` in SM5.1)."""
        t = op.type
        indices = op.indices
        if self.sm51 and t in UPPER_51:
            name = UPPER_51[t]
        else:
            name = REGISTER_NAMES.get(t, f"<type{t}>")
        if not indices:
            return name
        first = indices[0]
        if t in _GLUED and first.rep == 0 and not (t in _INPUT_LIKE and len(indices) > 1):
            return name + str(first.value) + "".join(self.index(i) for i in indices[1:])
        return name + "".join(self.index(i) for i in indices)

    def components(self, op: Operand) -> str:
        """The component suffix: ``.xyzw`` mask, swizzle or single component."""
        if op.num_components != 2:
            return ""
        sel = op.selection_mode
        bits = op.component_bits
        if sel == 0:
            return _MASKS_DOT[bits & 0xF]
        if sel == 1:
            return _SWIZZLES[bits]
        return _SELECT[bits & 3]

    def operand(self, op: Operand, kind: Imm, annotate: bool = True) -> str:
        """The full text of an operand: modifiers, register, components and (``annotate``) precision."""
        t = op.type
        indices = op.indices
        if len(indices) == 1 and not op.extended and t in self.glued:
            first = indices[0]
            if first.rep == 0:  # fast path: r0.xyzw, v1.x, o0.xy, cb0 ...
                text = self.glued[t] + str(first.value)
                if op.num_components == 2:
                    sel = op.selection_mode
                    if sel == 0:
                        return text + _MASKS_DOT[op.component_bits & 0xF]
                    if sel == 1:
                        return text + _SWIZZLES[op.component_bits]
                    return text + _SELECT[op.component_bits & 3]
                return text
        if t == 4 or t == 5:
            text = self.immediate(op, kind)
        else:
            text = self.register(op) + self.components(op)
        if op.extended:
            mod = op.modifier
            if mod == 1:
                text = "-" + text
            elif mod == 2:
                text = "|" + text + "|"
            elif mod == 3:
                text = "-|" + text + "|"
            prec = op.min_precision
            if prec and annotate:
                text = _annotated(text, " {" + _prec(prec) + "}")
            if op.non_uniform:
                text = _annotated(text, " {nonuniform}")
        return text

    # -- instructions ----------------------------------------------------------------------
    @staticmethod
    def mnemonic(inst: Instruction, info: OpInfo, since_9_30: bool = True) -> str:
        """The mnemonic with its control suffixes (``_sat``, ``_nz``, ``_uint``...);
        ``since_9_30=False``: fxc 9.29's spellings, texel offsets without the ``_aoffimmi`` word and
        ``discard`` for ``discard_nz``."""
        name = info.name
        ctl = info.ctl
        c = inst.controls
        if ctl == Ctl.TEST:
            if TEST_NONZERO.get(c):
                if since_9_30 or name != "discard":  # fxc 9.29: plain discard (if, breakc... keep _nz)
                    name += "_nz"
            else:
                name += "_z"
        elif ctl == Ctl.SYNC:
            if c & 8:
                name += "_uglobal"
            elif c & 4:
                name += "_ugroup"
            if c & 2:
                name += "_g"
            if c & 1:
                name += "_t"
        head = len(name)
        if inst.extended:
            offsets = inst.sample_offsets
            dim = inst.resource_dimension
            rets = inst.return_types
            if offsets is not None and since_9_30:
                name += "_aoffimmi"
            if dim is not None:
                name += "_indexable"
            head = len(name)
            if offsets is not None:
                name += "({},{},{})".format(*offsets)
            if dim is not None:
                dname = RESOURCE_DIMENSIONS[dim] if dim < len(RESOURCE_DIMENSIONS) else f"dim{dim}"
                if dim == 12:
                    name += f"({dname}, stride={inst.structure_stride})"
                else:
                    name += f"({dname})"
            if rets is not None:
                name += "(" + ",".join(_ret(r) for r in rets) + ")"
        if ctl == Ctl.RESINFO:
            mode = c & 3
            if inst.opcode == 111:
                name += "_uint" if mode & 1 else ""
            elif mode == 1:
                name += "_rcpFloat"
            elif mode == 2:
                name += "_uint"
        if ctl != Ctl.DCL and SATURATE.get(c) and ctl != Ctl.SYNC:
            name += "_sat"
        precise = PRECISE_MASK.get(c)  # SM5 precise mask
        if precise and ctl == Ctl.SAT:
            note = " [precise" + ("" if precise == PRECISE_MASK.mask else "(" + _MASKS[precise] + ")") + "]"
            if head < len(name) and name[head] == "(":  # fxc: ld_uav_typed_indexable [precise(x)](texture2d)(...)
                return name[:head] + note + name[head:]
            name += note
        return name

    def instruction(self, inst: Instruction) -> str:
        """The text of one instruction or declaration (unknown opcodes as a comment with their words)."""
        info = OPCODES.get(inst.opcode)
        if info is None or info.name.startswith("reserved"):
            return self.unknown(inst)
        if info.dcl:
            return self.declaration(inst, info)
        if inst.opcode == 53:
            return self.customdata(inst)
        name = self.mnemonic(inst, info, self.since_9_30)
        if inst.opcode == 120:  # fcall fp#[array index][call site]
            site = inst.raw[0] if inst.raw else 0
            return name + " " + ", ".join(self.operand(op, Imm.INT) for op in inst.operands) + f"[{site}]"
        if not inst.operands:  # fxc: ``ret `` with a blank, ``sync_g_t`` without
            hidden = inst.controls & ~shown_controls(info.ctl) if self.exact else 0
            if hidden:  # --exact: control bits the mnemonic does not show (vkd3d: else/endif test bit)
                return f"{name} ctl(0x{hidden:x})"
            return name if info.name == "sync" else name + " "
        kind = info.imm
        special = _IMM_AT.get(inst.opcode)
        operand = self.operand
        if special is None:
            parts = [operand(op, kind, False) for op in inst.operands]
        else:
            parts = [operand(op, special.get(i, kind), False) for i, op in enumerate(inst.operands)]
        for op in inst.operands:
            if op.extended:
                self.precision_notes(inst, parts)
                break
        if self.exact and inst.raw:  # words after the operands (fxc prints nothing)
            parts.append("raw(" + ", ".join(f"0x{w:08x}" for w in inst.raw) + ")")
        if self.exact:
            hidden = inst.controls & ~shown_controls(info.ctl)
            if hidden:
                parts.append(f"ctl(0x{hidden:x})")
        return name + " " + ", ".join(parts)

    def precision_notes(self, inst: Instruction, parts: list[str]) -> None:
        """``{min16f}`` suffixes; a source whose precision differs from the destination's in a
        same-typed operation reads ``{min16f as def32}``."""
        ops = inst.operands
        dest = ops[0].min_precision
        same_typed = inst.opcode not in _CONVERSIONS and not any(o.type in _RESOURCE_TYPES for o in ops)
        for i, op in enumerate(ops):
            prec = op.min_precision
            if i == 0 or not same_typed or (inst.opcode == 55 and i == 1):
                if prec:
                    parts[i] = _annotated(parts[i], " {" + _prec(prec) + "}")
            elif prec != dest:
                parts[i] = _annotated(parts[i], " {" + _prec(prec) + " as " + _prec(dest) + "}")
            elif prec:
                parts[i] = _annotated(parts[i], " {" + _prec(prec) + "}")

    def unknown(self, inst: Instruction) -> str:
        """A comment naming an unknown opcode and its words in hex."""
        from shaderkit.isa.sm4.encode import encode_instruction

        words: list[int] = []
        encode_instruction(inst, words)
        return f"// unknown opcode {inst.opcode}: " + " ".join(f"0x{w:08x}" for w in words)

    # -- declarations ----------------------------------------------------------------------
    def declaration(self, inst: Instruction, info: OpInfo) -> str:
        """The text of a declaration, from its template in ``dcl.py``."""
        return format_declaration(inst, self.dcl_operand, self.float_text, self.sm51, self.legacy and not self.exact,
                                  self.exact)

    def float_text(self, word: int) -> str:
        """The text of one float word (fxc's rounding, or exact in exact mode)."""
        if self.hex_literals:
            return f"0x{word & 0xFFFFFFFF:08x}"
        return exact_float(word) if self.exact else fmt_float(word, self.legacy)

    def dcl_operand(self, op: Operand) -> str:
        """The operand text in a declaration (SM5.1 ranges as ``T0[0:3]``)."""
        if self.sm51 and op.type in UPPER_51 and len(op.indices) == 3:
            ids = op.indices
            upper = ids[2].value
            hi = "*" if upper == 0xFFFFFFFF else str(upper)
            return f"{UPPER_51[op.type]}{ids[0].value}[{ids[1].value}:{hi}]"
        if op.type == 8:
            return ("cb" if self.legacy else "CB") + self.register(op)[2:]
        return self.operand(op, Imm.INT)

    # -- custom data ----------------------------------------------------------------------
    def customdata(self, inst: Instruction) -> str:
        """The text of a customdata block (immediate constant buffer, message, or a comment)."""
        cls = inst.controls
        if cls == ICB_CLASS:
            return self.icb(inst.raw)
        if cls == MESSAGE_CLASS:
            return self.message(inst)
        return self.opaque_customdata(inst)

    def opaque_customdata(self, inst: Instruction) -> str:
        """fxc prints only the class and size of other blocks; exact text carries the words."""
        if self.exact:
            return f"// customdata class {inst.controls}: " + " ".join(f"0x{w:08x}" for w in inst.raw)
        return f"// customdata class {inst.controls}, {len(inst.raw)} words"

    def message(self, inst: Instruction) -> str:
        """Shader message (printf/errorf): id, format kind, length, operand count/size, operands, text."""
        raw = inst.raw
        if len(raw) < 5:
            return self.opaque_customdata(inst)
        msg_id, _kind, chars, count, size = raw[:5]
        from shaderkit.isa.sm4.decode import decode_operands

        operands = decode_operands(raw[5 : 5 + size], count)
        text_words = raw[5 + size :]
        blob = struct.pack(f"<{len(text_words)}I", *text_words)[:chars]
        name = "errorf" if msg_id & 0xFF == 3 else "printf"
        args = "".join(", " + self.operand(op, Imm.FLOAT) for op in operands)
        text = blob.decode("latin-1").translate(_ESCAPES)
        return f'{name} "{text}"{args}'

    def icb(self, data: list[int]) -> str:
        """``dcl_immediateConstantBuffer { {..}, ... }`` rows of four values."""
        used = data[: len(data) - len(data) % 4]
        if self.hex_literals:
            texts = [f"0x{v:08x}" for v in used]
        else:
            texts = [exact_untyped(v) for v in used] if self.exact else untyped_texts(used, self.legacy)
        rows = ["{ " + ", ".join(texts[i : i + 4]) + "}" for i in range(0, len(texts), 4)]
        if not rows:
            return "dcl_immediateConstantBuffer { }"
        pad = " " * 30
        return "dcl_immediateConstantBuffer { " + (",\n" + pad).join(rows) + " }"

    # -- whole program ------------------------------------------------------------------------
    def lines(self) -> list[str]:
        """The listing: the profile line, then one entry per instruction."""
        prog = self.prog
        lazy = prog.lazy_words()
        if lazy is not None and not self.exact and not self.hex_literals:
            # never built, so never edited: print the words
            from shaderkit.isa.sm4.printer import program_lines

            return program_lines(lazy[0], 0, self.legacy, since_9_30=self.since_9_30)
        out = [prog.profile]
        level = 0
        blocks = _BLOCKS
        instruction = self.instruction
        for inst in prog._model():
            block = blocks.get(inst.opcode, 0)
            if block:
                if block == _CLOSE or block == _MIDDLE:
                    level = max(level - 1, 0)
                elif block == _PHASE:
                    level = 0
            text = instruction(inst)
            if level:
                indent = _INDENT[level] if level < 64 else "  " * level
                if "\n" in text:
                    text = text.replace("\n", "\n" + indent)
                text = indent + text
            out.append(text)
            if block == _OPEN or block == _MIDDLE:
                level += 1
        return out


def shown_controls(ctl: Ctl) -> int:
    """The opcode control bits (relative to bit 11) an instruction's mnemonic shows for its
    :class:`Ctl` kind: ``_sat`` (all but sync), ``[precise]`` (SAT), ``_z``/``_nz`` (TEST), the
    resinfo return type (RESINFO), the sync flags (SYNC). ``disasm --exact`` prints the others as
    ``ctl(0x...)`` (fxc sets none; vkd3d-shader sets the test bit of else/endif)."""
    shown = 0 if ctl == Ctl.SYNC else SATURATE.bits
    if ctl == Ctl.SAT:
        shown |= PRECISE_MASK.bits
    elif ctl == Ctl.TEST:
        shown |= TEST_NONZERO.bits
    elif ctl == Ctl.RESINFO:
        shown |= 3
    elif ctl == Ctl.SYNC:
        shown |= 0xF
    return shown


def clear_caches() -> None:
    """Empty the decoder's validation caches (cold-start measurements). The printers keep no
    text; what they build on first use, once per process (declaration templates, SM5.1 register
    tables), stays: a fresh process measures it (``bench_sm4.py --first-pass``)."""
    from shaderkit.isa.sm4 import decode

    decode._SIMPLE.clear()
    decode._EXT1.clear()
    decode._CHECKED.clear()
    decode._CHECKED_COUNT[0] = 0
    decode._PLAIN.clear()


_BLOCKS = {value: int(info.block) for value, info in OPCODES.items() if info.block}
_OPEN, _CLOSE, _MIDDLE, _PHASE = int(Block.OPEN), int(Block.CLOSE), int(Block.MIDDLE), int(Block.PHASE)
_IMM_AT = {value: dict(info.imm_at) for value, info in OPCODES.items() if info.imm_at}
# conversions: sources and destination have different data types
_CONVERSIONS = frozenset({27, 28, 43, 86, 130, 131, 201, 202, 214, 215, 216, 217})
_RESOURCE_TYPES = frozenset({6, 7, 30, 31})


_ESCAPES = {10: "\\n", 13: "\\r", 9: "\\t", 8: "\\b", 92: "\\\\"}


def _prec(value: int) -> str:
    return MIN_PRECISION.get(value, f"min{value}") if value else "def32"


def _ret(value: int) -> str:
    value &= 0xF
    return RETURN_TYPES[value] if value < len(RETURN_TYPES) else str(value)


def format_program(prog: Program, legacy: bool = False) -> str:
    """The listing body: version line, declarations and instructions, one per line."""
    return "\n".join(Formatter(prog, legacy).lines()) + "\n"
