"""disasm -> asm: picasso-made files come back byte for byte; others keep code and tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_params
from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dvlb.source import dvlb_to_source, dvlb_to_sources
from shaderkit.isa.pica.assembler import optimize_mask
from shaderkit.isa.pica.decode import decode
from shaderkit.isa.pica.opcodes import MASK_12, MASK_D1, MASK_D12, MASK_D123

FILES = corpus_params("pica", "*.shbin")
_MASKS = {"1": MASK_D12, "1i": MASK_D12, "1u": MASK_D1, "1m": MASK_D1, "1c": MASK_12,
          "5": MASK_D123, "5i": MASK_D123}


def _same_program(before: Dvlb, after: Dvlb) -> None:
    """Same instructions; descriptors equal on every bit the instruction uses.

    picasso zeroes unused source fields and merges descriptors that agree on the used bits, so
    nihstro-made tables (which keep such duplicates) can only be matched on the used bits.
    """
    old_desc = [d.value for d in before.dvlp.opdescs]
    new_desc = [d.value for d in after.dvlp.opdescs]
    if old_desc == new_desc:
        assert after.dvlp.code == before.dvlp.code
        return
    assert len(after.dvlp.code) == len(before.dvlp.code)
    for old_word, new_word in zip(before.dvlp.code, after.dvlp.code):
        old, new = decode(old_word), decode(new_word)
        assert old.info == new.info and old.extra == new.extra
        assert {k: v for k, v in old.operands.items() if k != "desc"} == {
            k: v for k, v in new.operands.items() if k != "desc"}
        if old.fmt in _MASKS:
            base = old.mnemonic[:-1] if old.info.inverted else old.mnemonic
            value = old_desc[old.operands["desc"]]
            mask = optimize_mask(_MASKS[old.fmt], base, value)
            assert value & mask == new_desc[new.operands["desc"]] & mask


def _roundtrip(path: Path) -> tuple[bytes, bytes, str]:
    data = path.read_bytes()
    text = dvlb_to_source(Dvlb.from_bytes(data))
    return data, assemble_sources([(path.name + ".asm", text)]), text


def _picasso_layout(data: bytes) -> bool:
    # picasso >= 2015-08: DVLE version 0x1002 and the 40-byte DVLP header right after DVLB
    model = Dvlb.from_bytes(data)
    return all(d.version == 0x1002 for d in model.dvles) and model.relayout() == data


@pytest.mark.parametrize("path", FILES)
def test_disasm_asm_roundtrip(path: Path) -> None:
    data, out, text = _roundtrip(path)
    if _picasso_layout(data):
        assert out == data
        assert "; !" not in text  # nothing was lossy
    else:
        before, after = Dvlb.from_bytes(data), Dvlb.from_bytes(out)
        _same_program(before, after)
        assert len(after.dvles) == len(before.dvles)
        for a, b in zip(after.dvles, before.dvles):
            assert a.constants == b.constants
            assert a.outputs == b.outputs
            assert [(u.name, u.first_register, u.last_register) for u in a.uniforms] == [
                (u.name, u.first_register, u.last_register) for u in b.uniforms
            ]


def test_fifteen_picasso_files_roundtrip_exactly() -> None:
    paths = [p.values[0] for p in FILES if p.values[0] is not None]
    if not paths:
        pytest.skip("corpus not found")
    exact = [p for p in paths if _roundtrip(p)[1] == p.read_bytes()]
    assert len(exact) >= 15


def test_one_source_per_dvle() -> None:
    paths = [p.values[0] for p in FILES if p.values[0] is not None]
    multi = [p for p in paths if p.name.startswith("3ds-3gxmenu__program")]
    if not multi:
        pytest.skip("corpus not found")
    parts = dvlb_to_sources(Dvlb.from_bytes(multi[0].read_bytes()))
    assert len(parts) == 2
    assert ".entry main_1" in parts[1]
