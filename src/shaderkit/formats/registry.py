"""Which format a byte string is, decided from its first bytes; models load lazily."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from shaderkit.dataclass import dataclass
from shaderkit.formats.base import IdentifiedFile, ShaderFile

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any


def import_target(target: str) -> Any:
    """The object a ``module:name`` string names (the module is imported on first use)."""
    module_name, _, name = target.partition(":")
    module = sys.modules.get(module_name)  # (once imported: without the import machinery's calls)
    return getattr(module if module is not None else importlib.import_module(module_name), name)


@dataclass(frozen=True)
class Embedding:
    """How files of a format are found inside files of other formats (:mod:`.embedded`)."""
    #: the magics that mark one, lying ``magic_at`` bytes into the file
    magics: tuple[bytes, ...]
    #: "module:function" ``(data, offset, memo) -> size or None``: the size of the file at
    #: ``offset`` as its header gives it, None when the bytes there are not a consistent header
    #: (``memo``: a dict one search shares between its calls)
    sizer: str
    magic_at: int = 0


@dataclass(frozen=True)
class FormatSpec:
    """One known format: id, title, how to recognise it, and the model class that reads it."""
    name: str
    title: str
    sniff: Callable[[bytes], bool]
    #: "module:Class" of the ShaderFile subclass; None for formats only identified, not read.
    target: str | None = None
    note: str = ""
    #: how a file of this format is found inside others; None: it is not looked for
    embedded: Embedding | None = None

    def load(self) -> type[ShaderFile]:
        """The model class of this format (imported on first use); LookupError for identify-only formats."""
        if self.target is None:
            raise LookupError(f"{self.name} has no model")
        cls = import_target(self.target)
        assert issubclass(cls, ShaderFile)
        return cls

    def parse(self, data: bytes) -> ShaderFile:
        """Parse ``data`` with this format's model (an IdentifiedFile for identify-only formats)."""
        if self.target is None:
            return IdentifiedFile(data, self.title, self.note, self.name)
        return self.load().from_bytes(data)


def _magic(*magics: bytes, at: int = 0) -> Callable[[bytes], bool]:
    assert all(magics)  # (an empty magic would match only where the data is long enough)
    return lambda data: data.startswith(magics, at)


def _big_endian_nn(magic: bytes) -> Callable[[bytes], bool]:
    # Wii U NintendoWare files: magic, 4 version bytes, then the BOM 0xFEFF (big-endian)
    return lambda data: data[:4] == magic and data[8:10] == b"\xfe\xff"


def _little_endian_nn(magic: bytes) -> Callable[[bytes], bool]:
    # Switch nn::util files: 8-byte signature, version, then the BOM 0xFEFF read little-endian
    return lambda data: data[:4] == magic and data[0xC:0xE] == b"\xff\xfe"


def _is_nvn_program(data: bytes) -> bool:
    # Raw NVN program blob: a table of u32 offsets whose first entry (= the table size) points at
    # a GLSLC control section (magic 0x98761234).
    if len(data) < 0x40:
        return False
    first = int.from_bytes(data[:4], "little")
    return 4 <= first <= 0x100 and first % 4 == 0 and data[first : first + 4] == b"\x34\x12\x76\x98"


def _is_raw_effect(data: bytes) -> bool:
    # bare effect binary (fx_5_0 files, vkd3d's -b fx): fx_4_0 / fx_4_1 tag and a 76-byte
    # header, or the fx_5_0 tag and its 96-byte header (the tags and sizes of dxbc.fx10,
    # without importing the effect model at detection time)
    tag = int.from_bytes(data[:4], "little")
    return (tag in (0xFEFF1001, 0xFEFF1011) and len(data) >= 76) or (tag == 0xFEFF2001 and len(data) >= 96)


def _is_fx2(data: bytes) -> bool:
    # the fx_2_0 tag 0xFEFF0901, or XNA 4's header (0xBCF00BCF, then the offset of that tag)
    if data[:4] == b"\x01\x09\xff\xfe":
        return True
    if data[:4] != b"\xcf\x0b\xf0\xbc" or len(data) < 8:
        return False
    start = int.from_bytes(data[4:8], "little")
    return 8 <= start and data[start : start + 4] == b"\x01\x09\xff\xfe"


def _is_csdr(data: bytes) -> bool:
    text = data.strip()
    if len(text) < 8 or not all(c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\r\n" for c in text[:256]):
        return False
    import base64
    import binascii

    try:
        head = base64.b64decode(text[:16] + b"=" * (-len(text[:16]) % 4))
    except (binascii.Error, ValueError):
        return False
    return head[:4] in (b"DVLB", b"CGFX", b"DVOB", b"DVOJ")


def _is_d3d9(data: bytes) -> bool:
    # bare D3D9 token stream: a vs/ps/tx version token of a profile that exists (no magic: last)
    from shaderkit.formats.d3d9.shader import sniff

    return sniff(data)


FORMATS: tuple[FormatSpec, ...] = (
    FormatSpec("dxbc", "Direct3D shader bytecode (DXBC)", _magic(b"DXBC"),
               "shaderkit.formats.dxbc.container:DxbcContainer",
               embedded=Embedding((b"DXBC",), "shaderkit.formats.dxbc.container:embedded_size")),
    FormatSpec("fx", "Direct3D effect binary without a container (fx_4_x/fx_5_0)", _is_raw_effect,
               "shaderkit.formats.dxbc.raw_effect:RawEffect"),
    FormatSpec("fx2", "Direct3D 9 effect binary (fx_2_0)", _is_fx2,
               "shaderkit.formats.d3d9.effect:D3D9Effect",
               embedded=Embedding((b"\x01\x09\xff\xfe",), "shaderkit.formats.d3d9.effect:embedded_size")),
    FormatSpec("dvlb", "Nintendo 3DS shader binary (SHBIN/DVLB)", _magic(b"DVLB"),
               "shaderkit.formats.dvlb.dvlb:Dvlb",
               embedded=Embedding((b"DVLB",), "shaderkit.formats.dvlb.dvlb:embedded_size")),
    FormatSpec("dvob", "Nintendo 3DS shader object (DVOB/DVOJ)", _magic(b"DVOB", b"DVOJ"),
               "shaderkit.formats.dvlb.dvob:Dvob"),
    FormatSpec("cgfx", "Nintendo 3DS CGFX container (.bcsdr)", _magic(b"CGFX"),
               "shaderkit.formats.dvlb.cgfx:Cgfx",
               embedded=Embedding((b"CGFX",), "shaderkit.formats.dvlb.cgfx:embedded_size")),
    FormatSpec("bnsh", "Nintendo Switch shader binary (BNSH)", _magic(b"BNSH"),
               "shaderkit.formats.bnsh.bnsh:Bnsh",
               embedded=Embedding((b"BNSH",), "shaderkit.formats.nn.binary:embedded_size")),
    FormatSpec("dksh", "deko3d shader module (DKSH, Switch homebrew)", _magic(b"DKSH"),
               "shaderkit.formats.dksh.dksh:Dksh",
               embedded=Embedding((b"DKSH",), "shaderkit.formats.dksh.dksh:embedded_size")),
    FormatSpec("sharcfb", "Wii U AGL binary shader archive (SHARCFB)", _magic(b"BAHS", b"SHAB"),
               "shaderkit.formats.agl.sharcfb:Sharcfb",
               embedded=Embedding((b"BAHS", b"SHAB"), "shaderkit.formats.agl.sharcfb:embedded_size")),
    FormatSpec("sharc", "Wii U AGL shader source archive (SHARC)", _magic(b"AAHS", b"SHAA"),
               "shaderkit.formats.agl.sharc:Sharc",
               embedded=Embedding((b"AAHS", b"SHAA"), "shaderkit.formats.agl.sharc:embedded_size")),
    FormatSpec("gsh", "Wii U GX2 shader (GFD/GSH)", _magic(b"Gfx2"),
               "shaderkit.formats.gfd.gsh:Gsh",
               embedded=Embedding((b"Gfx2",), "shaderkit.formats.gfd.gsh:embedded_size")),
    FormatSpec("yaz0", "Yaz0-compressed file (SZS)", _magic(b"Yaz0"),
               "shaderkit.formats.archive.compressed:Yaz0File"),
    FormatSpec("zstd", "zstd-compressed file (.zs)", _magic(b"\x28\xb5\x2f\xfd"),
               "shaderkit.formats.archive.compressed:ZstdFile"),
    FormatSpec("sarc", "SARC archive", _magic(b"SARC"), "shaderkit.formats.archive.sarc:Sarc",
               embedded=Embedding((b"SARC",), "shaderkit.formats.archive.sarc:embedded_size")),
    FormatSpec("bfsha-wiiu", "Wii U shader archive (BFSHA)", _big_endian_nn(b"FSHA"),
               "shaderkit.formats.bfsha.wiiu:WiiUBfsha",
               embedded=Embedding((b"FSHA",), "shaderkit.formats.bfres.wiiu:embedded_size")),
    FormatSpec("bfsha-switch", "Nintendo Switch shader archive (BFSHA)", _little_endian_nn(b"FSHA"),
               "shaderkit.formats.bfsha.switch:SwitchBfsha",
               embedded=Embedding((b"FSHA",), "shaderkit.formats.nn.binary:embedded_size")),
    FormatSpec("bfsha", "Nintendo shader archive (BFSHA)", _magic(b"FSHA"),
               note="this BFSHA variant is not read; the shaders archives embed are BNSH (Switch) or GX2 (Wii U)"),
    FormatSpec("bfres-wiiu", "Wii U model archive (BFRES)", _big_endian_nn(b"FRES"),
               "shaderkit.formats.bfres.wiiu:WiiUBfres",
               embedded=Embedding((b"FRES",), "shaderkit.formats.bfres.wiiu:embedded_size")),
    FormatSpec("bfres-switch", "Nintendo Switch model archive (BFRES)", _little_endian_nn(b"FRES"),
               "shaderkit.formats.bfres.switch:SwitchBfres",
               embedded=Embedding((b"FRES",), "shaderkit.formats.nn.binary:embedded_size")),
    FormatSpec("bfres", "Nintendo model archive (BFRES)", _magic(b"FRES"),
               note="this BFRES variant (neither Wii U nor Switch byte order) is not read"),
    FormatSpec("rpl", "Wii U executable or library (RPX/RPL, Cafe OS ELF)", _magic(b"\x7fELF\x01\x02\x01\xca\xfe"),
               "shaderkit.formats.rpl.rpl:Rpl"),
    FormatSpec("nvn", "Nintendo Switch raw NVN shader program", _is_nvn_program,
               "shaderkit.formats.bnsh.nvn:NvnProgramFile"),
    FormatSpec("csdr", "Nintendo 3DS base64 shader (.csdr)", _is_csdr,
               "shaderkit.formats.dvlb.csdr:Csdr"),
    FormatSpec("d3d9", "Direct3D 9 shader bytecode (vs/ps 1.x-3.0, tx_1_0)", _is_d3d9,
               "shaderkit.formats.d3d9.shader:D3D9Shader",
               # found by the constant table comment fxc writes first (a bare token stream has no magic)
               embedded=Embedding((b"CTAB",), "shaderkit.formats.d3d9.shader:embedded_size", 8)),
)

def detect(data: bytes) -> FormatSpec | None:
    """The format of ``data``, or None when no known format matches."""
    head = bytes(data[:4096])
    for spec in FORMATS:
        if spec.sniff(head):
            return spec
    return None
