"""disasm: batch runs never stop early, unique output names, --offsets/--raw, colour only on request."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from click.testing import CliRunner

from shaderkit.cli import cli
from shaderkit.cli.batch import distinct_stems, output_stem
from shaderkit.samples import SAMPLES

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_known_suffixes_are_stripped() -> None:
    assert output_stem("a/b/foo.cso") == "foo"
    assert output_stem("foo.fxo") == "foo"
    assert output_stem("x.o") == "x"
    assert output_stem("font.bcsdr") == "font"
    assert output_stem("font.csdr") == "font"
    assert output_stem("model.bnsh") == "model"
    assert output_stem("coin.sharcfb") == "coin"
    assert output_stem("shader.gsh") == "shader"
    assert output_stem("prog.shbin") == "prog"
    assert output_stem("v.bnsh_vert") == "v"
    assert output_stem("pack.szs//dir/inner.bnsh") == "inner"
    assert output_stem(".cso") == ".cso"
    assert output_stem("a/game.rpx//.data//@0x45cc") == "game.rpx@0x45cc"  # found at an offset: named after its file


def test_distinct_stems_give_unique_output_names() -> None:
    names = [stem + ".asm" for stem in distinct_stems(["a/foo.cso", "b/foo.cso", "foo.shbin", "bar.dxbc", "FOO.cso"])]
    assert len({n.lower() for n in names}) == 5
    assert names[3] == "bar.asm"
    assert all(n.endswith(".asm") and ".cso." not in n for n in names[:2])


def test_batch_continues_past_failures(tmp_path: Path) -> None:
    src = tmp_path / "in"
    (src / "a").mkdir(parents=True)
    (src / "b").mkdir()
    sample = SAMPLES["sample_vs.dxbc"]()
    (src / "a" / "vs.cso").write_bytes(sample)
    (src / "b" / "vs.cso").write_bytes(sample)  # same base name: must not overwrite
    (src / "broken.dxbc").write_bytes(b"DXBC" + b"\x00" * 10)
    (src / "notes.txt").write_text("not a shader")  # in a folder: skipped
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["disasm", "-o", str(out), str(src / "broken.dxbc"), str(src)])
    assert result.exit_code == 1
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == 2 and all(name.endswith(".asm") and ".cso" not in name for name in written)
    errors = [line for line in result.stderr.splitlines() if "broken.dxbc" in line]
    assert len(errors) == 1 and errors[0].startswith("shaderkit: " + str(src / "broken.dxbc") + ": ")
    assert "2 written, 1 failed" in result.stderr and "1 files in folders skipped" in result.stderr


def test_batch_over_the_corpus(corpus: Path, tmp_path: Path) -> None:
    shaders = sorted(p for g in ("pica/*.shbin", "wiiu/*.gsh", "wiiu/*.sharc*", "nx/*.bin") for p in corpus.glob(g))
    result = CliRunner().invoke(cli, ["disasm", "-o", str(tmp_path), *map(str, shaders)])
    failed = [line for line in result.stderr.splitlines() if line.startswith("shaderkit: /")]
    assert failed == [] and result.exit_code == 0  # (SHARC source archives list their GLSL)
    assert len(list(tmp_path.iterdir())) == len(shaders)


def _plain(line: str) -> str:
    return re.sub(r"^(/\*[0-9a-f]{4}\*/ | {9})?([0-9a-f]{8} |         )*", "", line)


def test_offsets_and_raw_dxbc(corpus: Path) -> None:
    path = corpus / "dxbc" / "angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc"
    data = path.read_bytes()
    plain = CliRunner().invoke(cli, ["disasm", str(path)]).output
    shown = CliRunner().invoke(cli, ["disasm", "--offsets", "--raw", str(path)]).output
    # the program chunk, found from the container header by hand: count at 0x1c, offsets after it
    count = struct.unpack_from("<I", data, 0x1C)[0]
    chunk = next(o for o in struct.unpack_from(f"<{count}I", data, 0x20) if data[o : o + 4] in (b"SHDR", b"SHEX"))
    program = data[chunk + 8 :]
    rows = [m.groups() for m in re.finditer(r"^/\*([0-9a-f]{4})\*/ ((?:[0-9a-f]{8} )+)", shown, re.M)]
    assert rows and rows[0][0] == "0000"
    for offset, words in rows:
        raw = bytes.fromhex("".join(w[6:8] + w[4:6] + w[2:4] + w[0:2] for w in words.split()))
        assert program[int(offset, 16) : int(offset, 16) + len(raw)][:16] == raw[:16]
    assert [line for line in shown.splitlines() if line.startswith("/*")][-1].endswith("ret ")
    # taking the column away gives the plain listing back (continuation rows aside)
    kept = [_plain(line) for line in shown.splitlines() if not re.fullmatch(r" {9}[0-9a-f ]+", line)]
    assert [k.rstrip() for k in kept] == [p.rstrip() for p in plain.splitlines()]


def test_offsets_and_raw_pica(corpus: Path) -> None:
    path = corpus / "pica" / "3ds-3gxmenu__program__bc18aedb.shbin"
    data = path.read_bytes()
    shown = CliRunner().invoke(cli, ["disasm", "--offsets", "--raw", str(path)]).output
    plain = CliRunner().invoke(cli, ["disasm", str(path)]).output
    rows = re.findall(r"^/\*([0-9a-f]{4})\*/ ([0-9a-f]{8}) \t", shown, re.M)
    assert len(rows) >= 19
    # the DVLP code starts at DVLP + its code offset (DVLP header word 2), read by hand
    dvlp = data.index(b"DVLP")
    code = dvlp + struct.unpack_from("<I", data, dvlp + 8)[0]
    for offset, word in rows:
        assert struct.unpack_from("<I", data, code + int(offset, 16))[0] == int(word, 16)
    assert [_plain(line).rstrip() for line in shown.splitlines()] == [p.rstrip() for p in plain.splitlines()]


def test_offsets_refused_clearly_elsewhere(corpus: Path) -> None:
    result = CliRunner().invoke(cli, ["disasm", "--offsets", str(corpus / "wiiu" / "agl_simple_model.sharc")])
    assert result.exit_code != 0


def test_colour_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "vs.dxbc"
    path.write_bytes(SAMPLES["sample_vs.dxbc"]())
    piped = CliRunner().invoke(cli, ["disasm", str(path)]).output
    assert "\x1b[" not in piped
    forced = CliRunner().invoke(cli, ["disasm", "--color", str(path)]).output
    assert "\x1b[" in forced and ANSI.sub("", forced) == piped
    assert "\x1b[" not in CliRunner().invoke(cli, ["disasm", "--no-color", str(path)]).output


def test_offset_column_has_one_width_past_0xffff(corpus: Path) -> None:
    # this program is longer than 64 KiB: five hex digits, and every row keeps the same width
    path = corpus / "dxbc" / "directxtex__BC6HEncode_EncodeBlockCS.dxbc"
    shown = CliRunner().invoke(cli, ["disasm", "--offsets", str(path)]).output.splitlines()
    plain = CliRunner().invoke(cli, ["disasm", str(path)]).output.splitlines()
    assert any(line.startswith("/*10000*/") for line in shown)
    assert [line[10:].rstrip() for line in shown] == [line.rstrip() for line in plain]


def test_a_file_that_fails_keeps_its_output_name(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.dxbc").write_bytes(b"DXBC" + b"\x00" * 10)  # damaged: fails
    (tmp_path / "b" / "x.dxbc").write_bytes(SAMPLES["sample_vs.dxbc"]())
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["disasm", "-o", str(out), str(tmp_path / "a" / "x.dxbc"),
                                      str(tmp_path / "b" / "x.dxbc")])
    assert result.exit_code == 1 and "1 written, 1 failed" in result.stderr
    assert [p.name for p in out.iterdir()] == ["x-2.asm"]  # the names do not depend on which inputs fail
