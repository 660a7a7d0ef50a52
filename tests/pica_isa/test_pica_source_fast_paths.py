"""The disassembler's fast paths must give what their definitions give.

* rules.matching_rule finds the layout rule from the parsed bytes when a rule rebuilds them; the
  definition is "the first rule whose writer gives ``model.to_bytes()``", checked here on parsed
  and edited models (edits that the rules' writers do not see: DVLP header words, names holding
  a NUL, a layout taken from another file).
* source's register printers (``dst, src...`` rows) are an unrolled form of the per-operand
  printers; both must give the same text and the same notes.
* the descriptor-merge replay reads optimizeOpdesc's masks from an import-time table; they must
  be opdescs.optimize_mask's.
* the replay checks a flow-control word against the fields its text gives without calling the
  row's encoder; the answer must be the encoder's (``ENCODERS[mnemonic](fields) == word``).

Beside them, picasso's descriptor merging itself (DescriptorTable), worked out by hand.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import corpus_params
from shaderkit.formats.dvlb import rules, source
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.isa.pica.opdescs import DescriptorTable, optimize_mask
from shaderkit.isa.pica.table import BY_MNEMONIC, BY_OPCODE6, DESC_FORMATS, ENCODERS, SYNTAXES, TEXT_MNEMONIC

FILES = corpus_params("pica", "*.shbin")


def _rule_by_definition(model: Dvlb) -> tuple[str, str] | None:
    """matching_rule as its docstring defines it, building ``to_bytes()``."""
    if model.layout is None:
        return rules.RULE_PICASSO, ""
    data = model.to_bytes()
    for rule, writer in rules.LAYOUT_RULES.items():
        try:
            if writer(model) == data:
                return rule, ""
        except rules.RuleMismatch:
            continue
    symbols = rules._recorded_symbol_order(model)
    try:
        if symbols and rules.write_nihstro(model, symbols) == data:
            return rules.RULE_NIHSTRO, symbols
    except rules.RuleMismatch:
        pass
    return None


def _edits(other: bytes) -> list[Callable[[Dvlb], object]]:
    return [
        lambda m: None,
        lambda m: m.dvlp.unknown_words.append(0),
        lambda m: m.dvlp.unknown_words.pop(),
        lambda m: m.dvlp.unknown_words.clear(),
        lambda m: setattr(m.dvles[0].uniforms[0], "name", m.dvles[0].uniforms[0].name + "\0"),
        lambda m: setattr(m.dvles[0].uniforms[0], "name", m.dvles[0].uniforms[0].name[:-1] + "\0"),
        lambda m: m.dvlp.code.append(0x88000000),
        lambda m: m.dvles[0].outputs.pop(),
        lambda m: m.dvles.append(copy.deepcopy(m.dvles[0])),
        lambda m: setattr(m, "layout", Dvlb.from_bytes(other).layout),
        lambda m: setattr(m, "dvlp", Dvlb.from_bytes(other).dvlp),
    ]


@pytest.mark.parametrize("path", FILES)
def test_matching_rule_is_its_definition(path: Path, corpus: Path) -> None:
    data = path.read_bytes()
    others = sorted((corpus / "pica").glob("*.shbin"))
    other = others[(others.index(path) + 1) % len(others)].read_bytes()
    for edit in _edits(other):
        model = Dvlb.from_bytes(data)
        try:
            edit(model)
        except IndexError:
            continue  # (an edit the file has nothing for)
        assert rules.matching_rule(model) == _rule_by_definition(model)


def test_matching_rule_checks_what_the_rules_do_not_write(corpus: Path) -> None:
    """Edits invisible to a rule's writer (a zero header word nihstro drops, a NUL in a name)
    leave ``to_bytes()`` different: no rule matches then."""
    found = {}
    for path in sorted((corpus / "pica").glob("*.shbin")):
        model = Dvlb.from_bytes(path.read_bytes())
        found.setdefault(rules.matching_rule(model), model)
    nihstro = found.get((rules.RULE_NIHSTRO, ""))
    if nihstro is None:
        pytest.skip("no nihstro file in the corpus")
    nihstro.dvlp.unknown_words.append(0)
    assert rules.write_nihstro(nihstro) == bytes(nihstro.layout.stored_bytes())  # (nihstro writes no word)
    assert rules.matching_rule(nihstro) is None
    picasso = found[(rules.RULE_PICASSO, "")]
    uniform = next(u for d in picasso.dvles for u in d.uniforms)
    uniform.name = uniform.name[:-1] + "\0"
    assert rules.matching_rule(picasso) == _rule_by_definition(picasso)


def _generic_text(row_index: int, code: source._Code, unit: source._Unit, word: int, names: source._Names) -> str:
    """A ``dst, src...`` row's text from the per-operand printers (what the alu printer joins)."""
    row = BY_OPCODE6[row_index]
    index = next((word >> lsb) & ((1 << width) - 1) for name, lsb, width in row.fields if name == "desc")
    if index < len(code.opdescs):
        desc = code.opdescs[index]
    else:
        unit.lossy(f"operand descriptor {index} does not exist")
        desc = source._PLAIN_DESC
    texts = [source._operand_printer(kind, row.fmt)(code, unit, 0, word, desc, names, {})
             for kind in SYNTAXES[row.syntax]]
    return TEXT_MNEMONIC.get(row.mnemonic, row.base) + " " + ", ".join(str(t) for t in texts)


def test_register_printers_are_the_operand_printers() -> None:
    rng = random.Random(19)
    rows = [op6 for op6, row in enumerate(BY_OPCODE6) if row.fmt in DESC_FORMATS and SYNTAXES[row.syntax][0] == "dst"
            and not row.mnemonic.startswith("unk")]
    assert rows
    for _ in range(3000):
        op6 = rng.choice(rows)
        word = op6 << 26 | rng.getrandbits(26)
        opdescs = [rng.getrandbits(31) & ~(0xF if rng.random() < 0.1 else 0) for _ in range(rng.randrange(0, 40))]
        names = source._Names()
        if rng.random() < 0.5:  # some named sources (arrays), destinations and flags
            names.src[rng.randrange(128)] = ("arr", 0x20, 4)
            names.src.update({reg: ("arr", 0x20, 4) for reg in range(0x20, 0x24)})
            one = rng.randrange(128)
            names.src[one] = ("one", one, 1)
            names.dst[rng.randrange(32)] = "out_color"
        fast_unit, slow_unit = source._Unit(), source._Unit()
        code = source._Code([word], opdescs, {}, {})
        fast = source._PRINTERS[op6](code, fast_unit, 0, word, names, {})
        slow = _generic_text(op6, code, slow_unit, word, copy.deepcopy(names))
        assert (fast, fast_unit.lines) == (slow, slow_unit.lines), hex(word)


def _encoder_gives(word: int, fields: dict[str, int]) -> bool:
    try:
        return ENCODERS[BY_OPCODE6[(word & 0xFFFFFFFF) >> 26].mnemonic](fields) == word
    except ValueError:  # (a value that does not fit, a field the row lacks)
        return False


def test_assembles_to_is_the_encoder() -> None:
    rng = random.Random(25)
    rows = [op6 for op6, row in enumerate(BY_OPCODE6) if not row.mnemonic.startswith("unk")]
    names = sorted({name for row in BY_OPCODE6 for name, _, _ in row.fields})
    agreed = {True: 0, False: 0}
    for _ in range(20000):
        op6 = rng.choice(rows)
        row = BY_OPCODE6[op6]
        word = op6 << 26 | rng.getrandbits(26) & (0 if rng.random() < 0.5 else 0x3FFFFFF)
        fields = {name: (word >> lsb) & ((1 << width) - 1) for name, lsb, width in row.fields}
        if rng.random() < 0.5:
            word &= ~sum(((1 << width) - 1) << lsb for name, lsb, width in row.fields if not fields[name] and
                         rng.random() < 0.5)
        for _ in range(rng.randrange(3)):  # edits: drop a field, change one, add one the row may lack
            edit = rng.random()
            if edit < 0.3 and fields:
                del fields[rng.choice(sorted(fields))]
            elif edit < 0.7 and fields:
                fields[rng.choice(sorted(fields))] = rng.choice([0, 1, rng.getrandbits(12), -1])
            else:
                fields[rng.choice(names)] = rng.getrandbits(3)
        if rng.random() < 0.05:
            word |= rng.choice([1 << 32, 1 << 40])
        expected = _encoder_gives(word, fields)
        assert source._assembles_to(word, fields) == expected, (hex(word), fields)
        agreed[expected] += 1
    assert min(agreed.values()) > 1000  # (both answers were tried often)


def test_replay_masks_are_optimize_mask() -> None:
    for op6, replay in enumerate(source._REPLAY_DESC6):
        if replay is None:
            continue
        row = BY_OPCODE6[op6]
        name = "mad" if row.fmt in ("5", "5i") else row.base
        assert name in BY_MNEMONIC
        assert replay.merge_masks == tuple(optimize_mask(row.desc_bits, name, dest_mask) for dest_mask in range(16)), row.mnemonic


def test_matching_rule_with_a_nul_in_a_name(corpus: Path) -> None:
    """A name holding a NUL packs to bytes the parse reads as a shorter name: a file written with
    one parses to a model whose name stops at the NUL; giving the model the full name back makes
    the rule rebuild the file's bytes, but ``to_bytes()`` lays the symbol table out anew."""
    path = next(p for p in sorted((corpus / "pica").glob("*.shbin"))
                if any(d.uniforms for d in Dvlb.from_bytes(p.read_bytes()).dvles))
    model = Dvlb.from_bytes(path.read_bytes())
    uniform = next(u for d in model.dvles for u in d.uniforms)
    full = uniform.name + "\0tail"
    uniform.name = full
    model.layout = None
    parsed = Dvlb.from_bytes(model.to_bytes())  # (picasso's layout: the rule that rebuilds it)
    named = next(u for d in parsed.dvles for u in d.uniforms)
    assert "\0" not in named.name
    named.name = full
    assert rules.write_with_rule(parsed, rules.RULE_PICASSO) == bytes(parsed.layout.stored_bytes())
    assert rules.matching_rule(parsed) == _rule_by_definition(parsed)


def test_replay_after_mad_swaps_agrees_with_assembly() -> None:
    """More than 32 descriptors, then MADs (picasso swaps their descriptors into the low slots),
    then the earlier instructions again: the replay (which remembers where each descriptor merged)
    decides what assembling the text decides."""
    from shaderkit.formats.dvlb.build import assemble_sources

    swizzles = ["xyzw", "yxzw", "zyxw", "wzyx", "xxxx", "yyyy", "zzzz", "wwww", "xyxy", "zwzw", "xzyw", "yzwx",
                "xxyy", "zzww", "wxyz", "ywzx", "xwzy", "zxyw", "yyxx", "wwzz"]
    movs = [f"mov r0, {sign}r1.{swz}" for sign in ("", "-") for swz in swizzles]
    movs += [f"add r0, r1.{swz}, -r2.{swizzles[-1 - i]}" for i, swz in enumerate(swizzles)]
    mads = ["mad r2, r1.yxzw, r3.zzzz, r4", "mad r2.xy, r1, r3, r4.wzyx", "mad r5, -r1, r3.xxxx, r4"]
    body = movs + mads + movs[::3] + mads + movs[1::5]
    text = ".proc main\n" + "".join(f"\t{line}\n" for line in body) + "\tend\n.end\n"
    model = Dvlb.from_bytes(assemble_sources([("t.pica", text)]))
    assert len(model.dvlp.opdescs) > 32
    units = source._units(model, False, [{}] * len(model.dvles), "")
    fast = source._decided_without_assembly(model, units, "")
    assert fast is not None
    texts = source._sources(model, False, [{}] * len(model.dvles), "")
    slow = source._checked_by_assembly(model, texts, "")
    assert fast[:3] == slow[:3]
    # and with the descriptor table shuffled (merging then differs from the file's table)
    model.dvlp.opdescs.reverse()
    units = source._units(model, False, [{}] * len(model.dvles), "")
    fast = source._decided_without_assembly(model, units, "")
    slow = source._checked_by_assembly(model, source._sources(model, False, [{}] * len(model.dvles), ""), "")
    assert fast is not None and fast[:3] == slow[:3]


def test_uniform_kind_is_uniform_space() -> None:
    """source._uniform_kind walks an import-time list of the spaces: table.uniform_space's answer
    (and its error below every space)."""
    from shaderkit.isa.pica.table import uniform_space

    for index in range(-2, 0x10000, 7):
        try:
            space = uniform_space(index)
        except ValueError as exc:
            with pytest.raises(ValueError, match=str(exc)):
                source._uniform_kind(index)
            continue
        assert space.table_base is not None
        kind = -1 if space.kind is None else space.kind
        assert source._uniform_kind(index) == (kind, index - space.table_base + space.base)


def test_descriptor_merging_by_hand() -> None:
    """findOrAddOpdesc: the first slot that agrees on the bits both fix takes the new bits; else a
    new slot; -1 once the 128 slots are taken (values worked out by hand)."""
    table = DescriptorTable()
    assert table.merge_opdesc(0b1010, 0b1111) == 0  # (empty table: a new slot)
    assert table.merge_opdesc(0b0110, 0b0011) == 0  # 1010 ^ 0110 = 1100, & 0011 = 0: agrees
    assert (table.opdescs, table.opdesc_masks) == ([0b1010], [0b1111])  # (its low bits were already 10)
    assert table.merge_opdesc(0b0001, 0b0011) == 1  # 1010 ^ 0001 = 1011, & 0011 = 0011: a new slot
    assert table.merge_opdesc(0b0101, 0b1100) == 1  # slot 0: 1111 & 1100; slot 1: 0100 & 0011 & 1100 = 0
    assert (table.opdescs, table.opdesc_masks) == ([0b1010, 0b0101], [0b1111, 0b1111])
    table.code.append(0x00000000)  # add, descriptor 0 (the 7-bit field at bit 0)
    table.swap_opdesc(0, 1)
    assert (table.opdescs, table.code) == ([0b0101, 0b1010], [0x00000001])  # (the word follows its slot)
    assert table.merge_opdesc(0b1010, 0b0011) == 1  # slot 0: 0101 ^ 1010 = 1111, & 0011: no; slot 1 agrees
    full = DescriptorTable()
    full.pin_opdescs(list(range(128)))
    assert full.merge_opdesc(200, 0xFF) == -1  # (disagrees with every pinned value)
    assert full.merge_opdesc(77, 0xFF) == 77
