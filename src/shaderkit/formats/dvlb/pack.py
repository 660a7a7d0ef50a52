"""SHBIN's structures as bytes: the record layouts, the table packers and picasso's whole-file writer.

The model (:mod:`.dvlb`) reads with these layouts and writes with these packers; :mod:`.rules` and
the disassembler's layout check write whole files with them. Compiled by mypyc in a compiled build
(``shaderkit._native.NATIVE``): the disassembler lays every parsed file out again to name its
layout rule. Model arguments are typed ``Any`` on purpose: compiled code checks a declared type at
every read (a list where the model declares a tuple, a NumPy integer where it declares an int would
raise TypeError), and the writer takes what the model holds, as the source does. (The compiled
disassembler and layout rules still read the model as declared: see the README's install notes.)
"""

from __future__ import annotations

import struct

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any, Final

DVLB_MAGIC: Final = b"DVLB"
DVLP_MAGIC: Final = b"DVLP"
DVLE_MAGIC: Final = b"DVLE"

_DVLP_HEADER: Final = struct.Struct("<4s6I")  # magic, version, code off/size, opdesc off/count, symtab off
DVLP_HEADER_MIN: Final = _DVLP_HEADER.size  # 0x1C: nihstro's header; picasso adds three words
DVLP_HEADER_PICASSO: Final = 0x28
_DVLE_HEADER: Final = struct.Struct("<4sHBBIIHHBBBB10I")
DVLE_HEADER_SIZE: Final = _DVLE_HEADER.size  # 0x40
_OPDESC: Final = struct.Struct("<II")
_CONSTANT: Final = struct.Struct("<HH4I")
_LABEL: Final = struct.Struct("<B3sIII")
_OUTPUT: Final = struct.Struct("<HHB3s")
_UNIFORM: Final = struct.Struct("<IHH")
_CONSTANT_SIZE: Final = _CONSTANT.size
_LABEL_SIZE: Final = _LABEL.size
_OPDESC_SIZE: Final = _OPDESC.size
_OUTPUT_SIZE: Final = _OUTPUT.size
_UNIFORM_SIZE: Final = _UNIFORM.size
# (the packers' bound methods: compiled code would look each method up at every call)
_pack_dvle_fields: Final = _DVLE_HEADER.pack
_pack_dvlp_fields: Final = _DVLP_HEADER.pack
_pack_constant: Final = _CONSTANT.pack
_pack_label: Final = _LABEL.pack
_pack_output: Final = _OUTPUT.pack
_pack_uniform: Final = _UNIFORM.pack


#: struct.Struct("<NI") by count N (struct.pack would build and look up the format string at every call)
_U32S: Final[dict[int, struct.Struct]] = {}
_U32S_KEPT: Final = 64


def pack_u32s(words: Any) -> bytes:
    """The words as little-endian u32s (struct.error for a word out of range, as struct.pack)."""
    count = len(words)
    packer = _U32S.get(count)
    if packer is None:
        packer = struct.Struct(f"<{count}I")
        if len(_U32S) < _U32S_KEPT:
            _U32S[count] = packer
    return packer.pack(*words)


def _encode_name(name: str) -> bytes:
    return name.encode("latin-1")


def _pack_dvle_header(dvle: Any, offsets: tuple[int, int, int, int, int], symbol_size: int) -> bytes:
    const_off, label_off, out_off, unif_off, sym_off = offsets
    return _pack_dvle_fields(
        DVLE_MAGIC, dvle.version, dvle.shader_type, dvle.merge_outmaps,
        dvle.main_offset, dvle.endmain_offset, dvle.input_mask, dvle.output_mask,
        dvle.gs_mode, dvle.gs_fixed_vertex_start, dvle.gs_variable_vertex_num, dvle.gs_fixed_vertex_num,
        const_off, len(dvle.constants), label_off, len(dvle.labels), out_off, len(dvle.outputs),
        unif_off, len(dvle.uniforms), sym_off, symbol_size,
    )  # fmt: skip


def _pack_dvlb_header(dvle_offsets: list[int]) -> bytes:
    """The DVLB header: magic, DVLE count, then each DVLE's offset."""
    return DVLB_MAGIC + pack_u32s([len(dvle_offsets), *dvle_offsets])


def _pack_dvlp_header(dvlp: Any, code_offset: int, opdesc_offset: int, symbol_offset: int, words: Any) -> bytes:
    """The DVLP header: its fields (offsets relative to the DVLP), then ``words`` (the words after
    the symbol-table offset: picasso's three, nihstro's none, or what a file held)."""
    return _pack_dvlp_fields(
        DVLP_MAGIC, dvlp.version, code_offset, len(dvlp.code), opdesc_offset, len(dvlp.opdescs), symbol_offset,
    ) + pack_u32s(words)  # fmt: skip


# Table packers shared with the DVOJ writer (dvob.py): entries in order, names by symbol offset.


def _pack_constants(constants: Any) -> bytes:
    return b"".join([_pack_constant(c.type, c.register, *c.words) for c in constants])


def _pack_labels(labels: Any, symbols: list[int]) -> bytes:
    return b"".join([_pack_label(lb.id, lb.reserved, lb.program_offset, lb.unknown, sym) for lb, sym in zip(labels, symbols)])


def _pack_opdescs(opdescs: Any) -> bytes:
    words = []  # (each entry's two words: one pack of them all)
    for o in opdescs:
        words.append(o.value)
        words.append(o.extra)
    return pack_u32s(words)


def _pack_outputs(outputs: Any) -> bytes:
    return b"".join([_pack_output(o.semantic, o.register, o.mask, o.reserved) for o in outputs])


def _pack_uniforms(uniforms: Any, symbols: list[int]) -> bytes:
    return b"".join([_pack_uniform(sym, u.first_register, u.last_register) for u, sym in zip(uniforms, symbols)])


def _symbol_table(dvle: Any, labels_first: bool = False) -> tuple[bytes, list[int], list[int]]:
    """picasso's symbol table: uniform names in table order, then label names, each NUL-terminated
    (``labels_first``: nihstro's default order). Returns the table and the label and uniform
    symbol offsets."""
    pool = bytearray()
    label_syms: list[int] = []
    uniform_syms: list[int] = []
    if labels_first:
        _add_names(pool, label_syms, dvle.labels)
        _add_names(pool, uniform_syms, dvle.uniforms)
    else:
        _add_names(pool, uniform_syms, dvle.uniforms)
        _add_names(pool, label_syms, dvle.labels)
    return bytes(pool), label_syms, uniform_syms


def _add_names(pool: bytearray, symbols: list[int], entries: Any) -> None:
    """Each entry's name, NUL-terminated, at the end of ``pool``; its offset in ``symbols``."""
    for entry in entries:
        symbols.append(len(pool))
        pool += _encode_name(entry.name)
        pool.append(0)


def _pack_dvle(dvle: Any, table: tuple[bytes, list[int], list[int]]) -> bytes:
    """A DVLE packed in picasso's order: header, constants, labels, outputs, uniforms, then the
    symbol table; ``table`` is :func:`_symbol_table`'s (pool, label and uniform symbol offsets)."""
    pool, label_syms, uniform_syms = table
    constants, labels, outputs, uniforms = dvle.constants, dvle.labels, dvle.outputs, dvle.uniforms
    const_off = DVLE_HEADER_SIZE
    label_off = const_off + _CONSTANT_SIZE * len(constants)
    out_off = label_off + _LABEL_SIZE * len(labels)
    unif_off = out_off + _OUTPUT_SIZE * len(outputs)
    sym_off = unif_off + _UNIFORM_SIZE * len(uniforms)
    return b"".join((_pack_dvle_header(dvle, (const_off, label_off, out_off, unif_off, sym_off), len(pool)),
                     _pack_constants(constants), _pack_labels(labels, label_syms),
                     _pack_outputs(outputs), _pack_uniforms(uniforms, uniform_syms), pool))


def _write_canonical(model: Any) -> bytes:
    """Lay the model out as picasso >= v2.5 does."""
    dvlp = model.dvlp
    code, opdescs, unknown_words = dvlp.code, dvlp.opdescs, dvlp.unknown_words
    unknown = list(unknown_words) + [0] * (3 - len(unknown_words))
    header_size = DVLP_HEADER_MIN + 4 * len(unknown)
    code_size = 4 * len(code)
    dvlp_size = header_size + code_size + _OPDESC_SIZE * len(opdescs)
    entries = [_pack_dvle(dvle, _symbol_table(dvle)) for dvle in model.dvles]
    offsets = []
    size = 8 + 4 * len(entries) + dvlp_size
    padded = []
    for entry in entries:  # (each DVLE padded to 4 bytes from the file start)
        offsets.append(size)
        size += len(entry)
        padded.append(entry)
        padded.append(b"\0" * (-size % 4))
        size += -size % 4
    return b"".join([
        _pack_dvlb_header(offsets),
        _pack_dvlp_header(dvlp, header_size, header_size + code_size, dvlp_size, unknown),
        pack_u32s(code), _pack_opdescs(opdescs), *padded,
    ])  # fmt: skip
