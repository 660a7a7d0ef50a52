"""The layout rules of the assemblers that wrote real SHBIN files.

A parsed file keeps where its items lay (``Dvlb.layout``, an :class:`~shaderkit.io.layout.Layout`);
these rules say where each assembler puts every structure, so that a model assembled from text is laid out like the file it came from,
edited or not. ``shaderkit disasm`` names the rule in a ``; shaderkit: layout NAME`` comment when
it is not current picasso's.

* ``picasso``: picasso >= 2015-08 (``Dvlb.relayout``): DVLB, DVLP header (40 bytes), code,
  descriptors, then per DVLE its header, constants, labels, outputs, uniforms, symbols, padded
  to 4 bytes.
* ``picasso-2014``: picasso before multi-shader support (2014-11 .. 2015-08, one DVLE): DVLB,
  DVLP header, DVLE header, code, descriptors, then the DVLE's constants, labels, outputs,
  uniforms and symbols (uniform names first); no end padding; the DVLP symbol-table offset
  points right after the descriptors.
* ``picasso-2015``: picasso's first multi-DVLE writer (2015-08-13 .. 2015-08-15): the
  ``picasso`` layout without the 4-byte alignment of each DVLE.
* ``nihstro``: nihstro-assemble (one DVLE): DVLB, DVLP header (28 bytes), DVLE header, code,
  descriptors, then outputs, constants, uniforms, labels, symbols (label names first); no end
  padding; the DVLP symbol-table offset is 0.
"""

from __future__ import annotations

from collections.abc import Callable

from shaderkit.formats.dvlb.dvlb import (
    Dvlb,
    name_key,
)
from shaderkit.formats.dvlb.pack import (
    _CONSTANT,
    _LABEL,
    _OPDESC,
    _OUTPUT,
    _UNIFORM,
    DVLE_HEADER_SIZE,
    DVLP_HEADER_MIN,
    _encode_name,
    _pack_constants,
    _pack_dvlb_header,
    _pack_dvle,
    _pack_dvle_header,
    _pack_dvlp_header,
    _pack_labels,
    _pack_opdescs,
    _pack_outputs,
    _pack_uniforms,
    _symbol_table,
    _write_canonical,
    pack_u32s,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Final

RULE_PICASSO: Final = "picasso"
RULE_PICASSO_2014: Final = "picasso-2014"
RULE_PICASSO_2015: Final = "picasso-2015"
RULE_NIHSTRO: Final = "nihstro"


class RuleMismatch(ValueError):
    """The model cannot be laid out by this rule (e.g. several DVLEs for a one-DVLE assembler)."""


def _header_words(model: Dvlb, count: int, rule: str) -> list[int]:
    """The DVLP header words after the symbol-table offset: ``count`` of them (zero-extended)."""
    words = list(model.dvlp.unknown_words)
    if any(words[count:]):
        raise RuleMismatch(f"the {rule} layout has {count} DVLP header words after the symbol offset")
    return words[:count] + [0] * (count - len(words))


def _single_dvle_prefix(model: Dvlb, rule: str, header_words: list[int]) -> tuple[int, int, int, bytes]:
    """(DVLE offset, code offset, descriptor offset in DVLP, code+descriptor bytes) of the
    one-DVLE layouts, where the DVLE header sits between the DVLP header and the code."""
    if len(model.dvles) != 1:
        raise RuleMismatch(f"the {rule} layout holds exactly one DVLE, not {len(model.dvles)}")
    dvlp = model.dvlp
    header_size = DVLP_HEADER_MIN + 4 * len(header_words)
    code_offset = header_size + DVLE_HEADER_SIZE
    opdesc_offset = code_offset + 4 * len(dvlp.code)
    blob = pack_u32s(dvlp.code) + _pack_opdescs(dvlp.opdescs)
    return 12 + header_size, code_offset, opdesc_offset, blob


def write_picasso_2014(model: Dvlb) -> bytes:
    """A one-DVLE SHBIN laid out as picasso 2014 writes it."""
    words = _header_words(model, 3, RULE_PICASSO_2014)
    dvle_offset, code_offset, opdesc_offset, blob = _single_dvle_prefix(model, RULE_PICASSO_2014, words)
    dvle = model.dvles[0]
    end_of_descs = opdesc_offset + _OPDESC.size * len(model.dvlp.opdescs)  # relative to the DVLP
    pool, label_syms, uniform_syms = _symbol_table(dvle)
    const_off = end_of_descs - (dvle_offset - 12)
    label_off = const_off + _CONSTANT.size * len(dvle.constants)
    out_off = label_off + _LABEL.size * len(dvle.labels)
    unif_off = out_off + _OUTPUT.size * len(dvle.outputs)
    sym_off = unif_off + _UNIFORM.size * len(dvle.uniforms)
    return b"".join((
        _pack_dvlb_header([dvle_offset]),
        _pack_dvlp_header(model.dvlp, code_offset, opdesc_offset, end_of_descs, words),
        _pack_dvle_header(dvle, (const_off, label_off, out_off, unif_off, sym_off), len(pool)),
        blob, _pack_constants(dvle.constants), _pack_labels(dvle.labels, label_syms),
        _pack_outputs(dvle.outputs), _pack_uniforms(dvle.uniforms, uniform_syms), pool,
    ))  # fmt: skip


def write_picasso_2015(model: Dvlb) -> bytes:
    """A SHBIN laid out as picasso 2015 and later write it."""
    dvlp = model.dvlp
    words = _header_words(model, 3, RULE_PICASSO_2015)
    header_size = DVLP_HEADER_MIN + 4 * len(words)
    opdesc_offset = header_size + 4 * len(dvlp.code)
    dvlp_size = opdesc_offset + _OPDESC.size * len(dvlp.opdescs)
    entries = [_pack_dvle(dvle, _symbol_table(dvle)) for dvle in model.dvles]  # back to back, unpadded
    offsets = []
    offset = 8 + 4 * len(model.dvles) + dvlp_size
    for entry in entries:
        offsets.append(offset)
        offset += len(entry)
    return b"".join([_pack_dvlb_header(offsets),
                     _pack_dvlp_header(model.dvlp, header_size, opdesc_offset, dvlp_size, words),
                     pack_u32s(dvlp.code), _pack_opdescs(dvlp.opdescs), *entries])


def write_nihstro(model: Dvlb, symbols: str = "") -> bytes:
    """nihstro's layout; ``symbols`` is the order of the names in the symbol table, one letter per
    name (``l`` the next label, ``u`` the next uniform: nihstro stores them in source order), by
    default the labels first."""
    words = _header_words(model, 0, RULE_NIHSTRO)
    dvle_offset, code_offset, opdesc_offset, blob = _single_dvle_prefix(model, RULE_NIHSTRO, words)
    dvle = model.dvles[0]
    end_of_descs = opdesc_offset + _OPDESC.size * len(model.dvlp.opdescs)
    symbols = symbols or "l" * len(dvle.labels) + "u" * len(dvle.uniforms)
    if sorted(symbols) != sorted("l" * len(dvle.labels) + "u" * len(dvle.uniforms)):
        raise RuleMismatch(f"symbol order {symbols!r} does not list {len(dvle.labels)} labels and "
                           f"{len(dvle.uniforms)} uniforms")
    pool = bytearray()
    label_syms: list[int] = []
    uniform_syms: list[int] = []
    labels, uniforms = iter(dvle.labels), iter(dvle.uniforms)
    for kind in symbols:
        (label_syms if kind == "l" else uniform_syms).append(len(pool))
        name = next(labels).name if kind == "l" else next(uniforms).name
        pool += _encode_name(name) + b"\0"
    out_off = end_of_descs - (dvle_offset - 12)
    const_off = out_off + _OUTPUT.size * len(dvle.outputs)
    unif_off = const_off + _CONSTANT.size * len(dvle.constants)
    label_off = unif_off + _UNIFORM.size * len(dvle.uniforms)
    sym_off = label_off + _LABEL.size * len(dvle.labels)
    return b"".join((
        _pack_dvlb_header([dvle_offset]),
        _pack_dvlp_header(model.dvlp, code_offset, opdesc_offset, 0, words),
        _pack_dvle_header(dvle, (const_off, label_off, out_off, unif_off, sym_off), len(pool)),
        blob, _pack_outputs(dvle.outputs), _pack_constants(dvle.constants),
        _pack_uniforms(dvle.uniforms, uniform_syms), _pack_labels(dvle.labels, label_syms), bytes(pool),
    ))  # fmt: skip


LAYOUT_RULES: Final[dict[str, Callable[[Dvlb], bytes]]] = {
    RULE_PICASSO: _write_canonical,
    RULE_PICASSO_2014: write_picasso_2014,
    RULE_PICASSO_2015: write_picasso_2015,
    RULE_NIHSTRO: write_nihstro,
}


def write_with_rule(model: Dvlb, rule: str, symbols: str = "") -> bytes:
    """The model laid out by ``rule`` (``symbols``: nihstro's name order, see write_nihstro);
    KeyError for an unknown rule, RuleMismatch when it cannot."""
    if symbols:
        if rule != RULE_NIHSTRO:
            raise RuleMismatch(f"the {rule} layout takes no symbol order")
        return write_nihstro(model, symbols)
    return LAYOUT_RULES[rule](model)


def _recorded_symbol_order(model: Dvlb) -> str:
    """nihstro's name order as the file stored it (empty when it is not one name after another)."""
    layout = model.layout
    if layout is None or len(model.dvles) != 1:
        return ""
    dvle = model.dvles[0]
    order = []
    for table, kind, count in (("labels", "l", len(dvle.labels)), ("uniforms", "u", len(dvle.uniforms))):
        for entry in range(count):
            offset = layout.offset_of(name_key(0, table, entry))
            if offset is None:
                return ""
            order.append((offset, kind))
    return "".join(kind for _, kind in sorted(order))


#: how many DVLP header words after the symbol offset each rule writes, given the model's count
_RULE_HEADER_WORDS: Final[dict[str, Callable[[int], int]]] = {
    RULE_PICASSO: lambda count: max(3, count),
    RULE_PICASSO_2014: lambda count: 3,
    RULE_PICASSO_2015: lambda count: 3,
    RULE_NIHSTRO: lambda count: 0,
}


def _writes_recorded_bytes(model: Dvlb, rule: str, writer: Callable[[Dvlb], bytes],
                            recorded: bytes | bytearray) -> bool:
    """True when ``model.to_bytes()`` is ``recorded`` because ``rule`` (``writer``) lays the model out
    as ``recorded``: then every table, string and header of the model packs to the bytes
    the parse recorded at the offsets the headers give (the rule writes the same packers' output
    at the offsets its headers name), so the placed writer puts each back where it lay and writes
    nothing new. Two things the rule does not pin are checked: the DVLP header words (the rule
    pads or drops zero words: checked first, so a rule that cannot match writes nothing) and
    names whose bytes hold a NUL (the parse reads a shorter name)."""
    if _RULE_HEADER_WORDS[rule](len(model.dvlp.unknown_words)) != len(model.dvlp.unknown_words):
        return False
    if writer(model) != recorded:
        return False
    return not any("\0" in label.name for dvle in model.dvles for label in dvle.labels) and not any(
        "\0" in uniform.name for dvle in model.dvles for uniform in dvle.uniforms)


def matching_rule(model: Dvlb) -> tuple[str, str] | None:
    """(rule, symbol order or "") that lays the model out exactly as its file was; None when no
    rule does. A model not read from a file is picasso's.

    When a rule rebuilds the parsed bytes themselves and the model packs to them (see
    :func:`_writes_recorded_bytes`), ``to_bytes()`` is those bytes and is not built again.
    """
    if model.layout is None:
        return RULE_PICASSO, ""
    recorded = model.layout.stored_bytes()  # what the placed writer starts from
    for rule, writer in LAYOUT_RULES.items():
        try:
            if _writes_recorded_bytes(model, rule, writer, recorded):
                return rule, ""
        except RuleMismatch:
            continue
    data = model.to_bytes()
    for rule, writer in LAYOUT_RULES.items():
        try:
            if writer(model) == data:
                return rule, ""
        except RuleMismatch:
            continue
    symbols = _recorded_symbol_order(model)
    try:
        if symbols and write_nihstro(model, symbols) == data:
            return RULE_NIHSTRO, symbols
    except RuleMismatch:
        pass
    return None
