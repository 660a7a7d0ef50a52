"""``shaderkit.open`` takes an archive member path as the CLI does (``pack.szs//dir/x.bfsha``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import shaderkit
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.bfsha.wiiu import WiiUBfsha


def test_member_of_a_compressed_archive(corpus: Path) -> None:
    model = shaderkit.open(f"{corpus}/wiiu/st_BodyB_Ysi.szs//Turbo_UBER.bfsha", WiiUBfsha)
    assert model.name == "Turbo_UBER"  # the BFSHA's own name field (the member is named after it)
    assert [m.name for m in model.models] == ["turbo_uber", "turbo_uber_xlu"]


def test_missing_member_is_a_format_error_naming_it(corpus: Path) -> None:
    with pytest.raises(ShaderFormatError, match="nope.bfsha"):
        shaderkit.open(f"{corpus}/wiiu/st_BodyB_Ysi.szs//nope.bfsha")


def test_a_path_with_a_double_slash_to_a_plain_file(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "x.gsh").write_bytes((corpus / "wiiu" / "rio_02_test_shader.gsh").read_bytes())
    assert shaderkit.open(f"{tmp_path}//x.gsh").format_name == "gsh"


def test_a_bfsha_stage_opens_as_its_typed_model(corpus: Path) -> None:
    # bare microcode (no magic): the archive offers the model, with the stage and its GX2 struct
    model = shaderkit.open(f"{corpus}/wiiu/st_BodyB_Ysi.szs//Turbo_UBER.bfsha//turbo_uber/1/pixel")
    assert model.format_name == "gx2-microcode"
    assert model.disassemble().startswith("; ==== ")
