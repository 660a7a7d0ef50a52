"""DXBC container: byte-exact rebuild, checksum, chunk compilers, listing-derived oracles."""

from __future__ import annotations

import hashlib
import re
import struct
from pathlib import Path

import pytest

from conftest import corpus_files, corpus_params
from shaderkit.formats.dxbc import checksum as ck
from shaderkit.formats.dxbc.aon9 import Level9Shader
from shaderkit.formats.dxbc.container import DxbcContainer, LibraryFunction
from shaderkit.formats.dxbc.ifce import Interfaces
from shaderkit.formats.dxbc.lfs0 import FunctionSignature
from shaderkit.formats.dxbc.rdef import ResourceDefinition
from shaderkit.formats.dxbc.rts0 import RootSignature
from shaderkit.formats.dxbc.signature import Signature
from shaderkit.io.reader import Reader

DEBUG_LAYER = {"slimshader__Tests_FxDis_test_PS.dxbc", "dxdecompiler__3Dmigoto_debug.dxbc"}


def raw_chunks(data: bytes, base: int = 0) -> list[tuple[str, int, bytes]]:
    """(fourcc, payload offset, payload) straight from the header, independent of shaderkit."""
    count = struct.unpack_from("<I", data, base + 28)[0]
    out = []
    for off in struct.unpack_from(f"<{count}I", data, base + 32):
        cc, size = struct.unpack_from("<4sI", data, base + off)
        out.append((cc.decode("latin-1"), base + off + 8, data[base + off + 8 : base + off + 8 + size]))
    return out


@pytest.mark.parametrize("path", corpus_params("dxbc", "*.dxbc"))
def test_rebuild_is_byte_exact(path: Path) -> None:
    data = path.read_bytes()
    model = DxbcContainer.from_bytes(data)
    assert model.to_bytes() == data
    assert [c.fourcc for c in model.chunks] == [cc for cc, _, _ in raw_chunks(data)]


@pytest.mark.parametrize("path", corpus_params("dxbc", "*.dxbc"))
def test_checksum_against_stored(path: Path) -> None:
    data = path.read_bytes()
    model = DxbcContainer.from_bytes(data)
    if path.name in DEBUG_LAYER:
        assert ck.dxbc_checksum(data) != data[4:20]
        assert model.checksum_state() == "mismatch"
        assert model.problems() == [
            f"checksum mismatch: stored {data[4:20].hex()}, computed {ck.dxbc_checksum(data).hex()}"
        ]
        model.fix_checksum()
        fixed = model.to_bytes()
        assert fixed[20:] == data[20:] and fixed[4:20] == ck.dxbc_checksum(data)
        assert DxbcContainer.from_bytes(fixed).checksum_state() == "match"
    else:
        assert ck.dxbc_checksum(data) == data[4:20]
        assert model.checksum_state() == "match"
        assert model.problems() == []


def test_compression_is_md5() -> None:
    """With standard MD5 padding our compression function gives hashlib's digest."""
    for msg in (b"", b"abc", bytes(range(256)) * 3, b"x" * 55, b"y" * 56, b"z" * 64):
        padded = msg + b"\x80" + bytes(-(len(msg) + 9) % 64) + struct.pack("<Q", len(msg) * 8)
        state = ck._INIT
        for words in struct.iter_unpack("<16I", padded):
            state = ck._compress(state, words)
        assert struct.pack("<4I", *state) == hashlib.md5(msg).digest()


def _payload_checks(data: bytes, base: int, counts: dict[str, list[int]]) -> None:
    for cc, off, payload in raw_chunks(data, base):
        if cc == "LIBF":
            _payload_checks(data, off, counts)
            continue
        r = Reader(data).sub(off, len(payload))
        if cc == "RDEF":
            built = ResourceDefinition.parse(r).build()
        elif cc in ("ISGN", "OSGN", "PCSG", "OSG5", "ISG1", "OSG1", "PSG1"):
            built = Signature.parse(r, cc).build()
        elif cc == "RTS0":
            built = RootSignature.parse(r).build()
        elif cc == "IFCE":
            built = Interfaces.parse(r).build()
        elif cc == "LFS0":
            built = FunctionSignature.parse(r).build()
        elif cc in ("Aon9", "XNAS", "XNAP"):
            built = Level9Shader.parse(r, cc).build()
            cc = "Aon9"
        else:
            continue
        key = cc if cc in ("RDEF", "RTS0", "IFCE", "LFS0", "Aon9") else "signature"
        counts[key][0] += built == payload
        counts[key][1] += 1


def test_chunk_compilers_reproduce_every_corpus_chunk() -> None:
    """RDEF, signature, RTS0, IFCE, LFS0 and Aon9/XNAS/XNAP chunks laid out from the model equal the
    original bytes (nested library functions included)."""
    files = corpus_files("dxbc", "*.dxbc")
    if not files:
        pytest.skip("corpus not found")
    counts = {"RDEF": [0, 0], "signature": [0, 0], "RTS0": [0, 0], "IFCE": [0, 0], "LFS0": [0, 0], "Aon9": [0, 0]}
    for path in files:
        _payload_checks(path.read_bytes(), 0, counts)
    assert counts["RDEF"][1] >= 278 and counts["signature"][1] >= 778
    assert counts["RTS0"][1] == 36 and counts["IFCE"][1] == 9
    assert counts["LFS0"][1] == 33 and counts["Aon9"][1] >= 52
    for matched, total in counts.values():
        assert matched == total


_ROW = re.compile(r"^// (\S+)\s+(\d+)\s+(?:[xyzw ]{4}|\s*N/A)\s+(\S+)\s+\S+\s+\S+")


def _listing_signature(text: str, title: str) -> list[tuple[str, int, str]]:
    lines = text.splitlines()
    try:
        start = lines.index(f"// {title}:")
    except ValueError:
        return []
    rows = []
    for line in lines[start + 4 :]:
        m = _ROW.match(line)
        if not m:
            break
        reg = m.group(3)
        rows.append((m.group(1), int(m.group(2)), reg if reg.isdigit() else "-"))
    return rows


@pytest.mark.parametrize("path", corpus_params("dxbc", "*.dxbc"))
def test_signatures_match_fxc_listing(path: Path) -> None:
    """The listing's signature tables (written by fxc) name the same semantics and registers."""
    listing = path.with_name(path.name[: -len(".dxbc")] + ".fxc.asm")
    if not listing.exists():
        pytest.skip("no listing")
    text = listing.read_text(errors="replace")
    model = DxbcContainer.from_bytes(path.read_bytes())
    for title, sig in (("Input signature", model.input_signature), ("Output signature", model.output_signature)):
        rows = _listing_signature(text, title)
        if sig is None or not rows:
            continue
        ours = [(e.semantic_name, e.semantic_index, str(e.register) if e.register != 0xFFFFFFFF else "-")
                for e in sig.elements]
        assert ours == rows


def test_hand_checked_values(corpus: Path) -> None:
    """Values read by hand from the hex of angle's BufferToTexture GS (see reference section 1)."""
    data = (corpus / "dxbc/angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc").read_bytes()
    model = DxbcContainer.from_bytes(data)
    assert model.shader_model == "gs_4_0"
    assert model.shader is not None and model.shader.fourcc == "SHDR"
    assert model.shader.length == 50  # 200-byte payload / 4
    sig = model.input_signature
    assert sig is not None
    first = sig.elements[0]
    assert (first.semantic_name, first.system_value_type, first.component_type, first.mask) == ("SV_Position", 1, 3, 15)
    assert model.rdef is not None and model.rdef.creator == "Microsoft (R) HLSL Shader Compiler 10.1"
    assert model.statistics is not None and model.statistics.instruction_count == 5
    summary = model.summary()
    assert [c["offset"] for c in summary["chunks"]] == [52, 128, 244, 380, 588]
    assert summary["checksum"]["state"] == "match"


def test_library_containers_nest(corpus: Path) -> None:
    data = (corpus / "dxbc/dxdecompiler__Internal_Misc_LibraryTest_4_1.dxbc").read_bytes()
    model = DxbcContainer.from_bytes(data)
    libs = [c for c in model.chunks if isinstance(c, LibraryFunction)]
    assert libs and model.shader_model == "lib"
    for chunk, (_cc, _off, payload) in zip(model.chunks, raw_chunks(data)):
        if isinstance(chunk, LibraryFunction):
            assert chunk.build() == payload
    # LIBH payloads keep their odd size
    assert len(model.to_bytes()) == len(data)
