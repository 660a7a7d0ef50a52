"""Maxwell code of every corpus stage against envytools' listings (envydis -m gm107, an independent
oracle): every instruction word decodes, agrees with envydis on opcode, guard, registers,
predicates, constant-buffer operands and immediates, re-encodes to itself, and the whole listing
assembles back to the same bytes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conftest import corpus_params
from shaderkit import open as open_shader
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.bnsh.bnsh import Bnsh
from shaderkit.formats.bnsh.model import NvnShaderCode
from shaderkit.formats.bnsh.nvn import NvnCode, NvnProgramFile
from shaderkit.isa.maxwell import assemble, decode, disassemble, instruction_text, program_end
from shaderkit.isa.maxwell.decode import Instruction, sign_extend
from shaderkit.isa.maxwell.encoding import bits_width

LISTINGS = corpus_params("nx/maxwell", "*.maxwell.txt")
LISTING_NAME = re.compile(r"(?P<file>.+)\.(?P<where>v\d+|part\d+)\.(?P<stage>vertex|pixel)\.maxwell\.txt$")
LINE = re.compile(r"(?P<addr>[0-9a-f]{8}): (?P<lo>[0-9a-f]{8}) (?P<hi>[0-9a-f]{8})\s+(?:C\s+)?(?P<text>.*)")

# shaderkit mnemonic -> envydis opcode where they differ (else the lower-case mnemonic)
ENVYDIS_NAMES = {"ALD": "ld", "AST": "st", "LDC": "ld"}

Atom = tuple[Any, ...]


def read_listing(path: Path) -> tuple[bytes, list[tuple[int, int, str]]]:
    """The code bytes the listing shows, and (address, word, text) of each program instruction
    (control words left out) up to the terminal branch after exit."""
    words: list[int] = []
    program: list[tuple[int, int, str]] = []
    ended = seen_exit = False
    for line in path.read_text().splitlines():
        m = LINE.match(line)
        if not m:
            continue
        address, word, text = int(m["addr"], 16), int(m["hi"] + m["lo"], 16), m["text"].strip()
        assert address == 8 * len(words)
        words.append(word)
        if ended or address % 0x20 == 0:
            continue
        program.append((address, word, text))
        if seen_exit and text.split()[0] == "bra":
            ended = True
        seen_exit = seen_exit or text == "exit"
    return b"".join(w.to_bytes(8, "little") for w in words), program


def envydis_atoms(text: str) -> tuple[tuple[int, int] | None, str, list[Atom]]:
    """Guard, opcode and the operand atoms of an envydis line (modifier words dropped)."""
    tokens = text.split()
    guard = None
    if tokens[0] == "not":
        guard, tokens = (int(tokens[1][2:]), 1), tokens[2:]
    elif tokens[0].startswith("$p"):
        guard, tokens = (int(tokens[0][2:]), 0), tokens[1:]
    atoms: list[Atom] = []
    flags: list[str] = []
    for token in tokens[1:]:
        if token in ("neg", "abs", "not"):
            flags.append(token)
            continue
        count = len(atoms)
        if m := re.fullmatch(r"\$r(\d+)", token):
            atoms.append(("r", int(m[1])))
        elif m := re.fullmatch(r"\$p(\d+)", token):
            atoms.append(("p", int(m[1])))
        elif m := re.fullmatch(r"c(\d+)\[(0x[0-9a-f]+)\]", token):
            atoms.append(("c", int(m[1]), int(m[2], 16)))
        elif m := re.fullmatch(r"c(\d+)\[\$r(\d+)(?:([+-]0x[0-9a-f]+))?\]", token):
            atoms.append(("c", int(m[1]), ("r", int(m[2])), int(m[3] or "0", 16)))
        elif m := re.fullmatch(r"a\[(0x[0-9a-f]+)\]", token):
            atoms.append(("a", int(m[1], 16)))
        elif m := re.fullmatch(r"a\[\$r(\d+)(?:\+(0x[0-9a-f]+))?\]", token):
            atoms.append(("a", ("r", int(m[1])), int(m[2] or "0", 16)))
        elif re.fullmatch(r"-?0x[0-9a-f]+", token):
            atoms.append(("i", int(token, 16)))
        if len(atoms) > count:
            atoms[-1] = (*atoms[-1], tuple(sorted(flags)))
            flags = []
    return guard, tokens[0], atoms


def shaderkit_atoms(instruction: Instruction, address: int) -> tuple[tuple[int, int] | None, str, list[Atom]]:
    """The same from a decoded instruction, spelled the way envydis prints it: RZ as a source is
    0x0, PT is 0x1, float immediates are their raw bits, branch targets are absolute; each atom
    ends with its neg/abs/not flags."""
    enc, values = instruction.encoding, instruction.values
    guard = None
    if enc.guard is not None and (values[enc.guard[0]], values[enc.guard[1]]) != (7, 0):
        guard = (values[enc.guard[0]], values[enc.guard[1]])
    atoms: list[Atom] = []
    for index, operand in enumerate(enc.operands):
        raw = [values[slot] for slot in operand.fields]
        width = bits_width(enc.slots[operand.fields[-1]])
        kind = operand.kind
        if kind == "R":
            atoms.append(("i", 0) if raw[0] == 255 and index else ("r", raw[0]))
        elif kind == "P":
            atoms.append(("i", 1) if raw[0] == 7 else ("p", raw[0]))
        elif kind in ("I", "F"):
            atoms.append(("i", raw[0]))
        elif kind == "S":
            atoms.append(("i", sign_extend(raw[0], width)))
        elif kind == "F20":
            atoms.append(("i", raw[0] << 12))
        elif kind == "C":
            atoms.append(("c", raw[0], raw[1] * 4))
        elif kind == "K" and len(raw) == 2:
            atoms.append(("c", raw[0], sign_extend(raw[1], width)))
        elif kind == "K":
            atoms.append(("c", raw[0], ("r", raw[1]), sign_extend(raw[2], width)))
        elif kind == "A":
            atoms.append(("a", raw[1]) if raw[0] == 255 else ("a", ("r", raw[0]), raw[1]))
        elif kind == "T":
            atoms.append(("i", address + 8 + sign_extend(raw[0], width)))
        else:
            atoms.append((kind, *raw))
        flags = [name for name, slot in (("neg", operand.neg), ("abs", operand.abs), ("not", operand.not_),
                                         ("not", operand.inv)) if slot is not None and values[slot]]
        atoms[-1] = (*atoms[-1], tuple(sorted(flags)))
    name = ENVYDIS_NAMES.get(enc.mnemonic, enc.mnemonic.lower())
    # where the two print different operand lists (checked by hand against the table's bits):
    if enc.mnemonic == "IPA":
        atoms = atoms[:-1]  # envydis leaves out the 2-bit sample mode (msi)
    elif enc.mnemonic == "TEXS":
        atoms = [atoms[1], atoms[0], *atoms[2:-1]]  # envydis: second destination first; mask as rgba
    elif enc.mnemonic == "TEX" and enc.suffix == "B":
        atoms = [atoms[0], *atoms[2:4], ("i", 0, ()), atoms[4]]  # no PT destination; envydis prints 0x0
    elif enc.mnemonic == "LOP":
        atoms = [atoms[1], atoms[0], *atoms[2:]]  # envydis: predicate destination first
    return guard, name, atoms


def stage_code(nx: Path, listing: str) -> bytes:
    """The stage's code through shaderkit's BNSH/NVN models."""
    m = LISTING_NAME.match(listing)
    assert m, listing
    model = open_shader(nx / m["file"])
    if m["where"].startswith("part"):
        assert isinstance(model, NvnProgramFile)
        return NvnCode.from_bytes(model.parts[int(m["where"][4:])]).code
    assert isinstance(model, Bnsh)
    code = model.stage_code(int(m["where"][1:]), m["stage"])
    assert isinstance(code, NvnShaderCode)
    return NvnCode.from_bytes(code.data).code


@pytest.mark.parametrize("listing", LISTINGS)
def test_every_instruction_matches_envydis(listing: Path) -> None:
    code, program = read_listing(listing)
    assert program_end(code) == program[-1][0] + 8
    for address, word, text in program:
        instruction = decode(word)
        assert instruction is not None, f"{address:#x}: {word:#018x} ({text}) does not decode"
        assert instruction.encode() == word
        assert shaderkit_atoms(instruction, address) == envydis_atoms(text), f"{address:#x}: {text}"
        if instruction.mnemonic in ("TEXS", "TLDS"):  # the component mask, named as envydis names it
            assert instruction_text(instruction, address).endswith(", " + text.split()[-1].upper()), text


@pytest.mark.parametrize("listing", LISTINGS)
def test_listing_assembles_to_the_same_bytes(listing: Path) -> None:
    code, _ = read_listing(listing)
    assert assemble(disassemble(code)) == code


@pytest.mark.parametrize("listing", LISTINGS)
def test_models_give_the_listed_code(listing: Path) -> None:
    nx = listing.parent.parent
    try:
        code = stage_code(nx, listing.name)
    except ShaderFormatError as exc:  # wiixl_quad_carray: BNSH compiler reflection, fixed elsewhere
        pytest.skip(f"BNSH model cannot read the file yet: {exc}")
    assert code == read_listing(listing)[0]


def test_corpus_counts(corpus: Path) -> None:
    """The README's figure: 785 instruction words before the terminal branches, none unknown."""
    listings = sorted((corpus / "nx" / "maxwell").glob("*.maxwell.txt"))
    programs = [read_listing(path)[1] for path in listings]
    assert len(listings) == 23
    assert sum(len(p) for p in programs) == 785
    assert all(decode(word) is not None for p in programs for _, word, _ in p)
