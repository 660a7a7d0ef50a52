"""Direct3D shader model 4/5/5.1 token ISA: one opcode table, decoder, encoder, fxc-style text."""
