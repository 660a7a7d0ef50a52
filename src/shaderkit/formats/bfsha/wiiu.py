"""Wii U BFSHA (``FSHA`` v3.x, big-endian): shading models, options, key tables, GX2 programs.

Every offset is a signed 32-bit value relative to the field that holds it (0 = none), as in the
Wii U BFRES. Layout (checked on the corpus file, FSHA 3.4.0.2):

* header 0x38: ``FSHA``, version (major, micro, -, minor bytes), u16 BOM, u16 header size 0x10,
  u32 file size, u32 alignment, name, u32 string pool size, string pool, path, u16 model count,
  u16 flags, u32, model dictionary, 2 u32;
* shading model 0x70: u8 static key length, u8 dynamic key length, u16 static option count,
  u16 dynamic option count, u16 program count, u8 attribute/sampler/uniform block counts, u8,
  u16 max VS ring item size, u16 max ring item size, 4 bytes, u32 uniform count, 4 block index
  bytes, i32 default program, name, 2 u32, then offset pairs (array, dictionary) for static
  options, dynamic options, attributes, samplers, uniform blocks, then uniforms, programs, key
  table, parent archive, 2 u32, symbols;
* option 0x18: u8 choice count, u8 default choice, u16 block offset, u8 flags, u8 key offset,
  u8 word index, u8 shift, u32 mask, name, choice dictionary, choice values;
* program 0x38: u16 flags, u8 sampler count, u8 block count, u32 used attribute flags,
  10 u16, u32 0, sampler locations, block locations (3 i8 each: VS, GS, PS), GX2 vertex,
  geometry and pixel shader structs, parent model;
* key table: ``static + dynamic key length`` u32 words per program; an option keeps its choice
  index in word ``word_index`` (dynamic: ``static length + word_index - key_offset``) under
  ``mask`` at ``shift``;
* dictionaries: u32 size, i32 count, count + 1 nodes {u32 bit, u16 left, u16 right, name, data}.

The GX2 structs (0x134 VS, 0xE8 PS, 0xC0 GS) are the GX2 structs of formats/gx2 with
self-relative pointers (a GS holds its program and then its copy program, each as size and
offset, before ``mode``); their reflection arrays are empty here (the model holds reflection), so
the words after ``mode`` are kept as they are. Microcode blocks follow the string pool, each on
the file alignment (0x100), zero padded, the file ending on the alignment.

Rebuilding writes the original bytes back with every modelled fixed-size field re-packed (key
table, option defaults, GX2 registers, mode, microcode). Microcode of a new size re-lays the code
region out by that rule, which the parser checks the file follows (otherwise only same-size edits
are allowed).
"""

from __future__ import annotations

import struct
from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderkitError
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.gx2.shader import cemu_base_hash
from shaderkit.formats.gx2.types import (
    GX2GeometryShaderRegs,
    GX2PixelShaderRegs,
    GX2VertexShaderRegs,
    _RegisterBlock,
)
from shaderkit.io.reader import Reader

STAGES = ("vertex", "geometry", "pixel")
#: member suffix (stage name) of a geometry shader's copy (vertex) program
COPY = "geometry_copy"
#: stage -> (struct size, register block); the program size, offset and mode follow the registers
GX2_LAYOUT: dict[str, tuple[int, type[_RegisterBlock]]] = {
    "vertex": (0x134, GX2VertexShaderRegs),
    "geometry": (0xC0, GX2GeometryShaderRegs),
    "pixel": (0xE8, GX2PixelShaderRegs),
}


class LookupFailed(ShaderkitError, LookupError):
    """An unknown shading model, option or choice was asked for, or no program matches."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def program_names(users: list[tuple[Any, Any, str]]) -> list[str]:
    """``MODEL/INDEX`` of each program of ``users`` (as :meth:`WiiUBfsha.shader_users` lists them)."""
    return [f"{model.name}/{program.index}" for model, program, _ in users]


def _rel(r: Reader, at: int) -> int | None:
    """The absolute target of the self-relative offset stored at ``at`` (None when 0)."""
    value = r.unpack_at(at, "i", "offset")[0]
    if value == 0:
        return None
    target = at + value
    if not 0 <= target < len(r.data):
        raise r.error(f"offset {value:#x} at {at:#x} points outside the file ({target:#x})", at)
    return target


def _name(r: Reader, at: int) -> str:
    target = _rel(r, at)
    return "" if target is None else r.cstring_at(target, "utf-8", "name")


@dataclass
class DictEntry:
    """One resource-dictionary entry: the name and the offset it points to (None for no target)."""
    name: str
    target: int | None


def read_dict(r: Reader, at: int | None, what: str) -> list[DictEntry]:
    """The entries of a Wii U dictionary (root excluded), in node order."""
    if at is None:
        return []
    with r.scope(what):
        size, count = r.unpack_at(at, "Ii", "dictionary header")
        r.check_count(count + 1, 0x10, "dictionary nodes", offset=at + 8)
        out = []
        for i in range(1, count + 1):
            node = at + 8 + 0x10 * i
            out.append(DictEntry(_name(r, node + 8), _rel(r, node + 12)))
        return out


@dataclass
class ShaderOption:
    """A static or dynamic shader option: its choices, default, and where its bits lie in the key words."""
    name: str
    choices: list[str]
    default_choice: int
    block_offset: int
    flags: int
    key_offset: int
    word_index: int
    shift: int
    mask: int
    choice_values: list[int] = field(default_factory=list)
    offset: int = field(default=0, repr=False, compare=False)

    def choice_of(self, word: int) -> int:
        """The choice index this option has in key word ``word``."""
        return (word & self.mask) >> self.shift if self.mask else 0

    def put(self, word: int, choice: int) -> int:
        """Key word ``word`` with this option's bits set to ``choice``."""
        return (word & ~self.mask & 0xFFFFFFFF) | ((choice << self.shift) & self.mask)


@dataclass
class ResourceVar:
    """An attribute, sampler or uniform block of a shading model (index + GX2 type, by name)."""

    name: str
    index: int
    type: int
    count: int = 0
    location: int = 0
    #: uniform blocks: size of the block in bytes
    size: int = 0


@dataclass
class WiiUGX2Shader:
    """One GX2 shader struct of the archive (shared by every program that points at it)."""

    stage: str
    regs: Any
    program: bytes = field(repr=False)
    mode: int
    #: the struct words after ``mode`` (reflection counts and pointers, stream-out, GX2R), as stored
    tail_words: list[int] = field(default_factory=list, repr=False)
    offset: int = field(default=0, repr=False, compare=False)
    code_offset: int = field(default=0, repr=False, compare=False)
    #: geometry shaders: the copy (vertex) program that moves GS ring output to the rasteriser
    copy_program: bytes = field(default=b"", repr=False)
    copy_code_offset: int = field(default=0, repr=False, compare=False)

    def code_slots(self) -> list[tuple[str, int]]:
        """(attribute, struct offset of its size word) for each program this struct points at;
        the self-relative code pointer follows the size word."""
        size_at = self.offset + GX2_LAYOUT[self.stage][1].word_count() * 4
        return [("program", size_at), *([("copy_program", size_at + 8)] if self.stage == "geometry" else [])]

    def summary(self) -> dict[str, Any]:
        """Stage, mode, program size in bytes and Cemu's base hash of this shader."""
        out: dict[str, Any] = {"stage": self.stage, "mode": self.mode, "program_size": len(self.program)}
        if self.stage == "geometry":
            out["copy_program_size"] = len(self.copy_program)
        cemu = cemu_base_hash(self.stage, self.regs, self.program)
        if cemu is not None:
            out["cemu_base_hash"] = cemu
        return out


@dataclass
class ShaderProgram:
    """One program of a shading model: its key, sampler/block locations per stage and stage -> shader index."""
    index: int
    flags: int
    used_attribute_flags: int
    gx2_words: list[int]
    sampler_locations: list[tuple[int, ...]]
    block_locations: list[tuple[int, ...]]
    #: stage -> index into :attr:`WiiUBfsha.shaders`
    shaders: dict[str, int]
    offset: int = field(default=0, repr=False, compare=False)


@dataclass
class ShadingModel:
    """A Wii U shading model: options, attributes, samplers, uniform blocks and programs."""
    name: str
    static_key_length: int
    dynamic_key_length: int
    static_options: list[ShaderOption]
    dynamic_options: list[ShaderOption]
    attributes: list[ResourceVar]
    samplers: list[ResourceVar]
    uniform_blocks: list[ResourceVar]
    uniform_count: int
    default_program: int
    programs: list[Any]  # ShaderProgram (Wii U) or SwitchShaderProgram
    #: one list of ``static + dynamic key length`` words per program
    key_table: list[list[int]]
    key_table_offset: int = field(default=0, repr=False, compare=False)

    @property
    def key_length(self) -> int:
        """Key words per program: static plus dynamic."""
        return self.static_key_length + self.dynamic_key_length

    def options(self) -> list[ShaderOption]:
        """Static options, then dynamic options."""
        return [*self.static_options, *self.dynamic_options]

    def _word(self, option: ShaderOption, dynamic: bool) -> int:
        return self.static_key_length + option.word_index - option.key_offset if dynamic else option.word_index

    def program_choices(self, program: int) -> dict[str, str]:
        """Option name -> choice name stored in the key of ``program``."""
        key = self.key_table[program]
        out: dict[str, str] = {}
        for dynamic, options in ((False, self.static_options), (True, self.dynamic_options)):
            for option in options:
                word = self._word(option, dynamic)
                choice = option.choice_of(key[word]) if 0 <= word < len(key) else -1
                out[option.name] = option.choices[choice] if 0 <= choice < len(option.choices) else str(choice)
        return out

    def default_key(self, settings: dict[str, str] | None = None) -> list[int]:
        """The key made from the default choices, with ``settings`` (option -> choice) applied."""
        settings = dict(settings or {})
        key = [0] * self.key_length
        for dynamic, options in ((False, self.static_options), (True, self.dynamic_options)):
            for option in options:
                choice = option.default_choice
                if option.name in settings:
                    value = settings.pop(option.name)
                    if value not in option.choices:
                        raise LookupFailed(
                            f"option {option.name!r} has no choice {value!r} "
                            f"(choices: {', '.join(option.choices)})")
                    choice = option.choices.index(value)
                word = self._word(option, dynamic)
                if 0 <= word < len(key):
                    key[word] = option.put(key[word], choice)
        if settings:
            name = next(iter(settings))
            raise LookupFailed(f"no option {name!r} in shading model {self.name!r}")
        return key

    def find_program(self, settings: dict[str, str], ignore_unknown: bool = False) -> tuple[int, str]:
        """(program index, how it matched): the key of defaults + ``settings`` exactly, else the
        first program whose key agrees with every option named in ``settings``.

        ``ignore_unknown`` drops options this model does not have (a material written for another
        revision of the archive names some).
        """
        if ignore_unknown:
            names = {o.name for o in self.options()}
            settings = {k: v for k, v in settings.items() if k in names}
        key = self.default_key(settings)
        for i, words in enumerate(self.key_table):
            if words == key:
                return i, "exact key"
        for i in range(len(self.programs)):
            choices = self.program_choices(i)
            if all(choices.get(k) == v for k, v in settings.items()):
                return i, "options named"
        raise LookupFailed(f"no program of {self.name!r} has these options")


@dataclass(repr=False)
class WiiUBfsha(ShaderFile):
    """A Wii U BFSHA: shading models and the distinct GX2 shaders their programs use."""
    format_name = "bfsha-wiiu"

    name: str
    path: str
    version: tuple[int, int, int, int]
    alignment: int
    models: list[ShadingModel]
    #: every distinct GX2 struct, in file order of their microcode
    shaders: list[WiiUGX2Shader]
    data: bytes = field(repr=False)
    #: where the microcode region starts and whether it follows the layout rule (see module doc)
    code_start: int = field(default=0, repr=False)
    code_regular: bool = field(default=False, repr=False)

    # -- reading ------------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> WiiUBfsha:
        r = Reader(data, endian=">", context="FSHA")
        r.expect(b"FSHA")
        version = tuple(r.unpack("4B", "version"))
        bom, header_size, file_size, alignment = r.unpack("HHII", "header")
        if bom != 0xFEFF:
            raise r.error(f"byte-order mark {bom:#06x}: only big-endian (Wii U) FSHA is read here", 8)
        if file_size != len(data):
            raise r.error(f"file size field {file_size} but {len(data)} bytes given", 0xC)
        if alignment == 0 or alignment & (alignment - 1) or alignment > 0x10000:
            raise r.error(f"alignment {alignment:#x} is not a power of two", 0x10)
        name = _name(r, 0x14)
        path = _name(r, 0x20)
        (model_count,) = r.unpack_at(0x24, "H", "model count")
        model_dict = read_dict(r, _rel(r, 0x2C), "models")
        if len(model_dict) != model_count:
            raise r.error(f"{model_count} models but the dictionary names {len(model_dict)}", 0x24)
        shaders: dict[int, WiiUGX2Shader] = {}
        models = []
        for i, entry in enumerate(model_dict):
            if entry.target is None:
                raise r.error(f"model {entry.name!r} has no data", 0x2C)
            with r.scope(f"model[{i}]"):
                models.append(_read_model(r, entry.target, entry.name, shaders))
        ordered = sorted(shaders.values(), key=lambda s: (s.code_offset, s.offset))
        index_of = {s.offset: i for i, s in enumerate(ordered)}
        for model in models:
            for program in model.programs:
                program.shaders = {st: index_of[off] for st, off in program.shaders.items()}
        archive = cls(name, path, version, alignment, models, ordered, data)
        archive._check_code_layout()
        return archive

    def _check_code_layout(self) -> None:
        items = self._code_items()
        if not items:
            return
        self.code_start = items[0][0]
        cursor = self.code_start
        regular = True
        data = self.data
        for start, size in items:
            aligned = -(-cursor // self.alignment) * self.alignment
            if start != aligned or any(data[cursor:start]):
                regular = False
            cursor = start + size
        end = -(-cursor // self.alignment) * self.alignment
        if end != len(data) or any(data[cursor:]):
            regular = False
        self.code_regular = regular

    def _code_refs(self) -> list[tuple[WiiUGX2Shader, str, int]]:
        """(shader, attribute, code offset) for every program a struct points at."""
        return [(shader, attr, getattr(shader, attr.replace("program", "code_offset")))
                for shader in self.shaders for attr, _ in shader.code_slots()
                if getattr(shader, attr.replace("program", "code_offset"))]

    def _code_items(self) -> list[tuple[int, int]]:
        seen: dict[int, int] = {}
        for shader, attr, at in self._code_refs():
            seen[at] = max(seen.get(at, 0), len(getattr(shader, attr)))
        return sorted(seen.items())

    # -- writing ------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        out = bytearray(self.data)
        original_sizes = dict(self._code_items_original())
        code_pos: dict[int, int] = {}
        refs = self._code_refs()
        resized = any(len(getattr(sh, attr)) != original_sizes.get(at, len(getattr(sh, attr)))
                      for sh, attr, at in refs)
        if resized:
            if not self.code_regular:
                raise ValueError("this archive's microcode does not follow the alignment rule; "
                                 "only same-size program edits can be written")
            del out[self.code_start :]
            code_of: dict[int, bytes] = {}
            for sh, attr, at in refs:
                prev = code_of.setdefault(at, getattr(sh, attr))
                if prev != getattr(sh, attr):
                    raise ValueError("two GX2 structs that share microcode now hold different code")
            for old in sorted(code_of):
                out += bytes(-len(out) % self.alignment)
                code_pos[old] = len(out)
                out += code_of[old]
            out += bytes(-len(out) % self.alignment)
            struct.pack_into(">I", out, 0xC, len(out))
        for shader in self.shaders:
            size, regs_cls = GX2_LAYOUT[shader.stage]
            nregs = regs_cls.word_count()
            words = shader.regs.words()
            if len(words) != nregs:
                raise ValueError(f"{shader.stage} registers need {nregs} words")
            struct.pack_into(f">{nregs}I", out, shader.offset, *words)
            slots = shader.code_slots()
            for attr, size_at in slots:
                code_at = getattr(shader, attr.replace("program", "code_offset"))
                code = getattr(shader, attr)
                if code_at:
                    target = code_pos.get(code_at, code_at)
                    if not resized:
                        out[target : target + len(code)] = code
                    struct.pack_into(">Ii", out, size_at, len(code), target - (size_at + 4))
            mode_at = slots[-1][1] + 8
            struct.pack_into(">I", out, mode_at, shader.mode)
            struct.pack_into(f">{len(shader.tail_words)}I", out, mode_at + 4, *shader.tail_words)
        for model in self.models:
            for option in model.options():
                out[option.offset + 1] = option.default_choice
            flat = [w for words in model.key_table for w in words]
            if len(flat) != model.key_length * len(model.programs):
                raise ValueError(f"key table of {model.name!r} must keep one key per program")
            struct.pack_into(f">{len(flat)}I", out, model.key_table_offset, *flat)
        return bytes(out)

    def _code_items_original(self) -> list[tuple[int, int]]:
        r = self.data
        items = []
        for shader in self.shaders:
            for attr, size_at in shader.code_slots():
                code_at = getattr(shader, attr.replace("program", "code_offset"))
                if code_at:
                    items.append((code_at, struct.unpack_from(">I", r, size_at)[0]))
        return items

    # -- access -------------------------------------------------------------------------------
    @staticmethod
    def split_member(name: str) -> tuple[str, int, str]:
        """(model, program, stage) of a member name ``MODEL/PROGRAM/STAGE``; KeyError when it is not one."""
        model, _, rest = name.partition("/")
        program, _, stage = rest.partition("/")
        if not program.isdigit():
            raise KeyError(f"{name!r} is not MODEL/PROGRAM/STAGE")
        return model, int(program), stage

    def model(self, name: str) -> ShadingModel:
        """The shading model called ``name``; LookupFailed naming the models when there is none."""
        for model in self.models:
            if model.name == name:
                return model
        raise LookupFailed(f"no shading model {name!r} (models: {', '.join(m.name for m in self.models)})")

    def program_structs(self, model: str, program: int) -> dict[str, int]:
        """Stage -> index in :attr:`shaders` of program ``program`` of model ``model``;
        LookupFailed when absent."""
        m = self.model(model)
        if not 0 <= program < len(m.programs):
            raise LookupFailed(f"{model!r} has programs 0..{len(m.programs) - 1}, not {program}")
        return dict(m.programs[program].shaders)

    def program_shaders(self, model: str, program: int) -> dict[str, WiiUGX2Shader]:
        """Stage -> GX2 shader of program ``program`` of model ``model``; LookupFailed when absent."""
        return {st: self.shaders[i] for st, i in self.program_structs(model, program).items()}

    def program_stage(self, model: str, program: int, stage: str) -> tuple[int, str]:
        """(index in :attr:`shaders`, ``"program"`` or ``"copy_program"``) of stage ``stage``
        (vertex, geometry, pixel or :data:`COPY`) of program ``program`` of model ``model``;
        LookupFailed for an unknown model or program, KeyError for a stage it lacks."""
        stages = self.program_structs(model, program)
        key = "geometry" if stage == COPY else stage
        if key not in stages:
            raise KeyError(f"program {model}/{program} has stages {', '.join(stages)}, not {stage!r}")
        return stages[key], "copy_program" if stage == COPY else "program"

    def shader_users(self) -> dict[int, list[tuple[ShadingModel, ShaderProgram, str]]]:
        """Index in :attr:`shaders` -> the (shading model, program, stage) that use that struct,
        in file order (structs no program uses are absent)."""
        users: dict[int, list[tuple[ShadingModel, ShaderProgram, str]]] = {}
        for m in self.models:
            for p in m.programs:
                for stage, i in p.shaders.items():
                    users.setdefault(i, []).append((m, p, stage))
        return users

    def summary(self) -> dict[str, Any]:
        """Keys: format, name, version, models (options, resources), gx2_shaders (count) and
        ``shaders``: per distinct GX2 struct its stage, mode, program size, Cemu base hash (pixel)
        and the programs (``MODEL/INDEX``) using it."""
        users = {i: program_names(found) for i, found in self.shader_users().items()}
        return {
            "format": self.format_name,
            "name": self.name,
            "version": ".".join(str(v) for v in self.version),
            "models": [
                {
                    "name": m.name,
                    "static_options": len(m.static_options),
                    "dynamic_options": len(m.dynamic_options),
                    "programs": len(m.programs),
                    "key_length": [m.static_key_length, m.dynamic_key_length],
                    "attributes": [a.name for a in m.attributes],
                    "samplers": [s.name for s in m.samplers],
                    "uniform_blocks": [b.name for b in m.uniform_blocks],
                    "options": {
                        o.name: {"choices": o.choices, "default": o.choices[o.default_choice]
                                 if o.default_choice < len(o.choices) else o.default_choice,
                                 "dynamic": o in m.dynamic_options}
                        for o in m.options()
                    },
                }
                for m in self.models
            ],
            "gx2_shaders": len(self.shaders),
            "shaders": [{"index": i, **shader.summary(), "programs": ", ".join(users.get(i, []))}
                        for i, shader in enumerate(self.shaders)],
        }

    def disassemble(self) -> str:
        """The Latte listing (decaf syntax) of every distinct GX2 shader under a gfd-tool-like
        header, titled with the programs that use it, their reflection beside."""
        from shaderkit.formats.gx2.programs import bfsha_listing

        return bfsha_listing(self)


def _read_options(r: Reader, at: int | None, count: int, what: str) -> list[ShaderOption]:
    if at is None:
        if count:
            raise r.error(f"{count} {what} with no array")
        return []
    r.check_count(count, 0x18, what, offset=at)
    options = []
    for i in range(count):
        base = at + 0x18 * i
        with r.scope(f"{what}[{i}]"):
            n, default, block_offset, flags, key_offset, word, shift, mask = r.unpack_at(base, "BBHBBBBI")
            name = _name(r, base + 0xC)
            choices = [e.name for e in read_dict(r, _rel(r, base + 0x10), "choices")]
            values_at = _rel(r, base + 0x14)
            values = []
            if values_at is not None:
                r.check_count(len(choices), 4, "choice values", offset=values_at)
                values = list(r.unpack_at(values_at, f"{len(choices)}I", "choice values"))
            options.append(ShaderOption(name, choices, default, block_offset, flags, key_offset, word, shift,
                                        mask, values, base))
    return options


def _read_resources(r: Reader, dict_at: int | None, what: str) -> list[ResourceVar]:
    """Attributes {u8 index, type, count, i8 location}, samplers {u8 index, type, count, pad, ...}
    or uniform blocks {u8 index, type, u16 size, ...}, by dictionary name."""
    out = []
    for entry in read_dict(r, dict_at, what):
        if entry.target is None:
            out.append(ResourceVar(entry.name, -1, 0))
        elif what == "uniform_blocks":
            index, gtype, size = r.unpack_at(entry.target, "BBH", what)
            out.append(ResourceVar(entry.name, index, gtype, size=size))
        else:
            index, gtype, count, location = r.unpack_at(entry.target, "BBBb", what)
            out.append(ResourceVar(entry.name, index, gtype, count, location if what == "attributes" else 0))
    return out


def _read_model(r: Reader, at: int, name: str, shaders: dict[int, WiiUGX2Shader]) -> ShadingModel:
    (sk, dk, n_static, n_dynamic, n_programs, _na, _ns, _nb, _u, _vs_ring, _ring, _ui, uniform_count,
     _bi, default_program) = r.unpack_at(at, "BBHHHBBBBHH4sI4si", "shading model")
    static_options = _read_options(r, _rel(r, at + 0x2C), n_static, "static_options")
    dynamic_options = _read_options(r, _rel(r, at + 0x34), n_dynamic, "dynamic_options")
    attributes = _read_resources(r, _rel(r, at + 0x40), "attributes")
    samplers = _read_resources(r, _rel(r, at + 0x48), "samplers")
    blocks = _read_resources(r, _rel(r, at + 0x50), "uniform_blocks")
    programs_at = _rel(r, at + 0x58)
    key_at = _rel(r, at + 0x5C)
    key_length = sk + dk
    programs: list[ShaderProgram] = []
    key_table: list[list[int]] = []
    if n_programs:
        if programs_at is None or key_at is None:
            raise r.error(f"{n_programs} programs but no program array or key table", at)
        r.check_count(n_programs, 0x38, "programs", offset=programs_at)
        r.check_count(n_programs * key_length, 4, "key table", offset=key_at)
        flat = r.unpack_at(key_at, f"{n_programs * key_length}I", "key table")
        key_table = [list(flat[i * key_length : (i + 1) * key_length]) for i in range(n_programs)]
        for i in range(n_programs):
            with r.scope(f"program[{i}]"):
                programs.append(_read_program(r, programs_at + 0x38 * i, i, shaders))
    return ShadingModel(name, sk, dk, static_options, dynamic_options, attributes, samplers, blocks,
                        uniform_count, default_program, programs, key_table, key_at or 0)


def _read_program(r: Reader, at: int, index: int, shaders: dict[int, WiiUGX2Shader]) -> ShaderProgram:
    flags, n_samplers, n_blocks, used = r.unpack_at(at, "HBBI", "program")
    gx2_words = list(r.unpack_at(at + 8, "10H", "program"))

    def locations(field_at: int, count: int) -> list[tuple[int, ...]]:
        target = _rel(r, field_at)
        if target is None or not count:
            return []
        r.check_count(count, 3, "locations", offset=target)
        flat = r.unpack_at(target, f"{count * 3}b", "locations")
        return [tuple(flat[i * 3 : i * 3 + 3]) for i in range(count)]

    program = ShaderProgram(index, flags, used, gx2_words, locations(at + 0x20, n_samplers),
                            locations(at + 0x24, n_blocks), {}, at)
    for k, stage in enumerate(STAGES):
        target = _rel(r, at + 0x28 + 4 * k)
        if target is None:
            continue
        if target not in shaders:
            with r.scope(stage):
                shaders[target] = _read_gx2(r, target, stage)
        elif shaders[target].stage != stage:
            raise r.error(f"{stage} shader at {target:#x} is also used as {shaders[target].stage}", at)
        program.shaders[stage] = target
    return program


def _read_gx2(r: Reader, at: int, stage: str) -> WiiUGX2Shader:
    size, regs_cls = GX2_LAYOUT[stage]
    nregs = regs_cls.word_count()
    words = r.unpack_at(at, f"{size // 4}I", "GX2 struct")
    # program size and offset; a geometry shader's copy program size and offset follow
    codes: list[tuple[bytes, int]] = []
    for k in range(2 if stage == "geometry" else 1):
        code_size = words[nregs + 2 * k]
        code_at = _rel(r, at + (nregs + 2 * k + 1) * 4)
        if code_at is not None:
            codes.append((r.at(code_at).read(code_size, "microcode"), code_at))
        elif code_size:
            raise r.error(f"{code_size} bytes of microcode with no offset", at + (nregs + 2 * k) * 4)
        else:
            codes.append((b"", 0))
    mode_word = nregs + 2 * len(codes)
    shader = WiiUGX2Shader(stage, regs_cls.from_words(words[:nregs]), codes[0][0], words[mode_word],
                           list(words[mode_word + 1 :]), at, codes[0][1])
    if stage == "geometry":
        shader.copy_program, shader.copy_code_offset = codes[1]
    return shader
