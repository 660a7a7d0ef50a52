"""fxc's fx_4_0 / fx_4_1 effect listing -> the FX10 chunk payload (``shaderkit asm`` without ``--base``).

The listing shows the effect's buffers (numeric variables with offsets, sizes and defaults),
objects (state blocks, shaders, strings, resources), the pool's shared declarations and the
techniques with their passes and state assignments; every embedded shader is printed as its
own listing and is assembled here with :func:`~.assemble.assemble_container`.

The payload follows ``EffectBinaryFormat.h``: a header of 19 u32, the *unstructured* block that
every record offset points into, then the structured records. The block is filled in the order
fxc fills it (seen in the corpus' own bytes): a leading zero word, then each item at its first
use while the records are walked (strings and type descriptions written once and shared; a
variable's type before its name).

Facts the text does not show are chosen as fxc writes them in the corpus: numeric matrices are
column-major, objects and unregistered buffers have bind point ``0xFFFFFFFF``; an assignment
constant keeps the type of the literal fxc read: names and decimals are ints (``EScalarType`` 2),
hex values uints (3), a name commented ``/* true */`` or ``/* false */`` a bool (4), a scalar
float state printed as an integer an int, other floats floats (1);
``NULL`` shader states are constant assignments. Not shown, so not rebuilt: a row_major matrix,
stored bits beyond what a ``byte(..)`` state prints, an embedded shader's STAT.

Spellings are fxc's: a scalar's default without braces (``float x = 0.25;``), a vector whose
values are all equal shown once (``float4 v = { 1 };``), a variable's semantic after its name,
shader objects as ``TYPE NAME = `` then ``    asm {`` ... ``    };`` (or ``    }`` and the
stream-output comment ``/* Stream out decl: "..." */;`` one level out, which makes a geometry
shader object ``EOT_GeometryShaderSO``); inline shaders take the same comment.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import AssemblyError, ShaderkitError
from shaderkit.formats.dxbc.fx10_records import (
    GS_SO_OBJECT,
    Annotation,
    Assignment,
    BufferRecord,
    EffectRecords,
    NumericVariable,
    ObjectVariable,
    Pass,
    Technique,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from shaderkit.formats.dxbc.container import DxbcContainer

#: effect tags by the profile printed in ``// FX Version:``
FX_TAGS = {"fx_4_0": 0xFEFF1001, "fx_4_1": 0xFEFF1011}
#: ``EObjectType`` by the object type name fxc prints
OBJECT_TYPES = {
    "string": 1, "String": 1, "BlendState": 2, "DepthStencilState": 3, "RasterizerState": 4, "PixelShader": 5,
    "VertexShader": 6, "GeometryShader": 7, "Texture": 9, "Texture1D": 10, "Texture1DArray": 11,
    "Texture2D": 12, "Texture2DArray": 13, "Texture2DMS": 14, "Texture2DMSArray": 15, "Texture3D": 16,
    "TextureCube": 17, "RenderTargetView": 19, "DepthStencilView": 20, "SamplerState": 21,
    "SamplerComparisonState": 21, "Buffer": 22,
    "TextureCubeArray": 23,
}
_STATE_OBJECTS = frozenset({2, 3, 4, 21})
_SHADERS = frozenset({5, 6, 7})
_RESOURCES = frozenset({9, 10, 11, 12, 13, 14, 15, 16, 17, 22, 23})
#: ``EScalarType`` by the numeric type name's base (dword is uint)
_SCALARS = {"float": 1, "int": 2, "uint": 3, "dword": 3, "bool": 4}
_NUMERIC = re.compile(r"(float|int|uint|dword|bool)([1-4])?(?:x([1-4]))?$")
_VARIABLE = re.compile(r"    (\S+) +([A-Za-z_$][\w$]*)(?:\[(\d+)\])?(?: : ([A-Za-z_$][\w$]*))?"
                       r"(?: = (\{ .* \}|[^{ ][^;]*))?; *// Offset: +(\d+), size: +(\d+)$")
_BUFFER = re.compile(r"(cbuffer|tbuffer) ([A-Za-z_$][\w$]*)(?: : register\(([bt])(\d+)\))?$")
_OBJECT = re.compile(r"(\S+) +([A-Za-z_$][\w$]*)(?:\[(\d+)\])?(;| =(?: .*)?)?$")
_ANNOTATION = re.compile(r" *(\S+) ([A-Za-z_$][\w$]*) = (.*);$")
_ASSIGNMENT = re.compile(r" *([A-Za-z]\w*)(?:\[(\d+)\])? *= (.*)$")
_CONSTANT = re.compile(r"(float|uint|bool|byte)([1-4])?\((.*)\);$")
_NAMED_VALUE = re.compile(r"\w+ /\* (\d+|true|false) \*/$")
_INDEXED = re.compile(r"([A-Za-z_$][\w$]*)\[(?:(\d+)|([A-Za-z_$][\w$]*))\];$")
_STREAM_OUT = re.compile(r' */\* Stream out decl: "([^"]*)" \*/;')
_IDENTIFIER = re.compile(r"([A-Za-z_$][\w$]*);$")


def _state_table() -> dict[str, tuple[int, str, int, bool]]:
    from shaderkit.formats.dxbc.disasm import _STATES

    return {name: (n, kind, cols, indexed) for n, (name, kind, cols, indexed, _names) in enumerate(_STATES)}


class _Lines:
    """The listing's lines with a cursor; errors name the line (1-based) and a column."""

    def __init__(self, lines: list[str], first_line: int) -> None:
        self.lines = [line.rstrip() for line in lines]
        self.pos = 0
        self.first_line = first_line

    def error(self, message: str, column: int = 1, line: int | None = None) -> AssemblyError:
        at = self.pos if line is None else line
        return AssemblyError(message, self.first_line + at, column)

    def peek(self) -> str | None:
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def take(self, what: str) -> str:
        line = self.peek()
        if line is None:
            raise self.error(f"the effect listing ends where {what} was expected")
        self.pos += 1
        return line

    def expect(self, text: str) -> None:
        line = self.take(repr(text))
        if line != text:
            self.pos -= 1
            raise self.error(f"expected {text!r}, found {line.strip()!r}", _column(line))


def _column(line: str) -> int:
    return len(line) - len(line.lstrip()) + 1


@dataclass
class _Block:
    """The unstructured block being filled: strings and type descriptions written once."""

    data: bytearray = field(default_factory=lambda: bytearray(4))
    strings: dict[str, int] = field(default_factory=dict)
    types: dict[tuple[int, ...], int] = field(default_factory=dict)

    def string(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = len(self.data)
            self.data += text.encode("latin-1") + b"\0"
        return self.strings[text]

    def words(self, *words: int) -> int:
        at = len(self.data)
        self.data += struct.pack(f"<{len(words)}I", *(w & 0xFFFFFFFF for w in words))
        return at

    def type_desc(self, name: str, var_type: int, elements: int, total: int, stride: int, packed: int,
                  extra: int) -> int:
        name_at = self.string(name)
        key = (name_at, var_type, elements, total, stride, packed, extra)
        if key not in self.types:
            self.types[key] = self.words(*key)
        return self.types[key]

    def blob(self, payload: bytes) -> int:
        at = self.words(len(payload))
        self.data += payload
        return at


def _float_bits(text: str, lines: _Lines, column: int) -> int:
    try:
        value = float(text)
        return int(struct.unpack("<I", struct.pack("<f", value))[0])
    except (ValueError, OverflowError):
        raise lines.error(f"{text!r} is not a float", column) from None


def _integer(text: str, lines: _Lines, column: int, signed: bool = True) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise lines.error(f"{text!r} is not an integer", column) from None
    if not (-(1 << 31) if signed else 0) <= value < (1 << 32):
        raise lines.error(f"{text!r} does not fit 32 bits", column)
    return value & 0xFFFFFFFF


def _scalar(type_name: str, text: str, lines: _Lines, column: int) -> int:
    """One printed default/annotation value as its stored word (the printer's ``scalar``)."""
    text = text.strip()
    if type_name.startswith("float"):
        return _float_bits(text, lines, column)
    if type_name.startswith("bool"):
        if text not in ("true", "false"):
            raise lines.error(f"{text!r} is not true or false", column)
        return int(text == "true")
    return _integer(text, lines, column, signed=not type_name.startswith(("uint", "dword")))


@dataclass
class _NumericType:
    name: str
    scalar: int
    rows: int
    columns: int
    layout: int

    def extra(self) -> int:
        """``SBinaryNumericType`` bits: layout, scalar type, rows, columns, column-major."""
        return (self.layout | self.scalar << 3 | self.rows << 8 | self.columns << 11
                | (0x4000 if self.layout == 3 else 0))


def _numeric_type(name: str, lines: _Lines, column: int) -> _NumericType:
    m = _NUMERIC.match(name)
    if m is None:
        raise lines.error(f"numeric type {name!r} is not supported (scalar, vector or matrix only)", column)
    base, first, second = m.groups()
    if second is not None:
        return _NumericType(name, _SCALARS[base], int(first), int(second), 3)
    if first is not None:
        return _NumericType(name, _SCALARS[base], 1, int(first), 2)
    return _NumericType(name, _SCALARS[base], 1, 1, 1)


class _EffectText:
    """Parses the effect listing and fills the block and the records as it goes."""

    def __init__(self, lines: _Lines) -> None:
        self.lines = lines
        self.block = _Block()
        self.records = EffectRecords()
        self.states = _state_table()
        self.counts = {"shader_resources": 0, "depth_stencil_blocks": 0, "blend_state_blocks": 0,
                       "rasterizer_state_blocks": 0, "samplers": 0, "render_target_views": 0,
                       "depth_stencil_views": 0, "total_shaders": 0, "inline_shaders": 0, "strings": 0}

    # -- sections -------------------------------------------------------------------------------
    def section(self, title: re.Pattern[str]) -> int | None:
        """``//`` + ``// N title`` + ``//`` at the cursor (blank/``//`` lines before it skipped): N."""
        lines = self.lines
        start = lines.pos
        while True:
            m = title.match(lines.peek() or "")
            if m is not None:
                lines.pos += 1
                lines.expect("//")
                return int(m.group(1))
            if lines.peek() not in ("", "//"):
                break
            lines.pos += 1
        lines.pos = start
        return None

    def parse(self) -> tuple[int, ...]:
        from shaderkit.formats.dxbc.fx10 import EffectHeader

        lines = self.lines
        lines.expect("//")
        line = lines.take("the FX Version line")
        m = re.fullmatch(r"// FX Version: (\w+)", line)
        if m is None or m.group(1) not in FX_TAGS:
            lines.pos -= 1
            raise lines.error(f"effect profile must be one of {', '.join(FX_TAGS)}", 16)
        tag = FX_TAGS[m.group(1)]
        line = lines.take("the child effect line")
        child = re.fullmatch(r"// Child effect \(requires effect pool\): (true|false)", line)
        if child is None:
            lines.pos -= 1
            raise lines.error("expected '// Child effect (requires effect pool): true|false'")
        lines.expect("//")
        rec = self.records
        local_buffers = self.section(re.compile(r"// (\d+) local buffer\(s\)$")) or 0
        rec.buffers = [self.buffer(True) for _ in range(local_buffers)]
        local_objects = self.section(re.compile(r"// (\d+) local object\(s\)$")) or 0
        rec.objects = [self.object_variable(True) for _ in range(local_objects)]
        pool_buffers = self.section(re.compile(r"// (\d+) shared buffer\(s\)$")) or 0
        rec.pool_buffers = [self.buffer(False) for _ in range(pool_buffers)]
        pool_objects = self.section(re.compile(r"// (\d+) shared object\(s\)$")) or 0
        rec.pool_objects = [self.object_variable(False) for _ in range(pool_objects)]
        techniques = self.section(re.compile(r"// (\d+) technique\(s\)$")) or 0
        rec.techniques = [self.technique() for _ in range(techniques)]
        while lines.peek() == "":
            lines.pos += 1
        if lines.peek() is not None:
            raise lines.error(f"unexpected text after the effect: {(lines.peek() or '').strip()!r}")
        if (child.group(1) == "true") != bool(pool_buffers or pool_objects):
            raise lines.error("the child effect flag does not match the shared sections", 42, 2)
        header = EffectHeader(tag, len(rec.buffers), sum(len(b.variables) for b in rec.buffers), len(rec.objects),
                              len(rec.pool_buffers), sum(len(b.variables) for b in rec.pool_buffers),
                              len(rec.pool_objects), len(rec.techniques), len(self.block.data), **self.counts)
        return header.words()

    # -- buffers ---------------------------------------------------------------------------------
    def buffer(self, local: bool) -> BufferRecord:
        lines = self.lines
        line = lines.take("a buffer")
        m = _BUFFER.match(line)
        if m is None:
            lines.pos -= 1
            raise lines.error(f"expected 'cbuffer NAME' or 'tbuffer NAME', found {line.strip()!r}", _column(line))
        kind, name, reg_kind, reg = m.groups()
        if reg is not None and reg_kind != ("t" if kind == "tbuffer" else "b"):
            raise lines.error(f"a {kind} binds to register {'t' if kind == 'tbuffer' else 'b'}", line.index("(") + 2,
                              lines.pos - 1)
        b = BufferRecord(self.block.string(name), 0, int(kind == "tbuffer"),
                         _integer(reg, lines, 1) if reg is not None else 0xFFFFFFFF)
        if local:
            b.annotations = self.annotations("")
        lines.expect("{")
        end = 0
        while lines.peek() != "}":
            v, size = self.variable(local)
            b.variables.append(v)
            end = max(end, v.offset + size)
        lines.pos += 1
        lines.expect("")
        b.size = (end + 15) & ~15
        return b

    def variable(self, local: bool) -> tuple[NumericVariable, int]:
        lines = self.lines
        line = lines.take("a variable")
        m = _VARIABLE.match(line)
        if m is None:
            lines.pos -= 1
            raise lines.error(f"expected 'TYPE NAME; // Offset: N, size: N' or '}}', found {line.strip()!r}",
                              _column(line))
        type_name, name, elements_text, semantic, defaults, offset_text, size = m.groups()
        lines.pos -= 1
        numeric = _numeric_type(type_name, lines, 5)
        elements = _integer(elements_text, lines, line.index("[") + 2, signed=False) if elements_text else 0
        offset = _integer(offset_text, lines, line.index("Offset:") + 9, signed=False)
        total = _integer(size, lines, line.index("size:") + 7, signed=False)
        if offset + total > 0xFFFFFFF0:
            raise lines.error(f"{name} ends past 4 GiB", line.index("Offset:") + 9)
        lines.pos += 1
        per_element = numeric.rows * numeric.columns * 4
        packed = per_element * max(elements, 1)
        stride = ((total + max(elements, 1) - 1) // max(elements, 1) + 15) & ~15
        block = self.block

        def desc() -> int:
            return block.type_desc(type_name, 1, elements, total, stride, packed, numeric.extra())

        type_at = desc()
        name_at = block.string(name)
        semantic_at = block.string(semantic) if semantic is not None else 0
        default_at = 0
        if defaults is not None:
            column = line.index(" = ") + 4
            braces = defaults.startswith("{")
            if braces:
                column += 2
                values = defaults[2:-2].split(",")
                if len(values) == 1 and not elements:  # fxc shows a vector of one value once
                    values *= packed // 4
            else:  # a scalar's default: no braces
                values = [defaults]
            scalar = numeric.layout == 1 and not elements  # SBinaryNumericType layout 1: scalar
            if braces == scalar:
                lines.pos -= 1
                raise lines.error(f"{name}'s default is written {'without' if scalar else 'in'} braces", column)
            if len(values) != packed // 4:
                lines.pos -= 1
                raise lines.error(f"{name} takes {packed // 4} default value(s), found {len(values)}", column)
            lines.pos -= 1
            words = [_scalar(type_name, v, lines, column) for v in values]
            lines.pos += 1
            default_at = block.words(*words)
        v = NumericVariable(name_at, type_at, semantic_at, offset, default_at, 0)
        return v, total

    # -- annotations -----------------------------------------------------------------------------
    def annotations(self, indent: str) -> list[Annotation]:
        """The annotations at the cursor (``<`` ... ``>``), placed in the block now."""
        return [place() for place in self.read_annotations(indent)]

    def read_annotations(self, indent: str) -> list[Callable[[], Annotation]]:
        """The annotations at the cursor, read and checked; each placed in the block when called
        (fxc writes an object's annotations after its state blocks)."""
        lines = self.lines
        if lines.peek() != indent + "<":
            return []
        lines.pos += 1
        out: list[Callable[[], Annotation]] = []
        block = self.block
        while lines.peek() != indent + ">":
            line = lines.take("an annotation or '>'")
            m = _ANNOTATION.match(line)
            if m is None or not line.startswith(indent + "    "):
                lines.pos -= 1
                raise lines.error(f"expected 'TYPE NAME = VALUE;' or {indent + '>'!r}, found {line.strip()!r}",
                                  _column(line))
            type_name, name, value = m.groups()
            lines.pos -= 1
            column = line.index(" = ") + 4
            if value.startswith('"'):
                texts = re.findall(r'"([^"]*)"', value)
                if ", ".join(f'"{t}"' for t in texts) != value:
                    raise lines.error("expected string annotation values '\"...\", \"...\"'", column)

                def place_strings(type_name: str = type_name, name: str = name,
                                  texts: list[str] = texts) -> Annotation:
                    type_at = block.type_desc(type_name, 2, len(texts) if len(texts) > 1 else 0, 0, 0, 0, 1)
                    name_at = block.string(name)
                    return Annotation(name_at, type_at, [block.string(t) for t in texts])

                out.append(place_strings)
            else:
                numeric = _numeric_type(type_name, lines, _column(line))
                values = value.split(",")
                per_element = numeric.rows * numeric.columns
                if len(values) % per_element:
                    raise lines.error(f"{type_name} takes a multiple of {per_element} value(s)", column)
                elements = len(values) // per_element
                words = [_scalar(type_name, v, lines, column) for v in values]

                def place_numeric(type_name: str = type_name, name: str = name, elements: int = elements,
                                  words: list[int] = words, extra: int = numeric.extra(),
                                  stride: int = (4 * per_element + 15) & ~15) -> Annotation:
                    size = 4 * len(words)
                    type_at = block.type_desc(type_name, 1, elements if elements > 1 else 0, size, stride, size,
                                              extra)
                    name_at = block.string(name)
                    return Annotation(name_at, type_at, [block.words(*words)])

                out.append(place_numeric)
            lines.pos += 1
        lines.pos += 1
        return out

    # -- objects ---------------------------------------------------------------------------------
    def object_variable(self, local: bool) -> ObjectVariable:
        lines = self.lines
        line = lines.take("an object")
        m = _OBJECT.match(line)
        if m is None:
            lines.pos -= 1
            raise lines.error(f"expected an object declaration, found {line.strip()!r}", _column(line))
        type_name, name, elements_text, rest = m.groups()
        obj_type = OBJECT_TYPES.get(type_name.split("<")[0])
        if obj_type is None:
            lines.pos -= 1
            raise lines.error(f"unknown object type {type_name!r}", 1)
        elements = int(elements_text) if elements_text else 0
        if elements > 0xFFFF:
            lines.pos -= 1
            raise lines.error(f"{elements} elements are too many", line.index("[") + 2)
        block = self.block
        if local and obj_type == 7 and rest is not None and rest.strip() == "=" and \
                self._stream_out_ahead(max(elements, 1)):
            obj_type = GS_SO_OBJECT  # a geometry shader with stream output: (shader, declaration) pairs
        type_at = block.type_desc(type_name, 2, elements, 0, 0, 0, obj_type)
        name_at = block.string(name)
        o = ObjectVariable(name_at, type_at, 0, 0xFFFFFFFF)
        if not local:
            if rest != ";":
                lines.pos -= 1
                raise lines.error("a shared object is declared only ('TYPE NAME;')", len(line))
            return o
        count = max(elements, 1)
        self._count(obj_type, count)
        if obj_type in _STATE_OBJECTS:
            if rest == ";":
                if elements:
                    raise lines.error("a state object array lists one block per element", len(line), lines.pos - 1)
                o.blocks = [[]]
                o.annotations = self.annotations("")
                return o
            if rest is not None:
                raise lines.error("a state object's assignments follow on the next lines", len(line), lines.pos - 1)
            pending = self.read_annotations("")
            lines.expect("{")
            if elements == 0:
                o.blocks = [self.assignments("    ", "};")]
            else:
                for k in range(elements):
                    lines.expect("    {")
                    o.blocks.append(self.assignments("        ", "    }," if k < elements - 1 else "    }"))
                lines.expect("};")
            o.annotations = [place() for place in pending]
            return o
        if obj_type == 1:
            if rest is None or not rest.startswith(" = "):
                raise lines.error("a string object is 'string NAME = \"...\";'", len(line), lines.pos - 1)
            texts = re.findall(r'"([^"]*)"', rest)
            if ", ".join(f'"{t}"' for t in texts) + ";" != rest[3:] or len(texts) != count:
                raise lines.error(f"expected {count} string value(s)", line.index(" = ") + 4, lines.pos - 1)
            o.initializers = [(block.string(t),) for t in texts]
            o.annotations = self.annotations("")
            return o
        if obj_type in _SHADERS or obj_type == GS_SO_OBJECT:
            if rest is None or rest.strip() != "=":
                raise lines.error("a shader object is 'TYPE NAME = ' then its shaders", len(line), lines.pos - 1)
            for _ in range(count):
                if lines.peek() == "    NULL;":
                    lines.pos += 1
                    shader_at, decl_at = 0, 0
                else:
                    shader_at, decl_at = self.shader("    asm {", "    ")
                o.initializers.append((shader_at, decl_at) if obj_type == GS_SO_OBJECT else (shader_at,))
            o.annotations = self.annotations("")
            return o
        if rest != ";":
            raise lines.error(f"a {type_name} object is declared only ('TYPE NAME;')", len(line), lines.pos - 1)
        o.annotations = self.annotations("")
        return o

    def _count(self, obj_type: int, count: int) -> None:
        key = {1: "strings", 2: "blend_state_blocks", 3: "depth_stencil_blocks", 4: "rasterizer_state_blocks",
               21: "samplers", 19: "render_target_views", 20: "depth_stencil_views"}.get(obj_type)
        if obj_type in _RESOURCES:
            key = "shader_resources"
        elif obj_type in _SHADERS or obj_type == GS_SO_OBJECT:
            key = "total_shaders"
        if key is not None:
            self.counts[key] += count

    def _stream_out_ahead(self, count: int) -> bool:
        """Whether the ``count`` shader blocks after the cursor carry a stream-output comment
        (fxc stores such a geometry shader object as its own type, written before the shaders)."""
        lines = self.lines
        start, found = lines.pos, False
        try:
            for _ in range(count):
                if lines.peek() == "    NULL;":
                    lines.pos += 1
                    continue
                _opening, _body, decl = self._shader_block("    asm {", "    ")
                found = found or decl is not None
        finally:
            lines.pos = start
        return found

    def _shader_block(self, opening: str, indent: str) -> tuple[int, list[str], str | None]:
        """The block at the cursor: the line after its opening, its lines, and its stream-output
        declaration (``}`` then ``/* Stream out decl: "..." */;`` one level out) or None."""
        lines = self.lines
        line = lines.take("a shader")
        if line != opening.rstrip() and line != opening:
            lines.pos -= 1
            raise lines.error(f"expected {opening.strip()!r} or NULL, found {line.strip()!r}", _column(line))
        start = lines.pos
        closing, note = indent + "};", indent + "}"
        while True:
            text = lines.peek()
            if text is None:
                raise lines.error(f"this shader block is not closed by {closing!r}", len(line), start - 1)
            if text == closing:
                decl = None
                break
            if text == note and lines.pos + 1 < len(lines.lines):
                m = _STREAM_OUT.fullmatch(lines.lines[lines.pos + 1])
                if m is not None and lines.lines[lines.pos + 1].startswith(indent[4:] + "/*"):
                    decl = m.group(1)
                    break
            lines.pos += 1
        body = lines.lines[start : lines.pos]
        lines.pos += 1 if decl is None else 2
        return start, body, decl

    def shader(self, opening: str, indent: str) -> tuple[int, int]:
        """An ``asm {`` block opened by ``opening``: its listing assembled. Returns the offset of its
        ``u32 size`` + container and that of its stream-output declaration (0 without)."""
        from shaderkit.formats.dxbc.assemble import assemble_container

        lines = self.lines
        start, body, decl = self._shader_block(opening, indent)
        inner_indent = indent + "    "
        while body and not body[-1]:
            body.pop()
        inner = []
        for n, text in enumerate(body):
            if text and not text.startswith(inner_indent):
                raise lines.error("a shader's listing is indented under its 'asm {'", 1, start + n)
            inner.append(text[len(inner_indent):])
        if not inner:
            return self.block.blob(b""), self._decl(decl)
        if any(text.startswith("// FX Version: ") for text in inner[:4]):
            raise lines.error("an effect does not embed another effect", len(inner_indent) + 1, start + 1)
        try:
            container = assemble_container("\n".join(inner) + "\n")
        except AssemblyError as error:
            raise AssemblyError(error.message, lines.first_line + start + max(error.line, 1) - 1,
                                error.column + len(inner_indent)) from None
        except ShaderkitError as error:
            raise lines.error(f"the embedded shader does not build: {error}", 1, start) from None
        shader_at = self.block.blob(container.to_bytes())
        return shader_at, self._decl(decl)

    def _decl(self, decl: str | None) -> int:
        return 0 if decl is None else self.block.string(decl)

    # -- assignments -----------------------------------------------------------------------------
    def assignments(self, indent: str, closing: str) -> list[Assignment]:
        out: list[Assignment] = []
        lines = self.lines
        while lines.peek() != closing:
            if lines.peek() is None:
                raise lines.error(f"expected {closing!r} before the end of the text")
            out.append(self.assignment(indent))
        lines.pos += 1
        return out

    def assignment(self, indent: str) -> Assignment:
        lines = self.lines
        line = lines.peek() or ""
        m = _ASSIGNMENT.match(line)
        if m is None or not line.startswith(indent) or line[len(indent)] == " ":
            raise lines.error(f"expected 'STATE = VALUE;', found {line.strip()!r}", _column(line))
        name, index_text, rhs = m.groups()
        state = self.states.get(name)
        if state is None:
            raise lines.error(f"unknown state {name!r}", _column(line))
        number, kind, cols, indexed = state
        if indexed != (index_text is not None):
            raise lines.error(f"{name} {'takes' if indexed else 'takes no'} index", _column(line) + len(name))
        index = _integer(index_text, lines, _column(line) + len(name) + 1, signed=False) if index_text else 0
        column = line.index("= ") + 3
        block = self.block
        if rhs == "asm {" or rhs == "NULL;" and kind == "object" and name.endswith("Shader"):
            if rhs == "NULL;":
                lines.pos += 1
                return Assignment(number, index, 1, block.words(1, 2, 0))
            shader_at, decl_at = self.shader(indent + line[len(indent):].split(" = ")[0] + " = asm {", indent)
            self.counts["total_shaders"] += 1
            self.counts["inline_shaders"] += 1
            return Assignment(number, index, 7, block.words(shader_at, decl_at))
        if rhs == "NULL;" and kind == "object":
            lines.pos += 1
            return Assignment(number, index, 1, block.words(1, 2, 0))
        constant = _CONSTANT.match(rhs)
        if constant is not None:
            vtype, width, values_text = constant.groups()
            if vtype != kind or int(width or 1) != cols:
                raise lines.error(f"{name} takes {kind}{cols if cols > 1 else ''}(...)", column)
            values = values_text.split(", ")
            words: list[int] = [len(values)]
            for v in values:
                if kind == "float":  # fxc keeps a scalar integer literal an int (type 2), vectors float
                    integral = cols == 1 and re.fullmatch(r"-?\d+", v) is not None
                    words += [2, _integer(v, lines, column)] if integral else [1, _float_bits(v, lines, column)]
                    continue
                named = _NAMED_VALUE.match(v)
                if named is not None and named.group(1) in ("true", "false"):  # a bool constant (type 4)
                    words += [4, int(named.group(1) == "true")]
                    continue
                # fxc: hex literals (bytes, masks) are uint (type 3), names and decimals int (type 2)
                words += [3 if v.startswith("0x") else 2,
                          int(named.group(1)) if named else _integer(v, lines, column, signed=False)]
            lines.pos += 1
            return Assignment(number, index, 1, block.words(*words))
        indexed_rhs = _INDEXED.match(rhs)
        if indexed_rhs is not None:
            array, constant_index, variable_index = indexed_rhs.groups()
            array_at = block.string(array)
            if constant_index is not None:
                array_index = _integer(constant_index, lines, column + len(array) + 1, signed=False)
                lines.pos += 1
                return Assignment(number, index, 3, block.words(array_at, array_index))
            lines.pos += 1
            return Assignment(number, index, 4, block.words(array_at, block.string(variable_index)))
        variable = _IDENTIFIER.match(rhs)
        if variable is not None:
            lines.pos += 1
            return Assignment(number, index, 2, block.string(variable.group(1)))
        raise lines.error(f"cannot read the value {rhs!r}", column)

    # -- techniques ------------------------------------------------------------------------------
    def technique(self) -> Technique:
        lines = self.lines
        line = lines.take("a technique")
        m = re.fullmatch(r"technique10 ([A-Za-z_$][\w$]*)", line)
        if m is None:
            lines.pos -= 1
            raise lines.error(f"expected 'technique10 NAME', found {line.strip()!r}", _column(line))
        t = Technique(self.block.string(m.group(1)))
        t.annotations = self.annotations("")
        lines.expect("{")
        while lines.peek() != "}":
            line = lines.take("a pass or '}'")
            m = re.fullmatch(r"    pass ([A-Za-z_$][\w$]*)", line)
            if m is None:
                lines.pos -= 1
                raise lines.error(f"expected '    pass NAME' or '}}', found {line.strip()!r}", _column(line))
            p = Pass(self.block.string(m.group(1)))
            p.annotations = self.annotations("    ")
            lines.expect("    {")
            p.assignments = self.assignments("        ", "    }")
            lines.expect("")
            t.passes.append(p)
        lines.pos += 1
        if lines.peek() is not None:
            lines.expect("")
        return t


def effect_payload(lines: list[str], first_line: int = 1) -> bytes:
    """The FX10 chunk payload of the effect listing ``lines`` (``first_line``: the 1-based line
    number of ``lines[0]`` in the text, for errors). Raises AssemblyError with line and column."""
    parser = _EffectText(_Lines(lines, first_line))
    words = parser.parse()
    return struct.pack("<19I", *words) + bytes(parser.block.data) + parser.records.build()


def effect_container(text: str) -> DxbcContainer:
    """A DXBC container holding the FX10 chunk built from the effect listing ``text``."""
    from shaderkit.errors import ShaderFormatError
    from shaderkit.formats.dxbc.container import DxbcContainer
    from shaderkit.formats.dxbc.fx10 import Effect
    from shaderkit.io.reader import Reader

    payload = effect_payload(text.splitlines())
    try:
        effect = Effect.parse(Reader(payload, context="FX10"))
    except ShaderFormatError as error:  # pragma: no cover - the builder writes what the model reads
        raise AssemblyError(f"the effect does not build: {error}", 1, 1) from None
    return DxbcContainer([effect])


__all__ = ["FX_TAGS", "OBJECT_TYPES", "effect_container", "effect_payload"]
