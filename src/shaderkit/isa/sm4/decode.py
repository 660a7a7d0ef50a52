"""SHDR/SHEX token words -> :class:`Program` (typed instructions and operands).

The decoder trusts nothing: every length, operand and index is checked against the end of its
instruction; failures raise :class:`ShaderFormatError` carrying the byte offset of the offending
token (relative to ``base``, the byte offset of the first word in the caller's buffer).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from shaderkit.errors import ShaderFormatError
from shaderkit.isa.sm4.model import Index, Instruction, Operand, Program
from shaderkit.isa.sm4.opcodes import OP_CUSTOMDATA, OPCODES, Layout
from shaderkit.isa.sm4.table import (
    COMPONENTS_AT,
    COMPONENTS_MASK,
    CONTROLS_AT,
    CONTROLS_MASK,
    DATA_CLASS_AT,
    DIMENSION_AT,
    DIMENSION_MASK,
    EXTENDED_BIT,
    IMMEDIATE_WORDS,
    INDEX_FORMS,
    LENGTH_AT,
    LENGTH_MASK,
    NUM_COMPONENTS_MASK,
    OPCODE_MASK,
    REP_AND_EXTENDED_BITS,
    REP_AT,
    REP_MASK,
    SELECTION_AT,
    SELECTION_MASK,
    TYPE_AT,
    TYPE_MASK,
    unpack_version,
)

#: deepest chain of relative addressing accepted (fxc never nests more than one level)
MAX_REL_DEPTH = 4

#: per opcode: (layout as a plain int, operand count) - one dict lookup per instruction
_PLAN = {value: (int(info.layout), info.num_operands) for value, info in OPCODES.items()}
_RAW_PLAN = (int(Layout.RAW), -1)
#: shared immutable Index objects for plain immediate indices (r0, cb0[12] ...)
_PLAIN: dict[int, Index] = {}
#: per index representation field value: its IndexForm, None if invalid
_INDEX_FORMS = tuple(INDEX_FORMS.get(rep) for rep in range(REP_MASK + 1))
_OPERANDS, _DCL_OPERAND, _CALL = int(Layout.OPERANDS), int(Layout.DCL_OPERAND), int(Layout.CALL)
_IMM_WORDS = IMMEDIATE_WORDS  # per operand type: value words per num_components code
_EXT_MASK = (1 << EXTENDED_BIT) - 1  # an extended token without its chaining bit


def words_from_bytes(data: bytes | memoryview, base: int = 0) -> tuple[int, ...]:
    """Little-endian u32 words of a SHDR/SHEX payload (a trailing partial word is an error)."""
    if len(data) % 4:
        raise ShaderFormatError(f"program size {len(data)} is not a multiple of 4", base, "SHDR")
    return struct.unpack(f"<{len(data) // 4}I", data)


class _Cursor:
    __slots__ = ("words", "base", "pos", "end")

    def __init__(self, words: Sequence[int], base: int) -> None:
        self.words = words
        self.base = base
        self.pos = 0
        self.end = 0

    def fail(self, message: str, pos: int | None = None) -> ShaderFormatError:
        at = self.pos if pos is None else pos
        return ShaderFormatError(message, self.base + 4 * at, "SHDR")


def _operand(cur: _Cursor, depth: int) -> Operand:
    words = cur.words
    pos = cur.pos
    end = cur.end
    if pos >= end:
        raise cur.fail("operand runs past the end of its instruction")
    token = words[pos]
    op_type = (token >> TYPE_AT) & TYPE_MASK
    if not token & REP_AND_EXTENDED_BITS and op_type != 4 and op_type != 5:
        # fast path (most operands): no extended token, only immediate indices
        dim = (token >> DIMENSION_AT) & DIMENSION_MASK
        stop = pos + 1 + dim
        if stop > end:
            raise cur.fail("operand index runs past the instruction end", end)
        cur.pos = stop
        cache = _PLAIN
        indices = []
        for w in words[pos + 1 : stop]:
            index = cache.get(w)
            if index is None:
                index = Index(0, w)
                if len(cache) < 65536:
                    cache[w] = index
            indices.append(index)
        return Operand(op_type, token & NUM_COMPONENTS_MASK, (token >> SELECTION_AT) & SELECTION_MASK,
                       (token >> COMPONENTS_AT) & COMPONENTS_MASK, indices, [], [])
    pos += 1
    extended: list[int] = []
    more = token >> EXTENDED_BIT
    while more:
        if pos >= end:
            raise cur.fail("extended operand token runs past the instruction end", pos)
        ext = words[pos]
        pos += 1
        more = ext >> EXTENDED_BIT
        extended.append(ext & _EXT_MASK)
    comps = token & NUM_COMPONENTS_MASK
    dim = (token >> DIMENSION_AT) & DIMENSION_MASK
    op = Operand(op_type, comps, (token >> SELECTION_AT) & SELECTION_MASK, (token >> COMPONENTS_AT) & COMPONENTS_MASK,
                 [], extended, [])
    if op_type == 4 or op_type == 5:
        count = _IMM_WORDS[op_type][comps]
        if pos + count > end:
            raise cur.fail("immediate value runs past the instruction end", pos)
        op.values = list(words[pos : pos + count])
        pos += count
    cur.pos = pos
    if dim:
        indices = op.indices
        for i in range(dim):
            rep = (token >> REP_AT[i]) & REP_MASK
            form = _INDEX_FORMS[rep]
            if form is None:
                raise cur.fail(f"unknown index representation {rep}", cur.pos)
            pos = cur.pos
            count = form.immediate_words
            if pos + count > end:
                raise cur.fail("operand index runs past the instruction end", pos)
            value = words[pos] if count == 1 else words[pos] | words[pos + 1] << 32 if count else 0
            cur.pos = pos + count
            indices.append(Index(rep, value, _relative(cur, depth) if form.relative else None))
    return op


def _relative(cur: _Cursor, depth: int) -> Operand:
    if depth >= MAX_REL_DEPTH:
        raise cur.fail(f"relative addressing nested deeper than {MAX_REL_DEPTH}")
    return _operand(cur, depth + 1)


def decode_instruction(cur: _Cursor, limit: int) -> Instruction:
    """Decode the instruction at ``cur.pos``; ``limit`` is the program end (word index)."""
    words = cur.words
    start = cur.pos
    token = words[start]
    opcode = token & OPCODE_MASK
    if opcode == OP_CUSTOMDATA:
        if start + 2 > limit:
            raise cur.fail("customdata block header runs past the program end", start)
        length = words[start + 1]
        if length < 2 or start + length > limit:
            raise cur.fail(f"customdata length {length} does not fit the program", start)
        inst = Instruction(opcode, token >> DATA_CLASS_AT, [], [], list(words[start + 2 : start + length]), start)
        cur.pos = start + length
        return inst
    length = (token >> LENGTH_AT) & LENGTH_MASK
    if length == 0:
        raise cur.fail(f"instruction 0x{token:08x} has length 0", start)
    end = start + length
    if end > limit:
        raise cur.fail(f"instruction length {length} runs past the program end", start)
    cur.end = end
    pos = start + 1
    extended: list[int] = []
    more = token >> EXTENDED_BIT
    while more:
        if pos >= end:
            raise cur.fail("extended opcode token runs past the instruction end", pos)
        ext = words[pos]
        pos += 1
        more = ext >> EXTENDED_BIT
        extended.append(ext & _EXT_MASK)
    cur.pos = pos
    layout, count = _PLAN.get(opcode, _RAW_PLAN)
    if layout == _OPERANDS:
        ops = [_operand(cur, 0) for _ in range(count)]
        inst = Instruction(opcode, (token >> CONTROLS_AT) & CONTROLS_MASK, extended, ops, list(words[cur.pos : end]), start)
        cur.pos = end
        return inst
    inst = Instruction(opcode, (token >> CONTROLS_AT) & CONTROLS_MASK, extended, [], [], start)
    if layout == _DCL_OPERAND:
        inst.operands.append(_operand(cur, 0))
        inst.raw = list(words[cur.pos : end])
    elif layout == _CALL:
        if pos >= end:
            raise cur.fail("fcall without interface id", pos)
        cur.pos = pos + 1
        inst.operands.append(_operand(cur, 0))
        inst.raw = [words[pos], *words[cur.pos : end]]
    else:
        inst.raw = list(words[pos:end])
    cur.pos = end
    return inst


#: per opcode: operands the validating scan walks (unknown opcodes: raw words only);
#: -1 sends customdata and fcall to :func:`decode_instruction`
_SCAN = {value: (-1 if info.layout in (Layout.CUSTOM, Layout.CALL) else
                 1 if info.layout == Layout.DCL_OPERAND else
                 max(info.num_operands, 0) if info.layout == Layout.OPERANDS else 0)
         for value, info in OPCODES.items()}
#: ``_SCAN`` as a list indexed by the 11-bit opcode field: range(operand count), or None
_SCAN_LIST: list[range | None] = [range(0)] * 0x800
for _opcode, _count in _SCAN.items():
    _SCAN_LIST[_opcode] = None if _count < 0 else range(_count)
#: operand token -> its word count when the token alone fixes it (no extended token, immediate
#: 32-bit indices only), else 0
_SIMPLE: dict[int, int] = {}


def simple_length(token: int) -> int:
    """Words of the operand starting with ``token`` if the token alone fixes them, else 0."""
    n = _SIMPLE.get(token)
    if n is not None:
        return n
    n = 0
    if not token >> EXTENDED_BIT:
        op_type = (token >> TYPE_AT) & TYPE_MASK
        n = 1
        if op_type == 4 or op_type == 5:
            n += _IMM_WORDS[op_type][token & NUM_COMPONENTS_MASK]
        for i in range((token >> DIMENSION_AT) & DIMENSION_MASK):
            if (token >> REP_AT[i]) & REP_MASK:
                n = 0
                break
            n += 1
    if len(_SIMPLE) < 65536:
        _SIMPLE[token] = n
    return n


#: operand token (with its extended bit) -> its word count when exactly one extended token
#: (modifier, precision) follows and the indices are immediate 32-bit ones, else 0
_EXT1: dict[int, int] = {}


def ext1_length(token: int) -> int:
    """Words of the operand starting with ``token`` if one extended token without the chaining
    bit follows it and the token fixes the rest, else 0 (callers check the chaining bit)."""
    n = _EXT1.get(token)
    if n is None:
        n = simple_length(token & _EXT_MASK) if token >> EXTENDED_BIT else 0
        n = n + 1 if n else 0
        if len(_EXT1) < 65536:
            _EXT1[token] = n
    return n


def _checked_end(words: Sequence[int], pos: int, end: int, depth: int) -> int:
    """End of the operand at ``pos`` if :func:`_operand` accepts it within ``end``, else -1
    (the same checks, without building it)."""
    if pos >= end:
        return -1
    token = words[pos]
    pos += 1
    if token >> EXTENDED_BIT:
        more = 1
        while more:
            if pos >= end:
                return -1
            more = words[pos] >> EXTENDED_BIT
            pos += 1
    op_type = (token >> TYPE_AT) & TYPE_MASK
    if op_type == 4 or op_type == 5:
        pos += _IMM_WORDS[op_type][token & NUM_COMPONENTS_MASK]
        if pos > end:
            return -1
    for i in range((token >> DIMENSION_AT) & DIMENSION_MASK):
        form = _INDEX_FORMS[(token >> REP_AT[i]) & REP_MASK]
        if form is None:
            return -1
        pos += form.immediate_words
        if form.relative:
            if depth >= MAX_REL_DEPTH or pos > end:
                return -1
            pos = _checked_end(words, pos, end, depth + 1)
            if pos < 0:
                return -1
        if pos > end:
            return -1
    return pos


#: operands that :func:`_checked_end` accepted, as a trie of their words (leaf: True); where
#: an operand ends is a function of the words read so far, so no operand prefixes another
_CHECKED: dict[int, object] = {}
#: words stored in ``_CHECKED`` (bounds its nodes)
_CHECKED_COUNT = [0]


def _remember(key: Sequence[int]) -> None:
    if _CHECKED_COUNT[0] >= 65536 or len(key) < 2:
        return
    _CHECKED_COUNT[0] += len(key)
    node: dict[int, object] = _CHECKED
    for word in key[:-1]:
        child = node.setdefault(word, {})
        if child.__class__ is not dict:
            return
        node = child
    node[key[-1]] = True


def program_header(words: Sequence[int], base: int = 0) -> tuple[tuple[int, ...], int, tuple[int, int, int, int]]:
    """(words as a tuple, program length in words, (minor, major, extra, program type)) of a
    SHDR/SHEX payload; ShaderFormatError when the version and length words do not fit."""
    # (Python ints in a tuple: a compiled build reads them fast, and refuses NumPy's integers)
    code = words if type(words) is tuple else tuple(map(int, words))
    total = len(code)
    if total < 2:
        raise ShaderFormatError(f"program has {total} words, needs at least 2", base, "SHDR")
    version, length = code[0], code[1]
    if length < 2 or length > total:
        raise ShaderFormatError(f"program length {length} words does not fit {total}", base + 4, "SHDR")
    minor, major, extra, program_type = unpack_version(version)
    return code, length, (minor, major, extra, program_type)


def decode(words: Sequence[int], base: int = 0) -> Program:
    """Decode a whole SHDR/SHEX payload given as u32 words (version, length, tokens...).

    Every instruction is validated here (errors are raised now, never later); the typed
    instructions are built when :attr:`Program.instructions` is first read.
    """
    words, length, (minor, major, extra, program_type) = program_header(words, base)
    prog = Program(program_type, major, minor, None, extra, list(words[length:]))
    starts: list[int] = []
    scan = _SCAN_LIST
    lengths = _SIMPLE
    cur: _Cursor | None = None
    # the table's fields as locals (the loop runs once per instruction)
    opcode_mask, length_at, length_mask, more_at = OPCODE_MASK, LENGTH_AT, LENGTH_MASK, EXTENDED_BIT
    pos = 2
    while pos < length:
        # fast validation: instruction and operand lengths from the tokens alone
        token = words[pos]
        operands = scan[token & opcode_mask]
        end = pos + ((token >> length_at) & length_mask)
        if operands is not None and pos < end <= length:
            p = pos + 1
            if token >> more_at:
                ext = 1 << more_at
                while ext >> more_at and p < end:
                    ext = words[p]
                    p += 1
                if ext >> more_at:
                    p = end + 1
            try:
                for _ in operands:
                    n = lengths.get(words[p])
                    if not n:
                        if n is None:
                            n = simple_length(words[p])
                        if not n:
                            n = ext1_length(words[p])
                            if not n or words[p + 1] >> more_at:
                                # relative indices, chained extended tokens: operands already
                                # checked are kept in a trie of their words
                                node = _CHECKED.get(words[p])
                                q = p + 1
                                while node.__class__ is dict:
                                    node = node.get(words[q])
                                    q += 1
                                if node is None:
                                    q = _checked_end(words, p, end, 0)
                                    if q < 0:
                                        break
                                    _remember(words[p:q])
                                n = q - p
                    p += n
                else:
                    if p <= end:  # every operand ended inside the instruction
                        starts.append(pos)
                        pos = end
                        continue
            except IndexError:  # an operand read past the word list (the decoder reports it)
                pass
        if token & opcode_mask == OP_CUSTOMDATA and pos + 2 <= length:
            size = words[pos + 1]  # block length in words, header included
            if 2 <= size and pos + size <= length:
                starts.append(pos)
                pos += size
                continue
        # anything else (and every error) goes through the full decoder
        if cur is None:
            cur = _Cursor(words, base)
        cur.pos = pos
        decode_instruction(cur, length)
        starts.append(pos)
        pos = cur.pos
    prog._instructions = None
    prog._words = words
    prog._starts = starts
    return prog


def instructions_at(words: Sequence[int], starts: Sequence[int]) -> list[Instruction]:
    """Typed instructions starting at ``starts`` of an already validated program."""
    cur = _Cursor(words, 0)
    length = words[1]
    out = []
    for start in starts:
        cur.pos = start
        out.append(decode_instruction(cur, length))
    return out


def decode_bytes(data: bytes | memoryview, base: int = 0) -> Program:
    """Decode a little-endian token stream; ShaderFormatError (offsets from ``base``) on bad tokens."""
    return decode(words_from_bytes(data, base), base)


def decode_operands(words: Sequence[int], count: int, base: int = 0) -> list[Operand]:
    """``count`` operands packed back to back (shader-message customdata blocks)."""
    cur = _Cursor(words, base)
    cur.end = len(words)
    return [_operand(cur, 0) for _ in range(count)]
