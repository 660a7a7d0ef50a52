"""Wii U BFRES (``FRES`` v3.x, big-endian): enough to find and replace the external files.

Header (kinnay ``bfres.md``): ``FRES``, u32 version, u16 BOM 0xFEFF, u16 header size 0x10, u32 file
size, u32 alignment, name, u32 string table size, string table, 12 dictionary offsets (the 12th:
external files), 12 u16 counts, 2 words. Offsets are relative to the field holding them. An
external file entry is {offset, u32 size}; BFSHA shader archives travel there.

Materials are read for their shader references (FMDL: name, path, skeleton, vertex buffers,
shape dictionary, material dictionary at +0x18; FMAT: name, flags, counts, render infos, render
state, shader assign at +0x24; shader assign: archive name, shading model name, u32 revision,
u8 attribute/sampler assign counts, u16 option count, then attribute, sampler and option
dictionaries whose data are the value strings). A damaged model section does not hide the
external files: its error is kept in ``materials_error``.

Everything else (models, textures, animations, GPU data) stays the original bytes. A replaced
file of the same size is written in place; of another size it is written in place when it is the
last thing in the file (the file grows or shrinks), else appended on the file alignment and the
entry pointed at it (the old bytes stay where they were).
"""

from __future__ import annotations

import struct
from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.bfres.members import ExternalFile, ExternalFileMembers
from shaderkit.formats.bfsha.wiiu import _name, _rel, read_dict
from shaderkit.io.reader import Reader

SECTIONS = (
    "models", "textures", "skeletal_animations", "shader_param_animations", "color_animations",
    "texture_srt_animations", "texture_pattern_animations", "bone_visibility_animations",
    "material_visibility_animations", "shape_animations", "scene_animations", "external_files",
)


@dataclass
class ShaderAssign:
    """Which shader a material uses: archive, shading model and option choices."""

    model: str
    material: str
    shader_archive: str
    shading_model: str
    revision: int
    options: dict[str, str] = field(default_factory=dict)
    attribute_assigns: dict[str, str] = field(default_factory=dict)
    sampler_assigns: dict[str, str] = field(default_factory=dict)


def _string_dict(r: Reader, at: int | None, what: str) -> dict[str, str]:
    return {e.name: ("" if e.target is None else r.cstring_at(e.target, "utf-8", what))
            for e in read_dict(r, at, what)}


def _read_materials(r: Reader, models_at: int | None) -> list[ShaderAssign]:
    out = []
    for i, model in enumerate(read_dict(r, models_at, "models")):
        if model.target is None:
            continue
        with r.scope(f"models[{i}]"):
            if r.unpack_at(model.target, "4s", "magic")[0] != b"FMDL":
                raise r.error("model lacks its FMDL magic", model.target)
            for k, mat in enumerate(read_dict(r, _rel(r, model.target + 0x18), "materials")):
                if mat.target is None:
                    continue
                with r.scope(f"materials[{k}]"):
                    if r.unpack_at(mat.target, "4s", "magic")[0] != b"FMAT":
                        raise r.error("material lacks its FMAT magic", mat.target)
                    assign_at = _rel(r, mat.target + 0x24)
                    if assign_at is None:
                        continue
                    (revision,) = r.unpack_at(assign_at + 8, "I", "revision")
                    out.append(ShaderAssign(
                        model.name, mat.name, _name(r, assign_at), _name(r, assign_at + 4), revision,
                        _string_dict(r, _rel(r, assign_at + 0x18), "options"),
                        _string_dict(r, _rel(r, assign_at + 0x10), "attribute_assigns"),
                        _string_dict(r, _rel(r, assign_at + 0x14), "sampler_assigns"),
                    ))
    return out


@dataclass(repr=False)
class WiiUBfres(ShaderFile, ExternalFileMembers):
    """A Wii U BFRES (big-endian ``FRES``): header, sub-file counts and the embedded files (shader archives among them)."""
    format_name = "bfres-wiiu"

    name: str
    version: tuple[int, int, int, int]
    alignment: int
    counts: dict[str, int]
    external_files: list[ExternalFile]
    data: bytes = field(repr=False)
    materials: list[ShaderAssign] = field(default_factory=list)
    materials_error: str = ""

    @classmethod
    def from_bytes(cls, data: bytes) -> WiiUBfres:
        r = Reader(data, endian=">", context="FRES")
        r.expect(b"FRES")
        version = tuple(r.unpack("4B", "version"))
        bom, _hsize, file_size, alignment = r.unpack("HHII", "header")
        if bom != 0xFEFF:
            raise r.error("only the big-endian (Wii U) FRES is read here", 8)
        if file_size != len(data):
            raise r.error(f"file size field {file_size} but {len(data)} bytes given", 0xC)
        name = _name(r, 0x14)
        counts = dict(zip(SECTIONS, r.unpack_at(0x50, "12H", "counts")))
        files = []
        for i, entry in enumerate(read_dict(r, _rel(r, 0x4C), "external_files")):
            with r.scope(f"external_files[{i}]"):
                if entry.target is None:
                    raise r.error(f"external file {entry.name!r} has no entry")
                at = _rel(r, entry.target)
                (size,) = r.unpack_at(entry.target + 4, "I", "size")
                blob = b"" if at is None else r.at(at).read(size, "external file")
                files.append(ExternalFile(entry.name, blob, entry.target, (at or 0, size)))
        materials: list[ShaderAssign] = []
        error = ""
        try:
            materials = _read_materials(r, _rel(r, 0x20))
        except ShaderFormatError as exc:  # the external files stay reachable
            error = str(exc)
        return cls(name, version, alignment, counts, files, data, materials, error)

    def material_programs(self) -> list[str]:
        """Per material, the member path of its program in an embedded shader archive
        (``Archive.bfsha//model/index``), or why there is none."""
        from shaderkit.formats.bfsha.wiiu import WiiUBfsha

        def locate(archive: WiiUBfsha, m: ShaderAssign, name: str) -> str:
            index, _ = archive.model(m.shading_model).find_program(m.options, ignore_unknown=True)
            return f"{name}//{m.shading_model}/{index}"

        return self._programs_of(self.materials, WiiUBfsha.from_bytes, locate)


    def to_bytes(self) -> bytes:
        out = bytearray(self.data)
        for f in self.external_files:
            at, size = f.original
            if len(f.data) == size:
                out[at : at + size] = f.data
                continue
            if at + size >= len(self.data) and not any(self.data[at + size :]):
                tail = len(out) - (at + size)
                del out[at:]
                out += f.data
                out += bytes(-len(out) % self.alignment if tail else 0)
            else:
                out += bytes(-len(out) % self.alignment)
                at = len(out)
                out += f.data
            struct.pack_into(">iI", out, f.entry_offset, at - f.entry_offset, len(f.data))
        struct.pack_into(">I", out, 0xC, len(out))
        return bytes(out)

    def summary(self) -> dict[str, Any]:
        return {
            "format": self.format_name,
            "name": self.name,
            "version": ".".join(str(v) for v in self.version),
            "counts": {k: v for k, v in self.counts.items() if v},
            "external_files": [{"name": f.name, "size": len(f.data)} for f in self.external_files],
            "materials": [
                {"model": m.model, "material": m.material, "shader_archive": m.shader_archive,
                 "shading_model": m.shading_model, "options": len(m.options), "program": program}
                for m, program in zip(self.materials, self.material_programs())
            ],
            **({"materials_error": self.materials_error} if self.materials_error else {}),
        }


def is_wiiu_fres(data: bytes) -> bool:
    """True for a big-endian ``FRES`` (Wii U BFRES) header."""
    return data[:4] == b"FRES" and data[8:10] == b"\xfe\xff"


def is_wiiu_fsha(data: bytes) -> bool:
    """True for a big-endian ``FSHA`` (Wii U BFSHA) header."""
    return data[:4] == b"FSHA" and data[8:10] == b"\xfe\xff"


_WIIU_HEADER = struct.Struct(">4s4sHHI")  # magic, version, BOM, header size, file size


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the Wii U BFRES or BFSHA at ``offset`` of ``data`` as its big-endian header gives
    it, or None when the bytes there are not a consistent header."""
    head = bytes(data[offset : offset + _WIIU_HEADER.size])
    if len(head) < _WIIU_HEADER.size or not (is_wiiu_fres(head) or is_wiiu_fsha(head)):
        return None
    header_size, size = _WIIU_HEADER.unpack(head)[3:]
    return size if _WIIU_HEADER.size <= header_size < size <= len(data) - offset else None


__all__ = ["ExternalFile", "ShaderFormatError", "WiiUBfres", "is_wiiu_fres", "is_wiiu_fsha"]
