"""``disasm --offsets --raw``: the byte offset and the raw words in a column left of each instruction.

DXBC: offsets are bytes from the start of the program token stream (the SHDR/SHEX chunk data,
version token at 0x0); raw words are the instruction's 32-bit tokens. PICA200: offsets are bytes
from the start of the DVLP code (word index * 4); raw words are the instruction word. Latte (GSH,
SHARCFB, BFSHA): offsets are bytes from the start of each program; raw words are the 64-bit CF and
ALU slots and the 128-bit fetch slots as 32-bit words (an ALU group's literal slots beside its last
instruction). Maxwell (BNSH, NVN): offsets are bytes from the start of each stage's code (after the
0x30-byte NVN header and the 0x50-byte SPH, as in the ``/*0008*/`` comments); raw words are the 64-bit
word as two 32-bit halves, low first (as envydis prints them); the scheduling word of each 0x20-byte
bundle has a line only where the text shows it (``.sched``). Bare D3D9 (.cso/.vso/.pso): offsets are
bytes from the start of the file (version token at 0x0, comment blocks skipped); raw words are the
instruction token and its parameter tokens. Lines that are no instruction
(comments, declarations of the text format, labels) get an empty column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from shaderkit.errors import UnsupportedOperation

#: raw words per row; longer instructions continue on rows of their own under the first
WORDS_PER_ROW = 4
_MARK = "\x1f"


def _column(offset: int | None, words: Sequence[int], offsets: bool, raw: bool, per_row: int,
            digits: int) -> list[str]:
    """The left column's rows for one line: an offset and up to ``per_row`` words per row."""
    width_words = per_row * 9
    off_blank = " " * (digits + 5) if offsets else ""
    if offset is None:
        return [off_blank + (" " * width_words if raw else "")]
    head = f"/*{offset:0{digits}x}*/ " if offsets else ""
    if not raw:
        return [head]
    rows = [" ".join(f"{w:08x}" for w in words[i : i + per_row]) for i in range(0, max(len(words), 1), per_row)]
    return [(head if i == 0 else off_blank) + row.ljust(width_words) for i, row in enumerate(rows)]


def _render(entries: list[tuple[str, int | None, Sequence[int]]], offsets: bool, raw: bool) -> str:
    out: list[str] = []
    per_row = min(WORDS_PER_ROW, max((len(words) for _, _, words in entries), default=1))
    last = max((offset for _, offset, _ in entries if offset is not None), default=0)
    digits = max(4, len(f"{last:x}"))  # one width for the whole listing
    for text, offset, words in entries:
        column = _column(offset, words, offsets, raw, per_row, digits)
        out.append(column[0] + text if text else column[0].rstrip())
        out.extend(row.rstrip() for row in column[1:])
    return "\n".join(out) + "\n"


def dxbc_entries(container: Any, listing: str, hex_literals: bool = False) -> list[tuple[str, int | None, Sequence[int]]]:
    """Lines of the fxc-style ``listing`` with the offset and tokens of the instruction on each
    (``hex_literals``: the listing was printed with ``--hex``)."""
    from shaderkit.formats.dxbc.disasm import styled_formatter
    from shaderkit.isa.sm4.decode import decode

    shader = getattr(container, "shader", None)
    if shader is None:
        raise UnsupportedOperation("--offsets/--raw: this DXBC file has no single shader program (library or effect)")
    tokens = list(shader.tokens)
    program = decode(tokens)
    texts = styled_formatter(container, program, hex_literals=hex_literals).lines()
    starts = [0, *program.offsets]
    ends = [*program.offsets, len(tokens)]
    # the version line covers the version and length tokens; each instruction its own tokens
    heads = [text.split("\n")[0] for text in texts]
    wanted = [(4 * start, tokens[start:end]) for start, end in zip(starts, ends)]
    return _matched_entries(listing, wanted, lambda line, k: line == heads[k] or line.startswith(heads[k] + "  //"))


def _matched_entries(listing: str, wanted: Sequence[tuple[int, Sequence[int]]],
                     matches: Callable[[str, int], bool]) -> list[tuple[str, int | None, Sequence[int]]]:
    """Lines of ``listing``, the k-th line that ``matches(line, k)`` carrying ``wanted[k]`` (its byte
    offset and words), the others none; without the empty line after the last newline."""
    entries: list[tuple[str, int | None, Sequence[int]]] = []
    k = 0
    for line in listing.split("\n"):
        if k < len(wanted) and matches(line, k):
            entries.append((line, *wanted[k]))
            k += 1
        else:
            entries.append((line, None, ()))
    if entries and entries[-1][0] == "":
        entries.pop()
    return entries


def pica_entries(dvlb: Any) -> list[tuple[str, int | None, Sequence[int]]]:
    """picasso source of ``dvlb`` with the offset and word of each instruction line."""
    from shaderkit.formats.dvlb.source import dvlb_to_source

    code = list(dvlb.dvlp.code)
    text = dvlb_to_source(dvlb, marker=lambda pos: f"{_MARK}{pos}")
    entries: list[tuple[str, int | None, Sequence[int]]] = []
    for line in text.split("\n"):
        body, mark, pos = line.partition(_MARK)
        if mark:
            index = int(pos)
            entries.append((body, 4 * index, code[index : index + 1]))
        else:
            entries.append((line, None, ()))
    if entries and entries[-1][0] == "":
        entries.pop()
    return entries


def _marker(offset: int, words: Sequence[int]) -> str:
    return f"{_MARK}{offset}:" + ",".join(str(w) for w in words)


def marked_entries(text: str) -> list[tuple[str, int | None, Sequence[int]]]:
    """Lines of a listing printed with :func:`_marker`: (line without the mark, offset, words)."""
    entries: list[tuple[str, int | None, Sequence[int]]] = []
    for line in text.split("\n"):
        body, mark, where = line.partition(_MARK)
        if mark:
            offset, _, words = where.partition(":")
            entries.append((body, int(offset), [int(w) for w in words.split(",") if w]))
        else:
            entries.append((line, None, ()))
    if entries and entries[-1][0] == "":
        entries.pop()
    return entries


def latte_entries(model: Any) -> list[tuple[str, int | None, Sequence[int]]] | None:
    """The Latte listing of a GSH / SHARCFB / Wii U BFSHA model with each instruction's offset and
    words; None for other models."""
    from shaderkit.formats.gx2.programs import gx2_listing, is_wiiu

    if not is_wiiu(model):
        return None
    text = gx2_listing(model, marker=_marker)
    return None if text is None else marked_entries(text)


def maxwell_entries(model: Any, hex_literals: bool = False) -> list[tuple[str, int | None, Sequence[int]]] | None:
    """The Maxwell listing of a BNSH / NVN model with each word's offset and halves; None for others."""
    from shaderkit.formats.bnsh.text import maxwell_listing

    text = maxwell_listing(model, hex_literals, _marker)
    return None if text is None else marked_entries(text)


def d3d9_entries(shader: Any, listing: str) -> list[tuple[str, int | None, Sequence[int]]]:
    """Lines of a bare D3D9 shader's listing with the offset and tokens of the version line and of
    each instruction (the code lines are the indented ones, in token order)."""
    wanted: list[tuple[int, Sequence[int]]] = [(0, (shader.version,))]
    wanted += [(ins.offset, ins.tokens) for ins in shader.instructions]  # (where each was read: the model is a file's)
    return _matched_entries(listing, wanted, lambda line, _k: line.startswith("    "))


def annotated_listing(model: Any, listing: str, offsets: bool, raw: bool, hex_literals: bool = False) -> str:
    """``listing`` (the plain disassembly of ``model``) with offsets and/or raw words beside it."""
    from shaderkit.formats.dvlb.dvlb import Dvlb
    from shaderkit.formats.dxbc.container import DxbcContainer

    if isinstance(model, DxbcContainer):
        return _render(dxbc_entries(model, listing, hex_literals), offsets, raw)
    if model.format_name == "d3d9":
        return _render(d3d9_entries(model, listing), offsets, raw)
    latte = latte_entries(model)
    if latte is not None:
        return _render(latte, offsets, raw)
    maxwell = maxwell_entries(model, hex_literals)
    if maxwell is not None:
        return _render(maxwell, offsets, raw)
    if isinstance(model, Dvlb):
        return _render(pica_entries(model), offsets, raw)
    dvlb = getattr(getattr(model, "payload", None), "dvlb", None) or getattr(model, "payload", None)
    if isinstance(dvlb, Dvlb):  # .csdr: base64 around a SHBIN
        return _render(pica_entries(dvlb), offsets, raw)
    raise UnsupportedOperation(f"{model.format_name}: --offsets/--raw are available for DXBC, bare D3D9, SHBIN, "
                               "Wii U (GSH, SHARCFB, BFSHA) and Switch (BNSH, NVN, DKSH) files")
