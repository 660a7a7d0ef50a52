"""Bare Direct3D 9 shader bytecode (``vs_1_1``..``vs_3_0``, ``ps_1_0``..``ps_3_0``, ``tx_1_0``): the token
stream fxc writes without a DXBC container (``.cso``/``.vso``/``.pso`` files, the shaders of D3D9 effects).

* :mod:`.shader` - the model: version token, instructions, comment blocks (``CTAB`` typed), end token;
* :mod:`.listing` - fxc's listing: the constant table header, then the program text;
* :mod:`.effect` - Direct3D 9 effects (fx_2_0: ``.fxo``, XNA/FNA ``.fxb``): parameters, techniques,
  passes, states and objects, the shaders among them nested models of :mod:`.shader`;
* :mod:`.effect_listing` - an effect as ``.fx``-like text with ``asm { }`` shader bodies.
"""
