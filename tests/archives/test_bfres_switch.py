"""Switch BFRES from synthetic files laid out by hand from the format facts (no real sample yet).

The builder follows the offsets named in formats/bfres/switch.py (BfresLibrary's ResFileParser
and the bfrass loader agree on them) for versions 5, 9 and 10: one model with one material whose
shader assign picks options of the synthetic Switch BFSHA (tests/archives/test_bfsha_switch.py),
which travels as the external file ``shaders.bfsha``.
"""

from __future__ import annotations

import struct

import pytest
from test_bfsha_switch import build as build_bfsha

from conftest import run_cli
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.archive.path import resolve, walk, write_back
from shaderkit.formats.bfres.switch import DEFAULT_CHOICE, SwitchBfres, material_size
from shaderkit.formats.bfsha.switch import SwitchBfsha
from shaderkit.formats.nn import dic
from shaderkit.formats.registry import detect


class Image:
    """A growing little-endian file image with a string pool and 8-aligned allocations."""

    def __init__(self, size: int, dic_signature: bytes = b"_DIC") -> None:
        self.out = bytearray(size)
        self.strings: dict[str, int] = {}
        self.dic_signature = dic_signature

    def alloc(self, size: int, align: int = 8) -> int:
        self.out += bytes(-len(self.out) % align)
        at = len(self.out)
        self.out += bytes(size)
        return at

    def string(self, text: str) -> int:
        if text not in self.strings:
            raw = text.encode()
            at = self.alloc(2 + len(raw) + 1, 2)
            struct.pack_into("<H", self.out, at, len(raw))
            self.out[at + 2 : at + 2 + len(raw)] = raw
            self.strings[text] = at
        return self.strings[text]

    def dictionary(self, keys: list[str]) -> int:
        entries = dic.build(keys)
        offsets = [self.string(e.key) for e in entries]
        packed = dic.pack(entries, offsets, self.dic_signature)
        at = self.alloc(len(packed))
        self.out[at : at + len(packed)] = packed
        return at

    def pointers(self, texts: list[str]) -> int:
        at = self.alloc(8 * len(texts))
        for i, text in enumerate(texts):
            struct.pack_into("<Q", self.out, at + 8 * i, self.string(text))
        return at

    def q(self, at: int, *values: int) -> None:
        struct.pack_into(f"<{len(values)}Q", self.out, at, *values)


OPTIONS_V5 = {"use_fog": "1", "quality": "mid"}


def build(major: int, bfsha: bytes | None = None, dic_signature: bytes = b"_DIC") -> bytes:
    bfsha = build_bfsha(8) if bfsha is None else bfsha
    img = Image(0x100, dic_signature)
    o = 0x58 if major >= 9 else 0x38
    model = img.alloc(0x78)
    base = model + (0x08 if major >= 9 else 0x10)
    img.out[model : model + 4] = b"FMDL"
    mat = img.alloc(material_size(major))
    img.out[mat : mat + 4] = b"FMAT"
    img.q(base, img.string("m0"))
    img.q(base + 0x30, mat)
    struct.pack_into("<H", img.out, model + 0x6C, 1)
    if major < 10:
        img.q(mat + (0x08 if major >= 9 else 0x10), img.string("mat0"))
        assign = img.alloc(0x48)
        img.q(mat + (0x08 if major >= 9 else 0x10) + 0x18, assign)
        img.q(assign, img.string("shaders"), img.string("model"),
              img.pointers(["pos"]), img.dictionary(["_p0"]), 0, 0,
              img.pointers(list(OPTIONS_V5.values())), img.dictionary(list(OPTIONS_V5)))
        struct.pack_into("<IBBH", img.out, assign + 0x40, 7, 1, 0, len(OPTIONS_V5))
    else:
        img.q(mat + 0x08, img.string("mat0"))
        info = img.alloc(0x50)
        assign = img.alloc(0x58)
        img.q(mat + 0x10, info)
        img.q(assign, img.string("shaders"), img.string("model"), 0, 0, 0, 0,
              img.dictionary(["_p0"]), 0, img.dictionary(["extra", "use_fog", "quality", "pass"]))
        # option choices: one bool (bit 0 set -> "True"), then the string "1"; index table:
        # the 2 used choices, then per key: extra -> 0, use_fog -> 1, quality/pass -> default
        toggles = img.alloc(8)
        img.q(toggles, 1)
        indices = img.alloc(2 * 6)
        struct.pack_into("<6h", img.out, indices, 0, 1, 0, 1, -1, -1)
        attribute_indices = img.alloc(2)
        struct.pack_into("<2b", img.out, attribute_indices, 0, 0)
        img.q(info, assign, img.pointers(["pos"]), attribute_indices, 0, 0, toggles, img.pointers(["1"]), indices)
        struct.pack_into("<BBHH", img.out, info + 0x44, 1, 0, 1, 2)
    name = img.string("res")
    external = img.alloc(0x10)
    models_dict = img.dictionary(["m0"])
    external_dict = img.dictionary(["shaders.bfsha"])
    data_at = img.alloc(len(bfsha), 0x1000)
    img.out[data_at : data_at + len(bfsha)] = bfsha
    struct.pack_into("<QI", img.out, external, data_at, len(bfsha))
    img.out += bytes(-len(img.out) % 0x1000)
    # header
    struct.pack_into("<8sBBHHBBIHHII", img.out, 0, b"FRES    ", 0, 0, major, 0xFEFF, 12, 0, name + 2,
                     0, 0, 0, len(img.out))
    img.q(0x20, name, model, models_dict)
    img.q(o + 0x60 + (0x10 if major < 3 else 0), external, external_dict)
    counts = o + 0x84
    struct.pack_into("<H", img.out, counts, 1)
    counts += 6 if major >= 9 else 2
    struct.pack_into("<5HH", img.out, counts, 0, 0, 0, 0, 0, 1)
    return bytes(img.out)


@pytest.mark.parametrize("major", [5, 9, 10])
def test_synthetic_bfres_reads_and_rebuilds(major: int) -> None:
    data = build(major)
    spec = detect(data)
    assert spec is not None and spec.name == "bfres-switch"
    res = SwitchBfres.from_bytes(data)
    assert (res.name, res.version[0], res.alignment) == ("res", major, 0x1000)
    assert res.member_names() == ["shaders.bfsha"]
    assert res.member("shaders.bfsha") == build_bfsha(8)
    assert res.counts["models"] == 1 and res.counts["external_files"] == 1
    (m,) = res.materials
    assert (m.model, m.material, m.shader_archive, m.shading_model) == ("m0", "mat0", "shaders", "model")
    assert m.attribute_assigns == {"_p0": "pos"}
    if major < 10:
        assert m.options == OPTIONS_V5 and m.revision == 7
    else:
        assert m.options == {"extra": "True", "use_fog": "1", "quality": DEFAULT_CHOICE, "pass": DEFAULT_CHOICE}
    # use_fog 1, quality mid (given or the default), pass color -> program 1 -> BNSH variation 1
    assert res.material_programs() == ["shaders.bfsha//model.bnsh variation 1"]
    assert res.to_bytes() == data


def test_external_bfsha_is_reachable_and_editable() -> None:
    data = build(9)
    listed = [(i.path, i.format) for i in walk(data, "x.bfres")]
    assert listed == [("x.bfres//shaders.bfsha", "bfsha-switch"),
                      ("x.bfres//shaders.bfsha//model.bnsh", "bnsh")]
    steps, bnsh = resolve(data, ["shaders.bfsha", "model.bnsh"])
    changed = bytearray(bnsh)
    changed[-1] ^= 0xFF
    out = write_back(steps, bytes(changed))
    assert resolve(out, ["shaders.bfsha", "model.bnsh"])[1] == bytes(changed)
    assert sum(a != b for a, b in zip(out, data)) == 1 and len(out) == len(data)


@pytest.mark.parametrize("grow", [-0x100, 0x2000])
def test_resized_external_file(grow: int) -> None:
    data = build(8)
    res = SwitchBfres.from_bytes(data)
    bfsha = res.member("shaders.bfsha")
    new = bfsha[:grow] if grow < 0 else bfsha + bytes(grow)
    res.replace_member("shaders.bfsha", new)
    out = res.to_bytes()
    again = SwitchBfres.from_bytes(out)
    assert again.member("shaders.bfsha") == new
    assert len(out) % 0x1000 == 0 and struct.unpack_from("<I", out, 0x1C)[0] == len(out)
    old_at, old_size = res.external_files[0].original
    if grow < 0:  # in place, the rest of the old range zeroed
        assert len(out) == len(data) and not any(out[old_at + len(new) : old_at + old_size])
    else:  # appended on the alignment; everything before it unchanged but the entry
        entry = res.external_files[0].entry_offset
        differs = [i for i in range(len(data)) if out[i] != data[i]]
        assert all(entry <= i < entry + 12 or 0x1C <= i < 0x20 for i in differs)
        assert again.external_files[0].original[0] == len(data)


@pytest.mark.parametrize("major", [5, 8])
def test_early_files_store_zero_dictionary_signatures(major: int) -> None:
    # early Switch BFRES (header version 8.0.0, e.g. Super Mario Odyssey mods) store 4 zero bytes for _DIC
    data = build(major, dic_signature=bytes(4))
    assert b"_DIC" not in data[: data.index(b"FSHA")]
    res = SwitchBfres.from_bytes(data)
    assert res.member_names() == ["shaders.bfsha"]
    assert res.member("shaders.bfsha") == build_bfsha(8)
    (m,) = res.materials
    assert (m.material, m.shader_archive, m.shading_model) == ("mat0", "shaders", "model")
    assert m.options == OPTIONS_V5
    assert res.to_bytes() == data
    # any other signature word is still refused, naming the dictionary
    bad = build(major, dic_signature=b"_DIX")
    with pytest.raises(ShaderFormatError, match="dictionary signature"):
        SwitchBfres.from_bytes(bad)


@pytest.mark.parametrize("offset, value, message", [
    (0x1C, 5, "file size field"),
    (0x28, 0xFFFFFFFF, "points outside"),
    (0x0C, 0xFFFE, "byte-order mark"),
])
def test_damaged_headers(offset: int, value: int, message: str) -> None:
    data = bytearray(build(9))
    struct.pack_into("<I" if offset != 0x0C else "<H", data, offset, value)
    if offset == 0x28:  # a damaged model array only loses the materials
        res = SwitchBfres.from_bytes(bytes(data))
        assert res.materials == [] and message in res.materials_error
        assert res.to_bytes() == bytes(data)
        return
    with pytest.raises(ShaderFormatError, match=message):
        SwitchBfres.from_bytes(bytes(data))


def test_every_truncation_is_refused_cleanly() -> None:
    data = build(10)
    for size in range(0, len(data) - 1, 97):
        with pytest.raises(ShaderFormatError):
            SwitchBfres.from_bytes(data[:size])


def test_cli_ls_and_info(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    path = tmp_path / "x.bfres"
    path.write_bytes(build(10))
    code, out, _ = run_cli(capsys, "info", "--json", str(path))
    assert code == 0
    record = json.loads(out)
    assert record["format"] == "bfres-switch"
    assert record["materials"][0]["program"] == "shaders.bfsha//model.bnsh variation 1"
    code, out, _ = run_cli(capsys, "ls", str(path))
    assert code == 0 and "shaders.bfsha//model.bnsh" in out
    assert SwitchBfsha.from_bytes(resolve(build(10), ["shaders.bfsha"])[1]).name == "archive"


@pytest.mark.parametrize("major", [5, 10])
def test_mutants_rebuild_exactly_or_are_refused(major: int) -> None:
    # every aligned u32 of the header/model region, every 16th one of the rest
    data = build(major)
    words = [*range(0, 0x400, 4), *range(0x400, len(data), 64)]
    accepted = 0
    for at in words:
        for value in (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(data)):
            mutant = bytearray(data)
            struct.pack_into("<I", mutant, at, value)
            try:
                res = SwitchBfres.from_bytes(bytes(mutant))
            except ShaderFormatError:
                continue
            res.summary()
            assert res.to_bytes() == bytes(mutant), hex(at)
            accepted += 1
    assert accepted > len(words)
