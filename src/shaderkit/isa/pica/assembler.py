"""A picasso-compatible PICA200 assembler.

It follows devkitPro picasso's observable behaviour so that its output is byte-identical:
uniform allocation (globals from the bottom, per-file constants from the top), operand
descriptor reuse by "don't care" bits (``optimizeOpdesc``/``findOrAddOpdesc``), keeping MAD
descriptors below 32 by swapping, automatic padding NOPs, label/procedure relocation and the
inverted instruction forms. Several sources make one program with one DVLE per source.
The result is a :class:`Program`; ``shaderkit.formats.dvlb.build`` turns it into SHBIN bytes.

Every word is encoded by the table's row encoders (:mod:`shaderkit.isa.pica.table`): one operand
reader per operand syntax of the table, register spaces, descriptor rules and semantics from it.
"""

from __future__ import annotations

import re

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import AssemblyError
from shaderkit.isa.pica.float24 import f32_to_f24
from shaderkit.isa.pica.opdescs import DescriptorTable
from shaderkit.isa.pica.table import (
    BY_MNEMONIC,
    BY_OPCODE6,
    CMP_OPS,
    CONDOP_AND,
    CONDOP_OR,
    CONDOP_X,
    CONDOP_Y,
    CONST_BOOL,
    CONST_FVEC,
    CONST_IVEC,
    CONST_KIND_NAMES,
    DEFAULT_OPSRC,
    DEST_END,
    ENCODERS,
    GSH_MODE_BY_NAME,
    IDENTITY_SWIZZLE,
    IDX_BY_NAME,
    INVERTED_FORM,
    MAX_CONSTANT,
    MAX_OPDESC,
    MAX_OUTPUT,
    MAX_STACK,
    MAX_UNIFORM,
    MAX_VSH_SIZE,
    MNEMONIC_ALIASES,
    MOVA_TARGETS,
    NAMED_INPUT_LIMIT,
    NARROW_SOURCE_END,
    NUM_BITS,
    NUM_HI_BITS,
    OUTPUT_SEMANTIC_BY_NAME,
    OUTPUT_SLOTS,
    SEMANTIC_DUMMY,
    SETEMIT_FLAGS,
    SPACE_OF_KIND,
    SPACES,
    SWIZZLE_ALIASES,
    UNIT_MARKER,
    field_spec,
    make_opdesc,
    replace_fields,
    split_num,
    swizzle_comp,
)

MAX_CODE_SIZE = 4096  # 12-bit jump/call targets
#: what C's isspace() calls white space (picasso trims and splits with it); Python's str.strip() and
#: str.isspace() also take U+0085, U+00A0 and U+001C..U+001F, which picasso keeps as text
C_SPACE = " \t\n\v\f\r"
_C_WORD_SPLIT = re.compile(r"[ \t\n\v\f\r]+")


def _c_words(text: str) -> list[str]:
    """``text`` split at runs of C white space."""
    return [word for word in _C_WORD_SPLIT.split(text) if word]


def _spc_words(text: str) -> list[str]:
    """picasso's mystrtok_spc over ``text``: words end at a space or tab, and the white space after
    one is skipped, so "prim\\v inv" is the words "prim\\v" and "inv"."""
    words = []
    pos, end = 0, len(text)
    while pos < end:
        stop = pos
        while stop < end and text[stop] not in " \t":
            stop += 1
        words.append(text[pos:stop])
        pos = stop + 1
        while pos < end and text[pos] in C_SPACE:
            pos += 1
    return words


def _c_string(text: str) -> str:
    """The text as picasso sees it: a C string, which ends at the first NUL character."""
    nul = text.find("\0")
    return text if nul < 0 else text[:nul]
#: comment pragmas understood by this assembler (picasso skips them as comments)
PRAGMA = "shaderkit:"
#: DVLE header fields a "; shaderkit: dvle" pragma may set, with their bit masks
HEADER_FIELDS = {
    "version": 0xFFFF, "shader_type": 0xFF, "merge_outmaps": 0xFF, "main_offset": 0xFFFFFFFF,
    "endmain_offset": 0xFFFFFFFF, "input_mask": 0xFFFF, "output_mask": 0xFFFF, "gs_mode": 0xFF,
    "gs_fixed_vertex_start": 0xFF, "gs_variable_vertex_num": 0xFF, "gs_fixed_vertex_num": 0xFF,
}

#: a block may not end right after these (picasso pads with a NOP)
_FLOW_PAD = frozenset({"jmpc", "jmpu", "call", "callc", "callu"})
#: the largest NUM picasso writes (procedure size, else length): 10 bits, num + num_hi (table.py)
MAX_NUM = (1 << (NUM_BITS + NUM_HI_BITS)) - 1
#: the largest jump/call target (the DST field of the flow-control forms)
MAX_TARGET = field_spec(BY_MNEMONIC["call"].opcode << 26, "dst")[1]

_V, _C, _I, _B = SPACES["v"], SPACES["c"], SPACES["i"], SPACES["b"]

SE_PROC, SE_FOR, SE_IF, SE_ARRAY = range(4)
UTYPE_BOOL, UTYPE_IVEC, UTYPE_FVEC = CONST_BOOL, CONST_IVEC, CONST_FVEC

#: picasso's validateIdentifier: letters, '_', '$', digits after the first; the empty name passes too
#: (".fvec a, , b" declares a uniform named "", ":" alone is a label named "")
_IDENT = re.compile(r"(?:[A-Za-z_$][A-Za-z0-9_$]*)?\Z")
_RULE_NAME = re.compile(r"[a-z][a-z0-9-]*\Z")
_SYMBOL_ORDER = re.compile(r"[lu]+\Z")
_C_FLOAT = re.compile(
    r"[ \t\n\v\f\r]*([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))", re.IGNORECASE)
#: C99 hexadecimal floating constant as strtod reads it: at least one hex digit, optional binary exponent
_C_HEX_FLOAT = re.compile(r"[ \t\n\v\f\r]*([+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?)")
_C_INT = re.compile(r"[ \t\n\v\f\r]*([+-]?\d+)")
#: C strtol(text, &end, 0): optional sign, then 0x-hex, 0-octal or decimal digits
_C_STRTOL = re.compile(r"[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


def split_units(text: str, filename: str) -> list[tuple[str, str]]:
    """Split a source at ``; shaderkit: DVLE n`` marker lines.

    Each part is one picasso source file (one DVLE); text without markers is a single part.
    Lines before the second marker belong to the first part. Line numbers stay those of the
    whole file (other parts' lines are blanked).
    """
    lines = _c_string(text).split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(UNIT_MARKER)]
    if len(starts) < 2:
        return [(filename, text)]
    bounds = [0, *starts[1:], len(lines)]
    return [(filename, "\n".join([""] * lo + lines[lo:hi])) for lo, hi in zip(bounds, bounds[1:])]


# -- results ------------------------------------------------------------------------------------
@dataclass
class Constant:
    """A constant table entry: ``kind`` 0 bool / 1 ivec / 2 fvec, ``reg`` in picasso numbering."""

    kind: int
    reg: int
    #: fvec: four float24 words; ivec: four bytes; bool: one 0/1 value
    values: tuple[int, ...]


@dataclass
class Uniform:
    """A named uniform or input: ``index`` is the table register index (v 0x00, c 0x10, i 0x70, b 0x78)."""

    name: str
    index: int
    size: int
    kind: int


@dataclass
class Output:
    """A declared output: semantic, output register and component mask (bit 0 = x .. bit 3 = w)."""
    semantic: int
    reg: int
    mask: int  # bit0 = x .. bit3 = w


@dataclass
class DvleData:
    """Everything one source file contributes to its DVLE."""

    filename: str
    entrypoint: str = "main"
    entry_start: int = 0
    entry_end: int = 0
    nodvle: bool = False
    is_geo: bool = False
    is_compat_geo: bool = False
    is_merge: bool = False
    gsh_mode: int = 0
    gsh_fixed_start: int = 0
    gsh_variable_num: int = 0
    gsh_fixed_num: int = 0
    input_mask: int = 0
    output_mask: int = 0
    output_used: int = 0
    uniforms: list[Uniform] = field(default_factory=list)
    constants: list[Constant] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    #: from "; shaderkit: dvle field=value ..." pragmas: header fields to write as given
    overrides: dict[str, int] = field(default_factory=dict)
    #: from "; shaderkit: label id offset name [unknown]" pragmas: label table entries
    labels: list[tuple[int, int, str, int]] = field(default_factory=list)
    #: from "; shaderkit: uniform-order k0 k1 ...": entry i of the uniform table is entry k_i of
    #: picasso's (register-sorted) table; with the pragma's (line, column)
    uniform_order: list[int] = field(default_factory=list)
    uniform_order_at: tuple[int, int] = (0, 0)

    @property
    def uses_gsh_space(self) -> bool:
        """True for a geometry shader declared with a ``.gsh`` mode (not picasso's compatibility form: ``setemit`` or a bare ``.gsh``)."""
        return self.is_geo and not self.is_compat_geo

    @property
    def max_output_reg(self) -> int:
        """The number of output registers this entry may use."""
        return OUTPUT_SLOTS if self.is_geo else SPACES["o"].count

    def free_output(self) -> int:
        """The lowest output register not declared yet, or -1."""
        return next((i for i in range(self.max_output_reg) if not self.output_mask >> i & 1), -1)

    def free_input(self) -> int:
        """The lowest input register not declared yet, or -1."""
        return next((i for i in range(SPACES["v"].count) if not self.input_mask >> i & 1), -1)

    def sorted_uniforms(self) -> list[Uniform]:
        """The uniform table as picasso writes it: sorted by register."""
        return sorted(self.uniforms, key=lambda u: u.index)

    def table_uniforms(self) -> list[Uniform]:
        """The uniform table to write: picasso's order, or the one a uniform-order pragma gives."""
        ordered = self.sorted_uniforms()
        return [ordered[k] for k in self.uniform_order] if self.uniform_order else ordered


@dataclass
class Program:
    """Assembled code shared by every DVLE, the descriptor table and the DVLEs in order."""

    code: list[int]
    #: descriptor values; bits 32..63 hold the entry's second word (0 but in files another
    #: assembler made, which the opdescs pragma gives back)
    opdescs: list[int]
    dvles: list[DvleData]
    #: the shared uniform declarations in order (``index`` is picasso's register number here)
    uniforms: list[Uniform] = field(default_factory=list)
    #: from "; shaderkit: layout NAME": the container layout rule to use ("" = current picasso),
    #: with where it was given (filename, line, column) for error messages
    layout_rule: str = ""
    layout_rule_at: tuple[str, int, int] = ("", 0, 0)
    #: nihstro's symbol-table order ("l"/"u" per name), from the same pragma
    layout_symbols: str = ""

    @property
    def emitted_dvles(self) -> list[DvleData]:
        """The entries written as DVLEs (those not marked ``.nodvle``)."""
        return [d for d in self.dvles if not d.nodvle]

    def c_header(self) -> str:
        """picasso's ``-h`` C header: uniform locations of the shared uniform space."""
        prefix = "GSH" if self.dvles and self.dvles[0].is_geo else "VSH"
        lines = ["// Generated by picasso", "#pragma once"]
        for u in self.uniforms:
            if u.name.startswith("_"):
                continue  # hidden uniform
            if u.kind == UTYPE_FVEC:
                lines.append(f"#define {prefix}_FVEC_{u.name} 0x{u.index - _C.base:02X}")
            elif u.kind == UTYPE_IVEC:
                lines.append(f"#define {prefix}_IVEC_{u.name} 0x{u.index - _I.base:02X}")
            elif u.size == 1:
                lines.append(f"#define {prefix}_FLAG_{u.name} BIT({u.index - _B.base})")
            else:
                lines.append(f"#define {prefix}_FLAG_{u.name}(_n) BIT({u.index - _B.base}+(_n))")
            lines.append(f"#define {prefix}_ULEN_{u.name} {u.size}")
        return "\n".join(lines) + "\n"


# -- helpers ------------------------------------------------------------------------------------
class _Alloc:
    """picasso's UniformAlloc: globals grow up from ``start``, locals down from ``end``."""

    def __init__(self, start: int, end: int) -> None:
        self.reinit(start, end)

    def reinit(self, start: int, end: int) -> None:
        self.start, self.end, self.bound, self.tend = start, end, end, end

    def clear_local(self) -> None:
        self.end = self.tend

    def alloc_global(self, size: int) -> int:
        if self.start + size > self.bound:
            return -1
        pos = self.start
        self.start += size
        return pos

    def alloc_local(self, size: int) -> int:
        pos = self.end - size
        if pos < self.start:
            return -1
        self.bound = min(self.bound, pos)
        self.end = pos
        return pos


class _Bundle:
    def __init__(self) -> None:
        self.allocs = {kind: _Alloc(space.base, space.end) for kind, space in SPACE_OF_KIND.items()}

    def clear(self) -> None:
        for alloc in self.allocs.values():
            alloc.clear_local()

    def init_for_gsh(self, first_free: int) -> None:
        self.allocs[UTYPE_FVEC].reinit(first_free, _C.end)
        self.allocs[UTYPE_IVEC].reinit(_I.base, _I.end)
        self.allocs[UTYPE_BOOL].reinit(_B.base, _B.end - 1)  # picasso leaves b15 out here


def c_atof(text: str) -> float:
    """C ``atof``: the longest numeric prefix (decimal, C99 hexadecimal such as ``0x10`` or
    ``0x1.8p1``, inf/infinity/nan), 0.0 when there is none."""
    m = _C_HEX_FLOAT.match(text)
    if m:
        return float.fromhex(m.group(1))
    m = _C_FLOAT.match(text)
    return float(m.group(1)) if m else 0.0


def c_atoi(text: str) -> int:
    """C ``atoi`` as glibc on a 64-bit host does it: ``(int)strtol(text, NULL, 10)``, the leading
    decimal integer saturated to the ``long`` range and then cut to its low 32 bits (signed);
    0 when there is none."""
    m = _C_INT.match(text)
    if not m:
        return 0
    value = max(-(1 << 63), min((1 << 63) - 1, int(m.group(1))))
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def f24_picasso(value: float) -> int:
    """picasso's f32tof24 (>= v2.7): the sign of zero is kept, ``-0.0`` is 0x800000."""
    return f32_to_f24(value)


def c_strtol(text: str) -> int | None:
    """C ``strtol(text, &end, 0)``: the number at the start of ``text``, None when there is none.

    What follows the number is ignored, as picasso ignores it (``c0-c3`` reads 0, ``b0,`` 0).
    """
    if text.isascii() and text.isdigit() and (text[0] != "0" or len(text) == 1):
        return int(text)  # plain decimal, the usual case
    m = _C_STRTOL.match(text)
    if m is None:
        return None
    sign, digits = m.groups()
    if digits[:2].lower() == "0x":
        value = int(digits[2:], 16)
    elif digits.startswith("0"):
        value = int(digits, 8)
    else:
        value = int(digits)
    return -value if sign == "-" else value


def parse_swizzle(text: str) -> int:
    """picasso's parseSwizzling: up to four letters, the last repeated; -1 when invalid."""
    if len(text) > 4:
        return -1
    out, comp = 0, 0
    for slot, ch in enumerate(text):
        comp = SWIZZLE_ALIASES.get(ch.lower(), -1)
        if comp < 0:
            return -1
        out |= swizzle_comp(slot, comp)
    for slot in range(len(text), 4):
        out |= swizzle_comp(slot, comp)
    return out << 1


def _mask_of(sw: int, reverse: bool) -> int:
    sw >>= 1
    out = 0
    for i in range(4):
        bit = (sw >> (i * 2)) & 3
        out |= 1 << (3 - bit if reverse else bit)
    return out


#: 9-bit source field -> component mask, in dest-mask order (x = bit3) and in output order (x = bit0)
_MASKS = {reverse: tuple(_mask_of(sw, reverse) for sw in range(512)) for reverse in (True, False)}


def mask_from_swizzle(sw: int, reverse: bool = True) -> int:
    """Component mask of a 9-bit source field; reverse gives the dest-mask bit order (x = bit3)."""
    return _MASKS[reverse][sw & 0x1FF]


#: delimiter set -> the run of characters before the first delimiter
_UNTIL = {delims: re.compile(f"[^{re.escape(delims)}]*") for delims in (",", " \t", "(")}


class _Cursor:
    """picasso's mystrtok over one source line, remembering columns for error messages."""

    def __init__(self, line: str, pos: int, end: int) -> None:
        self.line = line
        self.pos = pos
        self.end = end

    def _take(self, delims: str) -> tuple[str, int] | None:
        if self.pos >= self.end:
            return None
        start = self.pos
        found = _UNTIL[delims].match(self.line, start, self.end)
        stop = found.end() if found else start
        self.pos = stop + 1 if stop < self.end else stop
        return self.line[start:stop], start

    @staticmethod
    def _trim(item: tuple[str, int] | None) -> tuple[str, int] | None:
        if item is None:
            return None
        text, col = item
        stripped = text.lstrip(C_SPACE)
        return stripped.rstrip(C_SPACE), col + len(text) - len(stripped)

    def arg(self) -> tuple[str, int] | None:
        return self._trim(self._take(","))

    def arg_spc(self) -> tuple[str, int] | None:
        return self._trim(self.command())

    def command(self) -> tuple[str, int] | None:
        """The first word of a statement as picasso takes it: up to a space or tab, untrimmed (so
        ".fvec\\r" is no directive)."""
        item = self._take(" \t")
        while self.pos < self.end and self.line[self.pos] in C_SPACE:
            self.pos += 1
        return item

    def arg_cparen(self) -> tuple[str, int] | None:
        return self._trim(self._take("("))

    def rest(self) -> tuple[str, int] | None:
        if self.pos >= self.end:
            return None
        return self.line[self.pos:self.end], self.pos


@dataclass
class _StackEntry:
    kind: int
    pos: int
    name: str = ""
    extra: int = 0
    line: int = 0  # where the block was opened (for "unclosed block")
    column: int = 0


@dataclass
class _Operand:
    reg: int
    sw: int  # negate | swizzle << 1
    idx: int = 0


@dataclass(frozen=True)
class ParsedInstruction:
    """An instruction line already scanned, from a caller that printed its text.

    ``operands`` hold, in text order, what scanning each operand's text gives: (name, offset,
    index register, negate | swizzle << 1); the name is resolved as in the text (alias or
    ``r3``-style). For ``mova`` the first operand's last value is the a0 mask, for ``cmp`` the
    second and third carry the compare operators (their names are empty).
    """

    mnemonic: str
    operands: tuple[tuple[str, int, int, int], ...]


# -- the assembler ------------------------------------------------------------------------------
class Assembler(DescriptorTable):
    """Assemble one or more picasso sources (call :meth:`add_source` for each, then :meth:`finish`)."""

    def __init__(self) -> None:
        super().__init__()
        self.global_uniforms: list[Uniform] = []
        self.procs: dict[str, tuple[int, int]] = {}
        self.proc_relocs: list[tuple[int, str, str, int, int]] = []
        self.dvles: list[DvleData] = []
        self.bundles = (_Bundle(), _Bundle())
        self.last_was_end = False
        #: "; shaderkit: no-nop" (picasso's -n): blocks that need a padding NOP get none
        self.no_nop = False
        #: "; shaderkit: desc N inverted" on this line (see _pragma)
        self.form_inverted = False
        self.layout_rule = ""
        self.layout_symbols = ""
        self.layout_rule_at = ("", 0, 0)
        #: line number -> that line already read (see ParsedInstruction); its text is not parsed
        self.parsed_lines: dict[int, ParsedInstruction] = {}
        # per file
        self.filename = "<source>"
        self.line_no = 0
        self.labels: dict[str, int] = {}
        self.label_relocs: list[tuple[int, str, int, int]] = []
        self.aliases: dict[str, int] = {}
        self.dvle: DvleData | None = None
        self.stack: list[_StackEntry] = []
        self.const_array: list[Constant] = []
        self.const_array_size = -1
        self.const_array_name = ""
        self.cur: _Cursor = _Cursor("", 0, 0)

    # -- errors ---------------------------------------------------------------------------------
    def error(self, message: str, column: int = 0) -> AssemblyError:
        """An AssemblyError at the current line and ``column`` (0-based here, 1-based in the error)."""
        return AssemblyError(message, self.line_no, column + 1, self.filename)

    # -- driver ---------------------------------------------------------------------------------
    def add_source(self, text: str, filename: str = "<source>") -> None:
        """Assemble one source file's text into the program (labels and aliases are per file)."""
        self.filename = filename
        self.bundles[0].clear()
        self.labels = {}
        self.label_relocs = []
        self.aliases = {}
        self.dvle = None
        self.line_no = 1
        lines = _c_string(text).split("\n")
        for raw in lines:
            self._line(raw)
            self.line_no += 1
        self.line_no = len(lines)
        if self.stack:
            top = self.stack[-1]
            raise AssemblyError("unclosed block(s): this one has no .end", top.line, top.column + 1,
                                self.filename)
        for pos, name, line, col in self.label_relocs:
            if name not in self.labels:
                raise AssemblyError(f"label '{name}' is undefined", line, col + 1, filename)
            if self.labels[name] > MAX_TARGET:
                raise AssemblyError(f"label '{name}' lies beyond word {MAX_TARGET}", line, col + 1, filename)
            self.code[pos] = replace_fields(self.code[pos], dst=self.labels[name])

    def finish(self) -> Program:
        """Resolve procedure references and return the program; AssemblyError for unknown names or too much code."""
        if len(self.code) > MAX_CODE_SIZE:
            raise AssemblyError(f"program too large: {len(self.code)} words (flow control reaches "
                                f"{MAX_CODE_SIZE})", self.line_no, 1, self.filename)
        for pos, name, filename, line, col in self.proc_relocs:
            if name not in self.procs:
                raise AssemblyError(f"procedure '{name}' is undefined", line, col + 1, filename)
            start, size = self.procs[name]
            if size > MAX_NUM:
                raise AssemblyError(f"procedure '{name}' is too long to call ({size} words, max {MAX_NUM})",
                                    line, col + 1, filename)
            if start > MAX_TARGET:
                raise AssemblyError(f"procedure '{name}' lies beyond word {MAX_TARGET}", line, col + 1,
                                    filename)
            self.code[pos] = replace_fields(self.code[pos], dst=start, **split_num(size))
        if not any(not d.nodvle for d in self.dvles):
            raise AssemblyError("no DVLEs can be generated from the given input file(s)", 0, 0,
                                self.filename)
        for dvle in self.dvles:
            if dvle.uniform_order and sorted(dvle.uniform_order) != list(range(len(dvle.uniforms))):
                raise AssemblyError(f"uniform-order must list each of the {len(dvle.uniforms)} uniforms once",
                                    *dvle.uniform_order_at, dvle.filename)
            if dvle.nodvle:
                continue
            if dvle.entrypoint not in self.procs:
                raise AssemblyError(f"entrypoint '{dvle.entrypoint}' is undefined", 1, 1, dvle.filename)
            start, size = self.procs[dvle.entrypoint]
            dvle.entry_start, dvle.entry_end = start, start + size
        return Program(list(self.code), self.opdesc_entries(), self.dvles, list(self.global_uniforms),
                       self.layout_rule, self.layout_rule_at, self.layout_symbols)

    def _line(self, raw: str) -> None:
        parsed = self.parsed_lines.get(self.line_no) if self.parsed_lines else None
        if parsed is not None and raw:  # (other units' lines are blank in a split text)
            self._parsed_instruction(parsed)
            return
        semi = raw.find(";")
        if semi >= 0 and raw[semi + 1:].lstrip(C_SPACE).startswith(PRAGMA):
            self._pragma(raw, semi)
        try:
            self._statement(raw, semi)
        finally:
            self.desc_hint = None
            self.form_inverted = False

    def _pragma(self, raw: str, semi: int) -> None:
        """shaderkit's comment pragmas (picasso ignores them): descriptor table and choices."""
        words = _c_words(raw[semi + 1:].strip(C_SPACE)[len(PRAGMA):])
        col = semi + 1
        try:
            if words and words[0] == "opdescs":
                if self.opdescs or self.code:
                    raise self.error("the descriptor table must be given before any instruction", col)
                values = [int(w, 16) for w in words[1:]]
                if len(values) > MAX_OPDESC or any(not 0 <= v < 1 << 64 for v in values):
                    raise self.error("bad descriptor table", col)
                self.pin_opdescs(values)
            elif words == ["no-nop"]:  # picasso -n / --no-nop: no automatic padding NOPs from here on
                self.no_nop = True
            elif words and words[0] == "layout" and len(words) in (2, 3):
                if not _RULE_NAME.match(words[1]) or (len(words) == 3 and not _SYMBOL_ORDER.match(words[2])):
                    raise self.error(f"bad layout: {' '.join(words[1:])}", col)
                self.layout_rule = words[1]
                self.layout_symbols = words[2] if len(words) == 3 else ""
                self.layout_rule_at = (self.filename, self.line_no, col + 1)
            elif words and words[0] == "desc" and len(words) in (2, 3):
                if len(words) == 3 and words[2] != "inverted":
                    raise ValueError(words[2])
                self.desc_hint = int(words[1], 0)
                # "inverted": the inverted form (dphi, dsti, sgei, slti, madi) although picasso would
                # pick the plain one (old picasso wrote "sgei" as asked, even with two narrow sources)
                self.form_inverted = len(words) == 3
            elif words and words[0] == "dvle":
                for item in words[1:]:
                    key, _, value = item.partition("=")
                    if key not in HEADER_FIELDS:
                        raise self.error(f"unknown DVLE header field: {key}", col)
                    self.get_dvle().overrides[key] = int(value, 0) & HEADER_FIELDS[key]
            elif words and words[0] == "uniform-order":
                dvle = self.get_dvle()
                dvle.uniform_order = [int(w, 10) for w in words[1:]]
                dvle.uniform_order_at = (self.line_no, col + 1)
            elif words and words[0] == "label" and len(words) in (4, 5):
                if not _IDENT.match(words[3]):
                    raise self.error(f"invalid label name: {words[3]}", col)
                extra = int(words[4], 0) if len(words) == 5 else 0
                self.get_dvle().labels.append((int(words[1], 0) & 0xFF, int(words[2], 0) & 0xFFFFFFFF,
                                               words[3], extra & 0xFFFFFFFF))
        except ValueError:
            raise self.error(f"bad pragma: {' '.join(words)}", col) from None

    def _statement(self, raw: str, semi: int) -> None:
        end = len(raw) if semi < 0 else semi
        while end > 0 and raw[end - 1] in C_SPACE:
            end -= 1
        pos = 0
        while pos < end and raw[pos] in C_SPACE:
            pos += 1
        # labels: "name:" (several may precede an instruction)
        while True:
            colon = raw.find(":", pos, end)
            if colon < 0:
                break
            name = raw[pos:colon]  # picasso does not trim before the colon: "lbl :" is an invalid name
            if not _IDENT.match(name):
                raise self.error(f"invalid label name: {name}", pos)
            if name in self.labels:
                raise self.error(f"duplicate label: {name}", pos)
            self.labels[name] = len(self.code)
            pos = colon + 1
            while pos < end and raw[pos] in C_SPACE:
                pos += 1
        if pos >= end:
            return
        if raw[pos] == "#":  # preprocessor line marker: # LINE "file"
            # picasso: the line becomes atoi(first word) (0 when it is no number), the rest (one
            # pair of quotes dropped) the file name of later messages
            marker = raw[pos + 1:end].lstrip(C_SPACE)
            word_end = next((i for i, ch in enumerate(marker) if ch in " \t"), len(marker))
            self.line_no = c_atoi(marker[:word_end]) - 1
            rest = marker[word_end + 1:].strip(C_SPACE)
            if rest:
                self.filename = rest[1:-1] if rest.startswith('"') else rest
            return
        self.cur = _Cursor(raw, pos, end)
        token = self.cur.command()
        assert token is not None
        self._command(*token)

    def _command(self, name: str, col: int) -> None:
        lname = name.lower()
        if lname.startswith("."):
            directive = _DIRECTIVES.get(lname[1:])
            if directive is None:
                raise self.error(f"invalid directive: {name}", col)
            directive(self, lname[1:])
            return
        self._begin_instruction(col)
        found = _INSTRUCTIONS.get(lname)
        if found is None:
            raise self.error(f"unknown mnemonic: {name}", col)
        row_name, handler = found
        handler(self, row_name, col)

    def _begin_instruction(self, col: int) -> None:
        if not self.stack:
            raise self.error("instruction outside block", col)
        self.last_was_end = False
        if not self.get_dvle().is_geo and len(self.code) >= MAX_VSH_SIZE:
            raise self.error(f"instruction outside vertex shader code memory (max {MAX_VSH_SIZE} "
                             f"instructions, currently {len(self.code)})", col)

    def _parsed_instruction(self, parsed: ParsedInstruction) -> None:
        """The build step of an instruction line whose operands were given (see ParsedInstruction)."""
        self._begin_instruction(0)
        found = _INSTRUCTIONS.get(parsed.mnemonic)
        builder = _BUILDERS.get(BY_MNEMONIC[found[0]].syntax) if found is not None else None
        if found is None or builder is None:
            raise self.error(f"no operand reader for {parsed.mnemonic}", 0)
        ops = tuple(self.resolve_operand(body, offset, idx, sw, 0) if body else _Operand(0, sw)
                    for body, offset, idx, sw in parsed.operands)
        builder(self, found[0], 0, ops, (("", 0),) * len(ops))

    def get_dvle(self) -> DvleData:
        """The current entry, created on first use."""
        if self.dvle is None:
            self.dvle = DvleData(self.filename)
            self.dvles.append(self.dvle)
        return self.dvle

    # -- arguments ------------------------------------------------------------------------------
    def next_arg(self, what: str = "parameter") -> tuple[str, int]:
        """The next comma-separated argument and its column; AssemblyError when missing."""
        item = self.cur.arg()
        if item is None:
            raise self.error(f"missing {what}", self.cur.end)
        return item

    def next_arg_spc(self, what: str = "parameter") -> tuple[str, int]:
        """The next space-separated argument and its column; AssemblyError when missing."""
        item = self.cur.arg_spc()
        if item is None:
            raise self.error(f"missing {what}", self.cur.end)
        return item

    def no_more_args(self) -> None:
        """AssemblyError when the line has another argument."""
        item = self.cur.arg()
        if item is not None:
            raise self.error("too many parameters", item[1])

    def parse_int(self, text: str, col: int, lo: int, hi: int) -> int:
        """An integer in ``lo..hi`` as picasso's parseInt reads it: ``strtoll(text, &end, 0)`` (hex,
        octal or decimal; what follows the number is ignored, so ``0zero`` is 0); AssemblyError
        when no number starts the text or it is out of range."""
        value = c_strtol(text)
        if value is None:
            raise self.error(f"invalid value: {text}", col)
        value = max(-(1 << 63), min((1 << 63) - 1, value))
        if not lo <= value <= hi:
            raise self.error(f"value out of range ({lo}..{hi}): {value}", col)
        return value

    def parse_reg(self, text: str, col: int, allow_idx: bool = False) -> _Operand:
        """picasso's parseReg: ``-name[offset|idx+offset].swizzle`` with alias lookup."""
        sw = DEFAULT_OPSRC
        body = text
        if body.startswith("-"):
            body = body[1:]
            sw |= 1
        bracket = body.find("[")
        dot = body.find(".", body.find("]") if bracket >= 0 else 0)
        if dot >= 0:
            swz = parse_swizzle(body[dot + 1:])
            if swz < 0:
                raise self.error(f"bad swizzle: {body[dot + 1:]}", col + len(text) - len(body) + dot + 1)
            sw = swz | (sw & 1)
            body = body[:dot]
        offset = 0
        idx = 0
        if bracket >= 0:
            close = body.find("]", bracket)
            if close < 0:
                raise self.error(f"missing closing bracket: {text}", col)
            inner = body[bracket + 1:close].strip(C_SPACE)
            body = body[:bracket]
            idx_name = inner.lower()
            if idx_name in IDX_BY_NAME:
                idx = IDX_BY_NAME[idx_name]
                inner = ""
            elif "+" in inner:
                left, right = (s.strip(C_SPACE) for s in inner.split("+", 1))
                if left.lower() in IDX_BY_NAME:
                    idx, inner = IDX_BY_NAME[left.lower()], right
                elif right.lower() in IDX_BY_NAME:
                    idx, inner = IDX_BY_NAME[right.lower()], left
                else:
                    raise self.error(f"invalid index register: {left}", col)
            if idx and not allow_idx:
                raise self.error(f"index register not allowed here: {text}", col)
            offset = c_atoi(inner) if inner else 0
            if offset < 0:
                raise self.error(f"invalid register offset: {inner}", col)
        return self.resolve_operand(body, offset, idx, sw, col)

    def resolve_operand(self, body: str, offset: int, idx: int, sw: int, col: int) -> _Operand:
        """The register of a name (alias or ``r3``-style) read by :meth:`parse_reg`."""
        alias = self.aliases.get(body)
        if alias is not None:
            reg = (alias & 0xFF) + offset
            sw ^= (alias >> 8) & 1
            alias_swz = alias >> 9
            if alias_swz == IDENTITY_SWIZZLE:
                return _Operand(reg, sw, idx)  # composing with xyzw changes nothing
            combined = sw & 1
            for slot in range(4):
                comp = (sw >> (7 - slot * 2)) & 3
                comp = (alias_swz >> (6 - comp * 2)) & 3
                combined |= swizzle_comp(slot, comp) << 1
            return _Operand(reg, combined, idx)
        if len(body) < 2 or body[0].lower() not in "ovrcib" or not "0" <= body[1] <= "9":
            raise self.error(f"invalid register: {body}", col)
        # picasso reads the number with strtol and ignores what follows: "c0-c3" is c0, "b0," b0
        num = c_strtol(body[1:])
        if num is None:
            raise self.error(f"invalid value: {body[1:]}", col)
        if not 0 <= num <= 255:
            raise self.error(f"value out of range (0..255): {num}", col)
        space = SPACES.get(body[0])
        if space is not None:  # picasso leaves upper-case prefixes unmapped
            limit = self.get_dvle().max_output_reg if space.prefix == "o" else space.count
            if space.prefix == "v":  # picasso's parseReg rejects "v15" (it checks >= 0x0F); v14[1] reaches it
                limit = NAMED_INPUT_LIMIT
            if num >= limit:
                what = "invalid input register" if space.prefix == "v" else "register out of range"
                raise self.error(f"{what}: {body}", col)
            num += space.base
        if idx and not _C.base <= num < _C.end:  # (picasso checks named registers only, not aliases)
            raise self.error("index register not allowed with this kind of register", col)
        return _Operand(num + offset, sw, idx)

    # -- blocks ---------------------------------------------------------------------------------
    def push(self, entry: _StackEntry, col: int) -> None:
        """Open a flow-control block; AssemblyError beyond the nesting limit."""
        if len(self.stack) == MAX_STACK:
            raise self.error("too many nested blocks", col)
        entry.line, entry.column = self.line_no, col
        self.stack.append(entry)

    def padding_nop(self) -> None:
        """Append picasso's automatic padding ``nop`` word (none after a ``no-nop`` pragma)."""
        if not self.no_nop:
            self.code.append(ENCODERS["nop"]({}))

    def emit(self, mnemonic: str, col: int, **fields: int) -> None:
        """Append the word of ``mnemonic`` encoded by the table."""
        try:
            self.code.append(ENCODERS[mnemonic](fields))
        except ValueError as exc:
            raise self.error(str(exc), col) from None

    def patch(self, pos: int, col: int, **fields: int) -> None:
        """Set fields of an emitted word (block ends, relocations)."""
        try:
            self.code[pos] = replace_fields(self.code[pos], **fields)
        except ValueError as exc:
            raise self.error(str(exc), col) from None


# -- instruction handlers -----------------------------------------------------------------------
def _bad_inputs(*regs: int) -> bool:
    """Two different input registers (v0-v15) may not be read by one instruction."""
    return any(a < _V.end and b < _V.end and a != b for a in regs for b in regs)


def _ensure(asm: Assembler, ok: bool, message: str, col: int) -> None:
    if not ok:
        raise asm.error(message, col)


def _none(asm: Assembler, name: str, col: int) -> None:
    asm.no_more_args()
    asm.emit(name, col)


def _dest(asm: Assembler, dest: _Operand, text: str, col: int) -> None:
    _ensure(asm, 0 <= dest.reg < DEST_END, f"register out of range for a destination: {text}", col)


def _wide(asm: Assembler, op: _Operand, which: int, text: str, col: int) -> None:
    _ensure(asm, op.reg < _C.end, f"register out of range for source{which}: {text}", col)


def _narrow(asm: Assembler, op: _Operand, which: int, text: str, col: int) -> None:
    _ensure(asm, op.reg < NARROW_SOURCE_END, f"register out of range for source{which}: {text}", col)
    _ensure(asm, not op.idx, f"index register not allowed in source{which}", col)


# Each operand syntax is read in two steps: the text into _Operand values (parse), then the
# checks, picasso's form choice, descriptor and word (build). A caller that printed the text itself
# may hand the operands over directly (ParsedInstruction), skipping the parse.
_Where = tuple[tuple[str, int], ...]  # (text, column) of each operand, for error messages


def _dst_src_src(asm: Assembler, name: str, col: int) -> None:
    (dtext, dcol), (s1text, s1col), (s2text, s2col) = asm.next_arg(), asm.next_arg(), asm.next_arg()
    asm.no_more_args()
    dest = asm.parse_reg(dtext, dcol)
    s1 = asm.parse_reg(s1text, s1col, True)
    s2 = asm.parse_reg(s2text, s2col, True)
    _build_dst_src_src(asm, name, col, (dest, s1, s2), ((dtext, dcol), (s1text, s1col), (s2text, s2col)))


def _build_dst_src_src(asm: Assembler, name: str, col: int, ops: tuple[_Operand, ...], where: _Where) -> None:
    name = BY_MNEMONIC[name].base
    dest, s1, s2 = ops
    _dest(asm, dest, *where[0])
    # picasso picks the inverted form when src1 is narrow and src2 needs the wide field
    inverted = name in INVERTED_FORM and s1.reg < NARROW_SOURCE_END and (
        s2.reg >= NARROW_SOURCE_END or (s2.idx > 0 and s1.idx == 0) or (asm.form_inverted and not s1.idx))
    if not inverted:
        _wide(asm, s1, 1, *where[1])
        _narrow(asm, s2, 2, *where[2])
    else:
        _narrow(asm, s1, 1, *where[1])
        _wide(asm, s2, 2, *where[2])
    _ensure(asm, not _bad_inputs(s1.reg, s2.reg),
            "source operands must be different input registers (v0..v15)", where[1][1])
    row = BY_MNEMONIC[INVERTED_FORM[name] if inverted else name]
    desc = asm.find_or_add_opdesc(name, make_opdesc(mask_from_swizzle(dest.sw), s1.sw, s2.sw),
                                  row.desc_bits, col)
    asm.emit(row.mnemonic, col, desc=desc, src1=s1.reg, src2=s2.reg, idx=s2.idx if inverted else s1.idx,
             dst=dest.reg)


def _dst_src(asm: Assembler, name: str, col: int) -> None:
    (dtext, dcol), (s1text, s1col) = asm.next_arg(), asm.next_arg()
    asm.no_more_args()
    dest = asm.parse_reg(dtext, dcol)
    s1 = asm.parse_reg(s1text, s1col, True)
    _build_dst_src(asm, name, col, (dest, s1), ((dtext, dcol), (s1text, s1col)))


def _build_dst_src(asm: Assembler, name: str, col: int, ops: tuple[_Operand, ...], where: _Where) -> None:
    dest, s1 = ops
    _dest(asm, dest, *where[0])
    _wide(asm, s1, 1, *where[1])
    desc = asm.find_or_add_opdesc(name, make_opdesc(mask_from_swizzle(dest.sw), s1.sw),
                                  BY_MNEMONIC[name].desc_bits, col)
    asm.emit(name, col, desc=desc, src1=s1.reg, idx=s1.idx, dst=dest.reg)


def _mova(asm: Assembler, name: str, col: int) -> None:
    (ttext, tcol), (s1text, s1col) = asm.next_arg(), asm.next_arg()
    asm.no_more_args()
    mask = MOVA_TARGETS.get(ttext.lower())
    _ensure(asm, mask is not None, f"invalid destination register for mova: {ttext}", tcol)
    assert mask is not None
    s1 = asm.parse_reg(s1text, s1col, True)
    _build_mova(asm, name, col, (_Operand(0, mask), s1), ((ttext, tcol), (s1text, s1col)))


def _build_mova(asm: Assembler, name: str, col: int, ops: tuple[_Operand, ...], where: _Where) -> None:
    target, s1 = ops  # the target's sw holds the a0 mask
    _wide(asm, s1, 1, *where[1])
    desc = asm.find_or_add_opdesc(name, make_opdesc(target.sw, s1.sw), BY_MNEMONIC[name].desc_bits, col)
    asm.emit(name, col, desc=desc, src1=s1.reg, idx=s1.idx)


def _cmp(asm: Assembler, name: str, col: int) -> None:
    (s1text, s1col), (xtext, xcol), (ytext, ycol), (s2text, s2col) = (
        asm.next_arg(), asm.next_arg(), asm.next_arg(), asm.next_arg())
    asm.no_more_args()
    s1 = asm.parse_reg(s1text, s1col, True)
    ops = []
    for text, c in ((xtext, xcol), (ytext, ycol)):
        _ensure(asm, text.lower() in CMP_OPS, f"invalid conditional operator: {text}", c)
        ops.append(CMP_OPS.index(text.lower()))
    s2 = asm.parse_reg(s2text, s2col)
    _build_cmp(asm, name, col, (s1, _Operand(0, ops[0]), _Operand(0, ops[1]), s2),
               ((s1text, s1col), (xtext, xcol), (ytext, ycol), (s2text, s2col)))


def _build_cmp(asm: Assembler, name: str, col: int, ops: tuple[_Operand, ...], where: _Where) -> None:
    s1, cmpx, cmpy, s2 = ops  # the compare operators travel in sw
    _wide(asm, s1, 1, *where[0])
    _ensure(asm, s2.reg < NARROW_SOURCE_END, f"register out of range for source2: {where[3][0]}", where[3][1])
    desc = asm.find_or_add_opdesc(name, make_opdesc(0, s1.sw, s2.sw), BY_MNEMONIC[name].desc_bits, col)
    asm.emit(name, col, desc=desc, src1=s1.reg, src2=s2.reg, idx=s1.idx, cmpx=cmpx.sw, cmpy=cmpy.sw)


def _dst_src_src_src(asm: Assembler, name: str, col: int) -> None:
    args = [asm.next_arg() for _ in range(4)]
    asm.no_more_args()
    (dtext, dcol), (s1text, s1col), (s2text, s2col), (s3text, s3col) = args
    dest = asm.parse_reg(dtext, dcol)
    s1 = asm.parse_reg(s1text, s1col)
    s2 = asm.parse_reg(s2text, s2col, True)
    s3 = asm.parse_reg(s3text, s3col, True)
    _build_dst_src_src_src(asm, name, col, (dest, s1, s2, s3), tuple(args))


def _build_dst_src_src_src(asm: Assembler, name: str, col: int, ops: tuple[_Operand, ...],
                           where: _Where) -> None:
    dest, s1, s2, s3 = ops
    _dest(asm, dest, *where[0])
    _ensure(asm, s1.reg < NARROW_SOURCE_END, f"register out of range for source1: {where[1][0]}", where[1][1])
    inverted = s2.reg < NARROW_SOURCE_END and (s3.reg >= NARROW_SOURCE_END or (s3.idx > 0 and s2.idx == 0)
                                                or (asm.form_inverted and not s2.idx))
    if not inverted:
        _wide(asm, s2, 2, *where[2])
        _narrow(asm, s3, 3, *where[3])
    else:
        _narrow(asm, s2, 2, *where[2])
        _wide(asm, s3, 3, *where[3])
    _ensure(asm, not _bad_inputs(s1.reg, s2.reg, s3.reg),
            "source registers must be different input registers (v0..v15)", where[1][1])
    row = BY_MNEMONIC["madi" if inverted else "mad"]
    desc = asm.find_or_add_opdesc("mad", make_opdesc(mask_from_swizzle(dest.sw), s1.sw, s2.sw, s3.sw),
                                  row.desc_bits, col)
    desc = asm.place_mad_opdesc(desc, col)
    asm.emit(row.mnemonic, col, desc=desc, src1=s1.reg, src2=s2.reg, src3=s3.reg,
             idx=s3.idx if inverted else s2.idx, dst=dest.reg)


#: operand syntax -> its build step (the syntaxes whose operands are registers)
_BUILDERS = {
    "dst_src": _build_dst_src, "dst_src_src": _build_dst_src_src,
    "dst_src_src_src": _build_dst_src_src_src, "mova": _build_mova, "cmp": _build_cmp,
}


def _setemit(asm: Assembler, name: str, col: int) -> None:
    vtext, vcol = asm.next_arg()
    flags = asm.cur.arg()
    asm.no_more_args()
    fields = {"vertex_id": asm.parse_int(vtext, vcol, 0, 2)}
    if flags is not None:
        ftext, fcol = flags
        for flag in _spc_words(ftext):
            field_name = SETEMIT_FLAGS.get(flag.lower())
            if field_name is not None:  # picasso reports an unknown flag but assembles on without it
                fields[field_name] = 1
    dvle = asm.get_dvle()
    if not dvle.is_geo:
        dvle.is_geo = dvle.is_compat_geo = True
    asm.emit(name, col, **fields)


def _target(asm: Assembler) -> tuple[str, int]:
    text, col = asm.next_arg()
    _ensure(asm, bool(_IDENT.match(text)), f"invalid target: {text}", col)
    return text, col


def _proc(asm: Assembler, name: str, col: int) -> None:
    _branch_target(asm, is_call=True)
    asm.emit(name, col)


def _int(asm: Assembler, name: str, col: int) -> None:
    text, tcol = asm.next_arg()
    asm.no_more_args()
    reg = asm.parse_reg(text, tcol)
    _ensure(asm, _I.base <= reg.reg < _I.end, f"invalid integer vector uniform: {text}", tcol)
    asm.push(_StackEntry(SE_FOR, len(asm.code)), col)
    asm.emit(name, col, int_id=reg.reg - _I.base)


def _cond_op(asm: Assembler, text: str, col: int) -> tuple[int, int]:
    """(which, negate) of ``[!]cmp.x`` / ``[!]cmp.y``."""
    body = text.strip(C_SPACE)
    neg = 0
    while body.startswith("!"):
        neg ^= 1
        body = body[1:].lstrip(C_SPACE)
    which = {"cmp.x": 0, "cmp.y": 1}.get(body.lower())
    if which is None:
        raise asm.error(f"invalid condition register: {text.strip(C_SPACE)}", col)
    return which, neg


def _cond_exp(asm: Assembler, text: str, col: int) -> dict[str, int]:
    """The condop/refx/refy fields of ``[!]cmp.x``, ``a && b``, ``a || b``."""
    refs = {"refx": 1, "refy": 1}
    condop = CONDOP_OR
    cut = min((i for i in (text.find("&"), text.find("|")) if i >= 0), default=-1)
    ops = []
    if cut >= 0:
        kind = text[cut]
        second = text[cut + 1:]
        if second.startswith(kind):
            second = second[1:]
        if kind == "&":
            condop = CONDOP_AND
        ops.append(_cond_op(asm, second, col + cut + 1))
        text = text[:cut]
    ops.append(_cond_op(asm, text, col))
    if len(ops) == 2 and ops[0][0] == ops[1][0]:
        raise asm.error("condition register checked twice", col)
    for which, neg in ops:
        refs["refy" if which else "refx"] ^= neg
    if len(ops) == 1:
        condop = CONDOP_Y if ops[0][0] else CONDOP_X
    return {"condop": condop, **refs}


def _branch_target(asm: Assembler, is_call: bool) -> None:
    """Read the last argument, a call/jump target, and queue its relocation for the next word."""
    text, tcol = _target(asm)
    asm.no_more_args()
    if is_call:
        asm.proc_relocs.append((len(asm.code), text, asm.filename, asm.line_no, tcol))
    else:
        asm.label_relocs.append((len(asm.code), text, asm.line_no, tcol))


def _cond(asm: Assembler, name: str, col: int) -> None:
    """``breakc cond``, ``ifc cond``; with a target: ``callc cond, proc``, ``jmpc cond, label``."""
    ctext, ccol = asm.next_arg()
    fields = _cond_exp(asm, ctext, ccol)
    syntax = BY_MNEMONIC[name].syntax
    if syntax == "cond_proc" or syntax == "cond_label":
        _branch_target(asm, is_call=syntax == "cond_proc")
    else:
        asm.no_more_args()
        if name == "ifc":
            asm.push(_StackEntry(SE_IF, len(asm.code)), col)
    asm.emit(name, col, **fields)


def _bool(asm: Assembler, name: str, col: int) -> None:
    """``ifu b``, ``callu b, proc``, ``jmpu [!]b, label`` (NUM bit 0 inverts jmpu)."""
    rtext, rcol = asm.next_arg()
    syntax = BY_MNEMONIC[name].syntax
    negate = 0
    if rtext.startswith("!"):
        _ensure(asm, syntax == "bool_label", f"inverting the condition is not supported by {name}", rcol)
        negate = 1
        rtext, rcol = rtext[1:], rcol + 1
    reg = asm.parse_reg(rtext, rcol)
    _ensure(asm, _B.base <= reg.reg < _B.end, f"invalid boolean uniform: {rtext}", rcol)
    if syntax == "bool":
        asm.no_more_args()
        asm.push(_StackEntry(SE_IF, len(asm.code)), col)
    else:
        _branch_target(asm, is_call=syntax == "bool_proc")
    asm.emit(name, col, bool_id=reg.reg - _B.base, num=negate)


#: operand syntax (table.SYNTAXES) -> the handler that reads it
_SYNTAX_HANDLERS = {
    "none": _none, "dst_src": _dst_src, "dst_src_src": _dst_src_src,
    "dst_src_src_src": _dst_src_src_src, "mova": _mova, "cmp": _cmp, "cond": _cond,
    "cond_proc": _cond, "cond_label": _cond, "proc": _proc, "bool": _bool, "bool_proc": _bool,
    "bool_label": _bool, "int": _int, "setemit": _setemit,
}
#: picasso mnemonic -> (row mnemonic, handler); "loop" is written "for"
_INSTRUCTIONS = {
    **{row.mnemonic: (row.mnemonic, _SYNTAX_HANDLERS[row.syntax]) for row in BY_MNEMONIC.values()},
    **{alias: (target, _SYNTAX_HANDLERS[BY_MNEMONIC[target].syntax])
       for alias, target in MNEMONIC_ALIASES.items()},
}
del _INSTRUCTIONS["loop"]  # picasso only knows "for"


# -- directive handlers -------------------------------------------------------------------------
def _needs_padding(asm: Assembler, elem: _StackEntry) -> bool:
    """picasso's automatic NOP: a block may not end right after a jump/call (or too short)."""
    p = len(asm.code)
    last = BY_OPCODE6[asm.code[p - 1] >> 26].mnemonic if p else ""
    if last in _FLOW_PAD or (elem.kind == SE_FOR and last == "breakc"):
        return True
    return elem.kind != SE_ARRAY and (p - elem.pos) < (1 if elem.kind == SE_PROC else 2)


def _dir_proc(asm: Assembler, name: str) -> None:
    text, col = asm.next_arg()
    asm.no_more_args()
    asm.push(_StackEntry(SE_PROC, len(asm.code), text), col)
    if text in asm.procs:
        raise asm.error(f"proc already exists: {text}", col)


def _dir_else(asm: Assembler, name: str) -> None:
    asm.no_more_args()
    if not asm.stack or asm.stack[-1].kind != SE_IF:
        raise asm.error(".else with unmatched IF", asm.cur.pos)
    elem = asm.stack[-1]
    if elem.extra:
        raise asm.error("spurious .else", asm.cur.pos)
    if asm.last_was_end:
        asm.padding_nop()
        asm.last_was_end = False
    elif _needs_padding(asm, elem):
        asm.padding_nop()
    cur = len(asm.code)
    elem.extra = cur
    asm.patch(elem.pos, 0, dst=cur)


def _dir_end(asm: Assembler, name: str) -> None:
    asm.no_more_args()
    if not asm.stack:
        raise asm.error(".end with unmatched block", 0)
    elem = asm.stack.pop()
    if elem.kind != SE_ARRAY and asm.last_was_end:
        asm.padding_nop()
        asm.last_was_end = False
    elif elem.kind in (SE_PROC, SE_FOR) or (elem.kind == SE_IF and asm.code):
        if _needs_padding(asm, elem):
            asm.padding_nop()
    cur = len(asm.code)
    if elem.kind == SE_PROC:
        asm.procs.setdefault(elem.name, (elem.pos, cur - elem.pos))
    elif elem.kind == SE_FOR:
        asm.patch(elem.pos, 0, dst=cur - 1)
        asm.last_was_end = True
    elif elem.kind == SE_IF:
        if not elem.extra:
            asm.patch(elem.pos, 0, dst=cur)
        else:
            if cur - elem.extra > MAX_NUM:
                raise asm.error(f"else block too long (max {MAX_NUM} words)", 0)
            asm.patch(elem.pos, 0, **split_num(cur - elem.extra))
        asm.last_was_end = True
    else:
        _end_array(asm)


def _end_array(asm: Assembler) -> None:
    dvle = asm.get_dvle()
    alloc = asm.bundles[dvle.uses_gsh_space].allocs[UTYPE_FVEC]
    name = asm.const_array_name
    if name in asm.aliases:
        raise asm.error(f"identifier already used: {name}", 0)
    while asm.const_array_size >= 0 and len(asm.const_array) < asm.const_array_size:
        asm.const_array.append(Constant(CONST_FVEC, 0, (0, 0, 0, 0)))
    size = len(asm.const_array)
    if not size:
        raise asm.error(f"no elements have been specified in array '{name}'", 0)
    pos = alloc.alloc_local(size)
    if pos < 0:
        raise asm.error(f"not enough space for local constant array '{name}'", 0)
    if len(dvle.constants) + size > MAX_CONSTANT:
        raise asm.error("too many local constants", 0)
    for i, const in enumerate(asm.const_array):
        const.reg = pos + i
        dvle.constants.append(const)
    asm.aliases[name] = pos | DEFAULT_OPSRC << 8
    asm.const_array = []
    asm.const_array_size = -1
    asm.const_array_name = ""


def _check_ident(asm: Assembler, text: str, col: int, what: str) -> None:
    if not _IDENT.match(text):
        raise asm.error(f"invalid {what}: {text}", col)


def _dir_alias(asm: Assembler, name: str) -> None:
    (atext, acol), (rtext, rcol) = asm.next_arg_spc(), asm.next_arg_spc()
    asm.no_more_args()
    _check_ident(asm, atext, acol, "alias name")
    if len(atext) > 1 and atext[0].lower() in "ovrcib" and "0" <= atext[1] <= "9":
        raise asm.error("cannot redefine register", acol)
    reg = asm.parse_reg(rtext, rcol)
    if atext in asm.aliases:
        raise asm.error(f"identifier already used: {atext}", acol)
    asm.aliases[atext] = reg.reg | reg.sw << 8


#: ".fvec"/".ivec"/".bool" -> constant kind
_KIND_BY_NAME = {name: kind for kind, name in CONST_KIND_NAMES.items()}


def _dir_uniform(asm: Assembler, name: str) -> None:
    kind = _KIND_BY_NAME[name]
    dvle = asm.get_dvle()
    alloc = asm.bundles[dvle.uses_gsh_space].allocs[kind]
    shared = not dvle.uses_gsh_space
    while True:
        item = asm.cur.arg()
        if item is None:
            break
        text, col = item
        size = 1
        if "[" in text:
            open_at = text.index("[")
            close = text.find("]", open_at)
            if close < 0:
                raise asm.error(f"missing closing bracket: {text}", col)
            size = c_atoi(text[open_at + 1:close])
            if size < 1:
                raise asm.error(f"invalid uniform size: {text}", col)
            text = text[:open_at]
        _check_ident(asm, text, col, "uniform name")
        if text in asm.aliases:
            raise asm.error(f"identifier already used: {text}", col)
        pos = -1
        if shared:
            for known in asm.global_uniforms:
                if known.name == text:
                    if known.kind != kind:
                        raise asm.error(f"mismatched uniform type: {text}", col)
                    if known.size != size:
                        raise asm.error(f"uniform '{text}' previously declared as having size "
                                        f"{known.size}", col)
                    pos = known.index
                    break
        if pos < 0:
            if len(asm.global_uniforms) >= MAX_UNIFORM:
                raise asm.error(f"too many global uniforms: {text}", col)
            pos = alloc.alloc_global(size)
            if pos < 0:
                raise asm.error(f"not enough uniform space: {text}[{size}]", col)
        if shared:
            asm.global_uniforms.append(Uniform(text, pos, size, kind))
        if not text.startswith("_"):
            if len(dvle.uniforms) >= MAX_UNIFORM:
                raise asm.error(f"too many referenced uniforms: {text}", col)
            space = SPACE_OF_KIND[kind]
            assert space.table_base is not None
            dvle.uniforms.append(Uniform(text, pos - space.base + space.table_base, size, kind))
        asm.aliases[text] = pos | DEFAULT_OPSRC << 8


def _paren_args(asm: Assembler) -> tuple[tuple[str, int], list[str]]:
    """``name(a, b, c, d)``: the name and four argument texts."""
    name = asm.cur.arg_cparen()
    if name is None:
        raise asm.error("missing parameter", asm.cur.end)
    args = [asm.next_arg()[0] for _ in range(3)]
    rest = asm.cur.rest()
    if rest is None:
        raise asm.error("missing parameter", asm.cur.end)
    close = rest[0].find(")")
    if close < 0:
        raise asm.error("invalid syntax: missing ')'", rest[1])
    args.append(rest[0][:close].strip(C_SPACE))
    asm.cur.pos = asm.cur.end
    return name, args


def _const_values(kind: int, args: list[str]) -> tuple[int, ...]:
    if kind == UTYPE_FVEC:
        return tuple(f24_picasso(c_atof(a)) for a in args)
    return tuple(c_atoi(a) & 0xFF for a in args)


def _dir_const(asm: Assembler, name: str) -> None:
    kind = UTYPE_FVEC if name == "constf" else UTYPE_IVEC
    dvle = asm.get_dvle()
    alloc = asm.bundles[dvle.uses_gsh_space].allocs[kind]
    (cname, ccol), args = _paren_args(asm)
    if cname in asm.aliases:
        raise asm.error(f"identifier already used: {cname}", ccol)
    pos = alloc.alloc_local(1)
    if pos < 0:
        raise asm.error(f"not enough space for local constant '{cname}'", ccol)
    if len(dvle.constants) >= MAX_CONSTANT:
        raise asm.error("too many local constants", ccol)
    dvle.constants.append(Constant(kind, pos, _const_values(kind, args)))
    asm.aliases[cname] = pos | DEFAULT_OPSRC << 8


def _dir_constfa(asm: Assembler, name: str) -> None:
    in_array = bool(asm.stack) and asm.stack[-1].kind == SE_ARRAY
    if not in_array:
        text, col = asm.next_arg()
        asm.no_more_args()
        open_at = text.find("[")
        close = text.find("]", open_at + 1)
        if open_at < 0 or close < 0:
            raise asm.error(f"missing bracket: {text}", col)
        if text[close + 1:].strip(C_SPACE):
            raise asm.error(f"garbage found: {text[close + 1:].strip(C_SPACE)}", col)
        size_text = text[open_at + 1:close].strip(C_SPACE)
        arr_name = text[:open_at].strip(C_SPACE)
        if size_text:
            asm.const_array_size = c_atoi(size_text)
            if asm.const_array_size <= 0:
                raise asm.error(f"invalid array size: {text}", col)
        _check_ident(asm, arr_name, col, "array name")
        asm.const_array_name = arr_name
        asm.push(_StackEntry(SE_ARRAY, 0), col)
        return
    if 0 <= asm.const_array_size == len(asm.const_array):
        raise asm.error(f"too many elements in the array, expected {asm.const_array_size}",
                        asm.cur.pos)
    first, col = asm.next_arg()
    if not first.startswith("("):
        raise asm.error("invalid syntax: expected '('", col)
    args = [first[1:], asm.next_arg()[0], asm.next_arg()[0]]
    rest = asm.cur.rest()
    if rest is None or ")" not in rest[0]:
        raise asm.error("invalid syntax: missing ')'", asm.cur.end)
    args.append(rest[0][:rest[0].find(")")].strip(C_SPACE))
    asm.cur.pos = asm.cur.end
    asm.const_array.append(Constant(CONST_FVEC, 0, _const_values(UTYPE_FVEC, args)))


def _dir_setfi(asm: Assembler, name: str) -> None:
    kind = UTYPE_FVEC if name == "setf" else UTYPE_IVEC
    dvle = asm.get_dvle()
    (cname, ccol), args = _paren_args(asm)
    reg = asm.parse_reg(cname, ccol)
    lo, hi = SPACE_OF_KIND[kind].base, SPACE_OF_KIND[kind].end
    if not lo <= reg.reg < hi:
        raise asm.error(f"register out of range for .{name}: {cname}", ccol)
    if len(dvle.constants) >= MAX_CONSTANT:
        raise asm.error("too many local constants", ccol)
    dvle.constants.append(Constant(kind, reg.reg, _const_values(kind, args)))


def _dir_setb(asm: Assembler, name: str) -> None:
    dvle = asm.get_dvle()
    (rtext, rcol), (vtext, vcol) = asm.next_arg_spc(), asm.next_arg_spc()
    asm.no_more_args()
    reg = asm.parse_reg(rtext, rcol)
    if not _B.base <= reg.reg < _B.end:
        raise asm.error(f"invalid boolean uniform: {rtext}", rcol)
    low = vtext.lower()
    if low in ("true", "on", "1"):
        value = 1
    elif low in ("false", "off", "0"):
        value = 0
    else:
        raise asm.error(f"invalid bool value: {vtext}", vcol)
    if len(dvle.constants) >= MAX_CONSTANT:
        raise asm.error("too many local constants", rcol)
    dvle.constants.append(Constant(CONST_BOOL, reg.reg, (value,)))


def _dir_in(asm: Assembler, name: str) -> None:
    dvle = asm.get_dvle()
    ntext, ncol = asm.next_arg_spc()
    reg_item = asm.cur.arg_spc()
    asm.no_more_args()
    _check_ident(asm, ntext, ncol, "identifier")
    if ntext in asm.aliases:
        raise asm.error(f"identifier already used: {ntext}", ncol)
    if reg_item is not None:
        reg = asm.parse_reg(*reg_item)
        if not _V.base <= reg.reg < _V.end:
            raise asm.error(f"invalid input register: {reg_item[0]}", reg_item[1])
        oid = reg.reg
    else:
        oid = dvle.free_input()
    if oid < 0:
        raise asm.error("too many inputs", ncol)
    if len(dvle.uniforms) >= MAX_UNIFORM:
        raise asm.error("too many uniforms in DVLE", ncol)
    dvle.input_mask |= 1 << oid
    dvle.uniforms.append(Uniform(ntext, oid, 1, UTYPE_FVEC))
    asm.aliases[ntext] = oid | DEFAULT_OPSRC << 8


def _dir_out(asm: Assembler, name: str) -> None:
    dvle = asm.get_dvle()
    (ntext, ncol), (ttext, tcol) = asm.next_arg_spc(), asm.next_arg_spc()
    reg_item = asm.cur.arg_spc()
    asm.no_more_args()
    out_name: str | None = ntext
    if ntext == "-":
        out_name = None
    else:
        _check_ident(asm, ntext, ncol, "identifier")
    oid = -1
    sw = DEFAULT_OPSRC
    if reg_item is not None:
        reg = asm.parse_reg(*reg_item)
        if not 0 <= reg.reg < dvle.max_output_reg:
            raise asm.error(f"invalid output register: {reg_item[0]}", reg_item[1])
        oid, sw = reg.reg, reg.sw
    else:
        dot = ttext.find(".")
        if dot >= 0:
            sw = parse_swizzle(ttext[dot + 1:])
            if sw < 0:
                raise asm.error(f"bad swizzle: invalid output mask {ttext[dot + 1:]}", tcol + dot + 1)
            ttext = ttext[:dot]
    mask = mask_from_swizzle(sw, False)
    semantic = OUTPUT_SEMANTIC_BY_NAME.get(ttext.lower(), -1)
    if semantic < 0:
        raise asm.error(f"invalid output type: {ttext}", tcol)
    if oid < 0:
        oid = dvle.free_output()
    elif dvle.output_used & (mask << (4 * oid)):
        raise asm.error("this output collides with another one previously defined", ncol)
    if oid < 0 or len(dvle.outputs) >= MAX_OUTPUT:
        raise asm.error("too many outputs", ncol)
    if out_name is not None and out_name in asm.aliases:
        raise asm.error(f"identifier already used: {out_name}", ncol)
    if oid >= OUTPUT_SLOTS and semantic != SEMANTIC_DUMMY:
        raise asm.error(f"this register (o{oid}) can only be a dummy output", ncol)
    dvle.outputs.append(Output(semantic, oid, mask))
    dvle.output_mask |= 1 << oid
    dvle.output_used |= mask << (4 * oid)
    if out_name is not None:
        asm.aliases[out_name] = oid | DEFAULT_OPSRC << 8
    if semantic == SEMANTIC_DUMMY and dvle.uses_gsh_space:
        dvle.is_merge = True


def _dir_entry(asm: Assembler, name: str) -> None:
    dvle = asm.get_dvle()
    text, col = asm.next_arg_spc()
    asm.no_more_args()
    _check_ident(asm, text, col, "identifier")
    dvle.entrypoint = text


def _dir_nodvle(asm: Assembler, name: str) -> None:
    dvle = asm.get_dvle()
    asm.no_more_args()
    dvle.nodvle = True


def _dir_gsh(asm: Assembler, name: str) -> None:
    dvle = asm.get_dvle()
    mode_item = asm.cur.arg_spc()
    if mode_item is None:
        dvle.is_geo = dvle.is_compat_geo = True
        return
    mtext, mcol = mode_item
    if dvle.is_geo:
        raise asm.error(".gsh had already been used", mcol)
    if dvle.constants or dvle.uniforms or dvle.output_mask:
        raise asm.error(".gsh must be used before any constant, uniform or output is declared", mcol)
    mode = GSH_MODE_BY_NAME.get(mtext.lower(), -1)
    if mode < 0:
        raise asm.error(f"invalid geometry shader mode: {mtext}", mcol)
    dvle.is_geo = True
    dvle.gsh_mode = mode
    ftext, fcol = asm.next_arg_spc()
    first_free = asm.parse_reg(ftext, fcol).reg
    if not _C.base <= first_free < _C.end:
        raise asm.error(f"invalid float uniform register: {ftext}", fcol)
    asm.bundles[1].init_for_gsh(first_free)
    if mode == 0:
        asm.no_more_args()
    elif mode == 1:
        ntext, ncol = asm.next_arg_spc()
        asm.no_more_args()
        dvle.gsh_variable_num = asm.parse_int(ntext, ncol, 0, 255)
    else:
        (stext, scol), (ntext, ncol) = asm.next_arg_spc(), asm.next_arg_spc()
        asm.no_more_args()
        start = asm.parse_reg(stext, scol).reg
        num = asm.parse_int(ntext, ncol, 0, 255)
        if not _C.base <= start < _C.end:
            raise asm.error(f"invalid float uniform register: {stext}", scol)
        if start >= first_free:
            raise asm.error(f"specified location overlaps uniform allocation pool: {stext}", scol)
        dvle.gsh_fixed_start = start - _C.base
        dvle.gsh_fixed_num = num


_DIRECTIVES = {
    "proc": _dir_proc, "else": _dir_else, "end": _dir_end, "alias": _dir_alias,
    **{kind_name: _dir_uniform for kind_name in _KIND_BY_NAME},
    "constf": _dir_const, "consti": _dir_const, "constfa": _dir_constfa,
    "in": _dir_in, "out": _dir_out, "entry": _dir_entry, "nodvle": _dir_nodvle, "gsh": _dir_gsh,
    "setf": _dir_setfi, "seti": _dir_setfi, "setb": _dir_setb,
}


def assemble(sources: list[tuple[str, str]], no_nop: bool = False) -> Program:
    """Assemble ``(filename, text)`` pairs, one DVLE each, into a :class:`Program`; ``no_nop`` is
    picasso's ``-n``: no automatic padding NOPs."""
    asm = Assembler()
    asm.no_nop = no_nop
    for filename, text in sources:
        asm.add_source(text, filename)
    return asm.finish()
