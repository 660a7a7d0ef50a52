"""``shaderkit cfg FILE``: the control-flow graph of a shader as Graphviz DOT (SVG through ``dot``).

Basic blocks are runs of instructions entered only at the top and left only at the bottom; edges
carry the reason (``true``/``false`` of an if, ``loop`` back edges, ``break``, ``call``, ``case``).
DXBC (SM4/5 structured flow), PICA200 (if/loop/jump/call words), Latte (the CF program of each
GSH / SHARCFB / BFSHA shader: JUMP, ELSE, LOOP_*, CALL, RETURN, END_OF_PROGRAM; clauses are one
step each), Maxwell (each BNSH / NVN stage: BRA, SSY/SYNC, PBK/BRK, PCNT/CONT, CAL, RET, EXIT)
and Direct3D 9 (if/else, rep/loop, break, call/label, ret; each shader of an fx_2_0 effect) are
supported. Files with several programs give one cluster per program in one graph.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Any

import click

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import UnsupportedOperation
from shaderkit.named_tuple import NamedTuple

EXIT = -1  # the synthetic exit node


@dataclass
class Step:
    """One instruction: its text, where it may go besides the next one, whether it falls through."""

    text: str
    targets: list[tuple[int, str]] = field(default_factory=list)
    falls_through: bool = True
    address: int | None = None


@dataclass
class Block:
    """A basic block: instructions ``start``..``stop`` and the edges leaving it."""
    start: int
    stop: int  # exclusive
    edges: list[tuple[int, str]] = field(default_factory=list)  # (block start or EXIT, label)


def blocks(steps: list[Step], entries: tuple[int, ...] = (0,)) -> list[Block]:
    """Cut ``steps`` into basic blocks and connect them."""
    count = len(steps)
    leaders = {e for e in entries if 0 <= e < count} | {0} if count else set()
    for i, step in enumerate(steps):
        for target, _ in step.targets:
            if 0 <= target < count:
                leaders.add(target)
        if (step.targets or not step.falls_through) and i + 1 < count:
            leaders.add(i + 1)
    starts = sorted(leaders)
    result: list[Block] = []
    for start, stop in zip(starts, [*starts[1:], count]):
        last = steps[stop - 1]
        edges = [(t if 0 <= t < count else EXIT, label) for t, label in last.targets]
        if last.falls_through:
            edges.append((stop if stop < count else EXIT, ""))
        seen: set[tuple[int, str]] = set()
        result.append(Block(start, stop, [e for e in edges if not (e in seen or seen.add(e))]))  # type: ignore[func-returns-value]
    return result


# -- DXBC ------------------------------------------------------------------------------------------

def _mnemonic(text: str) -> str:
    return text.strip().split(" ", 1)[0].split("(", 1)[0]


class Nesting(NamedTuple):
    """The structured constructs of a program, found by matching its open and close steps."""
    else_of: dict[int, int]  # if -> its else
    end_of: dict[int, int]  # if, loop, switch -> its end step
    cases: dict[int, list[int]]  # switch -> its case and default steps
    exits: list[tuple[int, int]]  # (break or continue step, the loop or switch it leaves)


#: a construct's closing kind -> the kind that opens it
_OPENED_BY = {"endif": "if", "endloop": "loop", "endswitch": "switch"}


def nesting(kinds: list[str | None]) -> Nesting:
    """Match the steps' kinds (``if``, ``else``, ``endif``, ``loop``, ``endloop``, ``switch``,
    ``case``, ``endswitch``, ``break``, ``continue``, None for the others); unbalanced steps are
    left unmatched. A break leaves the innermost loop or switch, a continue the innermost loop."""
    found = Nesting({}, {}, {}, [])
    stack: list[tuple[str, int]] = []  # (opening kind, step)
    for i, kind in enumerate(kinds):
        if kind is None:
            continue
        if kind in ("if", "loop", "switch"):
            stack.append((kind, i))
            if kind == "switch":
                found.cases[i] = []
        elif kind == "else" and stack and stack[-1][0] == "if":
            found.else_of[stack[-1][1]] = i
        elif kind in _OPENED_BY and stack and stack[-1][0] == _OPENED_BY[kind]:
            found.end_of[stack.pop()[1]] = i
        elif kind == "case" and stack and stack[-1][0] == "switch":
            found.cases[stack[-1][1]].append(i)
        elif kind in ("break", "continue"):
            left = ("loop", "switch") if kind == "break" else ("loop",)
            inner = next((s for s in reversed(stack) if s[0] in left), None)
            if inner is not None:
                found.exits.append((i, inner[1]))
    return found


def branch_edges(steps: list[Step], kinds: list[str | None]) -> Nesting:
    """The :func:`nesting` of ``kinds``, after setting the edges of its matched ifs (true: the next
    step, false: after the else, or the end) and elses (to the end)."""
    nest = nesting(kinds)
    for i, else_at in nest.else_of.items():
        if i in nest.end_of:
            steps[else_at].targets, steps[else_at].falls_through = [(nest.end_of[i], "")], False
    for i, end in nest.end_of.items():
        if kinds[i] == "if":
            after = nest.else_of[i] + 1 if i in nest.else_of else end
            steps[i].targets, steps[i].falls_through = [(i + 1, "true"), (after, "false")], False
    return nest


def _sm4_kind(name: str) -> str | None:
    if name.startswith("if_"):
        return "if"
    if name in ("else", "endif", "loop", "endloop", "switch", "endswitch"):
        return name
    if name in ("case", "default"):
        return "case"
    if name.startswith("break"):
        return "break"
    return "continue" if name.startswith("continue") else None


def sm4_steps(texts: list[str]) -> list[Step]:
    """Steps of SM4/5 instruction lines (declarations included; they fall through)."""
    steps = [Step(t) for t in texts]
    names = [_mnemonic(t) for t in texts]
    labels = {t.split()[1]: i for i, (t, n) in enumerate(zip(texts, names)) if n == "label" and len(t.split()) > 1}
    nest = branch_edges(steps, [_sm4_kind(name) for name in names])
    end_owner = {v: k for k, v in nest.end_of.items()}
    for i, name in enumerate(names):
        step = steps[i]
        if name == "endloop" and i in end_owner:
            step.targets, step.falls_through = [(end_owner[i], "loop")], False
        elif name == "switch" and i in nest.end_of:
            step.targets = [(c, texts[c].strip()) for c in nest.cases[i]]
            if not any(names[c] == "default" for c in nest.cases[i]):
                step.targets.append((nest.end_of[i], "default"))
            step.falls_through = False
        elif name == "ret":
            step.targets, step.falls_through = [(EXIT, "ret")], False
        elif name.startswith("retc"):
            step.targets = [(EXIT, "ret")]
        elif name in ("call", "callc_z", "callc_nz") or name.startswith("callc"):
            target = labels.get(texts[i].replace(",", " ").split()[-1])
            if target is not None:
                step.targets = [(target, "call")]
    for i, owner in nest.exits:
        name = names[i]
        if owner not in nest.end_of:
            continue
        if name.startswith("continue"):
            target, label = owner, "continue"
        elif names[owner] == "loop":
            target, label = nest.end_of[owner] + 1, "break"
        else:
            target, label = nest.end_of[owner], "break"
        steps[i].targets = [(target if target < len(steps) else EXIT, label)]
        steps[i].falls_through = "c_" in name
    return steps


def dxbc_steps(container: Any) -> tuple[list[Step], tuple[int, ...]]:
    """Steps and entry points of a DXBC container's shader program."""
    from shaderkit.formats.dxbc.disasm import styled_formatter
    from shaderkit.isa.sm4.decode import decode

    shader = getattr(container, "shader", None)
    if shader is None:
        raise UnsupportedOperation("cfg: this DXBC file has no single shader program (library or effect)")
    program = decode(list(shader.tokens))
    texts = [t.split("\n")[0] for t in styled_formatter(container, program).lines()[1:]]
    steps = sm4_steps(texts)
    for step, offset in zip(steps, program.offsets):
        step.address = 4 * offset
    return steps, (0,)


# -- PICA200 ---------------------------------------------------------------------------------------

def pica_steps(dvlb: Any) -> tuple[list[Step], tuple[int, ...]]:
    """Steps (one per code word, with its picasso text) and entry points of a SHBIN."""
    from shaderkit.cli.addresses import pica_entries
    from shaderkit.isa.pica.decode import decode

    code = list(dvlb.dvlp.code)
    insts = [decode(w) for w in code]
    # picasso text of each word, as disasm prints it (words outside every entry range: mnemonic only)
    printed = {offset // 4: text.strip() for text, offset, _ in pica_entries(dvlb) if offset is not None}
    steps = [Step(printed.get(i, inst.mnemonic), address=4 * i) for i, inst in enumerate(insts)]
    loops: list[tuple[int, int]] = []
    for pos, (inst, word) in enumerate(zip(insts, code)):
        name = inst.mnemonic
        if name in ("ifu", "ifc"):
            dst, num = inst.get("dst"), word & 0x3FF
            steps[pos].targets = [(pos + 1, "true"), (dst, "false")]
            steps[pos].falls_through = False
            if num and 0 < dst <= len(steps):
                end_then = steps[dst - 1]
                end_then.targets.append((dst + num, "endif"))
                end_then.falls_through = False
        elif name == "loop":
            dst = inst.get("dst")
            loops.append((pos, dst))
            if 0 <= dst < len(steps):
                steps[dst].targets.append((pos + 1, "loop"))
        elif name in ("jmpc", "jmpu"):
            steps[pos].targets.append((inst.get("dst"), "jump"))
        elif name in ("call", "callc", "callu"):
            steps[pos].targets.append((inst.get("dst"), "call"))
        elif name == "end":
            steps[pos].targets, steps[pos].falls_through = [(EXIT, "end")], False
    for pos, inst in enumerate(insts):
        if inst.mnemonic in ("break", "breakc"):
            inner = [(s, e) for s, e in loops if s < pos <= e]
            if inner:
                steps[pos].targets.append((max(inner)[1] + 1, "break"))
                steps[pos].falls_through = inst.mnemonic == "breakc"
    entries = tuple(sorted({d.main_offset for d in dvlb.dvles} | {0}))
    return steps, entries


# -- Latte -----------------------------------------------------------------------------------------

#: a CF line of a decaf listing: index, mnemonic (clause bodies have lowercase units or wide gaps)
_LATTE_CF = re.compile(r"^\s*(\d+) ([A-Z][A-Z0-9_]*)\b(.*)$")
_LATTE_ADDR = re.compile(r"\b(?:FAIL_JUMP_ADDR|PASS_JUMP_ADDR|ADDR)\((\d+)\)")
#: CF mnemonic -> edge label of its ADDR (clause instructions' ADDR is a clause address, not a CF index)
_LATTE_FLOW = {"JUMP": "jump", "ELSE": "else", "LOOP_START": "skip", "LOOP_START_DX10": "skip",
               "LOOP_START_NO_AL": "skip", "LOOP_END": "loop", "LOOP_BREAK": "break",
               "LOOP_CONTINUE": "continue", "CALL": "call"}
_CF_MARK = "\x1f"


def latte_steps(program: bytes) -> list[Step]:
    """One step per CF instruction of a Latte program (clauses are single steps), with the CF
    edges: ADDR of JUMP/ELSE/LOOP_*/CALL, RETURN and END_OF_PROGRAM to the exit."""
    from shaderkit.isa.latte import disassemble

    text = disassemble(program, notes=False, marker=lambda offset, words: f"{_CF_MARK}{offset}")
    steps: list[Step] = []
    for line in text.split("\n"):
        body, mark, offset = line.partition(_CF_MARK)
        m = _LATTE_CF.match(body)
        if m and mark:
            name = m.group(2)
            step = Step(body.strip(), address=int(offset))
            label = _LATTE_FLOW.get(name)
            where = _LATTE_ADDR.search(m.group(3))
            if label is not None and where is not None:
                step.targets.append((int(where.group(1)), label))
            elif name == "RETURN":
                step.targets, step.falls_through = [(EXIT, "ret")], False
            steps.append(step)
        elif body.strip() == "END_OF_PROGRAM" and steps:
            steps[-1].targets, steps[-1].falls_through = [(EXIT, "end")], False
    # ALU_BREAK / ALU_CONTINUE: like LOOP_BREAK / LOOP_CONTINUE, to the enclosing loop's LOOP_END
    names = [_LATTE_CF.match(step.text).group(2) for step in steps]  # type: ignore[union-attr]
    for i, name in enumerate(names):
        if name in ("ALU_BREAK", "ALU_CONTINUE"):
            depth = 0
            for j in range(i + 1, len(names)):
                if names[j].startswith("LOOP_START"):
                    depth += 1
                elif names[j] == "LOOP_END":
                    if depth == 0:
                        steps[i].targets.append((j, "break" if name == "ALU_BREAK" else "continue"))
                        break
                    depth -= 1
    return steps


def latte_programs(model: Any) -> list[tuple[str, list[Step], tuple[int, ...]]] | None:
    """(title, steps, entries) of every program of a GSH / SHARCFB / Wii U BFSHA model (or one
    BFSHA stage), else None."""
    from shaderkit.formats.gx2.programs import latte_codes

    codes = latte_codes(model)
    if codes is None:
        return None
    return [(title, latte_steps(code), (0,)) for title, code in codes if code]


# -- Direct3D 9 -----------------------------------------------------------------------------------

#: D3D9 flow mnemonics -> their kind for :func:`nesting`
_D3D9_KINDS = {"if": "if", "else": "else", "endif": "endif", "rep": "loop", "loop": "loop", "endrep": "endloop",
               "endloop": "endloop", "break": "break", "breakp": "break"}


def d3d9_steps(words: Any) -> list[Step]:
    """One step per instruction of a D3D9 token program (declarations included), with the edges
    of if/else/endif, rep/loop (the back edge and the skip of a zero count), break, breakc, breakp,
    call/callnz to their label and ret."""
    from shaderkit.isa.d3d9.table import INSTRUCTION_OPCODE, OPCODES
    from shaderkit.isa.d3d9.text import instruction_texts

    found = instruction_texts(words)
    steps = [Step(text, address=4 * offset) for text, offset, _ in found]
    infos = [OPCODES.get(INSTRUCTION_OPCODE.get(token)) for _, _, token in found]
    names = [info.name if info is not None else "" for info in infos]
    conditional = [info is not None and info.sources > 0 for info in infos]  # break_comp, breakp
    operands = [text.partition(" ")[2].replace(",", " ").split() for text, _, _ in found]
    labels = {ops[0]: i for i, (name, ops) in enumerate(zip(names, operands)) if name == "label" and ops}
    nest = branch_edges(steps, [_D3D9_KINDS.get(name) for name in names])
    end_owner = {v: k for k, v in nest.end_of.items()}
    for i, name in enumerate(names):
        step = steps[i]
        if name in ("rep", "loop") and i in nest.end_of:
            step.targets = [(nest.end_of[i] + 1, "skip")]
        elif name in ("endrep", "endloop") and i in end_owner:
            step.targets = [(end_owner[i] + 1, "loop")]
        elif name == "ret":
            step.targets, step.falls_through = [(EXIT, "ret")], False
        elif name in ("call", "callnz") and operands[i] and operands[i][0] in labels:
            step.targets = [(labels[operands[i][0]], "call")]
    for i, owner in nest.exits:
        if owner in nest.end_of:
            steps[i].targets = [(nest.end_of[owner] + 1, "break")]
            steps[i].falls_through = conditional[i]
    return steps


def d3d9_programs(model: Any) -> list[tuple[str, list[Step], tuple[int, ...]]] | None:
    """(title, steps, entries) of a bare D3D9 shader, or of every shader of a D3D9 effect, else None."""
    if model.format_name == "d3d9":
        return [("", d3d9_steps(model.words()), (0,))]
    if model.format_name == "fx2":
        return [(name, d3d9_steps(item.shader.words()), (0,)) for name, item in model.shader_members().items()]
    return None


# -- Maxwell ---------------------------------------------------------------------------------------

#: pushes a target that a later instruction of the second name jumps to
_MAXWELL_PAIRS = {"SYNC": ("SSY", "sync"), "BRK": ("PBK", "break"), "CONT": ("PCNT", "continue")}


def maxwell_steps(code: bytes) -> list[Step]:
    """One step per instruction word of a Maxwell program (scheduling words left out), with
    branch (BRA, CAL), reconvergence (SYNC/BRK/CONT to the target of the nearest SSY/PBK/PCNT
    before them) and exit (EXIT, RET) edges; predicated ones also fall through."""
    from shaderkit.isa.maxwell.decode import BUNDLE_BYTES, branch_target, decode, program_end, words_of
    from shaderkit.isa.maxwell.text import instruction_text, predicate_text

    words = words_of(code)
    end = program_end(code)
    found: list[tuple[int, Any]] = []
    for address in range(8, end, 8):
        if address % BUNDLE_BYTES:
            found.append((address, decode(words[address // 8])))
    index_of = {address: i for i, (address, _) in enumerate(found)}

    def step_at(target: int | None) -> int:
        if target is None:
            return EXIT
        while target % BUNDLE_BYTES == 0 or (target not in index_of and target < end):
            target += 8
        return index_of.get(target, EXIT)

    pushed: list[tuple[str, int, int | None]] = []  # (mnemonic, address, target)
    steps = []
    for address, inst in found:
        if inst is None:
            steps.append(Step(f".u64 {words[address // 8]:#018x}", address=address))
            continue
        step = Step(instruction_text(inst, address), address=address)
        enc, values = inst.encoding, inst.values
        guarded = ""
        if enc.guard is not None:
            guard, negate = values[enc.guard[0]], values[enc.guard[1]]
            if guard != 7 or negate:
                guarded = f"@{'!' if negate else ''}{predicate_text(guard)}"
        name = inst.mnemonic
        if name in ("SSY", "PBK", "PCNT"):
            pushed.append((name, address, branch_target(inst, address)))
        elif name in ("BRA", "CAL"):
            target = branch_target(inst, address)
            if target is not None:
                step.targets = [(step_at(target), "call" if name == "CAL" else guarded or "jump")]
                step.falls_through = name == "CAL" or bool(guarded)
        elif name in _MAXWELL_PAIRS:
            push, label = _MAXWELL_PAIRS[name]
            target = next((t for n, a, t in reversed(pushed) if n == push and t is not None and t > address), None)
            if target is not None:
                step.targets = [(step_at(target), label)]
                step.falls_through = bool(guarded)
        elif name in ("EXIT", "RET"):
            step.targets = [(EXIT, name.lower())]
            step.falls_through = bool(guarded)
        steps.append(step)
    return steps


def maxwell_programs(model: Any) -> list[tuple[str, list[Step], tuple[int, ...]]] | None:
    """(title, steps, entries) of every Maxwell stage of a BNSH / NVN model (DKSH: every program), else None."""
    import sys

    if "shaderkit.formats.dksh.dksh" in sys.modules:
        from shaderkit.formats.dksh.dksh import Dksh

        if isinstance(model, Dksh):
            return [(model.program_title(i), maxwell_steps(program.code), (0,))
                    for i, program in enumerate(model.programs)]
    if not any(name in sys.modules for name in ("shaderkit.formats.bnsh.bnsh", "shaderkit.formats.bnsh.nvn")):
        return None
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.model import STAGES, NvnShaderCode
    from shaderkit.formats.bnsh.nvn import NvnCode, NvnProgramFile, control_program_offset, is_code

    blobs: list[tuple[str, bytes, int | None]] = []
    if isinstance(model, Bnsh):
        for v, variation in enumerate(model.variations):
            for kind, program in variation.programs():
                for stage, code in zip(STAGES, program.stages):
                    if isinstance(code, NvnShaderCode):
                        blobs.append((f"variation {v} {kind} {stage}", code.data, control_program_offset(code.control)))
    elif isinstance(model, NvnProgramFile):
        blobs = [(f"part {i}", part, None) for i, part in enumerate(model.parts) if is_code(part)]
    else:
        return None
    entries: tuple[int, ...] = (0,)
    return [(title, maxwell_steps(NvnCode.from_bytes(data, program_offset=at).code), entries)
            for title, data, at in blobs]


# -- output ----------------------------------------------------------------------------------------

def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "\\{").replace("}", "\\}")


def to_dot(steps: list[Step], graph: list[Block], title: str) -> str:
    """Graphviz DOT text of ``graph``: one box per block listing its instructions."""
    lines = [f'digraph "{_escape(title)}" {{', '  node [shape=box, fontname="monospace", fontsize=10];',
             '  edge [fontname="sans-serif", fontsize=9];']
    for block in graph:
        body = "".join(
            (f"{steps[i].address:04x}  " if steps[i].address is not None else "") + _escape(steps[i].text.strip()) + "\\l"
            for i in range(block.start, block.stop)
        )
        lines.append(f'  b{block.start} [label="{body}"];')
    lines.append('  exit [shape=oval, label="exit"];')
    for block in graph:
        for target, label in block.edges:
            name = "exit" if target == EXIT else f"b{target}"
            style = ", style=dashed" if label == "call" else ""
            lines.append(f'  b{block.start} -> {name}' + (f' [label="{_escape(label)}"{style}];' if label else ";"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_dot_programs(programs: list[tuple[str, list[Step], list[Block]]], title: str) -> str:
    """Graphviz DOT text of several programs: one ``cluster`` subgraph (with its own exit) each."""
    if len(programs) == 1:
        return to_dot(programs[0][1], programs[0][2], title)
    lines = [f'digraph "{_escape(title)}" {{', '  node [shape=box, fontname="monospace", fontsize=10];',
             '  edge [fontname="sans-serif", fontsize=9];']
    for k, (name, steps, graph) in enumerate(programs):
        lines.append(f'  subgraph "cluster_{k}" {{')
        lines.append(f'    label="{_escape(name)}";')
        for block in graph:
            body = "".join(
                (f"{steps[i].address:04x}  " if steps[i].address is not None else "") + _escape(steps[i].text.strip())
                + "\\l" for i in range(block.start, block.stop))
            lines.append(f'    p{k}_b{block.start} [label="{body}"];')
        lines.append(f'    p{k}_exit [shape=oval, label="exit"];')
        lines.append("  }")
        for block in graph:
            for target, label in block.edges:
                node = f"p{k}_exit" if target == EXIT else f"p{k}_b{target}"
                style = ", style=dashed" if label == "call" else ""
                lines.append(f"  p{k}_b{block.start} -> {node}" + (f' [label="{_escape(label)}"{style}];' if label else ";"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def programs_of(model: Any) -> list[tuple[str, list[Step], list[Block]]]:
    """(title, steps, blocks) of every program of ``model`` (DXBC, SHBIN, D3D9 shader: one; Latte,
    Maxwell, fx_2_0 effect: one per shader or stage); UnsupportedOperation for other formats or files without code."""
    found = latte_programs(model)
    if found is None:
        found = maxwell_programs(model)
    if found is None:
        found = d3d9_programs(model)
    if found is None:
        steps, graph = graph_of(model)
        return [("", steps, graph)]
    if not found:
        raise UnsupportedOperation(f"{model.format_name}: this file holds no program to draw")
    return [(title, steps, blocks(steps, entries)) for title, steps, entries in found]


def graph_of(model: Any) -> tuple[list[Step], list[Block]]:
    """(steps, blocks) of a DXBC or SHBIN model; UnsupportedOperation for other formats."""
    from shaderkit.formats.dvlb.dvlb import Dvlb
    from shaderkit.formats.dxbc.container import DxbcContainer

    if isinstance(model, DxbcContainer):
        steps, entries = dxbc_steps(model)
    elif isinstance(model, Dvlb):
        steps, entries = pica_steps(model)
    elif isinstance(getattr(model, "payload", None), Dvlb):
        steps, entries = pica_steps(model.payload)
    else:
        raise UnsupportedOperation(f"{model.format_name}: cfg is available for DXBC, SHBIN, Direct3D 9 "
                                   "(shaders, fx_2_0 effects), Wii U (GSH, SHARCFB, BFSHA) and Switch (BNSH, NVN, "
                                   "DKSH) files")
    return steps, blocks(steps, entries)


@click.command()
@click.argument("file")
@click.option("-o", "--output", default="-", help="Output file (.dot, or .svg to run Graphviz's dot); - for stdout.")
@click.option("--svg", is_flag=True, help="Write SVG (needs Graphviz's dot on PATH).")
def cfg(file: str, output: str, svg: bool) -> None:
    """Write the control-flow graph of FILE (DXBC, SHBIN, D3D9 shader or effect, GSH, SHARCFB, BFSHA,
    BNSH, NVN, DKSH) as Graphviz DOT, or SVG; files with several programs get one cluster per program."""
    from shaderkit.cli.common import load_model, write_output

    model = load_model(file)
    dot_text = to_dot_programs(programs_of(model), os.path.basename(file))
    if svg or output.lower().endswith(".svg"):
        dot = shutil.which("dot")
        if dot is None:
            raise click.UsageError("SVG needs Graphviz's dot on PATH; write .dot instead")
        result = subprocess.run([dot, "-Tsvg"], input=dot_text.encode(), capture_output=True, check=False)
        if result.returncode != 0:
            message = result.stderr.decode(errors="replace").strip().splitlines()
            raise click.ClickException(f"dot failed: {message[0] if message else result.returncode}")
        write_output(output, result.stdout)
        return
    write_output(output, dot_text)
