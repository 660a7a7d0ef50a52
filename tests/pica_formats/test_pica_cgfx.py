"""CGFX (.bcsdr): hand-built containers around real SHBINs, the shader dictionary tree, bad input."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dvlb.cgfx import Cgfx, CgfxShader, build_tree, find
from shaderkit.formats.dvlb.csdr import Csdr
from shaderkit.formats.dvlb.dvlb import Constant, Dvlb, Uniform
from shaderkit.formats.registry import detect


def _shbin(name: str) -> bytes:
    files = corpus_files("pica", name)
    if not files:
        pytest.skip("corpus not found")
    return files[0].read_bytes()


SPRITE = "RetroArch__ctr_sprite__82b12978.shbin"
WORLD = "Re-Craft-3DS__world__7006574e.shbin"


def _hand_cgfx(pair_count: int = 16) -> bytes:
    """A CGFX written by hand from SPICA's structures: one texture entry (opaque) and one shader.

    The shader object here has two extra words before the binary size/pointer pair, so the parser
    must find the DVLB by its pointer rather than at a fixed field. ``pair_count``: the DATA
    section's dictionary pairs (bannertool writes 15, no ``emitters``; the shader DICT follows them).
    """
    shbin = _shbin(WORLD)
    header_size = 0x14
    data_at = header_size
    dict_at = data_at + 8 + pair_count * 8  # 0x9C with 16 pairs
    nodes_at = dict_at + 12
    shdr_at = nodes_at + 2 * 16  # root + one entry
    shdr = 40  # type, SHDR, revision, name, user count, user ptr, 2 unknown, size, pointer
    names_at = shdr_at + shdr
    name = b"SpriteShader\0"
    texture_at = names_at + len(name) + 3  # 3 bytes of 0xEE padding before the texture blob
    texture = b"TXOB" + bytes(range(28))
    dvlb_at = texture_at + len(texture)
    total = dvlb_at + len(shbin)

    pairs = [0] * 2 * pair_count
    pairs[2 * 1] = 1  # one texture
    pairs[2 * 1 + 1] = texture_at - (data_at + 8 + 8 * 1 + 4)
    pairs[2 * 4] = 1  # one shader
    pairs[2 * 4 + 1] = dict_at - (data_at + 8 + 8 * 4 + 4)
    out = bytearray()
    out += struct.pack("<4sHHIII", b"CGFX", 0xFEFF, header_size, 0x05000000, total, 1)
    out += struct.pack(f"<4sI{2 * pair_count}I", b"DATA", total - data_at, *pairs)
    out += struct.pack("<4sII", b"DICT", 12 + 32, 1)
    out += struct.pack("<IHHii", 0xFFFFFFFF, 1, 0, 0, 0)
    entry = nodes_at + 16
    out += struct.pack("<IHHii", 7, 0, 1, names_at - (entry + 8), shdr_at - (entry + 12))
    out += struct.pack("<I4sIiII", 0x80000001, b"SHDR", 0x05000000, names_at - (shdr_at + 12), 0, 0)
    out += struct.pack("<II", 0x1234, 0x5678)
    size_at = shdr_at + 32
    out += struct.pack("<Ii", len(shbin), dvlb_at - (size_at + 4))
    out += name + b"\xee" * 3 + texture + shbin
    assert len(out) == total
    return bytes(out)


def test_hand_built_cgfx() -> None:
    data = _hand_cgfx()
    assert detect(data) is not None and detect(data).name == "cgfx"  # type: ignore[union-attr]
    model = Cgfx.from_bytes(data)
    assert model.dict_counts[1] == 1 and model.dict_counts[4] == 1
    (shader,) = model.shaders
    assert shader.name == "SpriteShader" and shader.reference_bit == 7
    assert shader.dvlb is not None and shader.dvlb.to_bytes() == _shbin(WORLD)
    assert model.to_bytes() == data
    assert model.problems() == []
    info = model.summary()
    assert info["dictionaries"] == {"textures": 1, "shaders": 1}
    assert info["shaders"][0]["dvlb"]["dvle_count"] == 1
    # the layout as stored: the 3 pad bytes and the texture (not modelled) are one raw span
    # between the name (0xF0: DICT 0x9C + 12 + 2 nodes, then the 40-byte SHDR at 0xC8) and the DVLB
    rows = info["layout"]
    assert {"item": "shaders.0.name", "offset": 0xF0, "size": 13} in rows
    assert {"item": "raw", "offset": 0xF0 + 13, "size": 3 + 32} in rows
    assert {"item": "shaders.0.dvlb", "offset": 0x120, "size": len(_shbin(WORLD))} in rows
    assert {"item": "shaders.0.dvlb_size", "offset": 0xC8 + 32, "size": 4} in rows


def test_data_with_15_dictionaries() -> None:
    # bannertool's CGFX files end DATA after 15 pairs (no emitters): the first DICT follows them,
    # so a 16th pair would read its magic ("DICT" = 0x54434944 emitters)
    data = _hand_cgfx(pair_count=15)
    model = Cgfx.from_bytes(data)
    assert len(model.dict_counts) == 15 and model.summary()["dictionaries"] == {"textures": 1, "shaders": 1}
    assert model.to_bytes() == data and model.problems() == []
    assert model.shaders[0].dvlb is not None and model.shaders[0].dvlb.to_bytes() == _shbin(WORLD)
    # all 15 dictionaries empty: the DICT magic after the 15th pair still ends DATA
    empty = struct.pack("<4sHHIII", b"CGFX", 0xFEFF, 0x14, 0x05000000, 0x14 + 8 + 8 * 15 + 28, 1)
    empty += struct.pack("<4sI30I", b"DATA", 8 + 8 * 15 + 28, *[0] * 30)
    empty += struct.pack("<4sII", b"DICT", 28, 0) + struct.pack("<IHHii", 0xFFFFFFFF, 0, 0, 0, 0)
    bare = Cgfx.from_bytes(empty)
    assert len(bare.dict_counts) == 15 and bare.summary()["dictionaries"] == {} and bare.to_bytes() == empty
    # a DICT right after the DATA header: no pairs at all (the magic is not read as a count; the
    # file runs on past where 16 pairs would end)
    none = struct.pack("<4sHHIII", b"CGFX", 0xFEFF, 0x14, 0x05000000, 0x14 + 8 + 28 + 128, 1)
    none += struct.pack("<4sI", b"DATA", 8 + 28) + struct.pack("<4sII", b"DICT", 28, 0)
    none += struct.pack("<IHHii", 0xFFFFFFFF, 0, 0, 0, 0) + bytes(128)
    assert Cgfx.from_bytes(none).dict_counts == [] and Cgfx.from_bytes(none).to_bytes() == none
    model.shaders[0].name = "OtherShader1"  # an edit keeps the 15 pairs (offsets unchanged)
    out = model.to_bytes()
    assert len(out) == len(data) and out[0x1C : 0x1C + 8 * 15] == data[0x1C : 0x1C + 8 * 15]
    assert Cgfx.from_bytes(out).shaders[0].name == "OtherShader1"


def test_same_size_edit_is_written_in_place() -> None:
    data = _hand_cgfx()
    model = Cgfx.from_bytes(data)
    dvlb = model.shaders[0].dvlb
    assert dvlb is not None
    dvlb.dvles[0].constants[0] = Constant.fvec(95, 4.0, 4.0, 4.0, 4.0)
    model.shaders[0].name = "OtherShader1"  # same length
    out = model.to_bytes()
    assert len(out) == len(data)
    again = Cgfx.from_bytes(out)
    assert again.shaders[0].name == "OtherShader1"
    assert again.shaders[0].dvlb is not None and again.shaders[0].dvlb.dvles[0].constants[0].value == [4.0] * 4
    # the opaque texture bytes are untouched
    assert b"TXOB" + bytes(range(28)) in out


def test_resizing_in_a_file_with_other_resources_keeps_everything_else() -> None:
    data = _hand_cgfx()
    model = Cgfx.from_bytes(data)
    model.shaders[0].name = "a much longer shader name"
    dvlb = model.shaders[0].dvlb
    assert dvlb is not None
    dvlb.dvles[0].uniforms[0].name = "a_longer_projection"  # the DVLB grows: its symbol table moves
    out = model.to_bytes()
    # the new name and the grown DVLB go after the stored bytes, 4-aligned: the name at the old end
    # (4-aligned already? the file ends with the SHBIN, a multiple of 4), the DVLB after it
    assert len(data) % 4 == 0
    name = b"a much longer shader name\0"
    assert out[len(data) : len(data) + len(name)] == name
    dvlb_at = len(data) + ((len(name) + 3) & ~3)
    assert out[dvlb_at : dvlb_at + 4] == b"DVLB"
    # everything before the old end is untouched but the derived words: the node's name pointer,
    # the DVLB size and pointer words of the SHDR object, and the file and DATA sizes
    entry, size_at = 0x9C + 12 + 16, 0x9C + 12 + 32 + 32
    changed = {i for i in range(len(data)) if out[i] != data[i]}
    allowed = set(range(0x0C, 0x10)) | set(range(0x18, 0x1C)) | set(range(entry + 8, entry + 12)) \
        | set(range(size_at, size_at + 8))
    assert changed <= allowed and changed & set(range(entry + 8, entry + 12))
    assert struct.unpack_from("<I", out, 0x0C)[0] == len(out) and struct.unpack_from("<I", out, 0x18)[0] == len(out) - 0x14
    again = Cgfx.from_bytes(out)
    assert again.shaders[0].name == "a much longer shader name"
    assert again.shaders[0].dvlb == dvlb
    assert b"TXOB" + bytes(range(28)) in out[: len(data)]


def test_adding_a_shader_to_a_file_with_other_resources() -> None:
    data = _hand_cgfx()
    model = Cgfx.from_bytes(data)
    model.shaders.append(CgfxShader("extra", Dvlb.from_bytes(_shbin(SPRITE))))
    out = model.to_bytes()
    # appended at the old end (a multiple of 4): the new DICT (12 + 3 nodes of 16 = 60 bytes), the
    # new SHDR object (32), the name "extra\0" (6), then the DVLB at the next multiple of 4
    end = len(data)
    assert out[end : end + 4] == b"DICT" and out[end + 60 + 4 : end + 60 + 8] == b"SHDR"
    assert out[end + 92 : end + 98] == b"extra\0" and out[end + 100 : end + 104] == b"DVLB"
    count, offset = struct.unpack_from("<II", out, 0x14 + 8 + 4 * 8)
    assert count == 2 and 0x14 + 8 + 4 * 8 + 4 + offset == end
    # before the old end only derived words changed: file and DATA sizes, the shader DICT reference
    changed = {i for i in range(end) if out[i] != data[i]}
    assert changed <= set(range(0x0C, 0x10)) | set(range(0x18, 0x1C)) | set(range(0x3C, 0x44))
    again = Cgfx.from_bytes(out)
    assert [s.name for s in again.shaders] == ["SpriteShader", "extra"]
    assert [s.dvlb for s in again.shaders] == [s.dvlb for s in model.shaders]
    assert again.dict_counts[1] == 1 and b"TXOB" + bytes(range(28)) in out
    names = [s.name for s in again.shaders]
    tree = [(again.root_reference_bit, again.root_left, again.root_right)] + [
        (s.reference_bit, s.left, s.right) for s in again.shaders
    ]
    assert all(find(names, tree, n) == i for i, n in enumerate(names))


def test_removing_the_shader_keeps_the_other_resources() -> None:
    data = _hand_cgfx()
    model = Cgfx.from_bytes(data)
    model.shaders.clear()
    out = model.to_bytes()
    assert len(out) == len(data) and struct.unpack_from("<I", out, 0x14 + 8 + 4 * 8)[0] == 0
    again = Cgfx.from_bytes(out)
    assert again.shaders == [] and again.dict_counts[1] == 1


def test_new_shader_only_cgfx() -> None:
    names = ["sprite", "world", "gui", "a"]
    shaders = [
        CgfxShader(n, Dvlb.from_bytes(_shbin(f)))
        for n, f in zip(names, [SPRITE, WORLD, "Re-Craft-3DS__gui__c7350b44.shbin", SPRITE])
    ]
    data = Cgfx(shaders=shaders).to_bytes()
    # fixed parts worked out from the layout: header 0x14, DATA at 0x14, shader DICT at 0x9C
    assert struct.unpack_from("<4sHHIII", data) == (b"CGFX", 0xFEFF, 0x14, 0x05000000, len(data), 1)
    assert struct.unpack_from("<4sI", data, 0x14) == (b"DATA", len(data) - 0x14)
    count, offset = struct.unpack_from("<II", data, 0x14 + 8 + 4 * 8)
    assert count == 4 and 0x14 + 8 + 4 * 8 + 4 + offset == 0x9C
    assert data[0x9C:0xA0] == b"DICT"
    again = Cgfx.from_bytes(data)
    assert [s.name for s in again.shaders] == names
    assert [s.dvlb for s in again.shaders] == [s.dvlb for s in shaders]
    assert again.to_bytes() == data
    tree = [(again.root_reference_bit, again.root_left, again.root_right)] + [
        (s.reference_bit, s.left, s.right) for s in again.shaders
    ]
    assert all(find(names, tree, n) == i for i, n in enumerate(names))
    assert find(names, tree, "missing") == -1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text("abcdefgh_0123", min_size=1, max_size=12), min_size=1, max_size=12, unique=True))
def test_tree_finds_every_name(names: list[str]) -> None:
    tree = build_tree(names)
    assert len(tree) == len(names) + 1
    for i, n in enumerate(names):
        assert find(names, tree, n) == i


def test_tree_by_hand() -> None:
    # one name "a" (0x61): longest 1 -> start at bit 7; root has no name (bits 0), "a" has
    # bits 6, 5 and 0 set, so the first differing bit from the top is 6; bit 6 of "a" is 1, so
    # the entry's left points back at the root (0) and its right at itself (1).
    assert build_tree(["a"]) == [(0xFFFFFFFF, 1, 0), (6, 0, 1)]


def test_csdr_wrapping_cgfx() -> None:
    text = base64.encodebytes(_hand_cgfx())
    model = Csdr.from_bytes(text)
    assert isinstance(model.payload, Cgfx)
    assert model.to_bytes() == text


def test_truncated_everywhere() -> None:
    data = _hand_cgfx()
    for size in range(0, len(data), 3):
        try:
            model = Cgfx.from_bytes(data[:size])
        except ShaderFormatError:
            continue
        assert model.to_bytes() == data[:size]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_corrupted_words(data: st.DataObject) -> None:
    raw = bytearray(_hand_cgfx())
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(0, len(raw) // 4 - 1)) * 4
        struct.pack_into("<I", raw, pos, data.draw(st.integers(0, 2**32 - 1) | st.integers(0, 0x400)))
    try:
        model = Cgfx.from_bytes(bytes(raw))
    except ShaderFormatError:
        return
    assert model.to_bytes() == bytes(raw)
    model.summary()
    model.problems()


def test_bad_inputs() -> None:
    data = _hand_cgfx()
    with pytest.raises(ShaderFormatError, match="byte order"):
        Cgfx.from_bytes(data[:4] + b"\xfe\xff" + data[6:])
    bad = bytearray(data)
    struct.pack_into("<I", bad, 0x9C + 8, 5)  # DICT says 5 entries, DATA says 1
    with pytest.raises(ShaderFormatError, match="DICT holds 5"):
        Cgfx.from_bytes(bytes(bad))
    bad = bytearray(data)
    struct.pack_into("<i", bad, 0x9C + 12 + 16 + 8, 0x7FFFFFF0)  # name pointer far away
    with pytest.raises(ShaderFormatError, match="name pointer"):
        Cgfx.from_bytes(bytes(bad))


@pytest.mark.parametrize("word", [0xC0, 0xC4])  # the shader node's name and value pointers
@pytest.mark.parametrize("value", [0, 1, 0x7FFFFFFF, 0xFFFFFFFF])
def test_pointer_into_the_dictionary_rebuilds(word: int, value: int) -> None:
    """A name or SHDR pointer aimed into the DICT itself: the string or word read there overlaps
    the dictionary and must come back with it (found by tools/mutate.py on the hand-built file)."""
    data = bytearray(_hand_cgfx())
    struct.pack_into("<I", data, word, value)
    try:
        model = Cgfx.from_bytes(bytes(data))
    except ShaderFormatError:
        return
    assert model.to_bytes() == bytes(data)


def test_grown_dvlb_appended_after_the_next_one_is_found_again() -> None:
    """Shader "a"'s DVLB grows to 536 bytes and goes to the end; its SHDR size word (at 0xF0) read
    as a self-relative pointer then leads to 0xF0 + 536 = 0x308, where shader "bb"'s DVLB lies:
    the reader must take the word after it (the real pointer, whose word before is a fitting size)."""
    data = Cgfx(shaders=[CgfxShader("a", Dvlb.from_bytes(_shbin(SPRITE))),
                         CgfxShader("bb", Dvlb.from_bytes(_shbin(WORLD)))]).to_bytes()
    model = Cgfx.from_bytes(data)
    dvlb = model.shaders[0].dvlb
    assert dvlb is not None
    dvlb.dvles[0].uniforms += [Uniform("u14", 0x20, 0x20), Uniform("u14", 0x20, 0x20)]
    out = model.to_bytes()
    size, pointer = struct.unpack_from("<II", out, 0xF0)
    assert size == 536 and 0xF0 + size == 0x308 and out[0x308:0x30C] == b"DVLB"
    assert 0xF4 + pointer == len(data)  # the grown DVLB at the old end
    again = Cgfx.from_bytes(out)
    assert [s.dvlb for s in again.shaders] == [s.dvlb for s in model.shaders]


def test_disasm_text_goes_back_into_the_cgfx_and_csdr(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from conftest import run_cli
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.dvlb.build import assemble_into

    data = _hand_cgfx()
    text = Cgfx.from_bytes(data).disassemble()
    assert text.startswith("; shader SpriteShader\n")
    assert assemble_into(Cgfx.from_bytes(data), text).to_bytes() == data
    # an edit reaches the shader inside: const95's x (0.0) becomes 2.0 (float24 0x400000 in the DVLE)
    edited = text.replace(".constf const95(0.0,", ".constf const95(2.0,", 1)
    assert edited != text
    model = assemble_into(Cgfx.from_bytes(data), edited)
    assert isinstance(model, Cgfx)
    out = model.to_bytes()
    dvlb = Cgfx.from_bytes(out).shaders[0].dvlb
    assert dvlb is not None and dvlb.dvles[0].constants[0].value[0] == 2.0
    assert out[: len(data) - len(_shbin(WORLD))] == data[: len(data) - len(_shbin(WORLD))]  # the rest kept
    # the CLI: disasm then asm --base gives the file back; a CSDR (base64 of it) too
    wrapped = base64.encodebytes(data)
    for name, blob in (("x.bcsdr", data), ("x.csdr", wrapped)):
        path = tmp_path / name
        path.write_bytes(blob)
        code, listing, err = run_cli(capsys, "disasm", str(path))
        assert code == 0, err
        (tmp_path / "x.pica").write_text(listing)
        code, _, err = run_cli(capsys, "asm", str(tmp_path / "x.pica"), "--base", str(path), "-o", str(tmp_path / "o"))
        assert code == 0, err
        assert (tmp_path / "o").read_bytes() == blob
    # a part named after another shader, or a part missing, is an error with its line
    with pytest.raises(AssemblyError, match="expected the part of shader 'SpriteShader'") as found:
        assemble_into(Cgfx.from_bytes(data), text.replace("; shader SpriteShader", "; shader Other"))
    assert found.value.line == 1
    with pytest.raises(AssemblyError, match="text before the first") as found:  # (it would be dropped)
        assemble_into(Cgfx.from_bytes(data), ".proc junk\n  end\n.end\n" + text)
    assert found.value.line == 1
    with pytest.raises(AssemblyError, match="1 shader programs"):
        assemble_into(Cgfx.from_bytes(data), text + "\n; shader Extra\n.proc main\n  end\n.end\n")


def test_asm_base_refuses_a_csdr_around_a_dvob(tmp_path: Path) -> None:
    # a CSDR may wrap a DVOB (object file), which holds no assembled program to replace: a usage
    # error naming what --base takes (it was a TypeError traceback)
    from click.testing import CliRunner
    from test_pica_dvob import _hand_dvoj

    from shaderkit.cli import cli

    (tmp_path / "x.csdr").write_bytes(base64.encodebytes(_hand_dvoj()))
    (tmp_path / "t.pica").write_text(".proc main\n\tend\n.end\n")
    result = CliRunner().invoke(cli, ["asm", str(tmp_path / "t.pica"), "--base", str(tmp_path / "x.csdr"),
                                      "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "SHBIN, CGFX or CSDR" in result.output and "Maxwell" not in result.output
    assert not (tmp_path / "o").exists()
