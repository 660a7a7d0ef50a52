"""Switch BFSHA (``FSHA``, nn::util binary file, little-endian): shading models, options, key
tables, programs -> variations of the embedded BNSH.

**Unverified layout.** No Switch BFSHA is in the corpus; this follows the layout that
KillzXGaming/ShaderLibrary's writer (``Switch/BshaSaver.cs``) produces and its reader
(``Switch/BfshaLoader.cs``) reads, where the two agree. Its ``Structs.cs`` differs in places
(the model count at 0x70 rather than 0x78 for v7+, the option field order); the writer was taken as
the authority. Tests build synthetic files from these facts.

* 0x00 nn::util header (``FSHA    ``, version micro/minor/major u16, BOM, alignment shift, ...).
* 0x20 u64 archive offset, u64 string pool, u32 string pool size, u32, u64 name, u64 path,
  u64 model array, u64 model ``_DIC``, 24 bytes, (v7+) 8 bytes, u16 model count, u16 flags, u32.
* shading model (0xC0 before v7, 0xE8 v7, 0x100 v8+): u64 name, pairs (array, ``_DIC``) for
  static options, dynamic options, attributes, samplers, (v8+) images, uniform blocks; u64
  uniforms; (v7+) storage pair + u64; u64 programs, key table, archive, symbols, BNSH; 3 u64,
  (v7+) 2 u64; u32 uniform count, (v7+) u32 storage count, i32 default program, u16 static /
  dynamic option / program counts, (<v7) u16, u8 static / dynamic key length, u8 attribute and
  sampler counts, (v8+) u8 image count, u8 uniform block count, u8, 4 block indices, padding.
* option 0x28: u64 name, choice ``_DIC``, choice values (u32 each), u16 choice count, then before
  v9 u16 block offset, u8 default, u8 key offset, u8 word index, u8 shift, u32 mask, u32; from v9
  u16 default, u16, u8 block offset, u8 key offset, u32 mask, u8 word index, u8 shift, u16.
* program (0x30 before v5, 0x38 v5-v7, 0x40 v8+): table pointers (sampler, [image,] block,
  [storage]), u64 BNSH variation, u64 model, u32 used attributes, u16 flags, u16 counts...
  The variation index is ``(variation - (BNSH + 0xC0)) / 0x40``.
* names point at a string-pool entry: u16 length, the characters, NUL.

Rebuilding writes the original bytes back with the key table, option defaults and embedded BNSH
(same size only: a resized BNSH would need the relocation table laid out again) re-packed.
"""

from __future__ import annotations

import struct
from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.bfsha.wiiu import LookupFailed, ShaderOption, ShadingModel
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.strpool import read_string
from shaderkit.io.reader import Reader

BNSH_VARIATIONS = 0xC0
BNSH_VARIATION_SIZE = 0x40


def model_size(major: int) -> int:
    return 0x100 if major >= 8 else 0xE8 if major == 7 else 0xC0


def program_size(major: int) -> int:
    return 0x40 if major >= 8 else 0x38 if major >= 5 else 0x30


@dataclass
class SwitchShaderProgram:
    """One program of a Switch shading model: flags, used attributes and its variation in the BNSH."""
    index: int
    flags: int
    used_attribute_flags: int
    #: index of this program's variation in the model's embedded BNSH
    variation: int
    offset: int = field(default=0, repr=False, compare=False)


@dataclass
class SwitchShadingModel(ShadingModel):
    """A Switch shading model: the Wii U fields plus the embedded BNSH and its offset."""
    bnsh_offset: int = field(default=0, repr=False)
    bnsh: bytes = field(default=b"", repr=False)


def _ptr(r: Reader, at: int, what: str) -> int:
    (value,) = r.unpack_at(at, "Q", what)
    if value >= len(r.data):
        raise r.error(f"{what} {value:#x} points outside the {len(r.data):#x}-byte file", at)
    return int(value)


def _name(r: Reader, at: int, what: str = "name") -> str:
    target = _ptr(r, at, what)
    return "" if target == 0 else read_string(r, target, what)


def _dict_keys(r: Reader, at: int, what: str) -> list[str]:
    if at == 0:
        return []
    with r.scope(what):
        entries = dic.read(r.at(at), at, lambda p: "" if p == 0 else read_string(r, p, "key"))
    return [e.key for e in entries[1:]]


@dataclass(repr=False)
class SwitchBfsha(ShaderFile):
    """A Switch BFSHA: shading models, each with its programs and an embedded BNSH."""
    format_name = "bfsha-switch"

    name: str
    path: str
    version: tuple[int, int, int]
    models: list[SwitchShadingModel]
    data: bytes = field(repr=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> SwitchBfsha:
        r = Reader(data, endian="<", context="FSHA")
        r.expect(b"FSHA", "signature")
        r.skip(4)
        micro, minor, major, bom = r.unpack("BBHH", "version")
        if bom != 0xFEFF:
            raise r.error(f"byte-order mark {bom:#06x}: only the little-endian (Switch) FSHA is read here", 0xC)
        (file_size,) = r.unpack_at(0x1C, "I", "file size")
        if file_size != len(data):
            raise r.error(f"file size field {file_size} but {len(data)} bytes given", 0x1C)
        name = _name(r, 0x38)
        path = _name(r, 0x40)
        models_at = _ptr(r, 0x48, "model array")
        keys = _dict_keys(r, _ptr(r, 0x50, "model dictionary"), "models")
        (count,) = r.unpack_at(0x78 if major >= 7 else 0x70, "H", "model count")
        if count != len(keys):
            raise r.error(f"{count} models but the dictionary names {len(keys)}")
        r.check_count(count, model_size(major), "models", offset=models_at)
        models = []
        for i in range(count):
            with r.scope(f"model[{i}]"):
                models.append(_read_model(r, models_at + i * model_size(major), major))
        return cls(name, path, (major, minor, micro), models, data)

    def to_bytes(self) -> bytes:
        out = bytearray(self.data)
        for model in self.models:
            for option in model.options():
                # the default choice index: u8 at +0x1C before v9, u16 at +0x1A from v9
                if self.version[0] >= 9:
                    struct.pack_into("<H", out, option.offset + 0x1A, option.default_choice)
                else:
                    out[option.offset + 0x1C] = option.default_choice
            flat = [w for words in model.key_table for w in words]
            if len(flat) != model.key_length * len(model.programs):
                raise ValueError(f"key table of {model.name!r} must keep one key per program")
            if flat:
                struct.pack_into(f"<{len(flat)}I", out, model.key_table_offset, *flat)
            original = self.data[model.bnsh_offset : model.bnsh_offset + len(model.bnsh)]
            if model.bnsh_offset and model.bnsh != original:
                if len(model.bnsh) != len(original):
                    raise ValueError("a BNSH of another size cannot be written into a Switch BFSHA yet")
                out[model.bnsh_offset : model.bnsh_offset + len(model.bnsh)] = model.bnsh
        return bytes(out)

    def model(self, name: str) -> SwitchShadingModel:
        """The shading model called ``name``; LookupFailed naming the models when there is none."""
        for model in self.models:
            if model.name == name:
                return model
        raise LookupFailed(f"no shading model {name!r} (models: {', '.join(m.name for m in self.models)})")

    def disassemble(self) -> str:
        """Maxwell text of each shading model's embedded BNSH, under ``// ==== model NAME``."""
        from shaderkit.formats.bnsh.bnsh import Bnsh

        parts = []
        for i, model in enumerate(self.models):
            if not model.bnsh:
                continue
            try:
                text = Bnsh.from_bytes(model.bnsh).disassemble()
            except ShaderFormatError as exc:
                where = f"model[{i}].bnsh" + (f".{exc.context}" if exc.context else "")
                raise ShaderFormatError(exc.message, exc.offset, where) from None
            parts.append(f"// ==== model {model.name} (BNSH at {model.bnsh_offset:#x})\n{text}")
        return "\n".join(parts) if parts else "// no embedded BNSH\n"

    def summary(self) -> dict[str, Any]:
        return {
            "format": self.format_name,
            "name": self.name,
            "version": ".".join(str(v) for v in self.version),
            "layout": "unverified (no Switch BFSHA sample yet)",
            "models": [
                {
                    "name": m.name,
                    "static_options": len(m.static_options),
                    "dynamic_options": len(m.dynamic_options),
                    "programs": len(m.programs),
                    "key_length": [m.static_key_length, m.dynamic_key_length],
                    "bnsh_size": len(m.bnsh),
                    "options": {o.name: {"choices": o.choices, "dynamic": o in m.dynamic_options}
                                for o in m.options()},
                }
                for m in self.models
            ],
        }


def _read_options(r: Reader, at: int, count: int, major: int, what: str) -> list[ShaderOption]:
    if count and at == 0:
        raise r.error(f"{count} {what} with no array")
    r.check_count(count, 0x28, what, offset=at)
    options = []
    for i in range(count):
        base = at + 0x28 * i
        with r.scope(f"{what}[{i}]"):
            name = _name(r, base)
            choices = _dict_keys(r, _ptr(r, base + 8, "choice dictionary"), "choices")
            values_at = _ptr(r, base + 0x10, "choice values")
            if major >= 9:
                n, default, _, block, key_offset, mask, word, shift = r.unpack_at(base + 0x18, "HHHBBIBB", what)
            else:
                n, block, default, key_offset, word, shift, mask = r.unpack_at(base + 0x18, "HHBBBBI", what)
            if n != len(choices):
                raise r.error(f"{n} choices but the dictionary names {len(choices)}", base + 0x18)
            values: list[int] = []
            if values_at and n:
                r.check_count(n, 4, "choice values", offset=values_at)
                values = list(r.unpack_at(values_at, f"{n}I", "choice values"))
            options.append(ShaderOption(name, choices, default, block, 0, key_offset, word, shift, mask, values, base))
    return options


def _read_model(r: Reader, at: int, major: int) -> SwitchShadingModel:
    names = ["name", "static_options", "static_dict", "dynamic_options", "dynamic_dict", "attributes",
             "attribute_dict", "samplers", "sampler_dict"]
    if major >= 8:
        names += ["images", "image_dict"]
    names += ["uniform_blocks", "uniform_block_dict", "uniforms"]
    if major >= 7:
        names += ["storage", "storage_dict", "storage_unknown"]
    names += ["programs", "key_table", "archive", "symbols", "bnsh"]
    ptr = {n: _ptr(r, at + 8 * i, n) for i, n in enumerate(names) if n != "name"}
    pos = at + 8 * len(names) + 8 * (5 if major >= 7 else 3)
    if major >= 7:
        _uniforms, _storage, default_program, n_static, n_dynamic, n_programs = r.unpack_at(pos, "IIiHHH")
        pos += 18
    else:
        _uniforms, default_program, n_static, n_dynamic, n_programs, _ = r.unpack_at(pos, "IiHHHH")
        pos += 16
    sk, dk = r.unpack_at(pos, "BB", "key lengths")
    name = _name(r, at)
    static = _read_options(r, ptr["static_options"], n_static, major, "static_options")
    dynamic = _read_options(r, ptr["dynamic_options"], n_dynamic, major, "dynamic_options")
    bnsh = b""
    if ptr["bnsh"]:
        (size,) = r.unpack_at(ptr["bnsh"] + 0x1C, "I", "BNSH size")
        bnsh = r.at(ptr["bnsh"]).read(size, "embedded BNSH")
        if bnsh[:4] != b"BNSH":
            raise r.error(f"embedded shader file starts with {bnsh[:4]!r}, not BNSH", ptr["bnsh"])
    n_variations = int.from_bytes(bnsh[0x7C:0x80], "little") if len(bnsh) >= 0x80 else 0
    key_length = sk + dk
    key_table: list[list[int]] = []
    programs: list[SwitchShaderProgram] = []
    if n_programs:
        if not ptr["programs"] or not ptr["key_table"]:
            raise r.error(f"{n_programs} programs but no program array or key table", at)
        r.check_count(n_programs, program_size(major), "programs", offset=ptr["programs"])
        r.check_count(n_programs * key_length, 4, "key table", offset=ptr["key_table"])
        flat = r.unpack_at(ptr["key_table"], f"{n_programs * key_length}I", "key table")
        key_table = [list(flat[i * key_length : (i + 1) * key_length]) for i in range(n_programs)]
        tables = 4 if major >= 8 else 3 if major == 7 else 2
        for i in range(n_programs):
            base = ptr["programs"] + i * program_size(major)
            with r.scope(f"program[{i}]"):
                variation_ptr = _ptr(r, base + 8 * tables, "variation")
                used, flags = r.unpack_at(base + 8 * tables + 16, "IH", "program")
                index, rest = divmod(variation_ptr - (ptr["bnsh"] + BNSH_VARIATIONS), BNSH_VARIATION_SIZE)
                if rest or not 0 <= index < n_variations:
                    raise r.error(f"variation pointer {variation_ptr:#x} is not one of the "
                                  f"{n_variations} variations of the BNSH at {ptr['bnsh']:#x}", base + 8 * tables)
                programs.append(SwitchShaderProgram(i, flags, used, index, base))
    return SwitchShadingModel(
        name, sk, dk, static, dynamic, [], [], [], _uniforms, default_program, programs, key_table,
        ptr["key_table"], ptr["bnsh"], bnsh,
    )


__all__ = ["ShaderFormatError", "SwitchBfsha", "SwitchShaderProgram", "SwitchShadingModel"]
