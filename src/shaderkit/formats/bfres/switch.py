"""Switch BFRES (``FRES    ``, nn::util binary file, little-endian): external files and the
shader each material uses.

Facts: KillzXGaming/BfresLibrary (``Switch/ResFileParser.cs``, the ShaderAssign loaders) and the
bfrass Switch loader agree on these offsets; no Switch BFRES is in the corpus, so tests build
synthetic files from them.

* 0x00 nn::util header: ``FRES    ``, u8 micro, u8 minor, u16 major, u16 BOM 0xFEFF, u8 alignment
  shift, u8 address size, u32 file-name offset, u16 flags, u16 first block, u32 ``_RLT`` offset,
  u32 file size.
* 0x20 name, model array, model ``_DIC``; from major 9, 32 reserved bytes (``o`` below is 0x38,
  or 0x58 from major 9); then (array, ``_DIC``) for skeletal, material, bone-visibility, shape
  and scene animations at ``o``..``o+0x48``; memory pool ``o+0x50``, buffer info ``o+0x58``
  (before major 3 two pools and two infos, shifting what follows by 0x10); external-file array
  and ``_DIC`` at ``o+0x60``; u64; string pool; u32 string-pool size; u16 model count
  (``o+0x84``); from major 9 two u16 counts; u16 counts of the five animation kinds and the
  external files; from major 9 u8 external flags, u8.
* external file 0x10: u64 data offset, u32 size, u32.
* model (0x78 each): ``FMDL``, name at +0x08 (+0x10 before major 9: a 0x10-byte block header),
  path, skeleton, vertex buffers, shapes, shape ``_DIC``, materials, material ``_DIC``; u16
  vertex-buffer, shape and material counts at +0x68.
* material (0xB8; 0xB0 before major 3 and from 10; 0xA8 in 9): ``FMAT``, name at the model's
  base, shader assign at base+0x18. From major 10 a shader-info pointer at +0x10 leads to the
  shared assign and to per-material option values (bool bits, then strings, then i16 indices).
* shader assign: archive name, shading-model name, (values, ``_DIC``) for attribute, sampler and
  option assigns, u32 revision, u8, u8, u16 counts.

Everything else (models, textures, GPU buffers) stays the original bytes. An external file of
the same or a smaller size is written in place (the rest of its old range zeroed); a larger one
is appended on the file alignment and its entry pointed at it. Offsets are file-relative and
the entry's pointer slot is already in the relocation table, so ``_RLT`` needs no change.
"""

from __future__ import annotations

import struct
from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.bfres.members import ExternalFile, ExternalFileMembers
from shaderkit.formats.bfres.wiiu import ShaderAssign
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.strpool import read_string
from shaderkit.io.reader import Reader

ANIMATIONS = ("skeletal_animations", "material_animations", "bone_visibility_animations",
              "shape_animations", "scene_animations")
EXTERNAL_ENTRY_SIZE = 0x10
MODEL_SIZE = 0x78
#: external flag: the file is a string table for other BFRES files, its "external files" are ids
HOLDS_EXTERNAL_STRINGS = 1 << 2
DEFAULT_CHOICE = "<default>"


def material_size(major: int) -> int:
    """Bytes one FMAT takes in the material array of this version."""
    return 0xB0 if major >= 10 else 0xA8 if major == 9 else 0xB0 if major < 3 else 0xB8


def _ptr(r: Reader, at: int, what: str) -> int:
    (value,) = r.unpack_at(at, "Q", what)
    if value >= len(r.data):
        raise r.error(f"{what} {value:#x} points outside the {len(r.data):#x}-byte file", at)
    return int(value)


def _string(r: Reader, at: int, what: str) -> str:
    target = _ptr(r, at, what)
    return "" if target == 0 else read_string(r, target, what)


def _keys(r: Reader, at: int, what: str) -> list[str]:
    if at == 0:
        return []
    with r.scope(what):
        entries = dic.read(r.at(at), at, lambda p: "" if p == 0 else read_string(r, p, "key"))
    return [e.key for e in entries[1:]]


def _strings(r: Reader, at: int, count: int, what: str) -> list[str]:
    if at == 0 or count == 0:
        return []
    r.check_count(count, 8, what, offset=at)
    return [_string(r, at + 8 * i, what) for i in range(count)]


def _pairs(keys: list[str], values: list[str]) -> dict[str, str]:
    return {k: v for k, v in zip(keys, values)}


@dataclass(repr=False)
class SwitchBfres(ShaderFile, ExternalFileMembers):
    """A Switch BFRES: header, section counts, embedded files and per-material shader choices."""

    format_name = "bfres-switch"

    name: str
    #: (major, minor, micro)
    version: tuple[int, int, int]
    alignment_shift: int
    counts: dict[str, int]
    external_flags: int
    external_files: list[ExternalFile]
    data: bytes = field(repr=False)
    materials: list[ShaderAssign] = field(default_factory=list)
    #: why the materials could not be read (the external files stay reachable)
    materials_error: str = ""

    @property
    def alignment(self) -> int:
        """The file alignment in bytes (``1 << alignment_shift``)."""
        return 1 << self.alignment_shift

    @classmethod
    def from_bytes(cls, data: bytes) -> SwitchBfres:
        """Parse a Switch BFRES; raises ShaderFormatError with the offset on damaged input."""
        r = Reader(data, endian="<", context="FRES")
        r.expect(b"FRES", "signature")
        r.skip(4)
        micro, minor, major, bom, shift = r.unpack("BBHHB", "version")
        if bom != 0xFEFF:
            raise r.error(f"byte-order mark {bom:#06x}: only the little-endian (Switch) FRES is read here", 0xC)
        if shift > 16:
            raise r.error(f"alignment shift {shift} is past 16", 0xE)
        (file_size,) = r.unpack_at(0x1C, "I", "file size")
        if file_size != len(data):
            raise r.error(f"file size field {file_size} but {len(data)} bytes given", 0x1C)
        name = _string(r, 0x20, "name")
        o = 0x58 if major >= 9 else 0x38
        shift_pools = 0x10 if major < 3 else 0
        counts_at = o + 0x84 + shift_pools
        (n_models,) = r.unpack_at(counts_at, "H", "model count")
        counts_at += 6 if major >= 9 else 2
        anim_counts = r.unpack_at(counts_at, "5H", "animation counts")
        (n_external,) = r.unpack_at(counts_at + 10, "H", "external file count")
        flags = r.unpack_at(counts_at + 12, "B", "external flags")[0] if major >= 9 else 0
        counts = {"models": n_models, **dict(zip(ANIMATIONS, anim_counts)), "external_files": n_external}

        files: list[ExternalFile] = []
        if not (major >= 10 and flags & HOLDS_EXTERNAL_STRINGS):
            external_at = _ptr(r, o + 0x60 + shift_pools, "external file array")
            names = _keys(r, _ptr(r, o + 0x68 + shift_pools, "external file dictionary"), "external_files")
            if len(names) != n_external:
                raise r.error(f"{n_external} external files but the dictionary names {len(names)}", counts_at + 10)
            if n_external and not external_at:
                raise r.error(f"{n_external} external files with no array", o + 0x60 + shift_pools)
            r.check_count(n_external, EXTERNAL_ENTRY_SIZE, "external files", offset=external_at)
            for i, file_name in enumerate(names):
                entry = external_at + EXTERNAL_ENTRY_SIZE * i
                with r.scope(f"external_files[{i}]"):
                    at = _ptr(r, entry, "data offset")
                    (size,) = r.unpack_at(entry + 8, "I", "size")
                    blob = r.at(at).read(size, "external file")
                    files.append(ExternalFile(file_name, blob, entry, (at, size)))
        materials: list[ShaderAssign] = []
        error = ""
        try:
            materials = _read_materials(r, major, _ptr(r, 0x28, "model array"),
                                        _keys(r, _ptr(r, 0x30, "model dictionary"), "models"))
        except ShaderFormatError as exc:  # the external files stay reachable
            error = str(exc)
        return cls(name, (major, minor, micro), shift, counts, flags, files, data, materials, error)

    def material_programs(self) -> list[str]:
        """Per material, where its program is (``Archive.bfsha//MODEL.bnsh variation N``) in an
        embedded Switch shader archive, or why it cannot be found."""
        from shaderkit.formats.bfsha.switch import SwitchBfsha

        def locate(archive: SwitchBfsha, m: ShaderAssign, name: str) -> str:
            model = archive.model(m.shading_model)
            options = {k: v for k, v in m.options.items() if v != DEFAULT_CHOICE}
            index, _ = model.find_program(options, ignore_unknown=True)
            return f"{name}//{m.shading_model}.bnsh variation {model.programs[index].variation}"

        return self._programs_of(self.materials, SwitchBfsha.from_bytes, locate)

    # -- writing ------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The file with every external file put back (in place, or appended when it grew)."""
        out = bytearray(self.data)
        for f in self.external_files:
            at, size = f.original
            if len(f.data) <= size:
                out[at : at + size] = f.data + bytes(size - len(f.data))
            else:
                out += bytes(-len(out) % self.alignment)
                at = len(out)
                out += f.data
            struct.pack_into("<QI", out, f.entry_offset, at, len(f.data))
        out += bytes(-len(out) % self.alignment if len(out) != len(self.data) else 0)
        struct.pack_into("<I", out, 0x1C, len(out))
        return bytes(out)

    def summary(self) -> dict[str, Any]:
        """The header, counts, external files and material -> program table, for ``info``."""
        return {
            "format": self.format_name,
            "name": self.name,
            "version": ".".join(str(v) for v in self.version),
            "alignment": self.alignment,
            "external_flags": self.external_flags,
            "counts": {k: v for k, v in self.counts.items() if v},
            "external_files": [{"name": f.name, "size": len(f.data)} for f in self.external_files],
            "materials": [
                {"model": m.model, "material": m.material, "shader_archive": m.shader_archive,
                 "shading_model": m.shading_model, "options": len(m.options), "program": program}
                for m, program in zip(self.materials, self.material_programs())
            ],
            **({"materials_error": self.materials_error} if self.materials_error else {}),
        }


def _read_materials(r: Reader, major: int, models_at: int, model_names: list[str]) -> list[ShaderAssign]:
    out: list[ShaderAssign] = []
    if model_names and not models_at:
        raise r.error(f"{len(model_names)} models with no array", 0x28)
    r.check_count(len(model_names), MODEL_SIZE, "models", offset=models_at)
    base_shift = 0x08 if major >= 9 else 0x10
    for i, model_name in enumerate(model_names):
        at = models_at + MODEL_SIZE * i
        with r.scope(f"models[{i}]"):
            if r.unpack_at(at, "4s", "magic")[0] != b"FMDL":
                raise r.error("model lacks its FMDL magic", at)
            materials_at = _ptr(r, at + base_shift + 0x30, "material array")
            (n_materials,) = r.unpack_at(at + 0x6C, "H", "material count")
            if n_materials and not materials_at:
                raise r.error(f"{n_materials} materials with no array", at + base_shift + 0x30)
            r.check_count(n_materials, material_size(major), "materials", offset=materials_at)
            for k in range(n_materials):
                mat = materials_at + material_size(major) * k
                with r.scope(f"materials[{k}]"):
                    if r.unpack_at(mat, "4s", "magic")[0] != b"FMAT":
                        raise r.error("material lacks its FMAT magic", mat)
                    assign = (_read_assign_v10(r, mat, model_name) if major >= 10
                              else _read_assign(r, mat + base_shift, model_name))
                    if assign is not None:
                        out.append(assign)
    return out


def _read_assign(r: Reader, base: int, model: str) -> ShaderAssign | None:
    material = _string(r, base, "material name")
    at = _ptr(r, base + 0x18, "shader assign")
    if at == 0:
        return None
    revision, n_attributes, n_samplers, n_options = r.unpack_at(at + 0x40, "IBBH", "shader assign counts")

    def assigns(values_at: int, dict_at: int, count: int, what: str) -> dict[str, str]:
        keys = _keys(r, _ptr(r, at + dict_at, f"{what} dictionary"), what)
        if len(keys) != count:
            raise r.error(f"{count} {what} but the dictionary names {len(keys)}", at + 0x44)
        return _pairs(keys, _strings(r, _ptr(r, at + values_at, what), count, what))

    return ShaderAssign(
        model, material, _string(r, at, "archive name"), _string(r, at + 8, "shading model name"), revision,
        assigns(0x30, 0x38, n_options, "options"),
        assigns(0x10, 0x18, n_attributes, "attribute assigns"),
        assigns(0x20, 0x28, n_samplers, "sampler assigns"),
    )


def _read_assign_v10(r: Reader, mat: int, model: str) -> ShaderAssign | None:
    material = _string(r, mat + 0x08, "material name")
    info = _ptr(r, mat + 0x10, "shader info")
    if info == 0:
        return None
    at = _ptr(r, info, "shader assign")
    if at == 0:
        return None
    attribute_keys = _keys(r, _ptr(r, at + 0x30, "attribute dictionary"), "attribute assigns")
    sampler_keys = _keys(r, _ptr(r, at + 0x38, "sampler dictionary"), "sampler assigns")
    option_keys = _keys(r, _ptr(r, at + 0x40, "option dictionary"), "options")
    n_attributes, n_samplers, n_bools, n_choices = r.unpack_at(info + 0x44, "BBHH", "shader info counts")

    def chosen(values: list[str], indices_at: int, used: int, keys: list[str], wide: bool) -> dict[str, str]:
        # an index table: the used indices, then one index per key (-1: the model's default)
        if indices_at == 0:
            return _pairs(keys, values)
        width = 2 if wide else 1
        r.check_count(used + len(keys), width, "assign indices", offset=indices_at)
        raw = r.unpack_at(indices_at + width * used, f"{len(keys)}{'h' if wide else 'b'}", "assign indices")
        return {k: (values[i] if 0 <= i < len(values) else DEFAULT_CHOICE) for k, i in zip(keys, raw)}

    attributes = chosen(_strings(r, _ptr(r, info + 0x08, "attribute values"), n_attributes, "attribute values"),
                        _ptr(r, info + 0x10, "attribute indices"), n_attributes, attribute_keys, False)
    samplers = chosen(_strings(r, _ptr(r, info + 0x18, "sampler values"), n_samplers, "sampler values"),
                      _ptr(r, info + 0x20, "sampler indices"), n_samplers, sampler_keys, False)
    toggles_at = _ptr(r, info + 0x28, "option toggles")
    choices: list[str] = []
    if n_bools:
        words = -(-n_bools // 64)
        bits = r.unpack_at(toggles_at, f"{words}Q", "option toggles") if toggles_at else (0,) * words
        choices = ["True" if bits[i // 64] >> (i % 64) & 1 else "False" for i in range(n_bools)]
    choices += _strings(r, _ptr(r, info + 0x30, "option strings"), max(n_choices - n_bools, 0), "option strings")
    options = chosen(choices, _ptr(r, info + 0x38, "option indices"), n_choices, option_keys, True)
    return ShaderAssign(model, material, _string(r, at, "archive name"), _string(r, at + 8, "shading model name"),
                        0, options, attributes, samplers)


def is_switch_fres(data: bytes) -> bool:
    """True for a little-endian (Switch) FRES header."""
    return data[:4] == b"FRES" and data[0xC:0xE] == b"\xff\xfe"


__all__ = ["ExternalFile", "ShaderFormatError", "SwitchBfres", "is_switch_fres", "material_size"]
