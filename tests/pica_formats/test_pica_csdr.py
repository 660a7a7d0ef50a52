""".csdr base64 text: exact text round trip (wrapping, line endings, padding) around real SHBINs."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dvlb.csdr import Csdr
from shaderkit.formats.dvlb.dvlb import Constant, Dvlb
from shaderkit.formats.registry import detect


def _shbin(name: str = "RetroArch__ctr_sprite__82b12978.shbin") -> bytes:
    files = corpus_files("pica", name)
    if not files:
        pytest.skip("corpus not found")
    return files[0].read_bytes()


def _wrap(text: bytes, width: int, newline: bytes, final: bool) -> bytes:
    lines = [text[i : i + width] for i in range(0, len(text), width)]
    return newline.join(lines) + (newline if final else b"")


@pytest.mark.parametrize(
    ("width", "newline", "final"),
    [(76, b"\n", True), (64, b"\r\n", False), (64, b"\r\n", True), (100, b"\n", False)],
)
def test_wrapped_text_round_trip(width: int, newline: bytes, final: bool) -> None:
    raw = _shbin()
    text = _wrap(base64.b64encode(raw), width, newline, final)
    model = Csdr.from_bytes(text)
    assert detect(text) is not None and detect(text).name == "csdr"  # type: ignore[union-attr]
    assert isinstance(model.payload, Dvlb) and model.payload.to_bytes() == raw
    assert model.line_width == width and model.final_newline is final
    assert model.to_bytes() == text


def test_stdlib_encodebytes_layout() -> None:
    text = base64.encodebytes(_shbin())  # 76 columns, LF, final newline
    assert Csdr.from_bytes(text).to_bytes() == text


def test_single_line_without_padding() -> None:
    raw = _shbin("Re-Craft-3DS__gui__3c078380.shbin")  # 495 bytes: 495 % 3 == 0 -> no padding anyway
    raw2 = _shbin("simple_tri__vshader__6335ca80.shbin")  # 263 bytes: needs padding
    for data in (raw, raw2):
        text = base64.b64encode(data).rstrip(b"=")
        model = Csdr.from_bytes(text)
        assert model.line_width == 0 and model.to_bytes() == text


def test_irregular_wrapping_is_kept() -> None:
    text = base64.b64encode(_shbin())
    irregular = b"\n".join([text[:10], text[10:90], text[90:]]) + b"\n"
    model = Csdr.from_bytes(irregular)
    assert model.to_bytes() == irregular


def test_edit_payload_reencodes() -> None:
    text = base64.encodebytes(_shbin())
    model = Csdr.from_bytes(text)
    assert isinstance(model.payload, Dvlb)
    model.payload.dvles[0].constants[0] = Constant.fvec(95, 2.0, 2.0, 2.0, 2.0)
    out = model.to_bytes()
    assert out != text
    again = Dvlb.from_bytes(base64.b64decode(out))
    assert again.dvles[0].constants[0].value == [2.0] * 4
    assert all(len(line) <= 76 for line in out.split(b"\n"))


def test_summary_nests_payload() -> None:
    info = Csdr.from_bytes(base64.encodebytes(_shbin())).summary()
    assert info["format"] == "csdr" and info["payload"]["format"] == "dvlb"


def test_bad_text() -> None:
    text = bytearray(base64.encodebytes(_shbin()))
    text[5] = ord("*")
    with pytest.raises(ShaderFormatError, match="not base64") as info:
        Csdr.from_bytes(bytes(text))
    assert info.value.offset == 5
    with pytest.raises(ShaderFormatError, match="not DVLB"):
        Csdr.from_bytes(base64.b64encode(b"XXXX" + bytes(20)))


def test_truncated_payload_reports_payload_context() -> None:
    raw = _shbin()
    with pytest.raises(ShaderFormatError) as info:
        Csdr.from_bytes(base64.b64encode(raw[:100]))
    assert info.value.context.startswith("CSDR.payload")


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 487), st.integers(0, 255))
def test_corrupted_payload_bytes(pos: int, value: int) -> None:
    raw = bytearray(_shbin())
    raw[pos] = value
    text = base64.encodebytes(bytes(raw))
    try:
        model = Csdr.from_bytes(text)
    except ShaderFormatError:
        return
    assert model.to_bytes() == text
