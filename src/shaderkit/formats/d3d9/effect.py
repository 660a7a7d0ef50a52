"""A Direct3D 9 effect binary (``fx_2_0``): what fxc writes for ``/T fx_2_0`` (``.fxo``), what XNA and
FNA load (``.fxb``) and what D3DXCreateEffect reads.

Layout (little-endian u32 words; the facts of Wine's d3dx9 effect parser, FNA's MojoShader and
vkd3d-shader's fx_2_0 writer):

* header: the tag ``0xFEFF0901`` and the size of the *data block* that follows it; offsets the
  records hold count from the start of the block (file offset 8). XNA 4's content pipeline puts
  its own header first (``0xBCF00BCF``, then the file offset of the tag): that prefix is kept as bytes.
* the data block: strings (``u32 length`` + bytes with their NUL, padded to 4), type descriptors
  (``type, class, name, semantic, elements`` then ``columns, rows`` for a vector, ``rows, columns``
  for a scalar or matrix, ``member count`` and the members' descriptors inline for a struct) and
  values (the numbers of a numeric or struct value; one object id per element of a string,
  texture or shader; per element of a sampler a state count and its states). fxc writes a zero
  word first, so no item lies at offset 0.
* the records: ``parameter count, technique count``, a third count (vkd3d: the shader count)
  and the object count; each parameter ``type, value, flags, annotation count`` then its
  annotations (``type, value``); each technique ``name, annotation count, pass count``, its
  annotations and passes (``name, annotation count, state count``, annotations, states
  ``operation, index, type, value``: the operation names a state of :data:`STATE_NAMES`);
* the objects: ``small count, large count``; each small object ``id, size`` and its bytes padded to 4
  (a string, a texture's name, a shader a parameter is initialised with); each large object
  (a state assignment that needs data: D3DX's "resource") ``technique`` (``0xFFFFFFFF``: a
  sampler state of a parameter), ``index`` (pass or parameter), ``element``, ``state``, ``usage``
  (0: a shader or an expression ``FX20`` blob, 1: the name of the parameter assigned, 2: an
  array selector: a parameter name and an expression) and ``size`` then its bytes padded to 4.

The model (:class:`D3D9Effect`) types every record: parameters, annotations and state values keep
their :class:`EffectType` and :class:`EffectValue`; techniques hold passes, passes hold states;
small and large objects hold their bytes and, when they are D3D9 shaders, a nested
:class:`~shaderkit.formats.d3d9.shader.D3D9Shader`. :meth:`D3D9Effect.to_bytes` rebuilds the data
block through :class:`~shaderkit.io.layout.PlacedWriter`: every item whose bytes did not change goes
back where it lay, a new or resized one (a renamed parameter) is appended to the block, and every
offset, size and count is recomputed; the records and objects are written in order after it.
Damaged records (a count or an offset that does not fit) raise ShaderFormatError. Records with a
structure this model does not know (a parameter class other than the six of D3DXPARAMETER_CLASS),
or whose typed form does not write back their own bytes, are kept: ``records`` is None then, the
data block and the bytes after it are written as they were, and ``untyped`` says why.

Records may share offsets (two parameters one type, a sampler state list another's), so reading
spends the input's allocation budget by what it expands: each byte once at its size, again at the
cost of the items it makes (REREAD_ITEM, REREAD_BYTE); an input whose sharing implies more work than
its size allows is refused (ShaderFormatError), one that shares nothing spends its size.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.d3dx.ctab import (  # D3DXPARAMETER_CLASS
    CLASS_MATRIX_COLUMNS,
    CLASS_MATRIX_ROWS,
    CLASS_OBJECT,
    CLASS_SCALAR,
    CLASS_STRUCT,
    CLASS_VECTOR,
)
from shaderkit.formats.d3dx.ctab import TYPE_NAMES as CTAB_TYPE_NAMES

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

    from shaderkit.formats.d3d9.shader import D3D9Shader
    from shaderkit.io.layout import Layout, PlacedWriter
    from shaderkit.io.reader import Reader

#: the fx_2_0 tag (``D3DX9`` effect version 9.1)
TAG = 0xFEFF0901
#: the tag of the header XNA 4's content pipeline writes before the effect
XNA_TAG = 0xBCF00BCF
#: technique index of a large object that belongs to a parameter (a sampler state)
NO_TECHNIQUE = 0xFFFFFFFF
#: the FourCC-like version token of an expression (preshader) blob: ``FX`` 2.0
EXPRESSION_TAG = 0x46580200

#: D3DXPARAMETER_CLASS
CLASS_NAMES = ("scalar", "vector", "matrix_rows", "matrix_columns", "object", "struct")
#: D3DXPARAMETER_TYPE names as HLSL spells them: the constant table's up to samplerCUBE, then an
#: effect's shader and fragment objects (an effect file writes PixelShader/VertexShader)
TYPE_NAMES = (*(CTAB_TYPE_NAMES[t] for t in range(15)), "PixelShader", "VertexShader", "pixelfragment",
              "vertexfragment", "unsupported")
TYPE_STRING = 4
SAMPLER_TYPES = frozenset(range(10, 15))
#: the states of a pass or sampler by operation number (the names an effect file uses)
STATE_NAMES = (
    "ZEnable", "FillMode", "ShadeMode", "ZWriteEnable", "AlphaTestEnable", "LastPixel", "SrcBlend", "DestBlend",
    "CullMode", "ZFunc", "AlphaRef", "AlphaFunc", "DitherEnable", "AlphaBlendEnable", "FogEnable",
    "SpecularEnable", "FogColor", "FogTableMode", "FogStart", "FogEnd", "FogDensity", "RangeFogEnable",
    "StencilEnable", "StencilFail", "StencilZFail", "StencilPass", "StencilFunc", "StencilRef", "StencilMask",
    "StencilWriteMask", "TextureFactor", *(f"Wrap{i}" for i in range(16)), "Clipping", "Lighting", "Ambient",
    "FogVertexMode", "ColorVertex", "LocalViewer", "NormalizeNormals", "DiffuseMaterialSource",
    "SpecularMaterialSource", "AmbientMaterialSource", "EmissiveMaterialSource", "VertexBlend", "ClipPlaneEnable",
    "PointSize", "PointSize_Min", "PointSize_Max", "PointSpriteEnable", "PointScaleEnable", "PointScale_A",
    "PointScale_B", "PointScale_C", "MultiSampleAntialias", "MultiSampleMask", "PatchEdgeStyle",
    "DebugMonitorToken", "IndexedVertexBlendEnable", "ColorWriteEnable", "TweenFactor", "BlendOp",
    "PositionDegree", "NormalDegree", "ScissorTestEnable", "SlopeScaleDepthBias", "AntialiasedLineEnable",
    "MinTessellationLevel", "MaxTessellationLevel", "AdaptiveTess_X", "AdaptiveTess_Y", "AdaptiveTess_Z",
    "AdaptiveTess_W", "EnableAdaptiveTessellation", "TwoSidedStencilMode", "CCW_StencilFail", "CCW_StencilZFail",
    "CCW_StencilPass", "CCW_StencilFunc", "ColorWriteEnable1", "ColorWriteEnable2", "ColorWriteEnable3",
    "BlendFactor", "SRGBWriteEnable", "DepthBias", "SeparateAlphaBlendEnable", "SrcBlendAlpha", "DestBlendAlpha",
    "BlendOpAlpha", "ColorOp", "ColorArg0", "ColorArg1", "ColorArg2", "AlphaOp", "AlphaArg0", "AlphaArg1",
    "AlphaArg2", "ResultArg", "BumpEnvMat00", "BumpEnvMat01", "BumpEnvMat10", "BumpEnvMat11", "TexCoordIndex",
    "BumpEnvLScale", "BumpEnvLOffset", "TextureTransformFlags", "Constant", "PatchSegments", "FVF",
    "ProjectionTransform", "ViewTransform", "WorldTransform", "TextureTransform", "MaterialDiffuse",
    "MaterialAmbient", "MaterialSpecular", "MaterialEmissive", "MaterialPower", "LightType", "LightDiffuse",
    "LightSpecular", "LightAmbient", "LightPosition", "LightDirection", "LightRange", "LightFalloff",
    "LightAttenuation0", "LightAttenuation1", "LightAttenuation2", "LightTheta", "LightPhi", "LightEnable",
    "VertexShader", "PixelShader", "VertexShaderConstantF", "VertexShaderConstantB", "VertexShaderConstantI",
    "VertexShaderConstant", "VertexShaderConstant1", "VertexShaderConstant2", "VertexShaderConstant3",
    "VertexShaderConstant4", "PixelShaderConstantF", "PixelShaderConstantB", "PixelShaderConstantI",
    "PixelShaderConstant", "PixelShaderConstant1", "PixelShaderConstant2", "PixelShaderConstant3",
    "PixelShaderConstant4", "Texture", "AddressU", "AddressV", "AddressW", "BorderColor", "MagFilter",
    "MinFilter", "MipFilter", "MipMapLodBias", "MaxMipLevel", "MaxAnisotropy", "SRGBTexture", "ElementIndex",
    "DMAPOffset", "Sampler",
)
#: the first sampler state (``Texture``): from here on a state in a pass names its sampler by index
FIRST_SAMPLER_STATE = 164
#: the states whose index is printed (texture stage, light, constant register, sampler ...)
INDEXED_STATES = frozenset(range(103, 121)) | frozenset(range(125, 127)) | frozenset(range(132, 146)) \
    | frozenset(range(148, 164))
#: large object usages
USAGE_NAMES = {0: "code", 1: "parameter", 2: "array_selector"}
#: type descriptors nest at most this deep (struct members)
MAX_DEPTH = 16
#: the longest parameter, technique or pass name a shader's member name is made of
#: (:meth:`D3D9Effect.shader_members`): a longer one (or an empty one) is named by its index instead
#: (``parameter3``, a technique's or pass's index), so that every member name is short whatever
#: names the input stores (fxc's names are identifiers: far shorter)
MAX_MEMBER_NAME = 256
#: What expanding the records costs of the input's allocation budget (:mod:`shaderkit.io.limits`:
#: 64 budget bytes per input byte, plus a slack). Every item of the model (a record, a type
#: descriptor or struct member, a string, a value, a sampler element, a state) is read from bytes of
#: its own, and a byte expanded for the first time costs 1: the input pays for itself. A byte that an
#: earlier expansion already read (records sharing one offset, items overlapping, effects tried at
#: overlapping offsets of one input, an object named by several values) costs REREAD_BYTE, and
#: every item such an expansion makes REREAD_ITEM: reading, writing back and printing an item takes
#: some 10 µs and a value word some 0.1 µs, so that the budget of a 1 MB input buys well under a
#: second of work however its records share their bytes. (The 21 public effects share nothing.)
REREAD_ITEM = 1024
REREAD_BYTE = 16

_HEADER = struct.Struct("<2I")
_TYPE = struct.Struct("<5I")
_STATE = struct.Struct("<4I")


def state_name(operation: int) -> str:
    """The name of state ``operation`` (``state<n>`` for one D3DX does not know)."""
    return STATE_NAMES[operation] if 0 <= operation < len(STATE_NAMES) else f"state{operation}"


@dataclass
class EffectType:
    """A type descriptor: D3DXPARAMETER_TYPE, D3DXPARAMETER_CLASS, name, semantic, element count,
    and rows/columns (numeric classes) or members (struct)."""

    type: int = 3
    klass: int = CLASS_SCALAR
    name: str | None = None
    semantic: str | None = None
    elements: int = 0
    rows: int = 1
    columns: int = 1
    members: list[EffectType] = field(default_factory=list)

    @property
    def numeric(self) -> bool:
        """Whether the class holds numbers (scalar, vector, matrix)."""
        return self.klass <= CLASS_MATRIX_COLUMNS

    @property
    def type_name(self) -> str:
        """HLSL spelling: ``float4``, ``float4x4``, ``column_major float3x4``, ``sampler2D``, ``struct``
        (a matrix is D3DXPC_MATRIX_ROWS in the effects fxc and vkd3d write, whatever the source said:
        only the other class is spelled out)."""
        if self.klass == CLASS_STRUCT:
            return "struct"
        base = TYPE_NAMES[self.type] if 0 <= self.type < len(TYPE_NAMES) else f"type{self.type}"
        if self.klass == CLASS_VECTOR:
            return f"{base}{self.columns}"
        if self.klass in (CLASS_MATRIX_ROWS, CLASS_MATRIX_COLUMNS):
            major = "column_major " if self.klass == CLASS_MATRIX_COLUMNS else ""
            return f"{major}{base}{self.rows}x{self.columns}"
        return base

    def element_words(self) -> int:
        """u32 words one element of a numeric or struct value holds."""
        if self.klass == CLASS_STRUCT:
            return sum(m.value_words() for m in self.members)
        return self.rows * self.columns

    def value_words(self) -> int:
        """u32 words of a numeric or struct value (every element)."""
        return self.element_words() * max(1, self.elements)

    def descriptor(self, name_offset: int, semantic_offset: int, members: bytes) -> bytes:
        """The descriptor's bytes, given where its strings lie and its members' bytes."""
        head = _TYPE.pack(self.type, self.klass, name_offset, semantic_offset, self.elements)
        if self.klass == CLASS_VECTOR:
            return head + _HEADER.pack(self.columns, self.rows)
        if self.numeric:
            return head + _HEADER.pack(self.rows, self.columns)
        if self.klass == CLASS_STRUCT:
            return head + struct.pack("<I", len(self.members)) + members
        return head


@dataclass
class EffectState:
    """A state assignment: operation (:func:`state_name`), index (stage, light, register...), and
    the assigned value with its type."""

    operation: int
    index: int = 0
    type: EffectType = field(default_factory=EffectType)
    value: EffectValue | None = None

    @property
    def name(self) -> str:
        """The state's name (``VertexShader``, ``AlphaBlendEnable``, ``MinFilter`` ...)."""
        return state_name(self.operation)


@dataclass
class EffectValue:
    """A value in the data block: ``words`` for a numeric or struct value, ``ids`` (object ids) for
    a string, texture or shader, ``samplers`` (one state list per element) for a sampler."""

    words: list[int] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    samplers: list[list[EffectState]] | None = None

    def numbers(self, type: EffectType) -> list[Any]:
        """The words as ``type`` reads them: floats, ints or bools (floats for a struct)."""
        if type.type == 1:
            return [bool(w) for w in self.words]
        if type.type == 2:
            return [w - (1 << 32) if w & 0x80000000 else w for w in self.words]
        return list(struct.unpack(f"<{len(self.words)}f", struct.pack(f"<{len(self.words)}I", *self.words)))


@dataclass
class EffectAnnotation:
    """An annotation (``<string UIName = "...";>``): its type and value."""

    type: EffectType
    value: EffectValue


@dataclass
class EffectParameter:
    """A top-level parameter: type, value, flags (1: shared), annotations."""

    type: EffectType
    value: EffectValue
    flags: int = 0
    annotations: list[EffectAnnotation] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The parameter's name ("" when it has none)."""
        return self.type.name or ""


@dataclass
class EffectPass:
    """A pass: name, annotations, state assignments."""

    name: str | None = None
    annotations: list[EffectAnnotation] = field(default_factory=list)
    states: list[EffectState] = field(default_factory=list)


@dataclass
class EffectTechnique:
    """A technique: name, annotations, passes."""

    name: str | None = None
    annotations: list[EffectAnnotation] = field(default_factory=list)
    passes: list[EffectPass] = field(default_factory=list)


class _Payload:
    """What small and large objects share: stored ``data``, or a ``shader`` read from it."""

    data: bytes
    shader: D3D9Shader | None

    def payload(self) -> bytes:
        """The object's bytes (the shader rebuilt)."""
        return self.shader.to_bytes() if self.shader is not None else self.data


@dataclass
class SmallObject(_Payload):
    """An object's data (a string, a texture's name, a shader a parameter is initialised with)."""

    id: int
    data: bytes = b""
    #: the bytes that pad ``data`` to 4 as stored (written while ``data`` keeps its size)
    padding: bytes = b""
    #: ``data`` as a D3D9 shader (written instead of ``data`` when present)
    shader: D3D9Shader | None = None


@dataclass
class LargeObject(_Payload):
    """Data of a state assignment: a shader or expression (usage 0), the name of the parameter
    assigned (1) or an array selector (2); ``technique`` NO_TECHNIQUE: a parameter's sampler state."""

    technique: int
    index: int
    element: int
    state: int
    usage: int
    data: bytes = b""
    padding: bytes = b""
    shader: D3D9Shader | None = None

    @property
    def kind(self) -> str:
        """``shader``, ``expression`` (an FX20 blob), ``parameter``, ``array_selector`` or ``data``."""
        if self.shader is not None:
            return "shader"
        if self.usage == 0 and self.data[:4] == struct.pack("<I", EXPRESSION_TAG):
            return "expression"
        return USAGE_NAMES.get(self.usage, "data") if self.usage else "data"

    def text(self) -> str | None:
        """The parameter name a usage 1 object (or an array selector) holds, else None."""
        if self.usage not in (1, 2) or len(self.data) < 4:
            return None
        if self.usage == 1:
            return self.data.split(b"\0", 1)[0].decode("latin-1")
        size = int.from_bytes(self.data[:4], "little")
        return self.data[4 : 4 + size].split(b"\0", 1)[0].decode("latin-1")


@dataclass
class EffectRecords:
    """Everything after the data block: the counts, parameters, techniques and objects."""

    parameters: list[EffectParameter] = field(default_factory=list)
    techniques: list[EffectTechnique] = field(default_factory=list)
    #: the third count (vkd3d: the number of shaders); kept as stored
    shader_count: int = 0
    #: the number of object ids (id 0 included): written as at least one more than the largest
    #: id the records use
    object_count: int = 1
    small_objects: list[SmallObject] = field(default_factory=list)
    large_objects: list[LargeObject] = field(default_factory=list)


class NotUnderstood(ShaderFormatError):
    """A structure this model does not type (an unknown parameter class): the records stay bytes."""


class _Expanded:
    """Which bytes of one input the records were expanded from (a map of the whole input, one byte
    per input byte), and the charge of each expansion to the input's allocation budget: 1 per byte
    read for the first time; REREAD_BYTE per byte read again plus REREAD_ITEM per item made from
    it. One map serves every effect tried in one input (:func:`embedded_size`)."""

    def __init__(self, size: int) -> None:
        self.map = bytearray(size)

    def charge(self, r: Reader, at: int, size: int, items: int, context: str, what: str) -> None:
        """Charge ``items`` model items made from the ``size`` bytes at absolute offset ``at`` (inside
        the map) to ``r``'s budget; ShaderFormatError once the input implies more work than its size allows."""
        seen = self.map
        again = seen.count(1, at, at + size) if size else 0
        if again < size:
            seen[at : at + size] = _ONES * size
        cost = size + again * REREAD_BYTE + items * REREAD_ITEM if again else size
        try:
            r.spend(cost, what, at)
        except ShaderFormatError as exc:
            raise ShaderFormatError(exc.message, at, context) from None


_ONES = b"\x01"
_U32 = struct.Struct("<I")
#: the records' layouts by word count (counts, annotations, techniques and passes, parameters and
#: states, large objects)
_RECORD = {n: struct.Struct(f"<{n}I") for n in (2, 3, 4, 6)}


class _Source:
    """The data block, read through a :class:`~shaderkit.io.reader.Reader` whose allocation budget
    every item spends as :class:`_Expanded` says (offsets in the records count from the block's
    start; in errors, from the file's)."""

    def __init__(self, block: Reader, expanded: _Expanded) -> None:
        self.r = block
        self.data = block.data
        self.base = block.start
        self.expanded = expanded

    def span(self, offset: int, end: int) -> bytes:
        """The block's bytes ``offset..end`` (block offsets)."""
        return self.data[self.base + offset : self.base + end]

    def fits(self, offset: int, count: int, item_size: int, context: str, what: str) -> None:
        """ShaderFormatError unless ``count`` items of ``item_size`` bytes fit at block offset ``offset``
        (:meth:`~shaderkit.io.reader.Reader.fits`)."""
        self.r.fits(count, item_size, what, self.base + offset, context)

    def charge(self, offset: int, size: int, items: int, context: str, what: str) -> None:
        """Charge ``items`` items made from ``size`` bytes at block offset ``offset`` (checked to fit)."""
        self.expanded.charge(self.r, self.base + offset, size, items, context, what)

    def words(self, offset: int, count: int, context: str, what: str = "words") -> tuple[int, ...]:
        """``count`` u32 words at block offset ``offset``, not charged."""
        self.fits(offset, count, 4, context, what)
        return struct.unpack_from(f"<{count}I", self.data, self.base + offset) if count else ()

    def string(self, offset: int, context: str, layout: Layout, key: tuple[Any, ...]) -> str | None:
        if offset == 0:
            return None
        (size,) = self.words(offset, 1, context, "string size")
        self.fits(offset + 4, size, 1, context, "string")
        self.charge(offset, 4 + size, 1, context, "string")
        stored = self.span(offset, offset + 4 + size)
        layout.record(key, offset, stored)
        raw = stored[4:]
        return raw[:-1].decode("latin-1") if raw.endswith(b"\0") else raw.decode("latin-1")

    def type(self, offset: int, context: str, layout: Layout, key: tuple[Any, ...]) -> EffectType:
        t, end = self._type(offset, context, layout, key, 0)
        layout.record(key, offset, self.span(offset, end))
        return t

    def _type(self, offset: int, context: str, layout: Layout, key: tuple[Any, ...],
              depth: int) -> tuple[EffectType, int]:
        if depth > MAX_DEPTH:
            raise ShaderFormatError(f"struct members nest deeper than {MAX_DEPTH}", self.base + offset, context)
        type_, klass, name, semantic, elements = self.words(offset, 5, context, "type")
        # (the descriptor: 5 words, then rows and columns for a numeric class, a member count for a struct)
        size = 28 if klass <= CLASS_MATRIX_COLUMNS else 24 if klass == CLASS_STRUCT else 20
        self.fits(offset, size, 1, context, "type")
        self.charge(offset, size, 1, context, "type")
        t = EffectType(type_, klass, None, None, elements)
        t.name = self.string(name, context + ".name", layout, (*key, "name")) if name else None
        t.semantic = self.string(semantic, context + ".semantic", layout, (*key, "semantic")) if semantic else None
        end = offset + size
        if klass == CLASS_VECTOR:
            t.columns, t.rows = struct.unpack_from("<2I", self.data, self.base + offset + 20)
        elif klass <= CLASS_MATRIX_COLUMNS:
            t.rows, t.columns = struct.unpack_from("<2I", self.data, self.base + offset + 20)
        elif klass == CLASS_STRUCT:
            (count,) = _U32.unpack_from(self.data, self.base + offset + 20)
            self.fits(end, count, 20, context, "struct members")
            members = t.members
            for k in range(count):
                member, end = self._type(end, f"{context}.members[{k}]", layout, (*key, "m", k), depth + 1)
                members.append(member)
        elif klass != CLASS_OBJECT:
            raise NotUnderstood(f"unknown parameter class {klass}", self.base + offset + 4, context)
        return t, end

    def value(self, t: EffectType, offset: int, context: str, layout: Layout, key: tuple[Any, ...],
              depth: int = 0) -> EffectValue:
        if t.klass == CLASS_OBJECT and t.type in SAMPLER_TYPES:
            if depth > MAX_DEPTH:
                raise ShaderFormatError(f"sampler states nest deeper than {MAX_DEPTH}", self.base + offset, context)
            samplers = []
            pos = offset
            data, base = self.data, self.base
            for e in range(max(1, t.elements)):  # (each element's state count takes 4 bytes: bounded)
                self.fits(pos, 1, 4, context, "sampler state count")
                (count,) = _U32.unpack_from(data, base + pos)
                self.fits(pos + 4, count, 16, context, "sampler states")
                self.charge(pos, 4 + 16 * count, 1 + count, context, "sampler states")
                if count:
                    fields = struct.unpack_from(f"<{4 * count}I", data, base + pos + 4)
                    states = [self.state(fields[4 * k : 4 * k + 4], f"{context}[{e}].states[{k}]", layout,
                                         (*key, "e", e, "s", k), depth + 1) for k in range(count)]
                else:
                    states = []
                pos += 4 + 16 * count
                samplers.append(states)
            layout.record(key, offset, self.span(offset, pos))
            return EffectValue(samplers=samplers)
        is_object = t.klass == CLASS_OBJECT
        what = "object ids" if is_object else "value"
        count = max(1, t.elements) if is_object else t.value_words()
        self.fits(offset, count, 4, context, what)
        self.charge(offset, 4 * count, 1, context, what)
        stored = self.span(offset, offset + 4 * count)
        layout.record(key, offset, stored)
        words = list(struct.unpack(f"<{count}I", stored)) if count else []
        return EffectValue(ids=words) if is_object else EffectValue(words=words)

    def state(self, fields: tuple[int, ...], context: str, layout: Layout, key: tuple[Any, ...],
              depth: int = 0) -> EffectState:
        operation, index, type_offset, value_offset = fields
        t = self.type(type_offset, context + ".type", layout, (*key, "type"))
        return EffectState(operation, index, t, self.value(t, value_offset, context + ".value", layout,
                                                            (*key, "value"), depth))


class _Records:
    """A cursor over the records after the data block (a Reader): each record charges the input's
    budget as :class:`_Expanded` says."""

    def __init__(self, r: Reader, expanded: _Expanded) -> None:
        self.r = r
        self.expanded = expanded

    @property
    def pos(self) -> int:
        return self.r.pos

    def words(self, count: int, context: str) -> tuple[int, ...]:
        r = self.r
        at = r.pos
        r.need(4 * count, "records", context)
        self.expanded.charge(r, at, 4 * count, 1, context, "records")
        r.pos = at + 4 * count
        return _RECORD[count].unpack_from(r.data, at)

    def check(self, count: int, size: int, context: str) -> None:
        self.r.fits(count, size, "count", None, context)

    def blob(self, size: int, context: str) -> tuple[bytes, bytes]:
        """An object's ``size`` bytes and the padding to 4 after them."""
        r = self.r
        at = r.pos
        pad = -size % 4
        end = at + size + pad
        if at + size > r.end:
            raise ShaderFormatError(f"object needs {size} bytes, {r.end - at} left", at, context)
        if end > r.end:
            raise ShaderFormatError(f"object padding needs {pad} bytes, {r.end - at - size} left", at + size, context)
        self.expanded.charge(r, at, end - at, 1, context, "object")
        r.pos = end
        data = r.data
        return data[at : at + size], data[at + size : end]


def _shader_of(data: bytes) -> D3D9Shader | None:
    """``data`` as a D3D9 shader when it is one that rebuilds byte for byte, else None."""
    if len(data) < 8:
        return None
    from shaderkit.formats.d3d9.shader import D3D9Shader, is_version_token

    if not is_version_token(int.from_bytes(data[:4], "little")):
        return None
    try:
        shader = D3D9Shader.from_bytes(data)
    except ShaderFormatError:
        return None
    return shader if shader.to_bytes() == data else None


def read_records(data: bytes, block_start: int, block_size: int, whole: Reader | None = None,
                 expanded: _Expanded | None = None) -> tuple[EffectRecords, Layout, int]:
    """Walk the records after the data block; the records, the block's layout and where they end.
    ``whole``: a reader over ``data`` whose allocation budget the walk spends (a new one by default);
    ``expanded``: the map of the bytes earlier walks of ``data`` expanded (see :class:`_Expanded`)."""
    from shaderkit.io.layout import Layout
    from shaderkit.io.reader import Reader

    if whole is None:
        whole = Reader(data)
    if expanded is None:
        expanded = _Expanded(len(data))
    src = _Source(whole.sub(block_start, block_size), expanded)
    layout = Layout()
    rec = _Records(whole.at(block_start + block_size), expanded)
    n_params, n_techniques, shader_count, object_count = rec.words(4, "FX2.counts")
    out = EffectRecords(shader_count=shader_count, object_count=object_count)
    rec.check(n_params, 16, "FX2.parameters")
    for i in range(n_params):
        ctx = f"FX2.parameters[{i}]"
        type_offset, value_offset, flags, n_annotations = rec.words(4, ctx)
        t = src.type(type_offset, ctx + ".type", layout, ("p", i, "type"))
        value = src.value(t, value_offset, ctx + ".value", layout, ("p", i, "value"))
        param = EffectParameter(t, value, flags, _annotations(src, rec, n_annotations, ctx, layout, ("p", i)))
        out.parameters.append(param)
    rec.check(n_techniques, 12, "FX2.techniques")
    for i in range(n_techniques):
        ctx = f"FX2.techniques[{i}]"
        name, n_annotations, n_passes = rec.words(3, ctx)
        tech = EffectTechnique(src.string(name, ctx + ".name", layout, ("t", i, "name")))
        tech.annotations = _annotations(src, rec, n_annotations, ctx, layout, ("t", i))
        rec.check(n_passes, 12, ctx + ".passes")
        for j in range(n_passes):
            pctx = f"{ctx}.passes[{j}]"
            name, n_annotations, n_states = rec.words(3, pctx)
            p = EffectPass(src.string(name, pctx + ".name", layout, ("t", i, "p", j, "name")))
            p.annotations = _annotations(src, rec, n_annotations, pctx, layout, ("t", i, "p", j))
            rec.check(n_states, 16, pctx + ".states")
            for k in range(n_states):
                p.states.append(src.state(rec.words(4, pctx), f"{pctx}.states[{k}]", layout, ("t", i, "p", j, "s", k)))
            tech.passes.append(p)
        out.techniques.append(tech)
    n_small, n_large = rec.words(2, "FX2.objects")
    rec.check(n_small, 8, "FX2.small_objects")
    for i in range(n_small):
        ctx = f"FX2.small_objects[{i}]"
        object_id, size = rec.words(2, ctx)
        blob, pad = rec.blob(size, ctx)
        out.small_objects.append(SmallObject(object_id, blob, pad, _shader_of(blob)))
    rec.check(n_large, 24, "FX2.large_objects")
    for i in range(n_large):
        ctx = f"FX2.large_objects[{i}]"
        technique, index, element, state, usage, size = rec.words(6, ctx)
        blob, pad = rec.blob(size, ctx)
        shader = _shader_of(blob) if usage == 0 else None
        out.large_objects.append(LargeObject(technique, index, element, state, usage, blob, pad, shader))
    _charge_references(out, rec.r, block_start + block_size)
    layout.close(src.span(0, block_size))
    return out, layout, rec.pos


def _charge_references(records: EffectRecords, r: Reader, at: int) -> None:
    """Each value after the first that names a small object prints (and checks) it again: charge
    REREAD_ITEM plus REREAD_BYTE per byte of the object for each (``at``: where the records begin)."""
    sizes = {o.id: len(o.data) for o in records.small_objects}
    counts: dict[int, int] = {}
    for object_id in _referenced_ids(records):
        if object_id in sizes:
            counts[object_id] = counts.get(object_id, 0) + 1
    cost = sum((n - 1) * (REREAD_ITEM + REREAD_BYTE * sizes[i]) for i, n in counts.items() if n > 1)
    if cost:
        with r.scope("FX2.small_objects"):
            r.spend(cost, "objects named by several values", at)


def _annotations(src: _Source, rec: _Records, count: int, ctx: str, layout: Layout,
                 key: tuple[Any, ...]) -> list[EffectAnnotation]:
    rec.check(count, 8, ctx + ".annotations")
    out = []
    for k in range(count):
        actx = f"{ctx}.annotations[{k}]"
        type_offset, value_offset = rec.words(2, actx)
        t = src.type(type_offset, actx + ".type", layout, (*key, "a", k, "type"))
        out.append(EffectAnnotation(t, src.value(t, value_offset, actx + ".value", layout, (*key, "a", k, "value"))))
    return out


class _Moved(Exception):
    """An item is not the one stored under its key: the block is placed item by item."""


class _AsStored:
    """What the builder places through while every item is the one stored under its key (each then
    goes back where it lay, and the block is the stored one): raises :class:`_Moved` at the first
    item that is not, for the :class:`~shaderkit.io.layout.PlacedWriter` to lay out the block."""

    def __init__(self, layout: Layout) -> None:
        self.items = layout.items

    def place(self, key: Any, data: bytes) -> int:
        """The offset ``key`` lay at, when ``data`` is its stored bytes."""
        stored = self.items.get(key)
        if stored is None or stored.data != data:
            raise _Moved
        return stored.offset


class _Builder:
    """Writes the data block (items back where they lay, new ones appended) and the records."""

    def __init__(self, layout: Layout | None) -> None:
        self.layout = layout
        self.w: PlacedWriter | _AsStored = _AsStored(layout) if layout is not None else self._writer()
        self.stored_size = layout.size if layout is not None else 0
        self.out: list[bytes] = []

    def _writer(self) -> PlacedWriter:
        from shaderkit.io.layout import PlacedWriter, append_aligned

        w = PlacedWriter(self.layout, append_aligned(4))
        if self.layout is None:
            w.put(0, bytes(4))  # fxc's leading zero word: no item lies at offset 0
        return w

    def u32(self, *values: int) -> None:
        self.out.append(struct.pack(f"<{len(values)}I", *values))

    def string(self, text: str | None, key: tuple[Any, ...]) -> int:
        if text is None:
            return 0
        raw = text.encode("latin-1") + b"\0"
        return self.w.place(key, struct.pack("<I", len(raw)) + raw)

    def type(self, t: EffectType, key: tuple[Any, ...]) -> int:
        return self.w.place(key, self._type_bytes(t, key, 0))

    def _type_bytes(self, t: EffectType, key: tuple[Any, ...], depth: int) -> bytes:
        if depth > MAX_DEPTH:
            raise ValueError(f"struct members nest deeper than {MAX_DEPTH}")
        name = self.string(t.name, (*key, "name"))
        semantic = self.string(t.semantic, (*key, "semantic"))
        members = b"".join(self._type_bytes(m, (*key, "m", k), depth + 1) for k, m in enumerate(t.members))
        return t.descriptor(name, semantic, members)

    def value(self, t: EffectType, v: EffectValue, key: tuple[Any, ...]) -> int:
        if v.samplers is not None:
            parts = []
            for e, states in enumerate(v.samplers):
                parts.append(struct.pack("<I", len(states)))
                for k, s in enumerate(states):
                    parts.append(self.state(s, (*key, "e", e, "s", k)))
            return self.w.place(key, b"".join(parts))
        words = v.ids if t.klass == CLASS_OBJECT else v.words
        return self.w.place(key, struct.pack(f"<{len(words)}I", *words))

    def state(self, s: EffectState, key: tuple[Any, ...]) -> bytes:
        type_offset = self.type(s.type, (*key, "type"))
        value = s.value if s.value is not None else EffectValue()
        return _STATE.pack(s.operation, s.index, type_offset, self.value(s.type, value, (*key, "value")))

    def annotations(self, annotations: list[EffectAnnotation], key: tuple[Any, ...]) -> None:
        for k, a in enumerate(annotations):
            self.u32(self.type(a.type, (*key, "a", k, "type")), self.value(a.type, a.value, (*key, "a", k, "value")))

    def build(self, records: EffectRecords) -> tuple[bytes, bytes]:
        """The data block and the records after it (every item as stored: the stored block)."""
        if self.layout is not None:
            try:
                tail = self._records(records)
                return bytes(self.layout.stored_bytes()), tail
            except _Moved:
                self.w, self.out = self._writer(), []
        tail = self._records(records)
        w = self.w
        assert not isinstance(w, _AsStored)
        if len(w.out) > self.stored_size:  # grown: the block ends aligned, as fxc's do
            w.pad_to(4)
        return w.getvalue(), tail

    def _records(self, records: EffectRecords) -> bytes:
        """The records after the data block (their items placed)."""
        object_count = max(records.object_count, 1 + max(_object_ids(records), default=0))
        if object_count > 0xFFFFFFFF:
            raise ValueError("object id 0xFFFFFFFF leaves no object count that covers it")
        self.u32(len(records.parameters), len(records.techniques), records.shader_count, object_count)
        for i, p in enumerate(records.parameters):
            t = self.type(p.type, ("p", i, "type"))
            self.u32(t, self.value(p.type, p.value, ("p", i, "value")), p.flags, len(p.annotations))
            self.annotations(p.annotations, ("p", i))
        for i, tech in enumerate(records.techniques):
            self.u32(self.string(tech.name, ("t", i, "name")), len(tech.annotations), len(tech.passes))
            self.annotations(tech.annotations, ("t", i))
            for j, ps in enumerate(tech.passes):
                self.u32(self.string(ps.name, ("t", i, "p", j, "name")), len(ps.annotations), len(ps.states))
                self.annotations(ps.annotations, ("t", i, "p", j))
                for k, s in enumerate(ps.states):
                    self.out.append(self.state(s, ("t", i, "p", j, "s", k)))
        self.u32(len(records.small_objects), len(records.large_objects))
        for o in records.small_objects:
            payload = o.payload()
            self.u32(o.id, len(payload))
            self.out.append(payload + _padding(payload, o.padding))
        for lo in records.large_objects:
            payload = lo.payload()
            self.u32(lo.technique, lo.index, lo.element, lo.state, lo.usage, len(payload))
            self.out.append(payload + _padding(payload, lo.padding))
        return b"".join(self.out)


def _object_ids(records: EffectRecords) -> list[int]:
    """Every object id the records use: values of parameters, annotations and states (sampler
    states too), small objects."""
    return [o.id for o in records.small_objects] + _referenced_ids(records)


def _referenced_ids(records: EffectRecords) -> list[int]:
    """The object ids the values of parameters, annotations and states (sampler states too) hold,
    once per holder."""
    ids: list[int] = []

    def value(v: EffectValue | None) -> None:
        if v is None:
            return
        ids.extend(v.ids)
        for states in v.samplers or ():
            for s in states:
                value(s.value)

    def annotations(items: list[EffectAnnotation]) -> None:
        for a in items:
            value(a.value)

    for p in records.parameters:
        value(p.value)
        annotations(p.annotations)
    for t in records.techniques:
        annotations(t.annotations)
        for ps in t.passes:
            annotations(ps.annotations)
            for st in ps.states:
                value(st.value)
    return ids


def _padding(payload: bytes, stored: bytes) -> bytes:
    """The stored padding while it still pads ``payload`` to 4, else zeros."""
    need = -len(payload) % 4
    return stored if len(stored) == need else bytes(need)


@dataclass(repr=False)
class D3D9Effect(ShaderFile):
    """A Direct3D 9 effect binary (fx_2_0)."""

    format_name = "fx2"

    #: the typed records (None: kept as ``untyped_bytes``)
    records: EffectRecords | None = None
    #: the tag (``0xFEFF0901``)
    tag: int = TAG
    #: bytes before the tag (XNA 4's header), kept
    prefix: bytes = b""
    #: the data block as stored (written when ``records`` is None)
    block: bytes = b""
    #: the records and objects as stored (written when ``records`` is None)
    untyped_bytes: bytes = b""
    #: why the records are kept as bytes ("" when typed)
    untyped: str = ""
    #: bytes after the last large object
    trailing: bytes = b""
    layout: Layout | None = field(default=None, repr=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> D3D9Effect:
        """Parse an effect; ShaderFormatError when the tag or the data block size does not fit."""
        data = bytes(data)
        prefix = b""
        start = 0
        if len(data) >= 8 and struct.unpack_from("<I", data)[0] == XNA_TAG:
            start = struct.unpack_from("<I", data, 4)[0]
            if not 8 <= start <= len(data) - 8:
                raise ShaderFormatError(f"XNA header points at {start:#x}, outside the {len(data)}-byte file", 4, "FX2")
            prefix = data[:start]
        tag, size = _header(data, start)
        block_start = start + 8
        effect = cls(tag=tag, prefix=prefix, block=data[block_start : block_start + size],
                     untyped_bytes=data[block_start + size :])
        try:
            records, layout, end = read_records(data, block_start, size)
        except NotUnderstood as exc:  # (a structure not understood stays bytes; damage raises)
            effect.untyped = str(exc)
            return effect
        effect.records, effect.layout, effect.trailing = records, layout, data[end:]
        try:
            same = effect.to_bytes() == data
        except ValueError as exc:  # (an object id 0xFFFFFFFF: no object count can be written)
            same, effect.untyped = False, f"does not write back: {exc}"
        if not same:
            effect.untyped = effect.untyped or "the typed records do not write back the stored bytes"
            effect.records, effect.layout, effect.trailing = None, None, b""
        return effect

    def to_bytes(self) -> bytes:
        """Prefix, tag, data block size, data block, records, objects, trailing bytes; ValueError
        when an object id is 0xFFFFFFFF (no object count covers it)."""
        if self.records is None:
            body = self.block + self.untyped_bytes
            return self.prefix + _HEADER.pack(self.tag, len(self.block)) + body
        block, records = _Builder(self.layout).build(self.records)
        return self.prefix + _HEADER.pack(self.tag, len(block)) + block + records + self.trailing

    # --- navigation -------------------------------------------------------------------------------
    @property
    def parameters(self) -> list[EffectParameter]:
        """The parameters (empty when the records are untyped)."""
        return self.records.parameters if self.records is not None else []

    @property
    def techniques(self) -> list[EffectTechnique]:
        """The techniques (empty when the records are untyped)."""
        return self.records.techniques if self.records is not None else []

    def parameter(self, name: str) -> EffectParameter:
        """The parameter named ``name``; KeyError when there is none."""
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(f"no parameter {name!r}")

    def object_owners(self) -> dict[int, str]:
        """Object id -> the parameter (``name`` or ``name[k]``) whose value holds it first (a name
        empty or longer than :data:`MAX_MEMBER_NAME`: ``parameterI``)."""
        return {object_id: self._owner_name(*slot) for object_id, slot in self._owner_slots(None).items()}

    def _owner_slots(self, wanted: set[int] | None) -> dict[int, tuple[int, int]]:
        """Object id -> (parameter index, element) of the first parameter value that holds it, for
        the ids of ``wanted`` (None: every id); no name is made here."""
        owners: dict[int, tuple[int, int]] = {}
        for i, p in enumerate(self.parameters):
            for k, object_id in enumerate(p.value.ids):
                if object_id not in owners and (wanted is None or object_id in wanted):
                    owners[object_id] = (i, k)
        return owners

    def _owner_name(self, i: int, k: int) -> str:
        """``name`` or ``name[k]`` for element ``k`` of parameter ``i``'s value."""
        name = self._parameter_name(i)
        return f"{name}[{k}]" if self.parameters[i].type.elements else name

    def _parameter_name(self, i: int) -> str:
        """Parameter ``i``'s name in a member name: ``parameterI`` when there is no such parameter
        or its name is empty or longer than :data:`MAX_MEMBER_NAME`."""
        params = self.parameters
        name = params[i].name if i < len(params) else None
        return name if name and len(name) <= MAX_MEMBER_NAME else f"parameter{i}"

    def parameter_values(self) -> dict[str, list[Any]]:
        """The initial values of the top-level numeric parameters by name: floats, ints or bools,
        every element's rows x columns in declaration order (as d3dx9 keeps them and hands them to
        the shader constants and preshaders). Parameters without a name, numbers, or a whole value
        are left out, and so are column-major matrices (D3DXPC_MATRIX_COLUMNS: d3dx9 keeps their
        words in another order, and fxc never writes one); none when the records stay bytes."""
        return {p.name: p.value.numbers(p.type) for p in self.parameters
                if p.name and p.type.numeric and p.type.klass != CLASS_MATRIX_COLUMNS and p.value.words
                and len(p.value.words) == p.type.value_words()}

    def shader_members(self) -> dict[str, SmallObject | LargeObject]:
        """Every shader of the effect by member name: ``TECHNIQUE/PASS/STATE`` for the shader a pass
        state holds (names, or the index when a name is empty, repeated or longer than
        :data:`MAX_MEMBER_NAME`), ``PARAMETER`` or ``PARAMETER[k]`` for the shader a parameter is
        initialised with (``parameterI`` for a name empty or too long), ``object/ID`` else. Names
        are made only for the objects that hold a shader: each is bounded, and so is their work."""
        if self.records is None:
            return {}
        out: dict[str, SmallObject | LargeObject] = {}
        last: dict[str, int] = {}  # base name -> the last ``#n`` tried (names are never freed: resume there)

        def add(name: str, item: SmallObject | LargeObject) -> None:
            base, n = name, last.get(name, 1)
            while name in out:
                n += 1
                name = f"{base}#{n}"
            last[base] = n
            out[name] = item

        shaders = [o for o in self.records.small_objects if o.shader is not None]
        owners = self._owner_slots({o.id for o in shaders}) if shaders else {}
        for o in shaders:
            slot = owners.get(o.id)
            add(self._owner_name(*slot) if slot is not None else f"object/{o.id}", o)
        techniques = self.techniques
        tnames: list[str] | None = None  # (made at the first shader of a pass)
        pass_names: dict[int, list[str]] = {}  # technique index -> its passes' names (made once)
        for lo in self.records.large_objects:
            if lo.shader is None:
                continue
            if lo.technique == NO_TECHNIQUE:
                add(f"{self._parameter_name(lo.index)}/state{lo.state}", lo)
            elif lo.technique < len(techniques) and lo.index < len(techniques[lo.technique].passes):
                if tnames is None:
                    tnames = _unique_names([t.name for t in techniques])
                tech = techniques[lo.technique]
                ps = tech.passes[lo.index]
                pnames = pass_names.get(lo.technique)
                if pnames is None:
                    pnames = pass_names[lo.technique] = _unique_names([p.name for p in tech.passes])
                sname = state_name(ps.states[lo.state].operation) if lo.state < len(ps.states) else f"state{lo.state}"
                add(f"{tnames[lo.technique]}/{pnames[lo.index]}/{sname}", lo)
            else:
                add(f"technique{lo.technique}/pass{lo.index}/state{lo.state}", lo)
        return out

    # --- members (shaderkit ls/get/put FILE//TECHNIQUE/PASS/STATE) ------------------------------------
    def member_names(self) -> list[str]:
        """The shaders' member names (:meth:`shader_members`)."""
        return list(self.shader_members())

    def member_items(self) -> list[tuple[str, bytes]]:
        """(member name, bytes) of every shader, in :meth:`member_names` order (the names made once:
        listing them through :meth:`member` would make them again for each)."""
        return [(name, item.payload()) for name, item in self.shader_members().items()]

    def _item(self, name: str) -> SmallObject | LargeObject:
        """The object that holds shader ``name``; KeyError when there is none."""
        item = self.shader_members().get(name)
        if item is None:
            raise KeyError(f"no shader {name!r} in this effect (shaders: {', '.join(self.member_names())})")
        return item

    def member(self, name: str) -> bytes:
        """The bytes of shader ``name``; KeyError when there is none."""
        return self._item(name).payload()

    def replace_member(self, name: str, data: bytes) -> None:
        """Put ``data`` (a D3D9 shader of any size) in place of shader ``name``; ShaderFormatError
        when it is not one."""
        from shaderkit.formats.d3d9.shader import D3D9Shader

        item = self._item(name)
        D3D9Shader.from_bytes(data)
        item.data = bytes(data)
        item.shader = _shader_of(item.data)

    # --- text and summary -------------------------------------------------------------------------------
    def layout_rows(self, data: bytes | None = None) -> list[dict[str, Any]]:
        """Where each part of the file (as :meth:`to_bytes` writes it; ``data``: those bytes when
        the caller has them) lies: ``xna_header`` (when there is one), ``header``, the data block's
        items (``block.p.0.type``, ``block.t.0.p.1.name``, ``raw`` for bytes no record points at:
        fxc's leading zero word, string padding), ``records`` (everything after the block), ordered
        by offset; offsets from the start of the file."""
        if data is None:
            data = self.to_bytes()
        # (the bytes this effect was read from: its own layout; else the layout of ``data`` read again)
        same = (self.layout is not None or self.records is None) and data == self.prefix + _HEADER.pack(self.tag, len(self.block)) + self.block \
            + self.untyped_bytes
        again = self if same else D3D9Effect.from_bytes(data)
        start = len(again.prefix)
        rows: list[dict[str, Any]] = [{"item": "xna_header", "offset": 0, "size": start}] if start else []
        rows.append({"item": "header", "offset": start, "size": 8})
        if again.layout is not None:
            for row in again.layout.spans():
                item = str(row["item"])
                rows.append({"item": item if item == "raw" else f"block.{item}",
                             "offset": start + 8 + int(str(row["offset"])), "size": row["size"]})
        else:
            rows.append({"item": "block", "offset": start + 8, "size": len(again.block)})
        end = start + 8 + len(again.block)
        rows.append({"item": "records", "offset": end, "size": len(data) - end})
        return rows

    def summary(self) -> dict[str, Any]:
        """``format`` "fx2", ``shader_model`` "fx_2_0", ``size``, ``typed`` (false: ``untyped`` says why),
        ``parameters`` [{``name``, ``type``, ``class``, ``semantic``, ``elements``, ``flags``,
        ``annotations``}], ``techniques`` [{``name``, ``annotations``, ``passes`` [{``name``,
        ``annotations``, ``states`` [{``operation``, ``operation_name``, ``index``, ``value``}]}]}],
        ``small_objects`` [{``id``, ``size``, ``kind``}], ``large_objects`` [{``technique``, ``index``,
        ``element``, ``state``, ``usage``, ``usage_name``, ``size``, ``kind``}], ``shaders`` [{``member``,
        ``shader_model``, ``size``}], ``counts`` {``shaders``, ``objects``}, ``prefix_size`` (XNA 4's header), ``block_size``,
        ``trailing_size``, ``layout`` (:meth:`layout_rows`)."""
        data = self.to_bytes()
        out: dict[str, Any] = {"format": self.format_name, "shader_model": "fx_2_0", "size": len(data),
                               "typed": self.records is not None, "untyped": self.untyped,
                               "prefix_size": len(self.prefix), "block_size": len(self.block),
                               "layout": self.layout_rows(data)}
        if self.records is None:
            return out
        rec = self.records
        out["counts"] = {"shaders": rec.shader_count, "objects": rec.object_count}
        out["parameters"] = [{"name": p.name, "type": p.type.type_name, "class": _class_name(p.type.klass),
                              "semantic": p.type.semantic or "", "elements": p.type.elements, "flags": p.flags,
                              "annotations": len(p.annotations)} for p in rec.parameters]
        out["techniques"] = [{"name": t.name or "", "annotations": len(t.annotations), "passes": [
            {"name": p.name or "", "annotations": len(p.annotations),
             "states": [{"operation": s.operation, "operation_name": s.name, "index": s.index,
                         "value": _value_text(s.type, s.value)} for s in p.states]}
            for p in t.passes]} for t in rec.techniques]
        out["small_objects"] = [{"id": o.id, "size": len(o.payload()),
                                 "kind": "shader" if o.shader is not None else "data"} for o in rec.small_objects]
        out["large_objects"] = [{"technique": lo.technique, "index": lo.index, "element": lo.element,
                                 "state": lo.state, "usage": lo.usage,
                                 "usage_name": USAGE_NAMES.get(lo.usage, str(lo.usage)), "size": len(lo.payload()),
                                 "kind": lo.kind} for lo in rec.large_objects]
        out["shaders"] = [{"member": name, "shader_model": item.shader.profile if item.shader else "",
                           "size": len(item.payload())} for name, item in self.shader_members().items()]
        out["trailing_size"] = len(self.trailing)
        return out

    def disassemble(self) -> str:
        """The effect as text (:mod:`.effect_listing`)."""
        from shaderkit.formats.d3d9.effect_listing import effect_listing

        return effect_listing(self)


def _class_name(klass: int) -> str:
    return CLASS_NAMES[klass] if 0 <= klass < len(CLASS_NAMES) else str(klass)


def _unique_names(names: list[str | None]) -> list[str]:
    """Each name, or its index when it is empty, shared with another or longer than
    :data:`MAX_MEMBER_NAME`."""
    seen: dict[str, int] = {}
    for n in names:
        if n and len(n) <= MAX_MEMBER_NAME:
            seen[n] = seen.get(n, 0) + 1
    return [n if n and len(n) <= MAX_MEMBER_NAME and seen[n] == 1 else str(i) for i, n in enumerate(names)]


def _value_text(t: EffectType, v: EffectValue | None) -> str:
    """A value as the text an effect file would give it (``1``, ``{0, 0.5, 1, 1}``, ``<object 3>``)."""
    if v is None:
        return ""
    if v.samplers is not None:
        return "sampler_state { " + "; ".join(
            f"{s.name} = {_value_text(s.type, s.value)}" for states in v.samplers for s in states) + " }"
    if t.klass == CLASS_OBJECT:
        ids = [f"<object {i}>" for i in v.ids]
        return ids[0] if len(ids) == 1 else "{" + ", ".join(ids) + "}"
    texts = _number_texts(t, v.words, 0)
    return texts[0] if len(texts) == 1 else "{" + ", ".join(texts) + "}"


def _number_texts(t: EffectType, words: list[int], depth: int) -> list[str]:
    """Each word as its type reads it; a struct's words member by member, element after element (to
    where the words end), words past them as floats. Members of no word are passed over, so that the
    work follows the words printed, whatever the element and member counts say."""
    out: list[str] = []
    pos = 0
    if t.klass == CLASS_STRUCT and depth < MAX_DEPTH:
        parts: dict[tuple[int, int], list[tuple[EffectType, int, bool]]] = {}  # (id(type), depth) -> members
        # (a stack of [members, next member, elements left] over the struct types being walked)
        stack: list[list[Any]] = [[_word_members(t, depth, parts), 0, max(1, t.elements)]]
        end = len(words)
        run_type, run_start = -1, 0  # (members of one type one after the other are printed at once)
        while stack and pos < end:
            top = stack[-1]
            members: list[tuple[EffectType, int, bool]] = top[0]
            k: int = top[1]
            if k == len(members):
                top[2] -= 1
                top[1] = 0
                if top[2] <= 0 or not members:
                    stack.pop()
                continue
            top[1] = k + 1
            m, n, nested = members[k]
            if nested:
                stack.append([_word_members(m, depth + len(stack), parts), 0, max(1, m.elements)])
                continue
            if m.type != run_type:
                out += _leaf_texts(run_type, words[run_start:pos]) if pos > run_start else []
                run_type, run_start = m.type, pos
            pos += n
        out += _leaf_texts(run_type, words[run_start : min(pos, end)]) if pos > run_start else []
        if pos >= end:
            return out
        t = EffectType(3)
    return out + _leaf_texts(t.type, words[pos:])


def _word_members(t: EffectType, depth: int, parts: dict[tuple[int, int], list[tuple[EffectType, int, bool]]]
                  ) -> list[tuple[EffectType, int, bool]]:
    """The members of struct ``t`` (at ``depth``) that hold words: (member, its words, whether it is
    a struct walked member by member), made once per type."""
    found = parts.get((id(t), depth))
    if found is None:
        found = parts[id(t), depth] = []
        for m in t.members:
            n = m.value_words()
            if n:
                found.append((m, n, m.klass == CLASS_STRUCT and depth + 1 < MAX_DEPTH))
    return found


def _leaf_texts(type_: int, words: list[int]) -> list[str]:
    """Words of one numeric type: ``true``/``false`` (bool), signed integers (int), else floats."""
    if type_ == 1:
        return ["true" if w else "false" for w in words]
    if type_ == 2:
        return [str(w - (1 << 32) if w & 0x80000000 else w) for w in words]
    from shaderkit.isa.d3d9.text import fmt_defs  # (as fxc prints FX10 effect constants: %.9g)

    return fmt_defs(words)


def _header(data: bytes, start: int) -> tuple[int, int]:
    """The tag and the data block size of the effect header at ``start``; ShaderFormatError when
    the header is short, the tag is not fx_2_0's or the block runs past the file."""
    if len(data) - start < 8:
        raise ShaderFormatError("shorter than the 8-byte effect header", start, "FX2")
    tag, size = _HEADER.unpack_from(data, start)
    if tag != TAG:
        raise ShaderFormatError(f"not an fx_2_0 effect (tag {tag:#010x})", start, "FX2")
    if size > len(data) - start - 8:
        raise ShaderFormatError(f"data block of {size} bytes runs past the file ({len(data) - start - 8} left)",
                                start + 4, "FX2")
    return tag, size


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the fx_2_0 effect at ``offset`` (its records walked), or None. ``memo`` (one per
    input searched) keeps one reader and one map of the bytes expanded, so that all the effects
    tried in an input share its budget and pay again for bytes another one already read."""
    from shaderkit.io.reader import Reader

    try:
        _, size = _header(data, offset)
        if memo is None:
            memo = {}
        whole = memo.get("fx2.reader")
        if whole is None:
            whole = memo["fx2.reader"] = Reader(data)
        expanded = memo.get("fx2.expanded")
        if expanded is None:
            expanded = memo["fx2.expanded"] = _Expanded(len(data))
        _, _, end = read_records(data, offset + 8, size, whole, expanded)
    except ShaderFormatError:
        return None
    return end - offset


__all__ = ["D3D9Effect", "NotUnderstood", "EffectAnnotation", "EffectParameter", "EffectPass", "EffectRecords", "EffectState",
           "EffectTechnique", "EffectType", "EffectValue", "LargeObject", "SmallObject", "embedded_size", "state_name"]
