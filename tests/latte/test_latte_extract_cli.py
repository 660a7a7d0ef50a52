"""``shaderkit extract`` / ``replace`` on GSH, SHARCFB and the Wii U BFSHA.

Oracles: program blocks found by walking the GFD block headers here (not with shaderkit's
reader); SHARCFB offsets read off sc_obj_coin.sharcfb by hand (binary elements at 0x29 and
0x4290, program size/offset words at struct + 0xD0 (vertex) / + 0xA4 (pixel)); original bytes.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from conftest import corpus_params, corpus_root, run_cli
from shaderkit.formats.agl.sharcfb import Sharcfb
from shaderkit.formats.bfsha.wiiu import WiiUBfsha
from shaderkit.formats.gfd.gsh import Gsh

#: program block type -> (stage, the header block type it belongs to)
PROGRAM_BLOCKS = {5: ("vertex", 3), 7: ("pixel", 6)}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code, _out, err = run_cli(capsys, *argv)
    return code, err


def gfd_programs(data: bytes) -> dict[str, list[bytes]]:
    """Program block payloads by stage, in file order, walking the 0x20-byte block headers (a
    program block with no header block before it belongs to no shader)."""
    out: dict[str, list[bytes]] = {"vertex": [], "pixel": []}
    headers: set[int] = set()
    pos = 0x20
    while pos + 0x20 <= len(data):
        magic, _, _, _, btype, size, _, _ = struct.unpack_from(">4s7I", data, pos)
        assert magic == b"BLK{"
        headers.add(btype)
        if btype in PROGRAM_BLOCKS and PROGRAM_BLOCKS[btype][1] in headers:
            out[PROGRAM_BLOCKS[btype][0]].append(data[pos + 0x20 : pos + 0x20 + size])
        pos += 0x20 + size
        if btype == 1:
            break
    return out


def _gsh_with_programs() -> list:
    return [p for p in corpus_params("wiiu", "*.gsh")
            if p.values[0] is None or any(gfd_programs(p.values[0].read_bytes()).values())]


@pytest.mark.parametrize("path", _gsh_with_programs())
def test_gsh_extract_replace(capsys: pytest.CaptureFixture[str], tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    programs = gfd_programs(data)
    out, new = tmp_path / "code.bin", tmp_path / "new.gsh"
    for stage, codes in programs.items():
        for n, expected in enumerate(codes):
            code, err = run(capsys, "extract", str(path), "--stage", stage, "--variation", str(n), "-o", str(out))
            if not expected:
                continue
            assert code == 0, err
            assert out.read_bytes() == expected
            code, err = run(capsys, "replace", str(path), "--stage", stage, "--variation", str(n),
                            "--data", str(out), "-o", str(new))
            assert code == 0, err
            assert new.read_bytes() == data
    code, err = run(capsys, "extract", str(path), "--stage", "pixel", "--variation", "9", "-o", str(out))
    assert code == 2 and "no pixel shader 9" in err


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_04_test_shader.gsh"))
def test_gsh_replace_edited_changes_only_that_program(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      path: Path) -> None:
    data = path.read_bytes()
    pixel = gfd_programs(data)["pixel"][0]
    edited = pixel[:-8] + b"\x11" * 8 + bytes(64)  # last slot changed, 8 slots longer
    (tmp_path / "e.bin").write_bytes(edited)
    code, err = run(capsys, "replace", str(path), "--stage", "pixel", "--data", str(tmp_path / "e.bin"),
                    "-o", str(tmp_path / "new.gsh"))
    assert code == 0, err
    new_data = (tmp_path / "new.gsh").read_bytes()
    assert gfd_programs(new_data) == {"vertex": gfd_programs(data)["vertex"], "pixel": [edited]}
    expected = Gsh.from_bytes(data)
    expected.shaders[1].program = edited
    assert Gsh.from_bytes(new_data) == expected


@pytest.mark.parametrize("path", corpus_params("wiiu", "sc_obj_coin.sharcfb"))
def test_sharcfb_extract_replace(capsys: pytest.CaptureFixture[str], tmp_path: Path, path: Path) -> None:
    data = path.read_bytes()
    vertex, pixel = data[0x2D00 : 0x2D00 + 0x1590], data[0x4B00 : 0x4B00 + 0x2B0]
    out = tmp_path / "code.bin"
    for stage, expected in (("vertex", vertex), ("pixel", pixel)):
        for extra in ((), ("--name", "mat_coin")):
            code, err = run(capsys, "extract", str(path), "--stage", stage, *extra, "-o", str(out))
            assert code == 0, err
            assert out.read_bytes() == expected
        code, err = run(capsys, "replace", str(path), "--stage", stage, "--name", "mat_coin", "--data", str(out),
                        "-o", str(tmp_path / "same.sharcfb"))
        assert code == 0, err
        assert (tmp_path / "same.sharcfb").read_bytes() == data
    edited = pixel[:0x10] + b"\x22" * 8 + pixel[0x18:] + bytes(0x100)
    out.write_bytes(edited)
    code, err = run(capsys, "replace", str(path), "--stage", "pixel", "--data", str(out), "-o", str(tmp_path / "e.sharcfb"))
    assert code == 0, err
    expected = Sharcfb.from_bytes(data)
    expected.binaries[1].shader.program = edited
    got = Sharcfb.from_bytes((tmp_path / "e.sharcfb").read_bytes())
    assert got.binaries == expected.binaries and got.programs == expected.programs
    for argv, message in ((("--name", "nope"), "no program 'nope'"), (("--variation", "1", "--name", "mat_coin"),
                                                                        "variations 0..0"),
                          (("--program", "source"), "only binary programs")):
        code, err = run(capsys, "extract", str(path), "--stage", "pixel", *argv, "-o", str(out))
        assert code == 2 and message in err, err
    code, err = run(capsys, "extract", str(path), "--stage", "hull", "-o", str(out))
    assert code == 2 and "not hull" in err


def test_bfsha_extract_replace_inside_szs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    szs_path = root / "wiiu" / "st_BodyB_Ysi.szs"
    szs = szs_path.read_bytes()
    member = f"{szs_path}//Turbo_UBER.bfsha"
    out = tmp_path / "code.bin"
    # the oracle: the member path of the same stage (`shaderkit get`)
    code, err = run(capsys, "get", f"{member}//turbo_uber_xlu/2/pixel", "-o", str(tmp_path / "get.bin"))
    assert code == 0, err
    code, err = run(capsys, "extract", member, "--name", "turbo_uber_xlu", "--variation", "2", "--stage", "pixel",
                    "-o", str(out))
    assert code == 0, err
    original = out.read_bytes()
    assert original == (tmp_path / "get.bin").read_bytes() and len(original) > 0
    code, err = run(capsys, "replace", member, "--name", "turbo_uber_xlu", "--variation", "2", "--stage", "pixel",
                    "--data", str(out), "-o", str(tmp_path / "same.szs"))
    assert code == 0, err
    assert (tmp_path / "same.szs").read_bytes() == szs
    edited = original[:-8] + b"\x33" * 8
    out.write_bytes(edited)
    code, err = run(capsys, "replace", member, "--name", "turbo_uber_xlu", "--variation", "2", "--stage", "pixel",
                    "--data", str(out), "-o", str(tmp_path / "edited.szs"))
    assert code == 0, err
    from shaderkit.formats.archive.path import resolve

    before = WiiUBfsha.from_bytes(resolve(szs, ["Turbo_UBER.bfsha"])[1])
    after = WiiUBfsha.from_bytes(resolve((tmp_path / "edited.szs").read_bytes(), ["Turbo_UBER.bfsha"])[1])
    target = before.program_shaders("turbo_uber_xlu", 2)["pixel"]
    changed = [i for i, (a, b) in enumerate(zip(before.shaders, after.shaders)) if a != b]
    assert changed == [before.shaders.index(target)]
    assert after.shaders[changed[0]].program == edited
