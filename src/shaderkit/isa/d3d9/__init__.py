"""Direct3D 9 shader tokens (vs/ps 1.x-3.0): the programs of level-9 DXBC shaders and the bare
D3D9 shaders of :mod:`shaderkit.formats.d3d9`.

* :mod:`.table` - opcodes, register types, declaration usages and the token field layouts;
* :mod:`.text` - the split of a token stream into instructions and comments, and fxc's listing
  of a D3D9 token program (the ``Aon9``/``XNAS``/``XNAP`` chunk models of
  :mod:`shaderkit.formats.dxbc.aon9` hold it in ``program``; a bare shader is one), with the
  ``#line`` directives and variable notes of its ``DBUG`` comment block and fxc's slot count;
* :mod:`.assembler` - that text read back into a token program (a ``DBUG`` block rebuilt from
  the directives and notes), every field through :mod:`.table`.
"""
