"""FX10 (fx_4_x effects) as a typed chunk: byte-exact rebuild, summary, edits, bad input."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_files, corpus_params
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.fx10 import HEADER, Effect, EffectHeader
from shaderkit.formats.dxbc.raw import RawChunk
from shaderkit.io.reader import Reader

FX_FILES = corpus_params("dxbc", "*_FX.dxbc")


def _effect(container: DxbcContainer) -> Effect:
    chunk = container.chunk("FX10")
    assert isinstance(chunk, Effect)
    return chunk


@pytest.mark.parametrize("path", FX_FILES)
def test_corpus_effect_is_typed_and_rebuilds(path: Path) -> None:
    data = path.read_bytes()
    container = DxbcContainer.from_bytes(data)
    effect = _effect(container)
    assert container.effect is effect
    assert effect.header.version in ("fx_4_0", "fx_4_1")
    assert container.to_bytes() == data
    # the payload alone rebuilds too (odd sizes, never padded)
    payload = effect.build()
    assert Effect.parse(Reader(payload)).build() == payload
    # every shader fxc stores is found, at the offset its size word sits
    assert len(effect.shaders) <= effect.header.total_shaders
    for shader in effect.shaders:
        size = struct.unpack_from("<I", effect.unstructured, shader.offset)[0]
        assert size == len(shader.container.to_bytes())
        assert shader.container.shader is not None
    summary = container.summary()["effect"]
    assert summary["counts"]["techniques"] == effect.header.techniques
    assert len(summary["shaders"]) == len(effect.shaders)


def test_corpus_effect_shader_counts() -> None:
    files = corpus_files("dxbc", "*_FX.dxbc")
    if len(files) < 5:
        pytest.skip("FX10 corpus files not found")
    found = {p.name: len(_effect(DxbcContainer.from_bytes(p.read_bytes())).shaders) for p in files}
    assert sum(found.values()) >= 20


def test_edited_embedded_shader_is_written_and_listed() -> None:
    files = [p for p in corpus_files("dxbc", "*_FX.dxbc") if "MultiMon10" in p.name]
    if not files:
        pytest.skip("MultiMon10 effect not found")
    container = DxbcContainer.from_bytes(files[0].read_bytes())
    effect = _effect(container)
    inner = effect.shaders[0].container
    before = container.disassemble()
    inner.version = 7  # same size, different bytes
    out = container.to_bytes()
    again = DxbcContainer.from_bytes(out)
    assert _effect(again).shaders[0].container.version == 7
    assert again.disassemble() == before  # the version word is not part of the listing
    # a resized shader moves after the block and the records' pointers follow it
    old_offset, size = effect.shaders[0].offset, len(effect.unstructured)
    inner.trailing = b"\0\0\0\0"
    grown = DxbcContainer.from_bytes(container.to_bytes())
    moved = _effect(grown)
    assert len(moved.unstructured) == size + 4 + len(inner.to_bytes())
    assert moved.block is not None and moved.block.code[size] == inner.to_bytes()
    assert old_offset not in moved.block.code  # the vacated bytes stay, no record points at them
    assert grown.disassemble() == before
    assert grown.to_bytes() == container.to_bytes()


def test_self_made_effect_round_trip() -> None:
    inner = DxbcContainer([]).to_bytes()
    blob = b"name\0\0\0\0" + struct.pack("<I", len(inner)) + inner + b"x"
    header = EffectHeader(techniques=0, unstructured_size=len(blob), total_shaders=1)
    payload = HEADER.pack(*header.words()) + blob + b"\x01\x02\x03"  # odd size
    effect = Effect.parse(Reader(payload))
    assert [s.offset for s in effect.shaders] == [8]
    assert effect.structured == b"\x01\x02\x03"
    assert effect.build() == payload
    container = DxbcContainer([effect])
    again = DxbcContainer.from_bytes(container.to_bytes())
    assert _effect(again).build() == payload
    assert again.shader_model == "fx"


def test_other_tags_and_short_payloads_stay_raw() -> None:
    fx5 = struct.pack("<19I", 0xFEFF2001, *([0] * 18))
    for payload in (b"", b"\x01\x10\xff\xfe", fx5, struct.pack("<19I", 0xFEFF1001, *([0] * 7), 99, *([0] * 10))):
        container = DxbcContainer.from_bytes(DxbcContainer([RawChunk("FX10", payload)]).to_bytes())
        assert isinstance(container.chunk("FX10"), RawChunk)
        assert container.effect is None
        with pytest.raises((ShaderFormatError, UnsupportedOperation)):
            container.disassemble()


def test_unknown_tag_raises_format_error() -> None:
    with pytest.raises(ShaderFormatError, match="effect tag"):
        Effect.parse(Reader(struct.pack("<19I", 0x12345678, *([0] * 18))))


def test_embedded_shaders_nest_boundedly() -> None:
    from shaderkit.formats.dxbc.container import MAX_DEPTH

    def wrap(inner: bytes) -> bytes:
        blob = struct.pack("<I", len(inner)) + inner
        header = EffectHeader(unstructured_size=len(blob))
        return DxbcContainer([Effect(header, blob)]).to_bytes()  # inner bytes kept as block data

    data = DxbcContainer([]).to_bytes()
    for _ in range(MAX_DEPTH + 2):
        data = wrap(data)
    with pytest.raises(ShaderFormatError, match="nested deeper"):
        DxbcContainer.from_bytes(data)


def _fx_sample() -> bytes:
    files = [p for p in corpus_files("dxbc", "*_FX.dxbc") if "EffectPools2" in p.name]
    if not files:
        pytest.skip("EffectPools2 effect not found")
    return files[0].read_bytes()


def _fx_payload_range(data: bytes) -> tuple[int, int]:
    container = DxbcContainer.from_bytes(data)
    offsets = struct.unpack_from(f"<{len(container.chunks)}I", data, 32)
    for chunk, off in zip(container.chunks, offsets):
        if chunk.fourcc == "FX10":
            return off + 8, off + 8 + struct.unpack_from("<I", data, off + 4)[0]
    raise AssertionError("no FX10 chunk")


def _only_format_errors(data: bytes) -> None:
    try:
        model = DxbcContainer.from_bytes(data)
    except ShaderFormatError:
        return
    assert model.to_bytes() == data  # every accepted input rebuilds byte for byte
    model.summary()
    try:
        model.disassemble()
    except (ShaderFormatError, UnsupportedOperation):
        pass


def test_fx10_truncation() -> None:
    data = _fx_sample()
    start, stop = _fx_payload_range(data)
    for cut in range(start, stop, 7):
        short = bytearray(data[:cut])
        struct.pack_into("<I", short, 24, cut)
        struct.pack_into("<I", short, start - 4, cut - start)  # the chunk size agrees too
        _only_format_errors(bytes(short))
        with pytest.raises(ShaderFormatError):
            DxbcContainer.from_bytes(data[:cut])


_WORDS = st.sampled_from([0, 1, 2, 4, 0x7F, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x44584243])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fx10_corrupted_words(data: st.DataObject) -> None:
    blob = bytearray(_fx_sample())
    start, stop = _fx_payload_range(bytes(blob))
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(start, stop - 4))
        value = data.draw(st.one_of(_WORDS, st.integers(0, stop - start)))
        struct.pack_into("<I", blob, pos, value)
    _only_format_errors(bytes(blob))


def test_records_are_typed(corpus: Path) -> None:
    """Technique and pass names as the corpus listing (.fxc.asm, written by fxc) prints them."""
    import re

    for path in sorted((corpus / "dxbc").glob("*_FX.dxbc")):
        data = path.read_bytes()
        model = DxbcContainer.from_bytes(data)
        effect = _effect(model)
        assert effect.records is not None and effect.records_tail == b""
        listing = path.with_suffix(".fxc.asm").read_text(errors="replace")
        techniques = re.findall(r"^technique10 (\w+)", listing, re.M)
        passes = re.findall(r"^    pass (\w+)", listing, re.M)
        got = model.summary()["effect"]["techniques"]
        assert [t["name"] for t in got] == techniques
        assert [p for t in got for p in t["passes"]] == passes
        assert model.to_bytes() == data
    # an edited record is written: rename the first pass to another string of the block
    effect.records.techniques[0].passes[0].name_offset = effect.records.techniques[0].name_offset
    again = _effect(DxbcContainer.from_bytes(model.to_bytes()))
    assert again.records is not None
    assert again.string_at(again.records.techniques[0].passes[0].name_offset) == techniques[0]
