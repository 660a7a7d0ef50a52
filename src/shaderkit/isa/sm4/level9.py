"""Level-9 (``Aon9`` chunk) shader text: the D3D9 ps_2_x/vs_2_x program fxc prints in the listing
of ``*_4_0_level_9_*`` shaders, with the ``#line`` directives and ``// variable<components>``
notes fxc derives from the program's ``DBUG`` comment block.

Aon9 payload: ``u32 size, u32 d3d9 version token, u32 program size, u32 program offset`` then
the constant/sampler mapping tables (printed as ``//`` comments by the container's listing) and
the D3D9 token stream. Untrusted input raises ShaderFormatError.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from shaderkit.errors import ShaderFormatError

_U32 = struct.Struct("<I")
_F32 = struct.Struct("<f")
_HEAD = struct.Struct("<4I")
_DBUG = struct.Struct("<10I")
_LINE = struct.Struct("<HHI")
_VAR = struct.Struct("<5I")
_ELEM = struct.Struct("<I4H")
MAX_WORDS = 1 << 20

# D3D9 opcodes: value -> (mnemonic, destination?, source count)
_OPS: dict[int, tuple[str, bool, int]] = {
    0: ("nop", False, 0), 1: ("mov", True, 1), 2: ("add", True, 2), 3: ("sub", True, 2),
    4: ("mad", True, 3), 5: ("mul", True, 2), 6: ("rcp", True, 1), 7: ("rsq", True, 1),
    8: ("dp3", True, 2), 9: ("dp4", True, 2), 10: ("min", True, 2), 11: ("max", True, 2),
    12: ("slt", True, 2), 13: ("sge", True, 2), 14: ("exp", True, 1), 15: ("log", True, 1),
    16: ("lit", True, 1), 17: ("dst", True, 2), 18: ("lrp", True, 3), 19: ("frc", True, 1),
    20: ("m4x4", True, 2), 21: ("m4x3", True, 2), 22: ("m3x4", True, 2), 23: ("m3x3", True, 2),
    24: ("m3x2", True, 2), 25: ("call", False, 1), 26: ("callnz", False, 2), 27: ("loop", False, 2),
    28: ("ret", False, 0), 29: ("endloop", False, 0), 30: ("label", False, 1), 32: ("pow", True, 2),
    33: ("crs", True, 2), 34: ("sgn", True, 3), 35: ("abs", True, 1), 36: ("nrm", True, 1),
    37: ("sincos", True, 3), 38: ("rep", False, 1), 39: ("endrep", False, 0), 40: ("if", False, 1),
    41: ("if", False, 2), 42: ("else", False, 0), 43: ("endif", False, 0), 44: ("break", False, 0),
    45: ("break", False, 2), 46: ("mova", True, 1), 64: ("texcoord", True, 0), 65: ("texkill", True, 0),
    66: ("texld", True, 2), 78: ("expp", True, 1), 79: ("logp", True, 1), 80: ("cnd", True, 3),
    88: ("cmp", True, 3), 89: ("bem", True, 2), 90: ("dp2add", True, 3), 91: ("dsx", True, 1),
    92: ("dsy", True, 1), 93: ("texldd", True, 4), 94: ("setp", True, 2), 95: ("texldl", True, 2),
    96: ("break", False, 1),
}
_OP_DCL, _OP_DEF, _OP_DEFI, _OP_DEFB, _OP_COMMENT, _OP_END = 31, 81, 48, 47, 0xFFFE, 0xFFFF
_COMPARISONS = ("", "_gt", "_eq", "_ge", "_lt", "_ne", "_le", "")
_USAGES = ("position", "blendweight", "blendindices", "normal", "psize", "texcoord", "tangent",
           "binormal", "tessfactor", "positiont", "color", "fog", "depth", "sample")
_SAMPLERS = {2: "_2d", 3: "_cube", 4: "_volume"}
_RASTOUT = ("oPos", "oFog", "oPts")
#: register types (D3DSPR_*) printed as a prefix and the register number
_REGISTER_PREFIXES = {0: "r", 1: "v", 2: "c", 5: "oD", 6: "oT", 7: "i", 8: "oC", 10: "s", 14: "b", 19: "p"}
#: instruction slots of the D3D9 macro instructions (every other instruction takes one)
_SLOTS = {"nrm": 3, "pow": 3, "sincos": 8, "lrp": 2, "crs": 2, "m4x4": 4, "m4x3": 3, "m3x4": 4,
          "m3x3": 3, "m3x2": 2}
_TEXTURE_OPS = ("texld", "texldp", "texldb", "texldd", "texldl")
_XYZW = "xyzw"


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


def _unpack(st: struct.Struct, data: bytes, offset: int, what: str) -> tuple:
    if offset < 0 or offset + st.size > len(data):
        raise ShaderFormatError(f"{what} at {offset:#x} runs past {len(data)} bytes", offset, "Aon9.DBUG")
    return st.unpack_from(data, offset)


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
        if scope == entry and scope:
            label = name
        else:
            label = f"{scope}::{name}"
        for j in range(elem_count):
            index, *comps = _unpack(_ELEM, data, elem_off + 12 * j, "DBUG element")
            used = ",".join(str(c) for c in comps if c != 0xFFFF)
            info.notes.setdefault(index, []).append(f"{label}<{used}>")
    return info


def fmt_def(word: int) -> str:
    """``def`` constants: ``%.9g`` with MSVC's three-digit exponent."""
    value = _F32.unpack(_U32.pack(word))[0]
    if value == 0:
        return "-0" if word >> 31 else "0"
    text = f"{value:.9g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        text = f"{mantissa}e{exp[0]}{abs(int(exp)):03d}"
    return text


class _Program:
    """A D3D9 token stream and its printer."""

    def __init__(self, words: tuple[int, ...], prefix: str) -> None:
        self.words = words
        self.prefix = prefix
        version = words[0] if words else 0
        kind = version >> 16
        # 0xFFFF ps, 0xFFFE vs; library functions use "LP"/"LV" (0x4C50/0x4C56)
        self.pixel = kind in (0xFFFF, 0x4C50)
        self.prefix = prefix if kind in (0x4C50, 0x4C56) else ""
        self.major = (version >> 8) & 0xFF
        self.minor = version & 0xFF

    def fail(self, message: str, pos: int) -> ShaderFormatError:
        return ShaderFormatError(message, 4 * pos, "Aon9")

    def version_line(self) -> str:
        kind = "ps" if self.pixel else "vs"
        minor = "x" if self.minor == 1 else str(self.minor)
        return f"{self.prefix}{kind}_{self.major}_{minor}"

    def register(self, token: int) -> str:
        rtype = ((token >> 28) & 7) | ((token >> 8) & 0x18)
        num = token & 0x7FF
        prefix = _REGISTER_PREFIXES.get(rtype)
        if prefix is not None:
            return f"{prefix}{num}"
        if rtype == 3:
            return f"t{num}" if self.pixel else f"a{num}"
        if rtype == 4:
            return _RASTOUT[num] if num < 3 else f"oRast{num}"
        if rtype == 9:
            return "oDepth"
        if rtype == 15:
            return "aL"
        return f"reg{rtype}_{num}"

    def dest(self, token: int) -> tuple[str, str]:
        """(operand text, instruction modifier suffix) of a destination parameter."""
        mask = (token >> 16) & 0xF
        text = self.register(token)
        if mask != 0xF:
            text += "." + "".join(_XYZW[i] for i in range(4) if mask >> i & 1)
        mods = (token >> 20) & 0xF
        suffix = ("_sat" if mods & 1 else "") + ("_pp" if mods & 2 else "") + ("_centroid" if mods & 4 else "")
        return text, suffix

    def source(self, pos: int, end: int) -> tuple[str, int]:
        token = self.words[pos]
        pos += 1
        text = self.register(token)
        if token >> 13 & 1:  # relative addressing
            if not self.pixel and self.major >= 2:
                if pos >= end:
                    raise self.fail("relative address token runs past the instruction", pos)
                addr = self.words[pos]
                pos += 1
                comp = _XYZW[(addr >> 16) & 3]
                text += f"[{self.register(addr)}.{comp}]"
            else:
                text += "[a0.x]"
        swz = (token >> 16) & 0xFF
        comps = [_XYZW[(swz >> (2 * i)) & 3] for i in range(4)]
        if swz != 0xE4:  # identity prints nothing, a replicate one letter, else all four
            text += "." + (comps[0] if comps.count(comps[0]) == 4 else "".join(comps))
        mod = (token >> 24) & 0xF
        if mod == 1:
            text = "-" + text
        elif mod == 11:
            text += "_abs"
        elif mod == 12:
            text = "-" + text + "_abs"
        elif mod == 13:
            text = "!" + text
        elif mod:
            text += f"_mod{mod}"
        return text, pos

    def instructions(self) -> list[tuple[str, int]]:
        """(text, instruction index) for every instruction, comments skipped."""
        words = self.words
        out: list[tuple[str, int]] = []
        pos = 1
        total = len(words)
        index = 0
        while pos < total:
            token = words[pos]
            opcode = token & 0xFFFF
            if opcode == _OP_END:
                break
            if opcode == _OP_COMMENT:
                pos += 1 + ((token >> 16) & 0x7FFF)
                continue
            length = (token >> 24) & 0xF
            end = pos + 1 + length
            if end > total:
                raise self.fail(f"instruction length {length} runs past the program", pos)
            out.append((self.instruction(token, pos + 1, end), index))
            index += 1
            pos = end
        return out

    def instruction(self, token: int, pos: int, end: int) -> str:
        words = self.words
        opcode = token & 0xFFFF
        controls = (token >> 16) & 0xFF
        if opcode == _OP_DCL:
            if end - pos < 2:
                raise self.fail("dcl needs 2 parameter tokens", pos)
            usage, reg = words[pos], words[pos + 1]
            text, suffix = self.dest(reg)
            rtype = ((reg >> 28) & 7) | ((reg >> 8) & 0x18)
            if rtype == 10:
                name = "dcl" + _SAMPLERS.get((usage >> 27) & 0xF, "")
            elif self.pixel and self.major < 3:
                name = "dcl"
            else:
                kind = usage & 0x1F
                uname = _USAGES[kind] if kind < len(_USAGES) else f"usage{kind}"
                uindex = (usage >> 16) & 0xF
                name = f"dcl_{uname}{uindex if uindex else ''}"
            return f"{name}{suffix} {text}"
        if opcode in (_OP_DEF, _OP_DEFI, _OP_DEFB):
            if end - pos < 2:
                raise self.fail("def needs a register and values", pos)
            target = self.register(words[pos])
            values = words[pos + 1 : end]
            if opcode == _OP_DEF:
                return "def " + ", ".join([target, *(fmt_def(v) for v in values)])
            if opcode == _OP_DEFI:
                return "defi " + ", ".join([target, *(str(v - (1 << 32) if v >> 31 else v) for v in values)])
            return f"defb {target}, {'true' if values[0] else 'false'}"
        info = _OPS.get(opcode)
        if info is None:
            return f"// unknown D3D9 opcode {opcode}"
        name, has_dest, _count = info
        if opcode in (41, 45, 94):
            name += _COMPARISONS[controls & 7]
        if opcode == 66:
            name = ("texld", "texldp", "texldb")[controls & 3] if controls & 3 < 3 else name
        parts: list[str] = []
        suffix = ""
        p = pos
        if has_dest:
            if p >= end:
                raise self.fail(f"{name} without destination", p)
            text, suffix = self.dest(words[p])
            parts.append(text)
            p += 1
        while p < end:
            text, p = self.source(p, end)
            parts.append(text)
        return f"{name}{suffix}" + (" " + ", ".join(parts) if parts else "")


def program_words(data: bytes) -> tuple[int, ...]:
    """The D3D9 token words inside an Aon9 payload."""
    _size, _version, length, offset = _HEAD.unpack_from(data, 0) if len(data) >= 16 else (0, 0, 0, 0)
    if len(data) < 16:
        raise ShaderFormatError(f"Aon9 payload of {len(data)} bytes is too short", 0, "Aon9")
    if offset + length > len(data) or length % 4 or length > 4 * MAX_WORDS:
        raise ShaderFormatError(f"Aon9 program ({length} bytes at {offset:#x}) does not fit", 12, "Aon9")
    return struct.unpack_from(f"<{length // 4}I", data, offset)


def _debug_of(words: tuple[int, ...]) -> DebugInfo | None:
    pos = 1
    while pos < len(words):
        token = words[pos]
        if token & 0xFFFF != _OP_COMMENT:
            return None
        size = (token >> 16) & 0x7FFF
        if pos + 1 < len(words) and words[pos + 1] == 0x47554244:  # "DBUG"
            body = words[pos + 2 : pos + 1 + size]
            blob = struct.pack(f"<{len(body)}I", *body)
            return parse_debug(blob)
        pos += 1 + size
    return None


def listing_lines(data: bytes, prefix: str = "lib_4_0_") -> list[str]:
    """The D3D9 program of an Aon9/XNAS/XNAP payload as fxc lists it (4-space indentation);
    ``prefix`` starts the version line of library functions (``lib_4_0_vs_2_x``)."""
    words = program_words(data)
    prog = _Program(words, prefix)
    debug = _debug_of(words)
    out = ["    " + prog.version_line()]
    current: tuple[int, int] | None = None
    texture = arithmetic = 0
    for text, index in prog.instructions():
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
        out.append("    " + text + ("  // " + ", ".join(notes) if notes else ""))
        if not text.startswith(("dcl", "def")):
            op = text.split(" ", 1)[0].split("_", 1)[0]
            if op in _TEXTURE_OPS:
                texture += 1
            else:
                arithmetic += _SLOTS.get(op, 1)
    total = texture + arithmetic
    plural = "slot" if total == 1 else "slots"
    split = f" ({texture} texture, {arithmetic} arithmetic)" if texture else ""
    out.extend(("", f"// approximately {total} instruction {plural} used{split}"))
    return out
