"""D3DX conventions shared by the Direct3D 9 era formats (bare D3D9 shaders, FXLVM expressions
inside DXBC effects, tx_1_0 texture shaders):

* :mod:`.ctab` - the ``CTAB`` constant table (``D3DXSHADER_CONSTANTTABLE``) and its type names;
* :mod:`.creator` - which fxc wrote a shader, from its creator string.
"""
