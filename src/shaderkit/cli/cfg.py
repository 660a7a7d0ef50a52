"""``shaderkit cfg FILE``: the control-flow graph of a shader as Graphviz DOT (SVG through ``dot``).

Basic blocks are runs of instructions entered only at the top and left only at the bottom; edges
carry the reason (``true``/``false`` of an if, ``loop`` back edges, ``break``, ``call``, ``case``).
DXBC (SM4/5 structured flow) and PICA200 (if/loop/jump/call words) are supported.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

import click

from shaderkit.errors import UnsupportedOperation

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


def sm4_steps(texts: list[str]) -> list[Step]:
    """Steps of SM4/5 instruction lines (declarations included; they fall through)."""
    steps = [Step(t) for t in texts]
    names = [_mnemonic(t) for t in texts]
    labels = {t.split()[1]: i for i, (t, n) in enumerate(zip(texts, names)) if n == "label" and len(t.split()) > 1}
    stack: list[tuple[str, int]] = []  # ("if"|"loop"|"switch", index)
    else_of: dict[int, int] = {}
    end_of: dict[int, int] = {}
    cases: dict[int, list[int]] = {}
    pending: list[tuple[int, str, int]] = []  # (step, kind, construct index) resolved at the end
    for i, name in enumerate(names):
        if name.startswith("if_"):
            stack.append(("if", i))
        elif name == "else" and stack and stack[-1][0] == "if":
            else_of[stack[-1][1]] = i
        elif name == "endif" and stack and stack[-1][0] == "if":
            end_of[stack.pop()[1]] = i
        elif name == "loop":
            stack.append(("loop", i))
        elif name == "endloop" and stack and stack[-1][0] == "loop":
            end_of[stack.pop()[1]] = i
        elif name == "switch":
            stack.append(("switch", i))
            cases[i] = []
        elif name in ("case", "default") and stack and stack[-1][0] == "switch":
            cases[stack[-1][1]].append(i)
        elif name == "endswitch" and stack and stack[-1][0] == "switch":
            end_of[stack.pop()[1]] = i
        elif name.startswith("break") or name.startswith("continue"):
            inner = next((s for s in reversed(stack) if s[0] in ("loop", "switch")), None)
            if name.startswith("continue"):
                inner = next((s for s in reversed(stack) if s[0] == "loop"), None)
            if inner is not None:
                pending.append((i, name, inner[1]))
    for i, name in enumerate(names):
        step = steps[i]
        if name.startswith("if_") and i in end_of:
            step.targets = [(i + 1, "true"), (else_of.get(i, end_of[i]) + (1 if i in else_of else 0), "false")]
            step.falls_through = False
        elif name == "else":
            owner = next((k for k, v in else_of.items() if v == i), None)
            if owner is not None and owner in end_of:
                step.targets, step.falls_through = [(end_of[owner], "")], False
        elif name == "endloop":
            owner = next((k for k, v in end_of.items() if v == i and names[k] == "loop"), None)
            if owner is not None:
                step.targets, step.falls_through = [(owner, "loop")], False
        elif name == "switch" and i in end_of:
            step.targets = [(c, texts[c].strip()) for c in cases[i]]
            if not any(names[c] == "default" for c in cases[i]):
                step.targets.append((end_of[i], "default"))
            step.falls_through = False
        elif name == "ret":
            step.targets, step.falls_through = [(EXIT, "ret")], False
        elif name.startswith("retc"):
            step.targets = [(EXIT, "ret")]
        elif name in ("call", "callc_z", "callc_nz") or name.startswith("callc"):
            target = labels.get(texts[i].replace(",", " ").split()[-1])
            if target is not None:
                step.targets = [(target, "call")]
    for i, name, owner in pending:
        conditional = "c_" in name
        if name.startswith("continue"):
            target, label = owner, "continue"
        elif names[owner] == "loop" and owner in end_of:
            target, label = end_of[owner] + 1, "break"
        elif owner in end_of:
            target, label = end_of[owner], "break"
        else:
            continue
        steps[i].targets = [(target if target < len(steps) else EXIT, label)]
        steps[i].falls_through = conditional
    return steps


def dxbc_steps(container: Any) -> tuple[list[Step], tuple[int, ...]]:
    """Steps and entry points of a DXBC container's shader program."""
    from shaderkit.formats.dxbc.disasm import is_legacy
    from shaderkit.isa.sm4.decode import decode
    from shaderkit.isa.sm4.text import Formatter

    shader = getattr(container, "shader", None)
    if shader is None:
        raise UnsupportedOperation("cfg: this DXBC file has no single shader program (library or effect)")
    program = decode(list(shader.tokens))
    texts = [t.split("\n")[0] for t in Formatter(program, is_legacy(container)).lines()[1:]]
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
        raise UnsupportedOperation(f"{model.format_name}: cfg is available for DXBC and SHBIN files")
    return steps, blocks(steps, entries)


@click.command()
@click.argument("file")
@click.option("-o", "--output", default="-", help="Output file (.dot, or .svg to run Graphviz's dot); - for stdout.")
@click.option("--svg", is_flag=True, help="Write SVG (needs Graphviz's dot on PATH).")
def cfg(file: str, output: str, svg: bool) -> None:
    """Write the control-flow graph of FILE (DXBC, SHBIN) as Graphviz DOT, or SVG."""
    from shaderkit.cli.common import load_model, write_output

    model = load_model(file)
    steps, graph = graph_of(model)
    dot_text = to_dot(steps, graph, os.path.basename(file))
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
