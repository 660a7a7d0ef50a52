"""Shader files inside files of unknown formats (formats/embedded.py): found by magic, sized by
their own headers, addressed as ``outer//@0x...`` by every verb."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_root, run_cli
from shaderkit.errors import ShaderkitError
from shaderkit.formats.archive.path import EmbeddedNode, open_node, walk
from shaderkit.formats.embedded import Embedded, find, parse_name, size_at
from shaderkit.formats.registry import FORMATS
from shaderkit.samples import SAMPLES

#: the magics formats are looked for by, at the start of their files (all but D3D9's CTAB)
MAGICS = {magic for spec in FORMATS if spec.embedded for magic in spec.embedded.magics}
OPENING = {magic for spec in FORMATS if spec.embedded and not spec.embedded.magic_at for magic in spec.embedded.magics}


def _known_files() -> list[tuple[str, bytes]]:
    """(name, bytes) of every corpus file, archive payload and member that starts with a magic
    a format is looked for by, and of shaderkit's own samples."""
    found = [(name, build()) for name, build in SAMPLES.items()]
    root = corpus_root()
    if root is not None:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            data = path.read_bytes()
            found.append((path.name, data))
            if data[:4] == b"Yaz0":
                from shaderkit.formats.archive.compressed import Yaz0File

                payload = Yaz0File.from_bytes(data).payload
                found.append((path.name + "//", payload))
                found.extend((item.path, item.data) for item in walk(payload, path.name))
    return [(name, data) for name, data in found if data[:4] in OPENING]


KNOWN = _known_files()


def test_every_known_file_is_sized_by_its_header() -> None:
    # the oracle: each file's own length (corpus bytes, or the sample writers' output)
    formats = {data[:4] for _, data in KNOWN}
    assert {b"DXBC", b"DVLB", b"BNSH", b"DKSH", b"BAHS"} <= formats
    if corpus_root() is not None:
        assert len(KNOWN) > 450 and {b"Gfx2", b"AAHS", b"FRES", b"FSHA"} <= formats
    wrong = [(name, len(data), size_at(data, 0)) for name, data in KNOWN if size_at(data, 0) != len(data)]
    assert wrong == []


def _pack(files: list[bytes]) -> tuple[bytes, list[Embedded]]:
    """An unknown file: junk (with magics that lead nowhere) around ``files``; where each lies."""
    decoys = [b"DXBC" + bytes(28), b"SARC\x00\x14\xfe\xff" + bytes(12), b"DVLB\x01\x00\x00\x00DVLX", b"Gfx2" + bytes(9),
              b"BNSH" + bytes(40), b"FRES\x00\x00\x00\x00\xfe\xff"]
    out = bytearray(b"UnityFS\x00" + bytes(21))
    placed = []
    for i, data in enumerate(files):
        out += decoys[i % len(decoys)] + bytes(i % 3)
        placed.append(Embedded(len(out), len(data)))
        out += data
    out += decoys[0][:10]
    return bytes(out), placed


def _pick() -> list[bytes]:
    """One file of each format at hand (each is found whole; those nested in it are not)."""
    by_magic: dict[bytes, bytes] = {}
    for _, data in KNOWN:
        if data[:4] not in (b"FRES", b"FSHA") or len(data) < 400_000:
            by_magic.setdefault(data[:4], data)
    return list(by_magic.values())


def test_find_gives_each_embedded_file_where_it_was_put() -> None:
    files = _pick()
    data, placed = _pack(files)
    assert find(data) == placed
    node = open_node(data)
    assert isinstance(node, EmbeddedNode)
    assert [node.member(item.name) for item in placed] == files


def test_a_library_container_is_one_file_not_its_nested_ones(corpus: Path) -> None:
    libraries = [p.read_bytes() for p in sorted((corpus / "dxbc").glob("*.dxbc")) if b"LIBF" in p.read_bytes()[:4096]]
    assert libraries, "the corpus has DXBC libraries (nested containers in LIBF chunks)"
    data, placed = _pack(libraries[:1])
    assert libraries[0].count(b"DXBC") > 1 and find(data) == placed


def test_truncated_and_inconsistent_headers_are_not_files() -> None:
    dxbc = SAMPLES["sample_vs.dxbc"]()
    assert find(b"junk" + dxbc[:-1]) == []  # one byte short of its size field
    bad_version = dxbc[:20] + struct.pack("<I", 2) + dxbc[24:]
    assert find(b"junk" + bad_version) == []
    shbin = SAMPLES["sample.shbin"]()
    assert find(bytes(8) + shbin[:-8]) == []  # its last DVLE table cut off
    assert find(bytes(8) + shbin.replace(b"DVLP", b"DVLQ")) == []


def test_a_known_file_is_not_searched(corpus: Path) -> None:
    # a BNSH or a DXBC library holds other magics: it is a shader file, not an archive of them
    shader_files = [data for data in _pick() if data[:4] not in (b"SARC", b"FRES", b"FSHA")]
    assert len(shader_files) >= 7
    for data in shader_files:
        assert open_node(data) is None


def test_shaders_inside_an_unknown_archive_member_are_listed() -> None:
    from shaderkit.formats.archive.sarc import Sarc

    dxbc = SAMPLES["sample_vs.dxbc"]()
    sarc = _sarc_with(b"Model/level.pak", b"pak0" + bytes(12) + dxbc)
    assert Sarc.from_bytes(sarc).to_bytes() == sarc
    listed = [(item.path, item.format, item.data) for item in walk(sarc, "pack.sarc")]
    assert listed == [("pack.sarc//Model/level.pak", "unknown", b"pak0" + bytes(12) + dxbc),
                      ("pack.sarc//Model/level.pak//@0x10", "dxbc", dxbc)]


def _sarc_with(name: bytes, data: bytes) -> bytes:
    """A little-endian SARC of one member, laid out by hand (SARC, SFAT, SFNT headers; data at 0x80)."""
    names = name + b"\0" * (4 - len(name) % 4)
    name_hash = 0
    for byte in name:
        name_hash = (name_hash * 101 + byte) & 0xFFFFFFFF
    sfat = b"SFAT" + struct.pack("<HHI", 0xC, 1, 101) + struct.pack("<IIII", name_hash, 0x01000000, 0, len(data))
    sfnt = b"SFNT" + struct.pack("<HH", 8, 0) + names
    data_offset = 0x80
    head_len = 0x14 + len(sfat) + len(sfnt)
    size = data_offset + len(data)
    header = b"SARC" + struct.pack("<HHIIHH", 0x14, 0xFEFF, size, data_offset, 0x100, 0)
    return header + sfat + sfnt + bytes(data_offset - head_len) + data


def test_a_search_reads_each_word_of_would_be_d3d9_headers_about_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # every 16 bytes a ps_2_0 version token, a comment token and CTAB, but no end token anywhere:
    # each start walks to the end of the data unless the walks it joins are remembered
    from shaderkit.formats.d3d9 import shader

    unit = _words(0xFFFF0200, 0x0001FFFE) + b"CTAB" + bytes(4)
    data = unit * 4096
    reads = 0
    original = shader._Words.__getitem__

    def counted(self: object, index: int) -> int:
        nonlocal reads
        reads += 1
        return original(self, index)  # type: ignore[arg-type]

    monkeypatch.setattr(shader._Words, "__getitem__", counted)
    assert find(data) == []
    assert reads < 10 * len(data) // 4


def test_member_names() -> None:
    assert Embedded(0x1A40, 8).name == "@0x1a40"
    assert parse_name("@0x1a40") == 0x1A40 and parse_name("@6720") == 6720
    assert parse_name("0x1a40") is None and parse_name("@zz") is None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(sorted(MAGICS)), st.binary(max_size=40)), max_size=30))
def test_find_never_fails_on_junk_with_magics(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    for item in find(data):
        assert 0 <= item.offset and item.offset + item.size <= len(data)
        assert size_at(data, item.offset) == item.size


# -- the CLI ---------------------------------------------------------------------------------------

@pytest.fixture
def pack(tmp_path: Path) -> tuple[Path, list[bytes], list[Embedded]]:
    files = [SAMPLES["sample_vs.dxbc"](), SAMPLES["sample.shbin"](), SAMPLES["sample.bnsh"]()]
    data, placed = _pack(files)
    path = tmp_path / "level.pak"
    path.write_bytes(data)
    return path, files, placed


def test_cli_lists_reads_and_scans_embedded_files(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  pack: tuple[Path, list[bytes], list[Embedded]]) -> None:
    path, files, placed = pack
    code, out, _ = run_cli(capsys, "ls", str(path))
    assert code == 0
    assert [line.split()[-1] for line in out.splitlines()] == [f"{path}//{item.name}" for item in placed]
    assert [line.split()[0] for line in out.splitlines()] == ["dxbc", "dvlb", "bnsh"]
    code, out, _ = run_cli(capsys, "get", f"{path}//{placed[1].name}", "-o", str(tmp_path / "got.shbin"))
    assert code == 0 and (tmp_path / "got.shbin").read_bytes() == files[1]
    code, out, _ = run_cli(capsys, "disasm", f"{path}//{placed[0].name}")
    assert code == 0 and out.splitlines()[0].startswith("//") and "vs_" in out
    code, out, err = run_cli(capsys, "scan", str(path))
    assert code == 0 and out.count('"format"') == 3 and '"error"' not in out and "3 shaders, 0 errors" in err


def test_cli_puts_back_a_same_size_file_only(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            pack: tuple[Path, list[bytes], list[Embedded]]) -> None:
    path, files, placed = pack
    member = f"{path}//{placed[0].name}"
    edited = bytearray(files[0])
    edited[4] ^= 0xFF  # a checksum byte: same size, other bytes
    (tmp_path / "edited.dxbc").write_bytes(edited)
    code, _, _ = run_cli(capsys, "put", member, str(tmp_path / "edited.dxbc"), "-o", str(tmp_path / "out.pak"))
    original = path.read_bytes()
    expected = original[: placed[0].offset] + bytes(edited) + original[placed[0].offset + placed[0].size :]
    assert code == 0 and (tmp_path / "out.pak").read_bytes() == expected
    (tmp_path / "bigger.dxbc").write_bytes(files[0] + bytes(4))
    code, out, err = run_cli(capsys, "put", member, str(tmp_path / "bigger.dxbc"), "-o", str(tmp_path / "no.pak"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "same size" in err and "Traceback" not in err
    assert not (tmp_path / "no.pak").exists()


def test_cli_names_a_wrong_offset(capsys: pytest.CaptureFixture[str],
                                  pack: tuple[Path, list[bytes], list[Embedded]]) -> None:
    path, _, placed = pack
    code, _, err = run_cli(capsys, "info", f"{path}//@{placed[0].offset + 1:#x}")
    assert code == 2 and "no known file starts at" in err and placed[0].name in err


def test_embedded_errors_are_shaderkit_errors(pack: tuple[Path, list[bytes], list[Embedded]]) -> None:
    path, _, placed = pack
    node = open_node(path.read_bytes())
    assert isinstance(node, EmbeddedNode)
    with pytest.raises(ShaderkitError):
        node.replace_member(placed[0].name, b"short")


def _words(*words: int) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


#: ps_2_0: version, comment token, its 1 word (CTAB), mov oC0, c0 (2 parameters: bits 24..27), end: 7 words
PS20 = _words(0xFFFF0200, 0x0001FFFE) + b"CTAB" + _words(0x02000001, 0x800F0800, 0xA0E40000, 0x0000FFFF)
#: vs_1_1 (no instruction lengths: parameter tokens have bit 31): mov oPos, v0; also 7 words
VS11 = _words(0xFFFE0101, 0x0001FFFE) + b"CTAB" + _words(0x00000001, 0x800F0000, 0x90E40000, 0x0000FFFF)


def test_d3d9_shaders_are_found_by_their_constant_table() -> None:
    assert size_at(PS20 + b"\xff" * 8, 0) == 28 and size_at(VS11, 0) == 28
    data = b"\x00\x03\xff\xff" * 3 + PS20 + b"CTAB" * 2 + VS11 + b"\x00\x02\xff\xff"
    assert find(data) == [Embedded(12, 28), Embedded(48, 28)]
    assert find(PS20[:-4] + _words(0x0000FFFE)) == []  # no end token
    assert find(_words(0xFFFF0500, 0x0001FFFE) + b"CTAB" + _words(0x0000FFFF)) == []  # no ps_5_0 token stream


def test_cli_points_at_the_files_inside_an_unknown_one(capsys: pytest.CaptureFixture[str],
                                                       pack: tuple[Path, list[bytes], list[Embedded]]) -> None:
    path, _, placed = pack
    code, _, err = run_cli(capsys, "info", str(path))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"3 known files inside it, the first at {placed[0].name}" in err


def test_a_d3d9_effect_names_its_shaders_and_is_found_inside_other_files(capsys: pytest.CaptureFixture[str],
                                                                          tmp_path: Path) -> None:
    # fx_2_0: tag 0xFEFF0901, block size, the data block (offsets by hand: the PixelShader type of
    # parameter "ps" at 4, its object id 1 at 24, "ps" at 28, "T" at 36, "P" at 44, the VertexShader
    # state's type at 52 and its object id 2 at 72), then the records and the objects: PS20 is the
    # small object 1 that "ps" holds, VS11 the large object of technique 0, pass 0, state 0
    block = (_words(0, 15, 4, 28, 0, 0, 1) + _words(3) + b"ps\0\0" + _words(2) + b"T\0\0\0" + _words(2) + b"P\0\0\0"
             + _words(16, 4, 0, 0, 0, 2))
    assert len(block) == 76
    effect = (_words(0xFEFF0901, 76) + block + _words(1, 1, 2, 3, 4, 24, 0, 0, 36, 0, 1, 44, 0, 1, 146, 0, 52, 72)
              + _words(1, 1) + _words(1, 28) + PS20 + _words(0, 0, 0xFFFFFFFF, 0, 0, 28) + VS11)
    path = tmp_path / "stock.fxb"
    path.write_bytes(effect)
    code, out, _ = run_cli(capsys, "info", "--json", str(path))
    assert code == 0 and '"format": "fx2"' in out and '"typed": true' in out
    node = open_node(effect)
    assert node is not None and not isinstance(node, EmbeddedNode)
    assert node.member_names() == ["ps", "T/P/VertexShader"]
    assert node.member("ps") == PS20 and node.member("T/P/VertexShader") == VS11
    # inside a file of unknown format the effect is one member, its shaders its own
    outer = b"\xee" * 16 + effect + b"\xee" * 8
    assert find(outer) == [Embedded(16, len(effect))]
    assert [item.path for item in walk(outer)] == ["//@0x10", "//@0x10//ps", "//@0x10//T/P/VertexShader"]
