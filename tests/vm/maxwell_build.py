"""Build Maxwell test programs from instruction text: bundles of three with a plain control, labels
(``name:`` lines) resolved to the address of the next instruction, ``EXIT`` and the terminal
branch to itself appended."""

from __future__ import annotations

from collections.abc import Sequence

from shaderkit.isa.maxwell import assemble

CONTROL = "[B------:R-:W-:-:S01]"


def _addresses(count: int) -> list[int]:
    out, address = [], 0
    for _ in range(count):
        address += 8
        if address % 0x20 == 0:  # every fourth word is a control word
            address += 8
        out.append(address)
    return out


def build(lines: Sequence[str]) -> bytes:
    """Code bytes for ``lines`` (instructions and ``label:`` lines; ``{label}`` in operands)."""
    body: list[str] = []
    labels: dict[str, int] = {}
    pending: list[str] = []
    for line in [*lines, "EXIT"]:
        if line.endswith(":"):
            pending.append(line[:-1])
            continue
        for name in pending:
            labels[name] = len(body)
        pending = []
        body.append(line)
    while (len(body) + 1) % 3:
        body.append("NOP 0x0")
    body.append("BRA {__self}")
    addresses = _addresses(len(body))
    names = {name: f"{addresses[index]:#x}" for name, index in labels.items()}
    names["__self"] = f"{addresses[-1]:#x}"
    text = "\n".join(f"{CONTROL} {line.format(**names)};" for line in body)
    return assemble(text)
