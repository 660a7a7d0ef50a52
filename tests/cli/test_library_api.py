"""The library surface: open() from paths, bytes and binary files, typed by class; save(); reprs."""

from __future__ import annotations

import importlib.util
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import shaderkit
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.samples import SAMPLES

REPO = Path(__file__).resolve().parents[2]


def test_open_accepts_paths_bytes_and_binary_files(tmp_path: Path) -> None:
    data = SAMPLES["sample_vs.dxbc"]()
    path = tmp_path / "vs.dxbc"
    path.write_bytes(data)
    with path.open("rb") as handle:
        models = [shaderkit.open(path), shaderkit.open(str(path)), shaderkit.open(data),
                  shaderkit.open(bytearray(data)), shaderkit.open(handle), shaderkit.open(io.BytesIO(data))]
    assert all(m.to_bytes() == data for m in models)
    with pytest.raises(TypeError, match="binary mode"):
        shaderkit.open(io.StringIO("DXBC"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        shaderkit.open(42)  # type: ignore[arg-type]


def test_open_with_a_class_checks_the_format(tmp_path: Path) -> None:
    data = SAMPLES["sample_vs.dxbc"]()
    assert isinstance(shaderkit.open(data, DxbcContainer), DxbcContainer)
    with pytest.raises(shaderkit.ShaderFormatError, match="expected Dvlb"):
        shaderkit.open(data, Dvlb)


def test_save_writes_the_same_bytes(tmp_path: Path) -> None:
    data = SAMPLES["sample_vs.dxbc"]()
    target = tmp_path / "out.dxbc"
    shaderkit.open(data).save(target)
    assert target.read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == ["out.dxbc"]  # no temporary file left


def test_reprs_are_compact(corpus: Path) -> None:
    for pattern in ("pica/*.shbin", "wiiu/*.gsh", "wiiu/*.sharcfb", "wiiu/*.sharc"):
        for path in sorted(corpus.glob(pattern))[:5]:
            text = repr(shaderkit.open(path))
            assert len(text) <= 240 and text.startswith("<") and text.endswith(">"), (path.name, len(text))


def _readme_example() -> str:
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return next(b for b in blocks if "shaderkit.open(" in b)


def _mypy_strict(source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    example = tmp_path / "example.py"
    example.write_text(source)
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--config-file", str(config),
         "--cache-dir", str(REPO / ".mypy_cache" / "readme"), str(example)],
        capture_output=True, text=True, cwd=tmp_path, env={"MYPYPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy not installed")
def test_readme_example_type_checks_strict(tmp_path: Path) -> None:
    result = _mypy_strict(_readme_example(), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # the check can fail: the untyped form (no class given) is an error under --strict
    result = _mypy_strict(_readme_example().replace(", DxbcContainer)", ")"), tmp_path)
    assert result.returncode == 1 and "input_signature" in result.stdout, result.stdout + result.stderr


def test_shaders_gives_the_shaders_inside_archives_and_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    monkeypatch.syspath_prepend(str(REPO / "tests" / "archives"))
    from test_archive_cli import sarc

    from shaderkit.formats.archive import yaz0

    dxbc, shbin = SAMPLES["sample_vs.dxbc"](), SAMPLES["sample.shbin"]()
    damaged = bytearray(sarc([(b"x.bin", b"data")]))
    damaged[8:12] = (3).to_bytes(4, "big")  # wrong file size
    inner = sarc([(b"shaders/prog.shbin", shbin), (b"readme.txt", b"not a shader")])
    pack = yaz0.compress(sarc([(b"vs.cso", dxbc), (b"more.sarc", inner), (b"bad.sarc", bytes(damaged)),
                               (b"cut.cso", dxbc[:100])]))
    path = tmp_path / "pack.szs"
    path.write_bytes(pack)
    for source, prefix in ((pack, ""), (path, f"{path}//"), (str(path), f"{path}//")):
        found = shaderkit.shaders(source)
        assert [m.name for m in found] == [prefix + n for n in ("vs.cso", "more.sarc//shaders/prog.shbin",
                                                                "bad.sarc", "cut.cso")]
        assert [m.data for m in found] == [dxbc, shbin, bytes(damaged), dxbc[:100]]
        assert isinstance(found[0].open(), DxbcContainer) and isinstance(found[1].open(), Dvlb)
        assert "file size field 3" in found[2].error
        for broken in found[2:]:  # opened only when asked: the damage shows there, named after the member
            with pytest.raises(shaderkit.ShaderFormatError) as info:
                broken.open()
            assert str(info.value).startswith(broken.name + ": ")
    assert shaderkit.shaders(pack, "game.szs")[0].name == "game.szs//vs.cso"
    # a shader is its own only shader; a compressed one is the stream's; a package's by offset
    assert [(m.name, m.data) for m in shaderkit.shaders(dxbc)] == [("", dxbc)]
    assert [(m.name, m.data) for m in shaderkit.shaders(yaz0.compress(shbin), "p.szs")] == [("p.szs", shbin)]
    assert [(m.name, m.data) for m in shaderkit.shaders(b"PAK!" + bytes(60) + dxbc + b"tail")] == [("@0x40", dxbc)]
    assert shaderkit.shaders(b"hello") == [] and shaderkit.shaders(sarc([(b"a.bin", b"pixels")])) == []
    with pytest.raises(shaderkit.ShaderFormatError, match="file size"):
        shaderkit.shaders(bytes(damaged))
    with pytest.raises(shaderkit.UnsupportedOperation, match=r"shaderkit\.shaders\(\)"):
        shaderkit.open(pack).disassemble()  # an archive has no text of its own


def test_shaders_of_a_member_path(corpus: Path) -> None:
    pack = corpus / "wiiu" / "st_BodyB_Ysi.szs"
    assert [m.name for m in shaderkit.shaders(pack)] == [f"{pack}//Turbo_UBER.bfsha"]
    stage = f"{pack}//Turbo_UBER.bfsha//turbo_uber/1/pixel"  # bare microcode: its archive's model
    (member,) = shaderkit.shaders(stage)
    assert member.name == stage and member.open().format_name == "gx2-microcode"


def test_member_open_names_the_member_of_an_unknown_format() -> None:
    from shaderkit.errors import ShaderFormatError
    from shaderkit.formats.archive.path import Member

    with pytest.raises(ShaderFormatError) as info:
        Member("pack.szs//dir/x.bin", b"\0" * 16).open()
    assert str(info.value).startswith("pack.szs//dir/x.bin: not a known shader format")
