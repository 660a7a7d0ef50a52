"""SPDB streams typed: PDB info, TPI/IPI records, DBI modules, symbols, C13 lines, /names, sources.

Expected values come from the corpus file's own bytes read by hand (strings seen in a hex dump),
fxc's listing of the same file (``#line`` directives) and sizes worked out from the HLSL types.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

from conftest import corpus_files
from shaderkit.formats.dxbc.codeview import CodeViewRecord, decode_record, read_records
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.spdb import (
    MSF_MAGIC,
    DbiStream,
    ModuleStream,
    NamesTable,
    PdbInfo,
    ProgramDatabase,
    SourceFile,
    SymbolStream,
    TypeStream,
)
from shaderkit.schemas import schema_for


def _files() -> tuple[bytes, str]:
    files = corpus_files("dxbc", "*DebugTest.dxbc")
    if not files:
        pytest.skip("corpus DebugTest not found")
    listing = files[0].with_name(files[0].name.replace(".dxbc", ".fxc.asm"))
    return files[0].read_bytes(), listing.read_text(errors="replace") if listing.exists() else ""


def _pdb(data: bytes) -> ProgramDatabase:
    pdb = DxbcContainer.from_bytes(data).debug_info
    assert pdb is not None
    return pdb


def test_streams_are_typed_by_role() -> None:
    data, _ = _files()
    pdb = _pdb(data)
    kinds = [type(c) for c in pdb.contents]
    assert kinds[1] is PdbInfo and kinds[2] is TypeStream and kinds[3] is DbiStream and kinds[4] is TypeStream
    assert NamesTable in kinds and ModuleStream in kinds and SymbolStream in kinds and SourceFile in kinds
    info = pdb.info()
    assert info.version == 20000404  # VC70, the PDB info version LLVM documents
    assert set(info.named_streams) >= {"/names", "/LinkInfo", "/src/headerblock"}
    types = pdb.types
    assert types is not None and types.header["version"] == 20040203 and types.index_begin == 0x1000
    dbi = pdb.dbi
    assert dbi is not None and dbi.header["version_signature"] == -1 and dbi.header["version"] == 19990903


def test_type_records_match_the_hlsl_types() -> None:
    pdb = _pdb(_files()[0])
    types = pdb.types
    assert types is not None
    by_name = {str(r.values.get("name")): r for r in types.records if r.raw is None and "name" in r.values}
    # float3/float2/float4: element type T_REAL32 (0x40), sizes 12/8/16 bytes
    for name, count in (("float2", 2), ("float3", 3), ("float4", 4)):
        vector = by_name[name]
        assert vector.name == "LF_VECTOR" and vector.values["element_type"] == 0x40
        assert vector.values["count"] == count and vector.values["size"] == 4 * count
    out = by_name["VS_OUTPUT"]
    assert out.name == "LF_STRUCTURE" and out.values["count"] == 3 and out.values["size"] == 12 + 8 + 16
    fields = types.record(int(out.values["field_list"]))  # type: ignore[call-overload]
    assert fields is not None and fields.name == "LF_FIELDLIST"
    members = [(m.values["name"], m.values["offset"]) for m in fields.values["members"]]  # type: ignore[union-attr]
    assert members == [("vNormal", 0), ("vTexcoord", 12), ("vPosition", 20)]
    names = {r.name for r in types.records}
    assert {"LF_ARGLIST", "LF_PROCEDURE", "LF_MODIFIER_EX", "LF_HLSL"} <= names
    assert pdb.raw_records() == []


def test_symbols_lines_and_sources_match_the_listing() -> None:
    data, listing = _files()
    pdb = _pdb(data)
    [(module, stream)] = pdb.modules()
    symbols = {s.name: s for s in stream.symbols}
    assert symbols["S_COMPILE3"].values["version"] == "Microsoft (R) HLSL Shader Compiler 10.1"
    assert symbols["S_ENVBLOCK"].values["strings"] == ["hlslFlags", "0x1", "hlslTarget", "ps_5_0",
                                                       "hlslEntry", "PSMain"]
    assert stream.symbols[-1].name == "S_END"
    locals_ = [s.values["name"] for s in stream.symbols if s.name == "S_LOCAL"]
    assert locals_ == ["Input", "<PSMain return value>", "vDiffuse", "fLighting"]
    [function] = pdb.functions()
    # PSMain's code starts at the first instruction: 0x64 bytes into the SHEX program (listing offsets)
    assert function["name"] == "PSMain" and function["offset"] == 0x64
    [table] = pdb.line_tables()
    assert table["file"].endswith("DebugTest.hlsl")
    lines: list[int] = []
    for _offset, line in table["lines"]:
        if not lines or lines[-1] != line:
            lines.append(line)
    if listing:
        assert lines == [int(n) for n in re.findall(r"^#line (\d+)", listing, re.M)]
    assert lines == [21, 22, 23, 19, 24]
    [source] = pdb.sources
    assert source.path.endswith("debugtest.hlsl") and "cbPerFrame" in source.text
    globals_ = next(c for c in pdb.contents if isinstance(c, SymbolStream))
    assert [r.values["name"] for r in globals_.records if r.name == "S_GDATA_HLSL"] == [
        "g_vLightDir", "g_fAmbient", "g_txDiffuse", "g_samLinear"]
    assert module.object_name == "none" and module.module_name == "PSMain"


def test_info_json_shows_debug_info(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import run_cli

    data, _ = _files()
    path = tmp_path / "d.dxbc"
    path.write_bytes(data)
    code, out, err = run_cli(capsys, "info", "--json", str(path))
    assert code == 0, err
    record = json.loads(out)
    debug = record["debug_info"]
    assert debug["functions"][0]["name"] == "PSMain" and debug["compiler"].startswith("Microsoft")
    assert debug["stream_kinds"][:5] == ["raw", "info", "types", "dbi", "ids"]
    assert any(row["item"].startswith("chunk.SPDB.0/stream.") for row in record["layout"])
    import jsonschema

    jsonschema.validate(record, schema_for(record))


def _patch_stream(data: bytes, pdb: ProgramDatabase, index: int, offset: int, new: bytes) -> bytes:
    """``data`` with ``new`` written at ``offset`` of MSF stream ``index`` (through its pages)."""
    start = data.find(MSF_MAGIC)
    block = pdb.block_size
    page = pdb.streams[index].blocks[offset // block]
    at = start + page * block + offset % block
    return data[:at] + new + data[at + len(new) :]


def test_unknown_records_stay_raw_and_rebuild() -> None:
    data, _ = _files()
    pdb = _pdb(data)
    types = pdb.types
    assert types is not None
    # the first type record (LF_VECTOR float3) gets a kind nobody knows: 0x15FF
    patched = _patch_stream(data, pdb, 2, types.header["header_size"] + 2, struct.pack("<H", 0x15FF))
    # and the module's second symbol (S_ENVBLOCK) becomes kind 0x11FF
    module_index = pdb.modules()[0][0].values["stream"]
    stream = pdb.modules()[0][1]
    at = 4 + len(stream.symbols[0].build()) + 2
    patched = _patch_stream(patched, pdb, module_index, at, struct.pack("<H", 0x11FF))
    container = DxbcContainer.from_bytes(patched)
    assert container.to_bytes() == patched
    again = container.debug_info
    assert again is not None and again.types is not None
    first = again.types.records[0]
    assert first.raw is not None and first.name == "0x15ff" and first.values == {}
    kinds = {(row["stream"], row["kind"]) for row in again.raw_records()}
    assert kinds == {(2, "0x15ff"), (module_index, "0x11ff")}
    assert container.summary()["debug_info"]["raw_records"][0]["kind"] in ("0x15ff", "0x11ff")


def test_edits_are_written_and_sizes_follow() -> None:
    data, _ = _files()
    container = DxbcContainer.from_bytes(data)
    pdb = container.debug_info
    assert pdb is not None
    module, stream = pdb.modules()[0]
    proc = next(s for s in stream.symbols if s.name == "S_GPROC32")
    proc.values["name"] = "PSMainRenamed"  # 7 bytes longer: the module stream and the DBI sizes grow
    before = module.values["symbol_bytes"]
    again = DxbcContainer.from_bytes(container.to_bytes()).debug_info
    assert again is not None
    [function] = again.functions()
    assert function["name"] == "PSMainRenamed"
    module2, stream2 = again.modules()[0]
    assert module2.values["symbol_bytes"] == before + 7
    assert [s.name for s in stream2.symbols] == [s.name for s in stream.symbols]
    assert again.line_tables() == pdb.line_tables()


def test_records_by_hand() -> None:
    # LF_ARRAY of 0x40, index 0x23, 0x9000 bytes (LF_USHORT numeric leaf), "arr", pad F2 F1
    body = struct.pack("<IIHH", 0x40, 0x23, 0x8002, 0x9000) + b"arr\0" + b"\xf2\xf1"
    record = decode_record(0x1503, body, "type")
    assert record.name == "LF_ARRAY" and record.values["size"] == 0x9000 and record.tail == b"\xf2\xf1"
    assert record.body() == body
    # a numeric leaf written the long way (LF_ULONG for 5) is not fxc's rule: kept raw, bytes exact
    odd = struct.pack("<IIHI", 0x40, 0x23, 0x8004, 5) + b"arr\0"
    kept = decode_record(0x1503, odd, "type")
    assert kept.raw == odd and kept.body() == odd
    # records that run past their stream are refused with ShaderFormatError
    from shaderkit.errors import ShaderFormatError

    with pytest.raises(ShaderFormatError):
        read_records(struct.pack("<2H", 40, 0x1503) + body, 0, 4 + len(body), "type")
    symbols, end = read_records(CodeViewRecord(0x0006, table="symbol").build(), 0, 4, "symbol")
    assert end == 4 and symbols[0].name == "S_END"


def test_dbi_substreams_and_section_headers_match_the_program() -> None:
    from shaderkit.formats.dxbc.spdb import (
        DebugHeader,
        FileInfo,
        SectionContributions,
        SectionHeaders,
        SectionMap,
    )

    data, _ = _files()
    container = DxbcContainer.from_bytes(data)
    pdb = container.debug_info
    assert pdb is not None and pdb.dbi is not None
    shex = next(row for row in container.summary()["chunks"] if row["fourcc"] == "SHEX")
    subs = pdb.dbi.substreams
    assert isinstance(subs["section_contributions"], SectionContributions)
    assert isinstance(subs["section_map"], SectionMap) and isinstance(subs["source_info"], FileInfo)
    assert isinstance(subs["ec"], NamesTable) and isinstance(subs["debug_header"], DebugHeader)
    # fxc describes the program as one code section: its size is the SHEX payload's (chunk table)
    [contribution] = subs["section_contributions"].entries
    assert contribution[3] == shex["size"]
    index = subs["debug_header"].stream("section_headers")
    headers = pdb.contents[index]
    assert isinstance(headers, SectionHeaders) and headers.names() == ["D3DSHDR"]
    assert headers.sections[0][1] == shex["size"]
    assert pdb.dbi.source_files()[0].endswith("DebugTest.hlsl")


def test_two_modules_naming_one_stream_stay_exact() -> None:
    import copy

    container = DxbcContainer.from_bytes(_files()[0])
    pdb = container.debug_info
    assert pdb is not None and pdb.dbi is not None
    twin = copy.deepcopy(pdb.dbi.modules[0])
    twin.values["symbol_bytes"] = 8  # another module claiming the same stream, other sizes
    pdb.dbi.modules.append(twin)
    written = container.to_bytes()
    again = DxbcContainer.from_bytes(written)
    assert again.to_bytes() == written
    assert again.debug_info is not None and len(again.debug_info.modules()) == 1
    assert [m.values["symbol_bytes"] for m in again.debug_info.dbi.modules] == [824, 8]  # type: ignore[union-attr]


def test_hash_streams_point_at_their_records() -> None:
    from shaderkit.formats.dxbc.spdb import GlobalsStream, PublicsStream, TypeHashes

    pdb = _pdb(_files()[0])
    assert pdb.dbi is not None and pdb.types is not None
    globals_ = pdb.contents[pdb.dbi.header["global_stream"]]
    symbols = pdb.contents[pdb.dbi.header["symbol_stream"]]
    assert isinstance(globals_, GlobalsStream) and isinstance(symbols, SymbolStream)
    starts, at = [], 0
    for record in symbols.records:
        starts.append(at)
        at += len(record.build())
    # each hash record holds (offset of a global symbol + 1, reference count)
    assert sorted(offset - 1 for offset, _ref in globals_.table.records) == starts
    # one bitmap bit per non-empty bucket, each bucket offset in 12-byte units (LLVM's GSI notes)
    assert sum(bin(word).count("1") for word in globals_.table.bitmap) == len(globals_.table.buckets)
    assert globals_.table.buckets == [12 * i for i in range(len(starts))]
    assert isinstance(pdb.contents[pdb.dbi.header["public_stream"]], PublicsStream)
    hashes = pdb.contents[pdb.types.header["hash_stream"]]
    assert isinstance(hashes, TypeHashes) and len(hashes.hash_values) == len(pdb.types.records)
    assert hashes.index_offsets == [(0x1000, 0)]


def test_type_indices_past_32_bits_keep_the_stream_raw() -> None:
    """The mutation tool found it: TPI ``index_begin`` 0xFFFFFFFF makes ``index_end`` unwritable."""
    from shaderkit.formats.dxbc.spdb import RawStream

    data, _ = _files()
    pdb = _pdb(data)
    patched = _patch_stream(data, pdb, 2, 8, struct.pack("<I", 0xFFFFFFFF))
    container = DxbcContainer.from_bytes(patched)
    assert container.to_bytes() == patched
    again = container.debug_info
    assert again is not None and isinstance(again.contents[2], RawStream) and again.types is None
    container.disassemble()  # the listing does without the types
