"""ls / get / put / scan / variation and member paths through the CLI; bad archives exit 2."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from conftest import corpus_root, run_cli
from shaderkit.formats.archive import yaz0


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_cli(capsys, *argv)


def sarc(files: list[tuple[bytes, bytes]]) -> bytes:
    """A big-endian SARC laid out by hand (names unsorted by hash is fine for one or two files)."""
    names = b""
    offs = []
    for name, _ in files:
        offs.append(len(names))
        names += name + b"\0"
        names += bytes(-len(names) % 4)
    head = 0x14 + 0xC + 0x10 * len(files) + 8 + len(names)
    data_offset = -(-head // 0x10) * 0x10
    body = b""
    spans = []
    for _, blob in files:
        body += bytes(-len(body) % 0x10)
        spans.append((len(body), len(body) + len(blob)))
        body += blob
    out = struct.pack(">4sHHIIHH", b"SARC", 0x14, 0xFEFF, data_offset + len(body), data_offset, 0x100, 0)
    out += struct.pack(">4sHHI", b"SFAT", 0xC, len(files), 101)
    for (name, _), off, span in zip(files, offs, spans):
        h = 0
        for byte in name:
            h = (h * 101 + byte) & 0xFFFFFFFF
        out += struct.pack(">IIII", h, 0x01000000 | off // 4, *span)
    out += struct.pack(">4sHH", b"SFNT", 8, 0) + names
    return out + bytes(data_offset - len(out)) + body


@pytest.mark.parametrize(
    "blob, message",
    [
        (b"Yaz0" + struct.pack(">III", 0xFFFFFFF0, 0, 0) + bytes(32), "exceeds the limit"),
        (b"Yaz0" + struct.pack(">III", 100000, 0, 0) + bytes(32), "cannot come from"),
        (b"Yaz0" + struct.pack(">III", 64, 0, 0) + bytes([0x00, 0x10, 0x00]) + bytes(8), "back"),
        (b"SARC\x00\x14\xfe\xff" + bytes(12), "file size"),
    ],
)
def test_bombs_and_malformed_archives_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                             blob: bytes, message: str) -> None:
    path = tmp_path / "bad.szs"
    path.write_bytes(blob)
    for verb in (["info"], ["ls"], ["verify"], ["disasm"]):
        code, out, err = run(capsys, *verb, str(path))
        if verb == ["verify"]:
            assert code == 1 and message in out
            continue
        assert code == 2, (verb, out, err)
        assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err


def test_member_paths_in_nested_archives(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    inner = sarc([(b"deep/x.bin", b"payload")])
    outer = sarc([(b"a/inner.sarc", inner), (b"b.txt", b"text")])
    path = tmp_path / "pack.szs"
    path.write_bytes(yaz0.compress(outer))
    code, out, _ = run(capsys, "ls", str(path))
    assert code == 0
    assert [line.split()[-1] for line in out.splitlines()] == [
        f"{path}//a/inner.sarc", f"{path}//a/inner.sarc//deep/x.bin", f"{path}//b.txt"]
    assert out.splitlines()[0].split()[0] == "sarc"
    code, out, _ = run(capsys, "get", f"{path}//a/inner.sarc//deep/x.bin", "-o", "-")
    assert code == 0 and out == "payload"
    new = tmp_path / "new.bin"
    new.write_bytes(b"replaced!")
    result = tmp_path / "out.szs"
    code, _, err = run(capsys, "put", f"{path}//a/inner.sarc//deep/x.bin", str(new), "-o", str(result))
    assert code == 0, err
    code, out, _ = run(capsys, "get", f"{result}//a/inner.sarc//deep/x.bin", "-o", "-")
    assert out == "replaced!"
    code, out, _ = run(capsys, "get", f"{result}//b.txt", "-o", "-")
    assert out == "text"
    code, _, err = run(capsys, "get", f"{path}//a/missing", "-o", "-")
    assert code == 2 and "no member 'a/missing'" in err


def test_scan_counts_match_a_hand_count(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    wiiu = root / "wiiu"
    # hand count: files by magic, and 2 x (12 + 4) program stages per copy of the BFSHA
    by_magic = {"gsh": 0, "sharc": 0, "sharcfb": 0}
    for p in wiiu.iterdir():
        if p.is_file():
            head = p.read_bytes()[:4]
            kind = {b"Gfx2": "gsh", b"AAHS": "sharc", b"SHAA": "sharc", b"BAHS": "sharcfb", b"SHAB": "sharcfb"}.get(head)
            if kind:
                by_magic[kind] += 1
    (tmp_path / "junk.bin").write_bytes(b"Yaz0" + struct.pack(">III", 1 << 30, 0, 0) + bytes(8))
    code, out, err = run(capsys, "scan", str(wiiu), str(tmp_path))
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    formats: dict[str, int] = {}
    for rec in records:
        if "error" not in rec:
            formats[rec["format"]] = formats.get(rec["format"], 0) + 1
    assert formats.get("gsh") == by_magic["gsh"]
    assert formats.get("sharc") == by_magic["sharc"]
    assert formats.get("sharcfb") == by_magic["sharcfb"]
    assert formats.get("bfsha-wiiu") == 2
    assert formats.get("gx2-microcode") == 2 * 2 * (12 + 4)
    inside = [r["path"] for r in records if r.get("format") == "bfsha-wiiu"]
    assert any(p.endswith("st_BodyB_Ysi.szs//Turbo_UBER.bfsha") for p in inside)
    errors = [r for r in records if "error" in r]
    assert [Path(r["path"]).name for r in errors] == ["junk.bin"]
    assert "exceeds the limit" in errors[0]["error"]
    assert f"{sum(formats.values())} shaders, 1 errors" in err


def test_scan_jobs_gives_the_same_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    for path in sorted((root / "wiiu").glob("rio_*.gsh")) + [root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha"]:
        (tmp_path / path.name).write_bytes(path.read_bytes())
    _, serial, _ = run(capsys, "scan", str(tmp_path))
    _, parallel, _ = run(capsys, "scan", "--jobs", "2", str(tmp_path))
    assert serial == parallel and serial.count("\n") == 7 + 1 + 32


def test_variation_and_rebuild_on_corpus_members(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    szs = root / "wiiu" / "st_BodyB_Ysi.szs"
    member = f"{szs}//Turbo_UBER.bfsha"
    bfsha = str(root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha")
    code, out, _ = run(capsys, "variation", "--json", bfsha, "turbo_uber_xlu", "gsys_assign_type=gsys_assign_gbuffer")
    assert code == 0
    result = json.loads(out)
    assert result["program"] == 2 and result["options"]["gsys_assign_type"] == "gsys_assign_gbuffer"
    assert result["stages"]["vertex"]["member"] == f"{bfsha}//turbo_uber_xlu/2/vertex"
    code, _, err = run(capsys, "variation", bfsha, "turbo_uber", "bogus=1")
    assert code == 2 and "no option 'bogus'" in err
    out_path = tmp_path / "again.szs"
    code, _, _ = run(capsys, "rebuild", member, "-o", str(out_path))
    assert code == 0 and out_path.read_bytes() == szs.read_bytes()
    code, out, _ = run(capsys, "verify", "--json", str(szs), str(root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha"))
    rows = [json.loads(line) for line in out.splitlines()]
    # the archive, the BFSHA inside it (checked too: a shader inside a file with no text of its own),
    # and the bare BFSHA
    assert code == 0 and [(r.get("file"), r.get("status")) for r in rows[:-1]] == [
        (str(szs), "passed"), (member, "passed"), (bfsha, "passed")]
    assert rows[-1] == {"summary": {"passed": 3, "failed": 0, "skipped": 0}}


def test_scan_on_a_dask_cluster_gives_the_local_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    folder = tmp_path / "dump"
    folder.mkdir()
    for name in ("st_BodyB_Ysi_embedded.wiiu.bfsha", "rio_02_test_shader.gsh", "sc_obj_coin.sharcfb"):
        (folder / name).write_bytes((root / "wiiu" / name).read_bytes())
    (folder / "broken.szs").write_bytes(b"Yaz0" + bytes(4) + bytes(8) + b"\x00")
    _, local, _ = run(capsys, "scan", str(folder))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        code, remote, err = run(capsys, "scan", "--dask", cluster.scheduler_address, str(folder))
    assert code == 0, err
    assert remote == local and local.count("\n") == 3 + 2 * 16


def test_verify_and_disasm_take_member_paths(capsys: pytest.CaptureFixture[str]) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    szs = root / "wiiu" / "st_BodyB_Ysi.szs"
    code, out, _ = run(capsys, "verify", f"{szs}//Turbo_UBER.bfsha", f"{szs}//missing.bfsha")
    assert code == 1
    assert out.splitlines() == [f"{szs}//missing.bfsha: no external file 'missing.bfsha' (files: Turbo_UBER.bfsha)",
                                "1 passed, 1 failed"]
    code, out, _ = run(capsys, "disasm", f"{szs}//Turbo_UBER.bfsha")
    # one Latte listing per distinct GX2 struct (25), titled with the programs using it (2 * (12 + 4) stages)
    assert code == 0 and out.count("; ==== shaders[") == 25
    assert sum(line.count("/") for line in out.splitlines() if line.startswith("; ==== ")) == 2 * (12 + 4)


def test_zstd_wrapped_sarc_members(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    pack = sarc([(b"Shader/x.bin", b"first"), (b"y.txt", b"second")])
    path = tmp_path / "Pack.sarc.zs"
    path.write_bytes(zstandard.ZstdCompressor().compress(pack))
    code, out, _ = run(capsys, "ls", "--json", str(path))
    assert code == 0
    assert [json.loads(line)["path"] for line in out.splitlines()] == [f"{path}//Shader/x.bin", f"{path}//y.txt"]
    new = tmp_path / "new.bin"
    new.write_bytes(b"changed")
    out_path = tmp_path / "out.zs"
    code, _, err = run(capsys, "put", f"{path}//Shader/x.bin", str(new), "-o", str(out_path))
    assert code == 0, err
    assert zstandard.ZstdDecompressor().decompress(out_path.read_bytes())[:4] == b"SARC"
    code, out, _ = run(capsys, "get", f"{out_path}//Shader/x.bin", "-o", "-")
    assert out == "changed"
    code, out, _ = run(capsys, "get", f"{out_path}//y.txt", "-o", "-")
    assert out == "second"


def test_a_damaged_inner_archive_marks_only_that_member(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    damaged = bytearray(sarc([(b"x.bin", b"data")]))
    damaged[8:12] = struct.pack(">I", 3)  # wrong file size
    pack = tmp_path / "pack.sarc"
    pack.write_bytes(sarc([(b"bad.sarc", bytes(damaged)), (b"ok.gsh", b"not really a shader")]))
    code, out, _ = run(capsys, "ls", str(pack))
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2 and "file size field 3" in lines[0] and lines[1].endswith("//ok.gsh")
    code, out, err = run(capsys, "scan", str(pack))
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["path"].rsplit("//", 1)[1] for r in records] == ["bad.sarc"]
    assert "file size field 3" in records[0]["error"] and "0 shaders, 1 errors" in err


def test_double_slash_in_a_plain_path_is_not_a_member(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "x.sarc").write_bytes(sarc([(b"m.bin", b"member")]))
    code, out, _ = run(capsys, "get", f"{tmp_path}//dir//x.sarc//m.bin", "-o", "-")
    assert code == 0 and out == "member"
    code, out, _ = run(capsys, "info", "--json", f"{tmp_path}//dir//x.sarc")
    assert code == 0 and json.loads(out)["format"] == "sarc"


def _listing(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, data: bytes) -> str:
    """The listing ``disasm`` prints for ``data`` as a file of its own."""
    path = tmp_path / name
    path.write_bytes(data)
    code, out, err = run(capsys, "disasm", str(path))
    assert code == 0, err
    return out


def test_disasm_of_an_archive_lists_its_shaders(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from shaderkit.samples import SAMPLES

    dxbc, shbin = SAMPLES["sample_vs.dxbc"](), SAMPLES["sample.shbin"]()
    expected = {"vs.asm": _listing(capsys, tmp_path, "vs.dxbc", dxbc),
                "prog.asm": _listing(capsys, tmp_path, "prog.shbin", shbin)}
    inner = sarc([(b"shaders/prog.shbin", shbin), (b"readme.txt", b"not a shader")])
    pack = tmp_path / "pack.szs"  # Yaz0 of a SARC holding a shader and a SARC with another
    pack.write_bytes(yaz0.compress(sarc([(b"vs.cso", dxbc), (b"more.sarc", inner)])))
    for extra in ([], ["--offsets"]):  # the console script's fast path, and click's command
        out_dir = tmp_path / f"out{len(extra)}"
        code, _, err = run(capsys, "disasm", *extra, "-o", str(out_dir), str(pack))
        assert code == 0, err
        assert sorted(p.name for p in out_dir.iterdir()) == sorted(expected)
    assert {p.name: p.read_text() for p in (tmp_path / "out0").iterdir()} == expected
    # on standard output, an archive of several shaders names them and asks for a folder
    code, out, err = run(capsys, "disasm", str(pack))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"holds 2 shaders ({pack}//vs.cso, {pack}//more.sarc//shaders/prog.shbin)" in err
    # one shader: its listing, on standard output or into the file -o names
    single = tmp_path / "single.szs"
    single.write_bytes(yaz0.compress(inner))
    code, out, _ = run(capsys, "disasm", str(single))
    assert code == 0 and out == expected["prog.asm"]
    code, _, _ = run(capsys, "disasm", "-o", str(tmp_path / "one.asm"), str(single))
    assert code == 0 and (tmp_path / "one.asm").read_text() == expected["prog.asm"]


def test_disasm_of_compressed_and_embedded_shaders(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from shaderkit.samples import SAMPLES

    dxbc = SAMPLES["sample_vs.dxbc"]()
    expected = _listing(capsys, tmp_path, "vs.dxbc", dxbc)
    squeezed = tmp_path / "vs.szs"  # a compressed stream of one shader
    squeezed.write_bytes(yaz0.compress(dxbc))
    code, out, _ = run(capsys, "disasm", str(squeezed))
    assert code == 0 and out == expected
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "game.pak").write_bytes(b"PAK!" + bytes(60) + dxbc + b"tail")  # unknown format, a shader at 0x40
    (folder / "textures.sarc").write_bytes(sarc([(b"a.bin", b"pixels")]))  # an archive without shaders
    (folder / "notes.txt").write_bytes(b"hello")
    code, out, _ = run(capsys, "disasm", str(folder / "game.pak"))
    assert code == 0 and out == expected
    code, _, err = run(capsys, "disasm", "-o", str(tmp_path / "out"), str(folder))
    assert code == 0, err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["game.pak@0x40.asm"]
    assert (tmp_path / "out" / "game.pak@0x40.asm").read_text() == expected
    assert "1 written, 0 failed, 2 files in folders skipped" in err
    # named, an archive without shaders is an error (one line, exit 2); a file of no known format
    # without shaders gives the usual error
    code, _, err = run(capsys, "disasm", str(folder / "textures.sarc"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "sarc with no shaders inside" in err
    code, _, err = run(capsys, "disasm", str(folder / "notes.txt"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not a known shader format" in err
    texpak = tmp_path / "texpak.bin"  # a package whose only known file is an archive of textures
    texpak.write_bytes(b"PAK!" + bytes(60) + sarc([(b"a.bin", b"pixels")]))
    code, _, err = run(capsys, "disasm", str(texpak))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "not a known shader format" in err and "1 known file inside it, the first at @0x40" in err
    # --split takes the SHBIN files of a folder, as before: the package is no input of it
    (folder / "prog.shbin").write_bytes(SAMPLES["sample.shbin"]())
    (folder / "textures.sarc").unlink()
    code, _, err = run(capsys, "disasm", "--split", "-o", str(tmp_path / "split"), str(folder))
    assert code == 0, err
    assert [p.name for p in (tmp_path / "split").iterdir()] == ["prog.0.v.pica"]


def test_disasm_of_the_corpus_archive_is_its_bfsha(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    pack = corpus / "wiiu" / "st_BodyB_Ysi.szs"
    code, whole, _ = run(capsys, "disasm", str(pack))
    assert code == 0
    code, member, _ = run(capsys, "disasm", f"{pack}//Turbo_UBER.bfsha")
    assert code == 0 and whole == member and whole.startswith("; ==== shaders[0]: vertex shader")


def test_verify_checks_the_shaders_inside_archives_and_packages(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    from shaderkit.samples import SAMPLES

    good = SAMPLES["sample_vs.dxbc"]()
    bad = good[:-1] + bytes([good[-1] ^ 0xFF])  # the stored checksum no longer matches
    pack, pak, squeezed, damaged, other = (tmp_path / n for n in ("pack.szs", "game.pak", "vs.szs", "bad.szs", "x.bin"))
    pack.write_bytes(yaz0.compress(sarc([(b"good.cso", good), (b"bad.cso", bad), (b"a.txt", b"text")])))
    pak.write_bytes(b"PAK!" + bytes(60) + good + b"tail")
    squeezed.write_bytes(yaz0.compress(good))
    damaged.write_bytes(yaz0.compress(bad))
    other.write_bytes(b"nothing known in here")
    code, out, _ = run(capsys, "verify", "--json", *map(str, (pack, pak, squeezed, damaged, other)))
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [(r["file"], r["status"]) for r in rows[:-1]] == [
        (str(pack), "passed"), (f"{pack}//good.cso", "passed"), (f"{pack}//bad.cso", "failed"),
        (str(pak), "skipped"), (f"{pak}//@0x40", "passed"),
        (str(squeezed), "passed"),  # a compressed shader: one check, the stream's and the shader's
        (str(damaged), "failed"),
        (str(other), "skipped")]
    assert rows[-1] == {"summary": {"passed": 4, "failed": 2, "skipped": 2}}
    assert "checksum" in rows[2]["reason"] and "checksum" in rows[6]["reason"]


def test_asm_base_member_writes_the_whole_archive(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # as `put` and the Wii U and PICA200 bases do: a member --base gives the outer file, the
    # member's assembled bytes put back (DXBC, D3D9 and Maxwell wrote the member alone)
    from shaderkit.samples import SAMPLES

    dxbc, bnsh = SAMPLES["sample_vs.dxbc"](), SAMPLES["sample.bnsh"]()
    pack = tmp_path / "pack.szs"
    pack.write_bytes(yaz0.compress(sarc([(b"vs.cso", dxbc), (b"s.bnsh", bnsh)])))
    for member in ("vs.cso", "s.bnsh"):
        listing = tmp_path / f"{member}.asm"
        code, _, err = run(capsys, "disasm", f"{pack}//{member}", "-o", str(listing))
        assert code == 0, err
        out = tmp_path / f"{member}.out"
        code, _, err = run(capsys, "asm", str(listing), "--base", f"{pack}//{member}", "-o", str(out))
        assert code == 0, err
        assert out.read_bytes() == pack.read_bytes()
