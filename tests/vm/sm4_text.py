"""Test helper: fxc-style instruction lines -> decoded SM4 instructions, run on the VM.

Only what the hand-checked tests need: registers r/v/o/x/cb/icb/t/s/u/g/l(...), thread-id
registers, masks, swizzles, select-1, ``-``/``|..|`` modifiers, ``[reg.c + n]`` relative indices,
``_sat``/``_nz``/``_z``/``_uint``/``_rcpFloat`` suffixes and ``_aoffimmi(u,v,w)``. Declarations are
given as a :class:`Declarations` object instead of ``dcl_*`` lines. Expected values in the tests
are worked out by hand, never by this helper.
"""

from __future__ import annotations

import re
import struct
from types import SimpleNamespace
from typing import Any

import numpy as np

from shaderkit.isa.sm4.model import Index, Instruction, Operand
from shaderkit.isa.sm4.opcodes import OPCODES, OperandType
from shaderkit.vm.sm4.alu import ALU
from shaderkit.vm.sm4.machine import Declarations, Machine, build_tree

OT = OperandType
BY_NAME = {info.name: code for code, info in OPCODES.items()}
SPECIAL = {
    "vThreadIDInGroupFlattened": OT.INPUT_THREAD_ID_IN_GROUP_FLATTENED, "vThreadIDInGroup": OT.INPUT_THREAD_ID_IN_GROUP,
    "vThreadGroupID": OT.INPUT_THREAD_GROUP_ID, "vThreadID": OT.INPUT_THREAD_ID, "oDepth": OT.OUTPUT_DEPTH,
    "vPrim": OT.INPUT_PRIMITIVEID, "vGSInstanceID": OT.INPUT_GS_INSTANCE_ID, "null": OT.NULL,
}
PREFIX = {"r": OT.TEMP, "v": OT.INPUT, "o": OT.OUTPUT, "x": OT.INDEXABLE_TEMP, "cb": OT.CONSTANT_BUFFER,
          "icb": OT.IMMEDIATE_CONSTANT_BUFFER, "t": OT.RESOURCE, "s": OT.SAMPLER, "u": OT.UNORDERED_ACCESS_VIEW,
          "g": OT.THREAD_GROUP_SHARED_MEMORY, "l": OT.LABEL, "m": OT.STREAM}
NO_DEST = {"if", "else", "endif", "loop", "endloop", "break", "breakc", "continue", "continuec", "ret", "retc",
           "discard", "call", "callc", "switch", "case", "default", "endswitch", "label", "sync", "nop",
           "emit_stream", "cut_stream", "emitThenCut_stream"}


def _number(text: str) -> int:
    text = text.strip()
    if text.lower().startswith(("0x", "-0x")):
        return int(text, 16) & 0xFFFFFFFF
    if re.fullmatch(r"-?\d+", text):
        return int(text) & 0xFFFFFFFF
    return struct.unpack("<I", struct.pack("<f", float(text)))[0]


def _components(text: str) -> list[int]:
    return ["xyzw".index(c) for c in text]


def operand(text: str, dest: bool) -> Operand:
    text = text.strip()
    modifier = 0
    if text.startswith("-"):
        modifier |= 1
        text = text[1:]
    if text.startswith("|") and text.endswith("|"):
        modifier |= 2
        text = text[1:-1]
    elif text.startswith("|"):  # |r0|.xyzw is not fxc's spelling; |r0.xyzw| is
        raise ValueError(text)
    extended = [1 | modifier << 6] if modifier else []
    if text.startswith("l("):
        values = [_number(v) for v in text[2:-1].split(",")]
        return Operand(OT.IMMEDIATE32, 1 if len(values) == 1 else 2, 0, 0, [], extended, values)
    body, _, suffix = text.partition("]")
    if "[" in text:
        body = text[: text.rindex("]") + 1]
        suffix = text[text.rindex("]") + 1 :].lstrip(".")
    else:
        body, _, suffix = text.partition(".")
    for name, kind in SPECIAL.items():
        if body == name:
            op = Operand(kind, 2 if kind != OT.NULL else 0, 0, 0xF, [], extended)
            return _suffix(op, suffix, dest)
    m = re.fullmatch(r"(icb|cb|[rvoxtsuglm])(\d*)(.*)", body)
    if m is None:
        raise ValueError(text)
    kind = PREFIX[m.group(1)]
    indices: list[Index] = []
    if m.group(2):
        indices.append(Index(0, int(m.group(2))))
    for part in re.findall(r"\[([^\]]+)\]", m.group(3)):
        if "+" in part:
            reg, _, add = part.partition("+")
            indices.append(Index(3, int(add), operand(reg, False)))
        elif re.fullmatch(r"\d+", part.strip()):
            indices.append(Index(0, int(part)))
        else:
            indices.append(Index(2, 0, operand(part, False)))
    op = Operand(kind, 0 if kind in (OT.SAMPLER, OT.LABEL, OT.STREAM) else 2, 0, 0, indices, extended)
    return _suffix(op, suffix, dest)


def _suffix(op: Operand, suffix: str, dest: bool) -> Operand:
    if op.num_components == 0:
        return op
    if dest:
        mask = 0xF if not suffix else sum(1 << c for c in _components(suffix))
        op.selection_mode, op.component_bits = 0, mask
    elif len(suffix) == 1:
        op.selection_mode, op.component_bits = 2, _components(suffix)[0]
    else:
        swz = _components(suffix or "xyzw")
        swz = (swz + [swz[-1]] * 4)[:4]
        op.selection_mode, op.component_bits = 1, swz[0] | swz[1] << 2 | swz[2] << 4 | swz[3] << 6
    return op


def _split_operands(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current)
    return parts


def instruction(line: str) -> Instruction:
    mnemonic, _, rest = line.strip().partition(" ")
    controls, extended = 0, []
    m = re.search(r"_aoffimmi\((-?\d+),(-?\d+),(-?\d+)\)", mnemonic)
    if m:
        u, v, w = (int(g) & 0xF for g in m.groups())
        extended.append(1 | u << 9 | v << 13 | w << 17)
        mnemonic = mnemonic[: m.start()] + mnemonic[m.end() :]
    name = mnemonic
    if name.startswith("sync"):
        name = "sync"
    while name not in BY_NAME:
        for suffix, bits in (("_sat", 4), ("_nz", 128), ("_z", 0), ("_uint", -1), ("_rcpFloat", 1)):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
                if bits == -1:
                    bits = 1 if name == "sampleinfo" else 2
                controls |= bits
                break
        else:
            raise ValueError(f"unknown mnemonic {mnemonic}")
    if name == "sync":
        controls = 3
    parts = _split_operands(rest)
    if name in NO_DEST:
        dests = 0
    elif name.startswith("imm_atomic"):
        dests = 2
    elif name in ALU:
        dests = ALU[name].dests
    else:
        dests = 1
    ops = [operand(p, i < dests) for i, p in enumerate(parts)]
    return Instruction(BY_NAME[name], controls, extended, ops)


def program(text: str) -> list[Instruction]:
    return [instruction(line) for line in text.strip().splitlines() if line.strip() and not line.strip().startswith("//")]


def machine(text: str, lanes: int, stage: str = "vertex", decl: Declarations | None = None, max_steps: int = 10_000,
            **attrs: Any) -> Machine:
    """Run ``text`` over ``lanes`` lanes; inputs ``v`` (registers, lanes, 4) float/int arrays via attrs."""
    d = decl or Declarations(temps=8, inputs=4, outputs=4)
    shader = SimpleNamespace(decl=d, stage=stage)
    m = Machine(shader, lanes, max_steps)
    for key, value in attrs.items():
        if key == "v":
            array = np.asarray(value)
            m.v[: array.shape[0]] = np.ascontiguousarray(array.astype(np.float32) if array.dtype == np.float64
                                                         else array.astype(np.int32) if array.dtype == np.int64
                                                         else array).view(np.uint32)
        else:
            setattr(m, key, value)
    main, functions = build_tree(program(text))
    m.run(main, functions)
    return m


def f32(bits: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(bits).view(np.float32)


def u32(values: Any) -> np.ndarray:
    return np.asarray(values).astype(np.uint32)
