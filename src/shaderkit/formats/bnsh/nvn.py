"""NVN shader code: the 0x30-byte NVN header, NVIDIA's 0x50-byte Shader Program Header (SPH),
the GLSLC control-section header, and :class:`NvnProgramFile` for raw NVN program blobs.

SPH field names follow NVIDIA's open-gpu-doc "Shader-Program-Header" (CommonWord0..4, then the
VTG or PS input/output maps). The Maxwell code after the SPH stays bytes.

A compute program has no SPH: its data starts with the 0x30-byte header whose magic is
0x12345679, and the code lies at the control section's program offset (0x100 in every file seen:
the bytes between stay as they are), followed by the program's constant buffer (at the control
section's constant-buffer offset) and padding, which the listing shows as data after the program.
"""

from __future__ import annotations

import struct
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, fields
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.io.reader import Reader

NVN_MAGIC = 0x12345678
#: the NVN header magic of a compute program (no SPH follows it)
NVN_COMPUTE_MAGIC = 0x12345679
#: where a compute program's code starts when no control section says (the value seen in files)
COMPUTE_PROGRAM_OFFSET = 0x100
CONTROL_MAGIC = 0x98761234
#: the first four bytes of code (graphics, compute) and of a control section, as stored
_CODE_MAGICS = (struct.pack("<I", NVN_MAGIC), struct.pack("<I", NVN_COMPUTE_MAGIC))
_CONTROL_MAGIC_BYTES = struct.pack("<I", CONTROL_MAGIC)
NVN_HEADER_SIZE = 0x30
SPH_SIZE = 0x50

SPH_TYPES = {1: "VTG", 2: "PS"}
SHADER_TYPES = {0: "vertex_a", 1: "vertex", 2: "tessellation_init", 3: "tessellation", 4: "geometry", 5: "pixel"}

# (name, word, lowest bit, width) of CommonWord0..4.
_COMMON: tuple[tuple[str, int, int, int], ...] = (
    ("sph_type", 0, 0, 5), ("version", 0, 5, 5), ("shader_type", 0, 10, 4), ("mrt_enable", 0, 14, 1),
    ("kills_pixels", 0, 15, 1), ("does_global_store", 0, 16, 1), ("sass_version", 0, 17, 4),
    ("reserved_word0_21", 0, 21, 3), ("geometry_passthrough", 0, 24, 1), ("reserved_word0_25", 0, 25, 1),
    ("does_load_or_store", 0, 26, 1), ("does_fp64", 0, 27, 1), ("stream_out_mask", 0, 28, 4),
    ("shader_local_memory_low_size", 1, 0, 24), ("per_patch_attribute_count", 1, 24, 8),
    ("shader_local_memory_high_size", 2, 0, 24), ("threads_per_input_primitive", 2, 24, 8),
    ("shader_local_memory_crs_size", 3, 0, 24), ("output_topology", 3, 24, 4), ("reserved_word3", 3, 28, 4),
    ("max_output_vertex_count", 4, 0, 12), ("store_req_start", 4, 12, 8), ("reserved_word4", 4, 20, 4),
    ("store_req_end", 4, 24, 8),
)
_WORDS = struct.Struct("<5I")
# Type-specific areas (bytes 0x14..0x50): VTG and PS layouts.
_VTG = struct.Struct("<3sB16sHH5sB3sB16sHH5sB")
_PS = struct.Struct("<3sB32sHH10sHII")


def _masked(bits: int, count: int) -> list[str]:
    """``index.xyzw`` for each of ``count`` 4-bit masks in ``bits`` (x in bit 0, mask 0 lowest)
    that has any component set."""
    out = []
    for index in range(count):
        nibble = (bits >> (4 * index)) & 0xF
        if nibble:
            out.append(f"{index}." + "".join(c for i, c in enumerate("xyzw") if nibble >> i & 1))
    return out


@dataclass
class VtgMaps:
    """Input/output maps of a vertex, tessellation or geometry SPH (type 1)."""

    imap_system_values_a: bytes
    imap_system_values_b: int
    imap_generic_vector: bytes
    imap_color: int
    imap_system_values_c: int
    imap_fixed_fnc_texture: bytes
    imap_reserved: int
    omap_system_values_a: bytes
    omap_system_values_b: int
    omap_generic_vector: bytes
    omap_color: int
    omap_system_values_c: int
    omap_fixed_fnc_texture: bytes
    omap_reserved: int

    def input_attributes(self) -> list[str]:
        """The generic input attributes read, as ``index.xyzw`` (components set)."""
        return _masked(int.from_bytes(self.imap_generic_vector, "little"), len(self.imap_generic_vector) * 2)

    def output_attributes(self) -> list[str]:
        """The generic output attributes written, as ``index.xyzw`` (components set)."""
        return _masked(int.from_bytes(self.omap_generic_vector, "little"), len(self.omap_generic_vector) * 2)


@dataclass
class PsMaps:
    """Input map and output targets of a pixel-shader SPH (type 2)."""

    imap_system_values_a: bytes
    imap_system_values_b: int
    #: one byte per generic attribute: 2 bits (unused/constant/perspective/linear) per component
    imap_generic_vector: bytes
    imap_color: int
    imap_system_values_c: int
    imap_fixed_fnc_texture: bytes
    imap_reserved: int
    omap_target: int
    omap_flags: int

    @property
    def omap_sample_mask(self) -> bool:
        """True when the pixel shader writes the sample mask."""
        return bool(self.omap_flags & 1)

    @property
    def omap_depth(self) -> bool:
        """True when the pixel shader writes depth."""
        return bool(self.omap_flags & 2)

    def input_attributes(self) -> list[str]:
        """The indices of the generic input components read (non-zero interpolation entries)."""
        return [f"{i}" for i, b in enumerate(self.imap_generic_vector) if b]

    def output_attributes(self) -> list[str]:
        """Render targets written, with their components (``0.xyzw``)."""
        return _masked(self.omap_target, 8)


@dataclass
class ShaderProgramHeader:
    """The 0x50-byte SPH in front of Maxwell code."""

    sph_type: int
    version: int
    shader_type: int
    mrt_enable: int
    kills_pixels: int
    does_global_store: int
    sass_version: int
    reserved_word0_21: int
    geometry_passthrough: int
    reserved_word0_25: int
    does_load_or_store: int
    does_fp64: int
    stream_out_mask: int
    shader_local_memory_low_size: int
    per_patch_attribute_count: int
    shader_local_memory_high_size: int
    threads_per_input_primitive: int
    shader_local_memory_crs_size: int
    output_topology: int
    reserved_word3: int
    max_output_vertex_count: int
    store_req_start: int
    reserved_word4: int
    store_req_end: int
    #: VtgMaps for sph_type 1, PsMaps for 2, raw bytes otherwise
    maps: VtgMaps | PsMaps | bytes

    @classmethod
    def from_bytes(cls, raw: bytes, offset: int = 0) -> ShaderProgramHeader:
        """Parse the 0x50-byte SPH at the start of ``raw``; ShaderFormatError (at ``offset``) when short."""
        if len(raw) < SPH_SIZE:
            raise ShaderFormatError(f"shader program header needs {SPH_SIZE} bytes, {len(raw)} given", offset, "SPH")
        words = _WORDS.unpack_from(raw, 0)
        values = {name: (words[w] >> lo) & ((1 << width) - 1) for name, w, lo, width in _COMMON}
        area = bytes(raw[0x14:SPH_SIZE])
        maps: VtgMaps | PsMaps | bytes
        if values["sph_type"] == 1:
            maps = VtgMaps(*_VTG.unpack(area))
        elif values["sph_type"] == 2:
            maps = PsMaps(*_PS.unpack(area))
        else:
            maps = area
        return cls(**values, maps=maps)

    def to_bytes(self) -> bytes:
        """The 0x50 SPH bytes; ValueError when a field does not fit its bits."""
        words = [0] * 5
        for name, w, lo, width in _COMMON:
            value = getattr(self, name)
            if not 0 <= value < 1 << width:
                raise ValueError(f"SPH {name}={value} does not fit {width} bits")
            words[w] |= value << lo
        if isinstance(self.maps, VtgMaps):
            area = _VTG.pack(*(getattr(self.maps, f.name) for f in fields(self.maps)))
        elif isinstance(self.maps, PsMaps):
            area = _PS.pack(*(getattr(self.maps, f.name) for f in fields(self.maps)))
        else:
            area = bytes(self.maps)
        return _WORDS.pack(*words) + area

    @property
    def sph_type_name(self) -> str:
        """``VTG`` or ``PS`` (``type N`` for other values)."""
        return SPH_TYPES.get(self.sph_type, f"type {self.sph_type}")

    @property
    def shader_type_name(self) -> str:
        """The stage the SPH declares (vertex, tessellation..., pixel), ``type N`` for others."""
        return SHADER_TYPES.get(self.shader_type, f"type {self.shader_type}")

    def summary(self) -> dict[str, Any]:
        """The SPH's set fields as a JSON-ready dict (types, local memory bytes, attribute maps)."""
        out: dict[str, Any] = {
            "sph_type": self.sph_type_name,
            "shader_type": self.shader_type_name,
            "sass_version": self.sass_version,
            "kills_pixels": bool(self.kills_pixels),
            "local_memory": self.shader_local_memory_low_size | self.shader_local_memory_high_size << 24,
        }
        if isinstance(self.maps, (VtgMaps, PsMaps)):
            out["input_attributes"] = self.maps.input_attributes()
            out["output_attributes"] = self.maps.output_attributes()
        return out


@dataclass
class NvnCodeHeader:
    """The 0x30 bytes in front of the SPH: magic 0x12345678, then reserved words."""

    magic: int
    reserved: bytes

    @classmethod
    def from_bytes(cls, raw: bytes, offset: int = 0) -> NvnCodeHeader:
        """Parse the 0x30-byte NVN code header at the start of ``raw``; ShaderFormatError when short."""
        if len(raw) < NVN_HEADER_SIZE:
            raise ShaderFormatError(f"NVN header needs {NVN_HEADER_SIZE} bytes, {len(raw)} given", offset, "NVN")
        (magic,) = struct.unpack_from("<I", raw, 0)
        return cls(magic, bytes(raw[4:NVN_HEADER_SIZE]))

    def to_bytes(self) -> bytes:
        """The header bytes: magic then the reserved bytes as stored."""
        return struct.pack("<I", self.magic) + self.reserved


@dataclass
class NvnCode:
    """A stage's data blob split into its parts: NVN header, SPH (None for a compute program) and
    the Maxwell code; ``prefix`` holds a compute program's bytes between the header and its code."""

    header: NvnCodeHeader
    sph: ShaderProgramHeader | None
    code: bytes
    prefix: bytes = b""

    @property
    def is_compute(self) -> bool:
        """Whether this is a compute program (header magic 0x12345679, no SPH)."""
        return self.header.magic == NVN_COMPUTE_MAGIC

    @classmethod
    def from_bytes(cls, raw: bytes, offset: int = 0, program_offset: int | None = None) -> NvnCode:
        """Parse NVN header, SPH and code; ShaderFormatError when the magic is neither 0x12345678
        nor (compute) 0x12345679. ``program_offset`` (a compute program's code start, from its
        control section) defaults to :data:`COMPUTE_PROGRAM_OFFSET`."""
        header = NvnCodeHeader.from_bytes(raw, offset)
        if header.magic == NVN_COMPUTE_MAGIC:
            start = COMPUTE_PROGRAM_OFFSET if program_offset is None else program_offset
            if not NVN_HEADER_SIZE <= start <= len(raw) or start % 8:
                raise ShaderFormatError(f"compute program offset {start:#x} is not an 8-aligned offset between "
                                        f"the header end and the {len(raw):#x}-byte end", offset, "NVN")
            return cls(header, None, bytes(raw[start:]), bytes(raw[NVN_HEADER_SIZE:start]))
        if header.magic != NVN_MAGIC:
            raise ShaderFormatError(f"NVN code magic {header.magic:#x} is not 0x12345678 (or 0x12345679 for "
                                    "compute)", offset, "NVN")
        sph = ShaderProgramHeader.from_bytes(raw[NVN_HEADER_SIZE:], offset + NVN_HEADER_SIZE)
        return cls(header, sph, bytes(raw[NVN_HEADER_SIZE + SPH_SIZE :]))

    def to_bytes(self) -> bytes:
        """Header, SPH (or a compute program's prefix) and code bytes, concatenated."""
        middle = self.prefix if self.sph is None else self.sph.to_bytes()
        return self.header.to_bytes() + middle + self.code


def is_code(part: bytes) -> bool:
    """Whether ``part`` starts with an NVN code header (graphics 0x12345678 or compute 0x12345679)."""
    return part[:4] in _CODE_MAGICS


# GLSLC control section header (fields known from public NVN tooling; the rest stays bytes).
_CONTROL_HEAD = struct.Struct("<9I")
_CONTROL_PROGRAM = struct.Struct("<10I")
_CONTROL_PROGRAM_AT = 0x6F0
CONTROL_MIN_SIZE = _CONTROL_PROGRAM_AT + _CONTROL_PROGRAM.size


@dataclass
class ControlSectionHeader:
    """The leading fields of a GLSLC control section (magic 0x98761234)."""

    magic: int
    major_version: int
    minor_version: int
    arch: int
    impl: int
    glasm_offset: int
    glasm_size: int
    glasm_unknown0: int
    glasm_unknown1: int
    unknown_6f0: int
    unknown_6f4: int
    program_size: int
    const_buf_size: int
    const_buf_offset: int
    shader_size: int
    program_offset: int
    program_reg_num: int
    per_warp_scratch_size: int
    shader_stage: int

    @classmethod
    def from_bytes(cls, raw: bytes, offset: int = 0) -> ControlSectionHeader:
        """Parse a control section (its fixed part at least); ShaderFormatError when short."""
        if len(raw) < CONTROL_MIN_SIZE:
            raise ShaderFormatError(
                f"control section needs {CONTROL_MIN_SIZE:#x} bytes, {len(raw):#x} given", offset, "control"
            )
        head = _CONTROL_HEAD.unpack_from(raw, 0)
        if head[0] != CONTROL_MAGIC:
            raise ShaderFormatError(f"control section magic {head[0]:#x} is not 0x98761234", offset, "control")
        return cls(*head, *_CONTROL_PROGRAM.unpack_from(raw, _CONTROL_PROGRAM_AT))

    def summary(self) -> dict[str, Any]:
        """Version, program size, constant buffer size, register count and stage, JSON-ready."""
        return {
            "version": f"{self.major_version}.{self.minor_version}",
            "program_size": self.program_size,
            "const_buf_size": self.const_buf_size,
            "registers": self.program_reg_num,
            "stage": self.shader_stage,
        }


def control_program_offset(control: bytes) -> int | None:
    """The program offset a GLSLC control section records (where a compute program's code
    starts in its data), or None when the control section cannot be read."""
    try:
        return ControlSectionHeader.from_bytes(control).program_offset
    except ShaderFormatError:
        return None


def code_summary(data: bytes) -> dict[str, Any]:
    """SPH summary of a stage data blob, or the reason it cannot be read."""
    try:
        sph = NvnCode.from_bytes(data).sph
    except ShaderFormatError as exc:
        return {"error": exc.message}
    return {"error": "compute program: no SPH"} if sph is None else sph.summary()


@dataclass(repr=False)
class NvnProgramFile(ShaderFile):
    """A raw NVN program blob (e.g. sead debug-font shaders): a table of u32 offsets to control
    sections and code blobs, each running to the next offset (the last one to the end).

    ``offsets`` holds the table as read; the parts are the bytes between consecutive offsets.
    """

    format_name: ClassVar[str] = "nvn"

    offsets: list[int]
    parts: list[bytes]

    @classmethod
    def from_bytes(cls, data: bytes) -> NvnProgramFile:
        r = Reader(data, context="nvn")
        first = r.u32()
        if first < 4 or first % 4 or first > len(data):
            raise r.error(f"first offset {first:#x} is not a table end inside the file", 0)
        count = first // 4
        r.seek(0)
        offsets = r.u32_array(count, "offset table")
        previous = first
        for index, off in enumerate(offsets):
            if off < previous or off > len(data):
                raise r.error(f"offset[{index}] {off:#x} is out of order or past the end", 4 * index)
            previous = off
        bounds = [*offsets, len(data)]
        parts = [data[bounds[i] : bounds[i + 1]] for i in range(count)]
        return cls(offsets, parts)

    def to_bytes(self) -> bytes:
        head = 4 * len(self.parts)
        offsets, pos = [], head
        for part in self.parts:
            offsets.append(pos)
            pos += len(part)
        return struct.pack(f"<{len(offsets)}I", *offsets) + b"".join(self.parts)

    def disassemble(self) -> str:
        """Maxwell text of every stage, SPH decoded (:mod:`shaderkit.formats.bnsh.text`)."""
        from shaderkit.formats.bnsh.text import nvn_listing

        return nvn_listing(self)

    def summary(self) -> dict[str, Any]:
        rows = []
        for index, (off, part) in enumerate(zip(self.offsets, self.parts)):
            row: dict[str, Any] = {"index": index, "offset": off, "size": len(part)}
            if part[:4] == _CONTROL_MAGIC_BYTES:
                row["kind"] = "control"
                try:
                    row["control"] = ControlSectionHeader.from_bytes(part, off).summary()
                except ShaderFormatError as exc:
                    row["error"] = exc.message
            elif is_code(part):
                row["kind"] = "code"
                if part[:4] == _CODE_MAGICS[1]:
                    row["compute"] = True
                else:
                    row["sph"] = code_summary(part)
            else:
                row["kind"] = "unknown"
            rows.append(row)
        return {"format": self.format_name, "size": sum(map(len, self.parts)) + 4 * len(self.parts), "parts": rows}
