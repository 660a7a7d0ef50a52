"""Direct3D shader model 4/5/5.1 token ISA (the SHDR/SHEX chunk of DXBC).

* :mod:`.table` - every token layout (opcode, customdata, extended opcode, operand, extended
  operand, version tokens; controls, index representations, component selections) declared
  once, with packers/unpackers compiled from it and a self-check (no overlap, every bit covered);
* :mod:`.opcodes` - the one opcode table (value, fxc mnemonic, operand layout and count,
  immediate data type, nesting effect, declaration flag) plus the enumerations it prints;
* :mod:`.model` - typed dataclasses: :class:`~.model.Program`, :class:`~.model.Instruction`,
  :class:`~.model.Operand`, :class:`~.model.Index`;
* :mod:`.decode` / :mod:`.encode` - token words <-> model, lossless
  (``encode(decode(words)) == words``), bounds-checked (only ShaderFormatError). ``decode``
  validates every instruction up front but builds the typed instructions only when
  ``Program.instructions`` is first read;
* :mod:`.text` - fxc-identical listing text of a program's typed model;
* :mod:`.printer` - the same text straight from the token words, validated and printed in one
  pass through tables built at import time (no run-time caches); a program whose model was never
  built is printed this way;
* :mod:`.dcl` - declarations printed and read through the templates of the opcode table;
* :mod:`.assembler` - fxc listing text -> :class:`~.model.Program` (:func:`assemble`);
* level-9 D3D9 programs (Aon9/XNAS/XNAP) are printed by :mod:`shaderkit.isa.d3d9`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any


def __getattr__(name: str) -> Any:
    # the assembler loads on first use (importing the package stays cheap)
    if name == "assemble":
        from shaderkit.isa.sm4.assembler import assemble

        return assemble
    raise AttributeError(name)
