"""Evaluate FXLVM code: the preshader of a D3D9 effect shader, as d3dx9 runs it on the CPU.

>>> pre = Preshader.from_program(shader_preshader(model))   # or Preshader(code, literals, input_registers)
>>> out = pre.run({0: [2, 0, 0, 0], 1: [0.5, 1, 1, 1]})      # input register -> its four floats
>>> out.floats[0]                                             # shader constant c0 (float32 x4)

A preshader (:mod:`shaderkit.formats.d3d9.preshader`) reads effect parameters from its input
registers (its own ``CTAB`` places them) and literals, computes with temporaries, and writes shader
constants: float ``c#``, int ``i#`` and bool ``b#`` registers. The rules are d3dx9's, the runtime
that evaluates preshaders (facts from Wine's ``dlls/d3dx9_36/preshader.c``, which is written against
native d3dx9's test results):

* Register files: literals are the ``CLIT`` doubles; inputs, temporaries and float outputs are
  float32 (a value is rounded to float32 when stored); an int output stores the value rounded to
  the nearest integer, halves to even (``lrint``; NaN, infinities and values outside int32 give
  -2**31, what x86 gives); a bool output stores ``value != 0`` (NaN is true).
* An operand names a component offset (register * 4 + component); an instruction of ``n``
  components reads offsets ``o .. o + n - 1`` of each input (past ``w`` into the next register) and
  writes the same of its output, one component after another (a later component reads what an
  earlier one wrote). The scalar flag broadcasts the first input's one component.
* Arithmetic is in doubles: ``mov``, ``neg``, ``add``, ``mul``; ``rcp`` 1/x (+-0 gives +-inf);
  ``rsq`` 1/sqrt(|x|) (0 gives +inf); ``frc`` x - floor(x); ``exp`` 2**x; ``log`` log2(|x|) with
  log(0) = 0 (not -inf); ``sin``, ``cos``, ``asin``, ``acos``, ``atan``, ``atan2`` as C (asin/acos
  outside [-1, 1] give a NaN with the sign bit set); ``min``/``max`` as C's fmin/fmax (a NaN
  operand gives the other); ``lt``/``ge`` 1.0 or 0.0; ``cmp`` a >= 0 ? b : c; ``div`` always
  0.0 (native d3dx9's result: fxc writes rcp + mul instead); ``dot`` the sum of the products of
  all components, written to the output's first component only; ``d3ds_dotswiz`` with 6 or 8
  one-component inputs a0*a3 + a1*a4 + a2*a5 (+ a3*a7 for 8: the first half times the second);
  ``nop`` does nothing.
* A relative operand ``array[index]`` reads the index register's value rounded as ``lrint`` and
  adds that many registers to the array's offset (32-bit unsigned arithmetic: a negative index
  wraps); a register past the end of its file wraps: modulo the input file's size rounded up to a
  power of two (what native does), modulo the size for the other files; a register still past the
  end reads 0.
* The program is checked before it runs, as d3dx9 checks it when it creates the effect (it then
  refuses the effect): every opcode must be one d3dx9 runs with its input count, 1..4 components,
  an input must lie inside its file (a temporary or output written by an earlier instruction, a
  literal of ``CLIT``, an input register of the ``CTAB``) and an output must not be relative.
  The other FXLVM opcodes (the integer and conversion operations of D3D10 expressions) raise
  :class:`FxlvmError`, as do register files d3dx9 has no use for here (an instruction writing the
  literal or input file, reading the int or bool outputs).

Each opcode's rule is declared once, in ``_OPS``, keyed by the mnemonic of the FXLVM table
(:mod:`shaderkit.isa.fxlvm.table`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderkitError
from shaderkit.isa.fxlvm.code import FxlcCode, FxlcInstruction, FxlcOperand
from shaderkit.isa.fxlvm.table import (
    OPCODE_BY_NAME,
    OPCODES,
    REG_INPUT,
    REG_LITERAL,
    REG_OUTPUT,
    REG_OUTPUT_BOOL,
    REG_OUTPUT_INT,
    REG_TEMP,
)

__all__ = ["MAX_REGISTERS", "FxlvmError", "Preshader", "PreshaderOutputs", "input_registers"]

#: what x86 ``lrint`` gives for NaN, infinities and values outside int32
_INT_INDEFINITE = -(1 << 31)
_MASK32 = 0xFFFFFFFF
#: registers an instruction may write in a file (a CTAB's register numbers are 16-bit; D3D9 shaders
#: have at most 256 float constants): more is damaged code, refused before any file is allocated
MAX_REGISTERS = 1 << 16
#: a NaN with the sign bit set (d3dx9's asin/acos outside [-1, 1])
_SIGNED_NAN = math.copysign(math.nan, -1.0)


class FxlvmError(ShaderkitError, ValueError):
    """FXLVM code the evaluator does not run (an opcode or register file d3dx9 does not run, an
    operand outside its register file) or inputs it cannot take."""


def _rcp(x: float) -> float:
    return 1.0 / x if x else math.copysign(math.inf, x)


def _frc(x: float) -> float:
    return x - math.floor(x) if math.isfinite(x) else math.nan


def _exp(x: float) -> float:
    try:
        return math.pow(2.0, x)
    except OverflowError:
        return math.inf


def _log(x: float) -> float:
    a = abs(x)
    return 0.0 if a == 0 else math.log2(a)


def _rsq(x: float) -> float:
    a = abs(x)
    return math.inf if a == 0 else 1.0 / math.sqrt(a)


def _periodic(function: Callable[[float], float]) -> Callable[[float], float]:
    return lambda x: function(x) if math.isfinite(x) else math.nan


def _arc(function: Callable[[float], float]) -> Callable[[float], float]:
    return lambda x: function(x) if -1.0 <= x <= 1.0 else _SIGNED_NAN


def _fmin(a: float, b: float) -> float:
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return a if a < b else b


def _fmax(a: float, b: float) -> float:
    return -_fmin(-a, -b)


def _dot(*values: float) -> float:
    """The sum of the products of the first half of ``values`` with the second half."""
    n = len(values) // 2
    total = 0.0
    for i in range(n):
        total += values[i] * values[i + n]
    return total


@dataclass(frozen=True)
class _Op:
    """An opcode's rule: ``function`` of the arguments of one component (``whole``: of every
    component of every input, input after input, and the result goes to the first output
    component only); ``inputs`` the input counts d3dx9 takes when the FXLVM table gives none;
    ``writes`` False for ``nop``."""

    function: Callable[..., float]
    inputs: tuple[int, ...] = ()
    whole: bool = False
    writes: bool = True


#: mnemonic (the FXLVM table's) -> rule: the opcodes d3dx9 runs in a preshader
_OPS: dict[str, _Op] = {
    "nop": _Op(lambda: 0.0, writes=False),
    "mov": _Op(lambda a: a),
    "neg": _Op(lambda a: -a),
    "rcp": _Op(_rcp),
    "frc": _Op(_frc),
    "exp": _Op(_exp),
    "log": _Op(_log),
    "rsq": _Op(_rsq),
    "sin": _Op(_periodic(math.sin)),
    "cos": _Op(_periodic(math.cos)),
    "asin": _Op(_arc(math.asin)),
    "acos": _Op(_arc(math.acos)),
    "atan": _Op(math.atan),
    "min": _Op(_fmin),
    "max": _Op(_fmax),
    "lt": _Op(lambda a, b: 1.0 if a < b else 0.0),
    "ge": _Op(lambda a, b: 1.0 if a >= b else 0.0),
    "add": _Op(lambda a, b: a + b),
    "mul": _Op(lambda a, b: a * b),
    "atan2": _Op(math.atan2),
    "div": _Op(lambda a, b: 0.0),
    "cmp": _Op(lambda a, b, c: b if a >= 0.0 else c),
    "dot": _Op(_dot, whole=True),
    "d3ds_dotswiz": _Op(_dot, (6, 8)),
}
assert set(_OPS) <= set(OPCODE_BY_NAME), set(_OPS) - set(OPCODE_BY_NAME)
assert all((op.inputs == ()) == (OPCODES[OPCODE_BY_NAME[name]].inputs is not None) for name, op in _OPS.items())
#: register files an instruction may read / write
_READ = {REG_LITERAL: "literal", REG_INPUT: "input", REG_TEMP: "temporary", REG_OUTPUT: "float output"}
_WRITE = {REG_TEMP: "temporary", REG_OUTPUT: "float output", REG_OUTPUT_INT: "int output",
          REG_OUTPUT_BOOL: "bool output"}
_FILE_NAMES = {**_READ, **_WRITE}


def _lrint(x: float) -> int:
    if not math.isfinite(x):
        return _INT_INDEFINITE
    value = round(x)  # (Python rounds halves to even, as lrint in the default rounding mode)
    return value if -(1 << 31) <= value < (1 << 31) else _INT_INDEFINITE


def _f32(x: float) -> float:
    with np.errstate(over="ignore"):
        return float(np.float32(x))


@dataclass
class PreshaderOutputs:
    """The shader constants a run wrote: float ``c#`` rows (float32 x4), int ``i#`` rows (int x4),
    bool ``b#``; a register is listed when the program wrote any of its components (the others
    are 0, as d3dx9 uploads the whole register)."""

    floats: dict[int, np.ndarray] = field(default_factory=dict)
    ints: dict[int, np.ndarray] = field(default_factory=dict)
    bools: dict[int, bool] = field(default_factory=dict)


def _offset_register(table: int, offset: int) -> int:
    """The register of a component offset (bool outputs: one component a register)."""
    return offset if table == REG_OUTPUT_BOOL else offset >> 2


class Preshader:
    """An FXLVM program checked and ready to run: ``code`` (``FXLC``), ``literals`` (``CLIT``
    doubles) and the size of its input file in registers (the ``CTAB``'s float registers).
    FxlvmError when d3dx9 would refuse the program (module text)."""

    def __init__(self, code: FxlcCode, literals: Sequence[float], input_registers: int) -> None:
        self.code = code
        self.literals = [float(v) for v in literals]
        if len(self.literals) % 4:
            raise FxlvmError(f"{len(self.literals)} literals: d3dx9 takes whole registers (a multiple of 4)")
        self.input_registers = input_registers
        self._steps = self._check()

    @classmethod
    def from_program(cls, program: Any) -> Preshader:
        """From a :class:`~shaderkit.formats.d3d9.preshader.FxlvmProgram`: its input file holds the
        float registers its ``CTAB`` places (none without a table)."""
        return cls(program.code, program.literals, input_registers(program.table))

    # -- checking -------------------------------------------------------------------------------

    def _check(self) -> list[tuple[FxlcInstruction, _Op, int]]:
        sizes = {REG_LITERAL: len(self.literals) // 4, REG_INPUT: self.input_registers, REG_TEMP: 0,
                 REG_OUTPUT: 0, REG_OUTPUT_INT: 0, REG_OUTPUT_BOOL: 0}
        steps = []
        for k, ins in enumerate(self.code.instructions):
            where = f"preshader instruction {k} ({ins.name})"
            op = _OPS.get(ins.name)
            if op is None:
                known = "not an FXLVM opcode" if ins.opcode not in OPCODES else "an opcode d3dx9 does not run"
                raise FxlvmError(f"{where}: {known}")
            counts = op.inputs or (OPCODES[ins.opcode].inputs,)
            if len(ins.inputs) not in counts:
                raise FxlvmError(f"{where}: {len(ins.inputs)} inputs; it takes {' or '.join(map(str, counts))}")
            if not 1 <= ins.components <= 4:
                raise FxlvmError(f"{where}: {ins.components} components (1 to 4)")
            if op.whole and len(ins.inputs) * ins.components > 8:
                raise FxlvmError(f"{where}: {len(ins.inputs) * ins.components} arguments (d3dx9 takes 8)")
            for j, operand in enumerate(ins.inputs):
                last = ins.input_components(j) - 1
                self._check_read(where, f"input {j}", operand, last, sizes)
            out = ins.output
            if not op.writes:
                continue
            if out.array is not None:
                raise FxlvmError(f"{where}: a relative output (d3dx9 refuses it)")
            if out.table not in _WRITE:
                raise FxlvmError(f"{where}: writes the {_FILE_NAMES.get(out.table, f'unknown ({out.table})')} "
                                 "register file")
            offset = out.offset // 4 if out.table == REG_OUTPUT_BOOL else out.offset
            top = _offset_register(out.table, offset + ins.components - 1)  # (dot too: d3dx9's size)
            if top >= MAX_REGISTERS:
                raise FxlvmError(f"{where}: writes {_WRITE[out.table]} register {top} (at most {MAX_REGISTERS})")
            sizes[out.table] = max(sizes[out.table], top + 1)
            steps.append((ins, op, offset))
        self._sizes = sizes
        return steps

    @staticmethod
    def _check_read(where: str, what: str, operand: FxlcOperand, last: int, sizes: dict[int, int]) -> None:
        tables = [operand.table] if operand.array is None else [operand.table, operand.array[0]]
        for table in tables:
            if table not in _READ:
                name = _FILE_NAMES.get(table, f"unknown ({table})")
                raise FxlvmError(f"{where}: {what} reads the {name} register file")
        register = (operand.offset + (last if operand.array is None else 0)) >> 2
        if register >= sizes[operand.table]:
            kind = "index" if operand.array is not None else "register"
            raise FxlvmError(f"{where}: {what} reads {_READ[operand.table]} {kind} {register}, past the "
                             f"{sizes[operand.table]} register(s) {_written(operand.table)}")

    # -- running --------------------------------------------------------------------------------

    def run(self, inputs: Mapping[int, Any] | np.ndarray | None = None) -> PreshaderOutputs:
        """Run with the input registers ``inputs`` (register -> up to four floats, or an (n, 4)
        array from register 0; registers not given read 0) and return the constants written."""
        files: dict[int, list[Any]] = {
            REG_LITERAL: self.literals,
            REG_INPUT: [0.0] * (4 * self.input_registers),
            REG_TEMP: [0.0] * (4 * self._sizes[REG_TEMP]),
            REG_OUTPUT: [0.0] * (4 * self._sizes[REG_OUTPUT]),
            REG_OUTPUT_INT: [0] * (4 * self._sizes[REG_OUTPUT_INT]),
            REG_OUTPUT_BOOL: [False] * self._sizes[REG_OUTPUT_BOOL],
        }
        self._load_inputs(files[REG_INPUT], inputs)
        written: dict[int, set[int]] = {REG_OUTPUT: set(), REG_OUTPUT_INT: set(), REG_OUTPUT_BOOL: set()}
        read = self._read
        for ins, op, offset in self._steps:
            table = ins.output.table
            widths = [ins.input_components(k) for k in range(len(ins.inputs))]  # (1: broadcast)
            if op.whole:
                args = [read(files, operand, min(j, width - 1))
                        for operand, width in zip(ins.inputs, widths) for j in range(ins.components)]
                self._write(files, table, offset, op.function(*args), written)
                continue
            for j in range(ins.components):
                args = [read(files, operand, min(j, width - 1)) for operand, width in zip(ins.inputs, widths)]
                self._write(files, table, offset + j, op.function(*args), written)
        out = PreshaderOutputs()
        for register in sorted(written[REG_OUTPUT]):
            out.floats[register] = np.array(files[REG_OUTPUT][4 * register : 4 * register + 4], np.float32)
        for register in sorted(written[REG_OUTPUT_INT]):
            out.ints[register] = np.array(files[REG_OUTPUT_INT][4 * register : 4 * register + 4], np.int64)
        for register in sorted(written[REG_OUTPUT_BOOL]):
            out.bools[register] = bool(files[REG_OUTPUT_BOOL][register])
        return out

    def _load_inputs(self, file: list[float], inputs: Mapping[int, Any] | np.ndarray | None) -> None:
        if inputs is None:
            return
        items = inputs.items() if isinstance(inputs, Mapping) else enumerate(np.asarray(inputs).reshape(-1, 4))
        for register, row in items:
            values = np.asarray(row, np.float64).reshape(-1)
            if len(values) > 4:
                raise FxlvmError(f"preshader input register {register}: {len(values)} values (at most 4)")
            if not 0 <= register < self.input_registers:
                continue  # (not a register of the table: the program cannot read it)
            for c, v in enumerate(values):
                file[4 * register + c] = _f32(float(v))

    def _read(self, files: dict[int, list[Any]], operand: FxlcOperand, component: int) -> float:
        if operand.array is None:
            return float(files[operand.table][operand.offset + component])
        table, base = operand.array
        index = _lrint(float(files[operand.table][operand.offset]))
        offset = ((index << 2) + base + component) & _MASK32
        register = offset >> 2
        size = self._sizes[table]
        if register >= size:
            wrap = 1 << (size - 1).bit_length() if table == REG_INPUT and size else size  # (a power of two)
            if not wrap:
                return 0.0
            register %= wrap
            if register >= size:
                return 0.0
            offset = 4 * register + offset % 4
        return float(files[table][offset])

    @staticmethod
    def _write(files: dict[int, list[Any]], table: int, offset: int, value: float,
               written: dict[int, set[int]]) -> None:
        if table == REG_OUTPUT_INT:
            files[table][offset] = _lrint(value)
        elif table == REG_OUTPUT_BOOL:
            files[table][offset] = value != 0.0
        else:
            files[table][offset] = _f32(value)
        if table in written:
            written[table].add(_offset_register(table, offset))


def _written(table: int) -> str:
    return {REG_LITERAL: "of CLIT", REG_INPUT: "the CTAB places"}.get(table, "earlier instructions write")


def input_registers(table: Any) -> int:
    """The size in registers of a preshader's input file: the float registers its ``CTAB``
    places (d3dx9 sizes it so; 0 without a table)."""
    if table is None:
        return 0
    from shaderkit.formats.d3dx.ctab import REGISTER_SETS

    top = 0
    for c in table.constants:
        if REGISTER_SETS.get(c.register_set) == "c" and c.register_count:
            top = max(top, c.register_index + c.register_count)
    return top
