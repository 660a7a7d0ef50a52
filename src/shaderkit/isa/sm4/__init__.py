"""Direct3D shader model 4/5/5.1 token ISA (the SHDR/SHEX chunk of DXBC).

* :mod:`.opcodes` - the one opcode table (value, fxc mnemonic, operand layout and count,
  immediate data type, nesting effect, declaration flag) plus the enumerations it prints;
* :mod:`.model` - typed dataclasses: :class:`~.model.Program`, :class:`~.model.Instruction`,
  :class:`~.model.Operand`, :class:`~.model.Index`;
* :mod:`.decode` / :mod:`.encode` - token words <-> model, lossless
  (``encode(decode(words)) == words``), bounds-checked (only ShaderFormatError);
* :mod:`.text` - fxc-identical listing text of a program;
* :mod:`.level9` - the D3D9 ps_2_x/vs_2_x programs of level-9 shaders (Aon9/XNAS/XNAP).
"""
