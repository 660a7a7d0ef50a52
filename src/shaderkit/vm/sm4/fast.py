"""The VM's fast path: ALU instructions compiled once into closures over component rows.

Registers are stored component-major, ``(registers, 4, lanes)``, so one component of one register
is a contiguous row. An ALU instruction whose operands are plain registers (``r#``, ``v#``, ``o#``
without relative indices), constant-buffer rows with a fixed index or immediates is compiled, once,
into a closure: operands, swizzles, masks and modifiers are resolved from the SM4 table's rows at
compile time, so a run only computes. Constant-buffer and immediate values are ``(1,)`` arrays that
broadcast over the lanes. The semantics are those of :meth:`Machine._alu` (the general path, used
for everything else): the same ALU functions applied per component, the same denormal flush of
float sources and results, the same ``_sat`` clamp.

The flush of a float source is skipped when its register component is known to hold no denormal:
:attr:`Machine.dirty` lists the temp/output components written by anything other than a flushing
float op (``mov`` of a clean value keeps it clean); inputs are flushed once per run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from shaderkit.isa.sm4.model import Instruction, Operand
from shaderkit.isa.sm4.opcodes import OPCODES, OperandType
from shaderkit.vm.sm4.alu import ALU, DOUBLE, FLOAT, INT, UINT, AluOp, _scratch, to_bits

if TYPE_CHECKING:
    from shaderkit.vm.sm4.machine import Machine

OT = OperandType
_EXPONENT, _SIGN, _MAGNITUDE = np.uint32(0x7F800000), np.uint32(0x80000000), np.uint32(0x7FFFFFFF)
_DTYPES = {FLOAT: np.float32, INT: np.int32}
#: register files the fast path reads and writes: operand type -> (Machine attribute, dirty-set file)
_FILES: dict[int, tuple[str, int]] = {OT.TEMP: ("rc", 0), OT.OUTPUT: ("oc", 1), OT.INPUT: ("vc", -1)}
#: moves: the result holds exactly the source bits, so a clean source gives a clean result
_MOVES = frozenset(("mov", "movc", "swapc"))
#: single NumPy ufuncs, which broadcast a (1,) constant against a row themselves; the other ALU
#: functions get constants spread over the lanes when rows and constants meet (mad writes in place)
_BROADCASTING = frozenset(("add", "mul", "div", "min", "max", "eq", "ne", "lt", "ge", "iadd", "imax", "imin",
                           "ieq", "ine", "ilt", "ige", "umax", "umin", "ult", "uge", "and", "or", "xor", "mov", "movc"))

Row = np.ndarray
Getter = Callable[["Machine", int], Row]
Run = Callable[["Machine", np.ndarray, bool], None]


class Fast:
    """A compiled instruction in the block tree (``run(machine, active, everyone)``)."""

    __slots__ = ("ins", "run")

    def __init__(self, ins: Instruction, run: Run) -> None:
        self.ins = ins
        self.run = run


def flush_row(x: Row, owned: bool) -> Row:
    """``x`` (float32) with denormals replaced by zero of the same sign; ``x`` itself when it holds
    none (one AND and one min over the row), changed in place when ``owned``."""
    bits = x.view(np.uint32)
    exponent = np.bitwise_and(bits, _EXPONENT, out=_scratch(bits.shape, np.uint32))
    if exponent.min() != 0:  # no zero and no denormal
        return x
    small = np.equal(exponent, 0, out=_scratch(bits.shape, np.bool_))
    if not owned:
        bits = bits.copy()
    np.bitwise_and(bits, _SIGN, out=bits, where=small)
    return bits.view(np.float32)


def _is_flushed(bits: Row) -> bool:
    """No denormal among these (few) values."""
    exponent = bits & _EXPONENT
    return not bool(((exponent == 0) & ((bits & _MAGNITUDE) != 0)).any())


def _modify(value: Row, mod: int, kind: str) -> Row:
    """Operand modifiers (1 neg, 2 abs) as :meth:`Machine.read` applies them: integer negate/abs for
    int and uint reads, the sign bit otherwise; the result keeps ``value``'s type."""
    bits = value.view(np.uint32)
    if kind in (INT, UINT):
        s = bits.view(np.int32)
        if mod & 2:
            s = np.abs(s)
        if mod & 1:
            s = -s
        return s.view(value.dtype)
    bits = bits.copy()
    if mod & 2:
        bits &= _MAGNITUDE
    if mod & 1:
        bits ^= _SIGN
    return bits.view(value.dtype)


def _components(op: Operand) -> tuple[int, int, int, int] | None:
    """The source component read for each destination component (after swizzle / select)."""
    if op.type == OT.IMMEDIATE32 and op.num_components == 1:
        return (0, 0, 0, 0)
    if op.num_components != 2:
        return None
    mode = op.selection_mode
    if mode == 1:
        return op.swizzle
    if mode == 2:
        c = op.component_bits & 3
        return (c, c, c, c)
    return (0, 1, 2, 3)


def _plain(op: Operand, count: int) -> bool:
    return len(op.indices) == count and all(i.rel is None for i in op.indices)


Clean = Callable[["Machine", int], bool]


def _read_as(op: Operand, kind: str) -> tuple[int, type, str]:
    """(source modifier, NumPy type, register-file attribute suffix) of a source read as ``kind``."""
    dtype = _DTYPES.get(kind, np.uint32)
    return op.modifier if op.extended else 0, dtype, {np.float32: "_f", np.int32: "_i"}.get(dtype, "")


def _source(op: Operand, kind: str, flush: bool) -> tuple[Getter, Clean] | None:
    """A getter of one source component as a row (or a (1,) array) of the op's value type, after
    modifiers and flush, and a test whether that component is free of denormals (for moves)."""
    comps = _components(op)
    if comps is None:
        return None
    mod, dtype, suffix = _read_as(op, kind)
    t = op.type
    if t in _FILES and _plain(op, 1):
        attr, file = _FILES[t]
        attr += suffix
        reg = op.indices[0].value
        if file < 0:  # inputs: constant for the run, flushed once

            def get_input(m: Machine, c: int) -> Row:
                key = (reg, comps[c], mod)
                found = m.row_cache.get(key) if flush else None
                if found is None:
                    regs = getattr(m, attr)
                    found = regs[reg, comps[c]] if reg < len(regs) else np.zeros(1, dtype)
                    if mod:
                        found = _modify(found, mod, kind)
                    if flush:
                        found = m.row_cache[key] = flush_row(found, owned=mod != 0)
                return found

            return get_input, _never

        def get(m: Machine, c: int) -> Row:
            regs = getattr(m, attr)
            comp = comps[c]
            value = regs[reg, comp] if reg < len(regs) else np.zeros(1, dtype)
            if mod:
                value = _modify(value, mod, kind)
            if flush and (file, reg, comp) in m.dirty:
                value = flush_row(value, owned=mod != 0)
            return value

        def clean(m: Machine, c: int) -> bool:
            return (file, reg, comps[c]) not in m.dirty

        return get, clean
    if t == OT.CONSTANT_BUFFER and _plain(op, 2):
        slot, row = op.indices[0].value, op.indices[1].value

        def bits_of(m: Machine, c: int) -> Row:
            table = m.cb.get(slot)
            if table is None or not 0 <= row < len(table):
                return np.zeros(1, np.uint32)
            return table[row, comps[c] : comps[c] + 1]

    elif t == OT.IMMEDIATE32 and op.values and len(op.values) in (1, 4):
        words = np.array(op.values * (4 if len(op.values) == 1 else 1), np.uint32)

        def bits_of(m: Machine, c: int) -> Row:
            return words[comps[c] : comps[c] + 1]

    else:
        return None
    place = (id(op), mod, kind, flush)

    def get_uniform(m: Machine, c: int) -> Row:
        key = (place, c)
        found = m.uniform_cache.get(key)
        if found is None:
            found = bits_of(m, c).copy().view(dtype)
            if mod:
                found = _modify(found, mod, kind)
            if flush:
                found = flush_row(found, owned=True)
            m.uniform_cache[key] = found
        return found

    def clean_uniform(m: Machine, c: int) -> bool:
        return _is_flushed(bits_of(m, c))

    return get_uniform, clean_uniform


def _never(m: Machine, c: int) -> bool:
    return False


def _destination(op: Operand) -> tuple[str, int, int, tuple[int, ...]] | None:
    """(Machine attribute, dirty-set file, register, written components) of a plain r#/o#; a null
    destination writes nothing."""
    if op.type == OT.NULL:
        return ("", 0, 0, ())
    if op.type not in (OT.TEMP, OT.OUTPUT) or not _plain(op, 1) or op.num_components != 2 or op.selection_mode != 0:
        return None
    attr, file = _FILES[op.type]
    return attr, file, op.indices[0].value, tuple(c for c in range(4) if op.mask >> c & 1)


def _saturate(bits: Row) -> Row:
    f = bits.view(np.float32)
    f = np.where(np.isnan(f), np.float32(0), np.clip(f, 0, 1)).astype(np.float32)
    return f.view(np.uint32)


def compile_instruction(ins: Instruction) -> Fast | None:
    """The instruction as a closure, or None when it needs the general path."""
    info = OPCODES.get(ins.opcode)
    alu = ALU.get(info.name) if info is not None else None
    if alu is None or alu.kind == DOUBLE or (alu.result or alu.kind) == DOUBLE:
        return None
    name = info.name if info is not None else ""
    if len(ins.operands) != alu.dests + alu.sources:
        return None
    dests = [_destination(o) for o in ins.operands[: alu.dests]]
    flush = alu.kind == FLOAT and alu.flush
    sources = [_source(o, alu.kind, flush) for o in ins.operands[alu.dests :]]
    if any(d is None for d in dests) or any(s is None for s in sources):
        return None
    plain_dests = [d for d in dests if d is not None]
    getters = [s[0] for s in sources if s is not None]
    cleans = [s[1] for s in sources if s is not None]
    kind = alu.result or alu.kind
    flush_result = kind == FLOAT and alu.flush
    saturate = ins.saturate
    written = sorted({c for d in plain_dests for c in d[3]})
    if not written:
        return Fast(ins, _nothing)
    is_move = name in _MOVES
    # a move's result is its source row: copied first when the instruction also writes that register
    targets = {(o.type, o.indices[0].value) for o in ins.operands[: alu.dests] if o.type != OT.NULL}
    aliased = is_move and any((o.type, o.indices[0].value) in targets for o in ins.operands[alu.dests :] if o.indices)
    if alu.scalar:
        width = int(name[2])  # dp2 / dp3 / dp4
        dest = ins.operands[0]
        direct = len(written) == 1 and not any(o.type == dest.type and o.indices and o.indices[0].value == dest.indices[0].value
                                               for o in ins.operands[1:])
        return Fast(ins, _dot(getters, width, plain_dests[0], flush_result, saturate, direct))
    constant = [o.type in (OT.CONSTANT_BUFFER, OT.IMMEDIATE32) for o in ins.operands[alu.dests :]]
    spread = name not in _BROADCASTING and any(constant) and not all(constant)
    if alu.dests == 1 and plain_dests[0][0]:
        blocks = [_block_source(o, alu.kind, flush, written) for o in ins.operands[1:]]
        if all(b is not None for b in blocks):
            return Fast(ins, _vector(alu.fn, [b for b in blocks if b is not None], plain_dests[0], written,
                                     flush_result, saturate, is_move, aliased, spread))
    return Fast(ins, _elementwise(alu, getters, cleans, plain_dests, written, flush_result, saturate, is_move,
                                   aliased, spread))


Block = Callable[["Machine"], Row]


def _rows(comps: list[int]) -> slice | list[int]:
    """Component rows as a slice when they are consecutive (a view, no copy)."""
    if comps == list(range(comps[0], comps[0] + len(comps))):
        return slice(comps[0], comps[0] + len(comps))
    return comps


def _block_source(op: Operand, kind: str, flush: bool, written: list[int]) -> tuple[Block, Callable[[Machine], bool]] | None:
    """A getter of the source components the written components read, as one (k, lanes) block
    ((k, 1) for constants), after modifiers and flush; and whether all of them are clean."""
    comps = _components(op)
    if comps is None:
        return None
    picked = [comps[c] for c in written]
    rows = _rows(picked)
    mod, dtype, suffix = _read_as(op, kind)
    t = op.type
    if t in _FILES and _plain(op, 1):
        attr, file = _FILES[t]
        attr += suffix
        reg = op.indices[0].value
        keys = [(file, reg, c) for c in picked]
        cache_key = (reg, tuple(picked), mod)

        def get(m: Machine) -> Row:
            if file < 0 and flush:
                found = m.row_cache.get(cache_key)
                if found is not None:
                    return found
            regs = getattr(m, attr)
            value = regs[reg, rows] if reg < len(regs) else np.zeros((len(picked), 1), dtype)
            if mod:
                value = _modify(value, mod, kind)
            if flush and (file < 0 or any(key in m.dirty for key in keys)):
                value = flush_row(value, owned=mod != 0 or isinstance(rows, list))
            if file < 0 and flush:
                m.row_cache[cache_key] = value
            return value

        def clean(m: Machine) -> bool:
            return file >= 0 and not any(key in m.dirty for key in keys)

        return get, clean
    if t == OT.CONSTANT_BUFFER and _plain(op, 2):
        slot, row = op.indices[0].value, op.indices[1].value

        def bits_of(m: Machine) -> Row:
            table = m.cb.get(slot)
            if table is None or not 0 <= row < len(table):
                return np.zeros((len(picked), 1), np.uint32)
            return table[row, picked][:, None]

    elif t == OT.IMMEDIATE32 and op.values and len(op.values) in (1, 4):
        words = np.array(op.values * (4 if len(op.values) == 1 else 1), np.uint32)[picked][:, None]

        def bits_of(m: Machine) -> Row:
            return words

    else:
        return None
    place = (id(op), mod, kind, flush, "block")

    def get_uniform(m: Machine) -> Row:
        found = m.uniform_cache.get(place)
        if found is None:
            found = bits_of(m).copy().view(dtype)
            if mod:
                found = _modify(found, mod, kind)
            if flush:
                found = flush_row(found, owned=True)
            m.uniform_cache[place] = found
        return found

    def clean_uniform(m: Machine) -> bool:
        return _is_flushed(bits_of(m))

    return get_uniform, clean_uniform


def _vector(fn: Callable[..., Any], blocks: list[tuple[Block, Callable[[Machine], bool]]],
            dest: tuple[str, int, int, tuple[int, ...]], written: list[int], flush_result: bool, saturate: bool,
            is_move: bool, aliased: bool, spread: bool) -> Run:
    """A one-destination elementwise op over all its written components at once."""
    attr, file, reg, _ = dest
    rows = _rows(written)
    getters = [b[0] for b in blocks]
    cleans = [b[1] for b in blocks]
    keys = [(file, reg, c) for c in written]

    def run(m: Machine, active: np.ndarray, everyone: bool) -> None:
        args = [get(m) for get in getters]
        if spread:
            args = [np.broadcast_to(a, (len(written), m.n)) for a in args]
        bits = _finish(fn(*args), flush_result, saturate)
        if aliased and not saturate:
            bits = bits.copy()  # a register's rows: the store must not read what it overwrites
        regs = getattr(m, attr)
        if reg >= len(regs):
            return
        if isinstance(rows, slice):
            target = regs[reg, rows]
            if everyone:
                np.copyto(target, np.broadcast_to(bits, target.shape))
            else:
                np.copyto(target, np.broadcast_to(bits, target.shape), where=active)
        else:
            for i, c in enumerate(written):
                if everyone:
                    np.copyto(regs[reg, c], bits[i])
                else:
                    np.copyto(regs[reg, c], bits[i], where=active)
        clean = flush_result or (is_move and all(clean_of(m) for clean_of in cleans))
        if not clean:
            m.dirty.update(keys)
        elif everyone:
            m.dirty.difference_update(keys)

    return run


def _nothing(m: Machine, active: np.ndarray, everyone: bool) -> None:
    return


def _store(m: Machine, dest: tuple[str, int, int, tuple[int, ...]], c: int, bits: Row, active: np.ndarray,
           everyone: bool, clean: bool) -> None:
    attr, file, reg, _ = dest
    regs = getattr(m, attr)
    if reg >= len(regs):
        return
    row = regs[reg, c]
    if everyone:
        np.copyto(row, bits)
    else:
        np.copyto(row, bits, where=active)
    key = (file, reg, c)
    if not clean:
        m.dirty.add(key)
    elif everyone:
        m.dirty.discard(key)


def _finish(value: Any, flush_result: bool, saturate: bool) -> Row:
    """An ALU result as uint32 bits: flushed when the op flushes, clamped by ``_sat``."""
    if flush_result:
        value = np.asarray(value, np.float32)
        value = flush_row(value, owned=value.base is None)
    bits = to_bits(np.asarray(value))
    return _saturate(bits) if saturate else bits


def _elementwise(alu: AluOp, getters: list[Getter], cleans: list[Callable[[Machine, int], bool]],
                 dests: list[tuple[str, int, int, tuple[int, ...]]], written: list[int], flush_result: bool,
                 saturate: bool, is_move: bool, aliased: bool, spread: bool) -> Run:
    fn = alu.fn
    several = alu.dests > 1

    def run(m: Machine, active: np.ndarray, everyone: bool) -> None:
        results: list[tuple[int, int, Row, bool]] = []  # (dest number, component, bits, clean)
        for c in written:
            args = [get(m, c) for get in getters]
            if spread:
                args = [np.broadcast_to(a, (m.n,)) for a in args]
            value = fn(*args)
            values = value if several else (value,)
            clean = flush_result or (is_move and all(clean_of(m, c) for clean_of in cleans))
            for k, dest in enumerate(dests):
                if c in dest[3]:
                    bits = _finish(values[k], flush_result, saturate)
                    if aliased and not saturate:
                        bits = bits.copy()  # a register's row: an earlier store must not change it
                    results.append((k, c, bits, clean))
        for k, c, bits, clean in results:
            _store(m, dests[k], c, bits, active, everyone, clean)

    return run


def _dot(getters: list[Getter], width: int, dest: tuple[str, int, int, tuple[int, ...]], flush_result: bool,
         saturate: bool, direct: bool) -> Run:
    """dp2/dp3/dp4: products rounded to float32, summed left to right, one value to every masked
    component (as alu._dp). ``direct``: one component written, no source reads the destination
    register, so the sum is built in the destination row itself when every lane runs."""
    get_a, get_b = getters
    attr, file, reg, comps = dest
    attr += "_f"

    def run(m: Machine, active: np.ndarray, everyone: bool) -> None:
        regs = getattr(m, attr)
        if direct and everyone and reg < len(regs) and not saturate:
            total = regs[reg, comps[0]]
            np.multiply(get_a(m, 0), get_b(m, 0), out=total)
        else:
            total = np.multiply(get_a(m, 0), get_b(m, 0), dtype=np.float32)
            if total.shape[0] < m.n:
                total = np.broadcast_to(total, (m.n,)).copy()
        product = _scratch(total.shape, np.float32)
        for i in range(1, width):
            np.multiply(get_a(m, i), get_b(m, i), out=product)
            np.add(total, product, out=total)
        if total.base is not None:  # the destination row: flushed in place, now clean
            flush_row(total, owned=True)
            m.dirty.discard((file, reg, comps[0]))
            return
        bits = _finish(total, flush_result, saturate)
        for c in comps:
            _store(m, dest, c, bits, active, everyone, True)

    return run


def compile_tree(nodes: list[Any]) -> list[Any]:
    """A block tree with every instruction the fast path handles replaced by its :class:`Fast`."""
    from shaderkit.vm.sm4.machine import If, Loop, Switch

    out: list[Any] = []
    for node in nodes:
        if isinstance(node, Instruction):
            out.append(compile_instruction(node) or node)
        elif isinstance(node, If):
            out.append(If(node.ins, compile_tree(node.then), compile_tree(node.otherwise)))
        elif isinstance(node, Loop):
            out.append(Loop(compile_tree(node.body)))
        elif isinstance(node, Switch):
            out.append(Switch(node.ins, compile_tree(node.body), node.values))
        else:
            out.append(node)
    return out


__all__ = ["Fast", "compile_instruction", "compile_tree", "flush_row"]
