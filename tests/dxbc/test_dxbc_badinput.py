"""Untrusted DXBC bytes: truncation and corruption raise ShaderFormatError and nothing else."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_root
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dxbc.container import DxbcContainer

#: small files covering RDEF+types, SM5.1/RTS0, IFCE, libraries (nested LIBF), STAT/SFI0, Aon9
SAMPLES = (
    "angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc",
    "dxdecompiler__HlslCrossCompiler_ps5_interfaces.dxbc",
    "dxdecompiler__Internal_Misc_LibraryTest2_4_0.dxbc",
    "slimshader__Tests_Sdk_Direct3D11_NBodyGravityCS11_NBodyGravityCS11.dxbc",
    "dxdecompiler__Internal_BasicHLSL_VS_5_1.dxbc",
    "directxtk12__DebugEffect_PSHemiAmbient.dxbc",
    "directxtk__EnvironmentMapEffect_PSEnvMap.dxbc",
    "dxdecompiler__3Dmigoto_min_precision.dxbc",
)


def _sample(name: str) -> bytes:
    root = corpus_root()
    path = None if root is None else root / "dxbc" / name
    if path is None or not path.exists():
        pytest.skip(f"corpus file {name} not found")
    return path.read_bytes()


def _parse_only_format_errors(data: bytes) -> None:
    try:
        model = DxbcContainer.from_bytes(data)
    except ShaderFormatError as exc:
        assert exc.offset is not None
        return
    # whatever parses must rebuild byte for byte and summarise
    assert model.to_bytes() == data
    model.summary()


@pytest.mark.parametrize("name", SAMPLES)
def test_truncation_at_every_offset(name: str) -> None:
    data = _sample(name)
    for cut in range(len(data)):
        with pytest.raises(ShaderFormatError):
            DxbcContainer.from_bytes(data[:cut])


@pytest.mark.parametrize("name", SAMPLES)
def test_truncation_with_patched_total_size(name: str) -> None:
    """Cut the file and make the header agree, so that chunk parsers see the short data."""
    data = _sample(name)
    for cut in range(32, len(data), 3):
        short = bytearray(data[:cut])
        struct.pack_into("<I", short, 24, cut)
        _parse_only_format_errors(bytes(short))


def test_empty_and_garbage() -> None:
    for blob in (b"", b"DXBC", b"DXBC" + bytes(28), b"XXXX" + bytes(40), b"DXBC" + b"\xff" * 64):
        with pytest.raises(ShaderFormatError):
            DxbcContainer.from_bytes(blob)


def test_huge_chunk_count_is_refused_before_allocation() -> None:
    head = b"DXBC" + bytes(16) + struct.pack("<3I", 1, 36, 0xFFFFFFFF) + bytes(4)
    with pytest.raises(ShaderFormatError, match="chunk offsets"):
        DxbcContainer.from_bytes(head)


_WORDS = st.sampled_from([0, 1, 2, 3, 4, 0x7F, 0xFF, 0xFFFF, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF, 0xFFFFFFF0])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_corrupted_words(data: st.DataObject) -> None:
    """Counts, offsets and sizes overwritten anywhere (header, chunk index, inside chunks)."""
    name = data.draw(st.sampled_from(SAMPLES))
    blob = bytearray(_sample(name))
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(blob) // 4 - 1)) * 4
        value = data.draw(st.one_of(_WORDS, st.integers(0, len(blob) + 64)))
        struct.pack_into("<I", blob, pos, value)
    if data.draw(st.booleans()):
        struct.pack_into("<I", blob, 24, len(blob))  # keep the total size consistent
    _parse_only_format_errors(bytes(blob))


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=200))
def test_random_tails_after_header(tail: bytes) -> None:
    blob = b"DXBC" + bytes(16) + struct.pack("<3I", 1, 32 + len(tail), min(len(tail) // 4, 8)) + tail
    _parse_only_format_errors(blob)


def test_error_names_the_chunk(corpus: Path) -> None:
    data = bytearray((corpus / "dxbc/angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc").read_bytes())
    isgn = struct.unpack_from("<I", data, 36)[0]  # second chunk: ISGN
    struct.pack_into("<I", data, isgn + 8, 0x10000)  # element count
    with pytest.raises(ShaderFormatError) as info:
        DxbcContainer.from_bytes(bytes(data))
    assert "chunk[1]" in info.value.context and "signature elements" in info.value.message


def test_library_nesting_depth_is_bounded() -> None:
    from shaderkit.formats.dxbc.container import MAX_DEPTH, LibraryFunction
    from shaderkit.formats.dxbc.shader import ShaderProgram

    inner = DxbcContainer([ShaderProgram("SHDR")])
    for _ in range(MAX_DEPTH):
        inner = DxbcContainer([LibraryFunction(inner)])
    DxbcContainer.from_bytes(inner.to_bytes())  # MAX_DEPTH levels of LIBF parse
    too_deep = DxbcContainer([LibraryFunction(inner)]).to_bytes()
    with pytest.raises(ShaderFormatError, match="nested deeper"):
        DxbcContainer.from_bytes(too_deep)


def test_shared_type_dag_compares_quickly() -> None:
    """A type DAG (each level's members all pointing at one shared type) keys in linear time."""
    from shaderkit.formats.dxbc.rdef import ShaderType, ShaderTypeMember

    t = ShaderType(0, 3)
    for _ in range(40):
        t = ShaderType(5, 0, members=[ShaderTypeMember(f"m{i}", t, 4 * i) for i in range(8)])
    copy = ShaderType(5, 0, members=list(t.members))
    assert t == copy and t != ShaderType(5, 0)


def test_overlapping_chunks_are_refused() -> None:
    """Index entries sharing one LIBF chunk would multiply nested parsing: refused up front."""
    from shaderkit.formats.dxbc.container import LibraryFunction
    from shaderkit.formats.dxbc.shader import ShaderProgram

    inner = DxbcContainer([LibraryFunction(DxbcContainer([ShaderProgram("SHDR")]))]).to_bytes()
    count = 1000
    head = 32 + 4 * count
    blob = (b"DXBC" + bytes(16) + struct.pack("<3I", 1, head + 8 + len(inner), count)
            + struct.pack(f"<{count}I", *([head] * count)) + b"LIBF" + struct.pack("<I", len(inner)) + inner)
    with pytest.raises(ShaderFormatError, match="overlaps"):
        DxbcContainer.from_bytes(blob)


def test_shared_tables_inside_a_chunk_are_bounded() -> None:
    """1000 cbuffers all pointing at one 1000-entry variable table: refused, not 10**6 objects."""
    from shaderkit.formats.dxbc.raw import RawChunk
    from shaderkit.formats.dxbc.rdef import ResourceDefinition
    from shaderkit.io.reader import Reader

    n = 1000
    cb_off = 28
    var_off = cb_off + 24 * n
    type_off = var_off + 24 * n
    name_off = type_off + 16
    payload = (struct.pack("<7I", n, cb_off, 0, 28, 0xFFFE0400, 0, name_off)
               + struct.pack("<6I", name_off, n, var_off, 16, 0, 0) * n
               + struct.pack("<6I", name_off, 0, 16, 2, type_off, 0) * n
               + struct.pack("<6HI", 1, 3, 1, 4, 0, 0, 0) + b"x\0\xab\xab")
    with pytest.raises(ShaderFormatError, match="overlap"):
        ResourceDefinition.parse(Reader(payload))
    blob = DxbcContainer([RawChunk("RDEF", payload)]).to_bytes()
    with pytest.raises(ShaderFormatError, match="overlap"):
        DxbcContainer.from_bytes(blob)


def test_chunk_inside_the_header_is_refused() -> None:
    # found by tools/fuzz.py: a chunk offset of 0x10 made a 9-byte "chunk" of checksum bytes that
    # overlapped the header, which no writer can put back
    from shaderkit.formats.dxbc.raw import RawChunk

    data = bytearray(DxbcContainer([RawChunk("ZZZZ", b"abcd")]).to_bytes())
    struct.pack_into("<I", data, 32, 0x10)
    with pytest.raises(ShaderFormatError, match="inside the container header"):
        DxbcContainer.from_bytes(bytes(data))
