"""Bare effect binaries (no DXBC container): fx_5_0 files and vkd3d-shader's ``-b fx`` output.

The effects here are packed by hand: an ``SBinaryHeader5`` (24 words) or ``SBinaryHeader`` (19
words), an unstructured block of names, and the structured records of one group holding one
technique with one pass (fx_5_0) or one technique with one pass (fx_4_0).
"""

from __future__ import annotations

import struct

import pytest
from click.testing import CliRunner
from dxbc_build import container

import shaderkit
from shaderkit.cli.app import cli
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.raw_effect import RawEffect
from shaderkit.formats.registry import detect

# unstructured block: 4 zero bytes, then the names at 4 ("grp"), 8 ("tech"), 13 ("p0")
BLOCK = b"\0\0\0\0" + b"grp\0" + b"tech\0" + b"p0\0"
assert len(BLOCK) == 16


def fx5_blob() -> bytes:
    header = [0] * 24
    header[0] = 0xFEFF2001  # tag
    header[7] = 1           # techniques
    header[8] = len(BLOCK)  # unstructured_size
    header[19] = 1          # groups
    records = [
        4, 1, 0,   # group: name "grp", 1 technique, 0 annotations
        8, 1, 0,   # technique: name "tech", 1 pass, 0 annotations
        13, 0, 0,  # pass: name "p0", 0 assignments, 0 annotations
    ]
    return struct.pack("<24I", *header) + BLOCK + struct.pack("<9I", *records)


def fx4_blob() -> bytes:
    header = [0] * 19
    header[0] = 0xFEFF1001
    header[7] = 1
    header[8] = len(BLOCK)
    records = [8, 1, 0, 13, 0, 0]  # technique "tech" (1 pass, 0 annotations), pass "p0"
    return struct.pack("<19I", *header) + BLOCK + struct.pack("<6I", *records)


@pytest.mark.parametrize(("blob", "profile"), [(fx5_blob, "fx_5_0"), (fx4_blob, "fx_4_0")])
def test_bare_effect_is_detected_and_rebuilds(blob, profile) -> None:
    data = blob()
    assert len(data) == (96 if profile == "fx_5_0" else 76) + 16 + (36 if profile == "fx_5_0" else 24)
    spec = detect(data)
    assert spec is not None and spec.name == "fx"
    model = shaderkit.open(data)
    assert isinstance(model, RawEffect)
    assert model.to_bytes() == data
    summary = model.summary()
    assert summary["format"] == "fx"
    assert summary["shader_model"] == profile
    assert summary["size"] == len(data)
    assert summary["techniques"][0] == {"name": "tech", "passes": ["p0"]}
    if profile == "fx_5_0":
        assert summary["groups"] == [{"name": "grp", "techniques": [{"name": "tech", "passes": ["p0"]}]}]


def test_bare_fx5_listing_names_group_technique_and_pass() -> None:
    text = RawEffect.from_bytes(fx5_blob()).disassemble()
    lines = [line.strip() for line in text.splitlines()]
    assert "// FX Version: fx_5_0" in lines
    assert "fxgroup grp" in lines
    assert "technique11 tech" in lines
    assert "pass p0" in lines
    # the same binary in an FX10 chunk of a container prints the same listing
    wrapped = DxbcContainer.from_bytes(container((b"FX10", fx5_blob())))
    assert wrapped.disassemble() == text


def test_bare_effect_edit_moves_records() -> None:
    model = RawEffect.from_bytes(fx5_blob())
    block = model.effect.block
    assert block is not None
    block.strings[8] = "technique_renamed"  # 18 bytes instead of 5: the name moves after the block
    out = RawEffect.from_bytes(model.to_bytes())
    assert out.summary()["techniques"][0]["name"] == "technique_renamed"
    assert out.summary()["groups"][0]["name"] == "grp"


def test_cli_verbs_on_bare_effect(tmp_path) -> None:
    path = tmp_path / "effect.fxo"
    path.write_bytes(fx5_blob())
    runner = CliRunner()
    result = runner.invoke(cli, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 passed, 0 failed" in result.output
    result = runner.invoke(cli, ["rebuild", str(path), "-o", str(tmp_path / "out.fxo")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out.fxo").read_bytes() == fx5_blob()
    result = runner.invoke(cli, ["info", "--json", str(path)])
    assert result.exit_code == 0, result.output
    assert '"format": "fx"' in result.output


@pytest.mark.parametrize("cut", [4, 40, 95, 96 + 15])
def test_truncated_bare_effect(cut: int) -> None:
    data = fx5_blob()[:cut]
    # shorter than the 96-byte fx_5_0 header: not recognised as an effect at all
    assert (detect(data) is not None and detect(data).name == "fx") == (cut >= 96)
    with pytest.raises(ShaderFormatError):
        RawEffect.from_bytes(data)


def test_unknown_tag_is_not_an_effect() -> None:
    data = bytearray(fx5_blob())
    data[0:4] = struct.pack("<I", 0xFEFF0901)  # the fx_2_0 (D3DX9) tag: a different format
    spec = detect(bytes(data))
    assert spec is not None and spec.name == "fx2" and spec.target == "shaderkit.formats.d3d9.effect:D3D9Effect"
    with pytest.raises(ShaderFormatError):
        RawEffect.from_bytes(bytes(data))


def test_detection_agrees_with_the_effect_model_on_every_tag() -> None:
    """The registry detects bare effects without importing fx10: its tags and header sizes are
    fx10's own (a tag and its whole header is an effect, one byte less is not)."""
    from shaderkit.formats.dxbc.fx10 import TAGS, header_size

    for tag in TAGS:
        whole = struct.pack("<I", tag) + bytes(header_size(tag) - 4)
        assert detect(whole) is not None and detect(whole).name == "fx", hex(tag)
        assert detect(whole[:-1]) is None, hex(tag)
