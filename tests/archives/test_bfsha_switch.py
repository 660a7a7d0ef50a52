"""Switch BFSHA from synthetic files laid out by hand from the format facts (no real sample yet).

The builder below follows the writer layout named in formats/bfsha/switch.py, for versions 5, 7,
8 and 9 (the option layout changes at 9), with one shading model, two static options, one
dynamic option, three programs and the BNSH sample (two variations) embedded.
"""

from __future__ import annotations

import struct

import pytest

from conftest import run_cli
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.archive.path import resolve, walk
from shaderkit.formats.bfsha.switch import SwitchBfsha, model_size, program_size
from shaderkit.formats.bfsha.wiiu import LookupFailed
from shaderkit.formats.bnsh.bnsh import Bnsh
from shaderkit.formats.nn import dic
from shaderkit.samples import bnsh_sample

# (name, choices, default, word index, shift, mask); the dynamic option has key offset 1
STATIC = [("use_fog", ["0", "1"], 0, 0, 0, 0x1), ("quality", ["low", "mid", "high"], 1, 0, 1, 0x6)]
DYNAMIC = [("pass", ["color", "depth"], 0, 1, 31, 0x80000000)]
# per program: static key word, dynamic key word, BNSH variation
PROGRAMS = [(0b010, 0, 0), (0b011, 0, 1), (0b100, 0x80000000, 1)]


class Strings:
    def __init__(self) -> None:
        self.data = bytearray()
        self.at: dict[str, int] = {}

    def add(self, text: str) -> None:
        if text not in self.at:
            self.at[text] = len(self.data)
            raw = text.encode()
            self.data += struct.pack("<H", len(raw)) + raw + b"\0"
            self.data += bytes(len(self.data) & 1)


def build(major: int) -> bytes:
    strings = Strings()
    for text in ["", "archive", "path/x", "model", *(o[0] for o in STATIC + DYNAMIC),
                 *(c for o in STATIC + DYNAMIC for c in o[1])]:
        strings.add(text)
    header_end = 0x80 if major >= 7 else 0x78
    model_at = header_end
    options_at = model_at + model_size(major)
    n_options = len(STATIC) + len(DYNAMIC)
    values_at = options_at + 0x28 * n_options
    n_values = sum(len(o[1]) for o in STATIC + DYNAMIC)
    programs_at = values_at + 4 * n_values
    programs_at += -programs_at % 8
    key_at = programs_at + program_size(major) * len(PROGRAMS)
    dicts_at = key_at + 8 * len(PROGRAMS)
    dict_keys = [["model"], [o[0] for o in STATIC], [o[0] for o in DYNAMIC], *[o[1] for o in STATIC + DYNAMIC]]
    dict_at = []
    cursor = dicts_at
    for keys in dict_keys:
        dict_at.append(cursor)
        cursor += dic.size(len(keys))
    pool_at = cursor
    strings_at = pool_at + 0x14  # after a _STR-like block header and count
    bnsh_at = strings_at + len(strings.data)
    bnsh_at += -bnsh_at % 0x1000
    bnsh = bnsh_sample()
    total = bnsh_at + len(bnsh)

    def s(text: str) -> int:
        return strings_at + strings.at[text]

    out = bytearray(total)
    out[0:0x20] = struct.pack("<8sBBHHBBIHHII", b"FSHA    ", 3, 2, major, 0xFEFF, 12, 0, s("archive") + 2,
                              0, 0, 0, total)
    struct.pack_into("<QQIIQQQQ", out, 0x20, 0x38, pool_at, len(strings.data), 0, s("archive"), s("path/x"),
                     model_at, dict_at[0])
    struct.pack_into("<HH", out, 0x78 if major >= 7 else 0x70, 1, 0x1A)
    # shading model
    fields = {"name": s("model"), "static_options": options_at, "static_dict": dict_at[1],
              "dynamic_options": options_at + 0x28 * len(STATIC), "dynamic_dict": dict_at[2],
              "programs": programs_at, "key_table": key_at, "archive": 0x38, "bnsh": bnsh_at}
    names = ["name", "static_options", "static_dict", "dynamic_options", "dynamic_dict", "attributes",
             "attribute_dict", "samplers", "sampler_dict", *(["images", "image_dict"] if major >= 8 else []),
             "uniform_blocks", "uniform_block_dict", "uniforms",
             *(["storage", "storage_dict", "storage_unknown"] if major >= 7 else []),
             "programs", "key_table", "archive", "symbols", "bnsh"]
    for i, name in enumerate(names):
        struct.pack_into("<Q", out, model_at + 8 * i, fields.get(name, 0))
    pos = model_at + 8 * len(names) + 8 * (5 if major >= 7 else 3)
    if major >= 7:
        struct.pack_into("<IIiHHH", out, pos, 0, 0, -1, len(STATIC), len(DYNAMIC), len(PROGRAMS))
        pos += 18
    else:
        struct.pack_into("<IiHHHH", out, pos, 0, -1, len(STATIC), len(DYNAMIC), len(PROGRAMS), 0)
        pos += 16
    struct.pack_into("<BB", out, pos, 1, 1)
    # options, choice dictionaries and values
    value_cursor = values_at
    for k, (name, choices, default, word, shift, mask) in enumerate(STATIC + DYNAMIC):
        base = options_at + 0x28 * k
        key_offset = 1 if k >= len(STATIC) else 0
        struct.pack_into("<QQQ", out, base, s(name), dict_at[3 + k], value_cursor)
        if major >= 9:
            struct.pack_into("<HHHBBIBBH", out, base + 0x18, len(choices), default, 0, 0, key_offset, mask,
                             word, shift, 0)
        else:
            struct.pack_into("<HHBBBBII", out, base + 0x18, len(choices), 0, default, key_offset, word, shift,
                             mask, 0)
        struct.pack_into(f"<{len(choices)}I", out, value_cursor, *range(len(choices)))
        value_cursor += 4 * len(choices)
    # programs and key table
    tables = 4 if major >= 8 else 3 if major == 7 else 2
    for i, (static_word, dynamic_word, variation) in enumerate(PROGRAMS):
        base = programs_at + program_size(major) * i
        struct.pack_into("<QQ", out, base + 8 * tables, bnsh_at + 0xC0 + 0x40 * variation, model_at)
        struct.pack_into("<IH", out, base + 8 * tables + 16, 0x3, i)
        struct.pack_into("<II", out, key_at + 8 * i, static_word, dynamic_word)
    # dictionaries, string pool, BNSH
    for keys, at in zip(dict_keys, dict_at):
        entries = dic.build(keys)
        packed = dic.pack(entries, [strings_at + strings.at[e.key] for e in entries])
        out[at : at + len(packed)] = packed
    out[pool_at : pool_at + 4] = b"_STR"
    out[strings_at : strings_at + len(strings.data)] = strings.data
    out[bnsh_at:] = bnsh
    return bytes(out)


@pytest.mark.parametrize("major", [5, 7, 8, 9])
def test_synthetic_archive_reads_and_rebuilds(major: int) -> None:
    data = build(major)
    archive = SwitchBfsha.from_bytes(data)
    assert archive.name == "archive" and archive.path == "path/x" and archive.version[0] == major
    (model,) = archive.models
    assert model.name == "model"
    assert [(o.name, o.choices, o.default_choice) for o in model.static_options] == [
        ("use_fog", ["0", "1"], 0), ("quality", ["low", "mid", "high"], 1)]
    assert [o.name for o in model.dynamic_options] == ["pass"]
    assert [p.variation for p in model.programs] == [0, 1, 1]
    assert model.key_table == [[w, d] for w, d, _ in PROGRAMS]
    assert Bnsh.from_bytes(model.bnsh).to_bytes() == bnsh_sample()
    assert archive.to_bytes() == data


@pytest.mark.parametrize("major", [7, 9])
def test_option_lookup(major: int) -> None:
    model = SwitchBfsha.from_bytes(build(major)).model("model")
    assert model.find_program({}) == (0, "exact key")  # defaults: use_fog 0, quality mid, pass color
    assert model.find_program({"use_fog": "1"}) == (1, "exact key")
    assert model.find_program({"quality": "high", "pass": "depth"}) == (2, "exact key")
    assert model.program_choices(2) == {"use_fog": "0", "quality": "high", "pass": "depth"}
    with pytest.raises(LookupFailed, match="no choice 'ultra'"):
        model.find_program({"quality": "ultra"})


def test_embedded_bnsh_is_a_member_and_can_be_replaced() -> None:
    data = build(8)
    assert [(i.path, i.format) for i in walk(data, "x.bfsha")] == [("x.bfsha//model.bnsh", "bnsh")]
    steps, bnsh = resolve(data, ["model.bnsh"])
    assert bnsh == bnsh_sample()
    changed = bytearray(bnsh)
    changed[-1] ^= 0xFF
    from shaderkit.formats.archive.path import write_back

    out = write_back(steps, bytes(changed))
    assert resolve(out, ["model.bnsh"])[1] == bytes(changed)
    assert sum(a != b for a, b in zip(out, data)) == 1
    with pytest.raises(ValueError, match="another size"):
        write_back(resolve(data, ["model.bnsh"])[0], bnsh + bytes(16))


@pytest.mark.parametrize("offset, value, message", [
    (0x1C, 5, "file size field"),
    (0x48, 0xFFFFFFFF, "points outside"),
    (0x0C, 0xFFFE, "byte-order mark"),
])
def test_damaged_headers(offset: int, value: int, message: str) -> None:
    data = bytearray(build(7))
    struct.pack_into("<I" if offset != 0x0C else "<H", data, offset, value)
    with pytest.raises(ShaderFormatError, match=message):
        SwitchBfsha.from_bytes(bytes(data))


def test_cli_variation_and_member_verbs(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]

    path = tmp_path / "x.bfsha"
    path.write_bytes(build(7))

    def run(*argv: str) -> tuple[int, str, str]:
        return run_cli(capsys, *argv)

    code, out, _ = run("variation", "--json", str(path), "model", "quality=high", "pass=depth")
    assert code == 0
    import json

    result = json.loads(out)
    assert result["program"] == 2 and result["bnsh_variation"] == 1
    assert result["bnsh"] == f"{path}//model.bnsh"
    code, out, _ = run("info", "--json", f"{path}//model.bnsh")
    assert code == 0 and json.loads(out)["format"] == "bnsh"
    code, out, _ = run("verify", str(path), f"{path}//model.bnsh")
    assert code == 0 and out.strip() == "2 passed, 0 failed"
    code, _, err = run("variation", str(path), "model", "quality=ultra")
    assert code == 2 and "no choice 'ultra'" in err


def test_disassemble_lists_the_embedded_bnsh_code() -> None:
    from shaderkit.formats.bnsh.text import listing_sections
    from shaderkit.isa.maxwell import assemble

    data = build(9)
    text = SwitchBfsha.from_bytes(data).disassemble()
    assert text.splitlines()[0].startswith("// ==== model model (BNSH at 0x")
    codes = [assemble(body) for body in listing_sections(text).values()]
    listed = [code for code in codes if code]  # (source stages have no Maxwell code)
    assert len(listed) == 2
    for code in listed:
        assert code in bnsh_sample()  # each stage's text assembles to the code the BNSH holds
