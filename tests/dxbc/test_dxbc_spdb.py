"""SPDB (fxc's PDB in MSF 7.00 form) as a typed chunk: rebuild, streams, listing, bad input."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.raw import RawChunk
from shaderkit.formats.dxbc.spdb import MSF_MAGIC, MsfStream, ProgramDatabase
from shaderkit.io.reader import Reader


def _sample() -> bytes:
    files = corpus_files("dxbc", "*DebugTest.dxbc")
    if not files:
        pytest.skip("corpus DebugTest not found")
    return files[0].read_bytes()


def _pdb(container: DxbcContainer) -> ProgramDatabase:
    chunk = container.chunk("SPDB")
    assert isinstance(chunk, ProgramDatabase)
    return chunk


def _spdb_range(data: bytes) -> tuple[int, int]:
    start = data.find(MSF_MAGIC)
    return start, start + struct.unpack_from("<I", data, start - 4)[0]


def test_corpus_spdb_is_typed_and_rebuilds() -> None:
    data = _sample()
    container = DxbcContainer.from_bytes(data)
    pdb = _pdb(container)
    assert container.debug_info is pdb
    assert container.to_bytes() == data
    assert ProgramDatabase.parse(Reader(pdb.build())).build() == pdb.build()
    assert pdb.block_size == 512 and pdb.block_count * pdb.block_size <= len(pdb.pages)
    assert len(pdb.streams) >= 4
    info = pdb.info()
    assert "/names" in info.named_streams and len(info.guid) == 16
    assert container.summary()["debug_info"]["streams"] == [s.length for s in pdb.streams]


def test_listing_reads_the_model() -> None:
    from shaderkit.formats.dxbc.disasm import read_debug_info

    container = DxbcContainer.from_bytes(_sample())
    pdb = _pdb(container)
    from_model = read_debug_info(pdb)
    from_bytes = read_debug_info(pdb.build())
    assert from_model.lines == from_bytes.lines and from_model.notes == from_bytes.notes
    assert "#line" in container.disassemble()


def test_edited_directory_is_written() -> None:
    container = DxbcContainer.from_bytes(_sample())
    pdb = _pdb(container)
    last = pdb.streams[-1]
    pdb.streams.append(MsfStream(0xFFFFFFFF, []))  # a nil stream: 4 more directory bytes
    again = _pdb(DxbcContainer.from_bytes(container.to_bytes()))
    assert len(again.streams) == len(pdb.streams) and again.streams[-2] == last
    assert again.stream(len(again.streams) - 1) == b""
    # a directory too large for its pages is refused
    pdb.streams.extend(MsfStream(0, []) for _ in range(pdb.block_size * len(pdb.directory_blocks)))
    with pytest.raises(UnsupportedOperation):
        pdb.build()


def test_without_msf_magic_stays_raw() -> None:
    container = DxbcContainer.from_bytes(DxbcContainer([RawChunk("SPDB", b"not a pdb")]).to_bytes())
    assert isinstance(container.chunk("SPDB"), RawChunk) and container.debug_info is None


def test_stream_index_out_of_range() -> None:
    pdb = _pdb(DxbcContainer.from_bytes(_sample()))
    with pytest.raises(ShaderFormatError, match="no stream"):
        pdb.stream(len(pdb.streams))


def _only_format_errors(data: bytes) -> None:
    try:
        model = DxbcContainer.from_bytes(data)
    except ShaderFormatError as exc:
        assert exc.offset is not None
        return
    assert model.to_bytes() == data  # every accepted input rebuilds byte for byte
    model.summary()
    try:
        model.disassemble()
    except ShaderFormatError:
        pass


def test_spdb_truncation() -> None:
    data = _sample()
    start, stop = _spdb_range(data)
    for cut in range(start, stop, 41):
        short = bytearray(data[:cut])
        struct.pack_into("<I", short, 24, cut)
        struct.pack_into("<I", short, start - 4, cut - start)
        _only_format_errors(bytes(short))
    for cut in range(0, 64):
        with pytest.raises(ShaderFormatError):
            ProgramDatabase.from_bytes(MSF_MAGIC + data[start + 32 : start + 32 + cut])


_WORDS = st.sampled_from([0, 1, 2, 3, 25, 0x7FFF, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_spdb_corrupted_words(data: st.DataObject) -> None:
    blob = bytearray(_sample())
    start, stop = _spdb_range(bytes(blob))
    pdb = _pdb(DxbcContainer.from_bytes(bytes(blob)))
    # hit the superblock, the directory pages and anywhere else
    hot = [start + 32 + 4 * i for i in range(6)]
    hot += [start + p * pdb.block_size + 4 * i for p in pdb.directory_blocks for i in range(40)]
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.one_of(st.sampled_from(hot), st.integers(start, stop - 4)))
        struct.pack_into("<I", blob, pos, data.draw(st.one_of(_WORDS, st.integers(0, 200))))
    _only_format_errors(bytes(blob))
