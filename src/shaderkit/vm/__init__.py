"""CPU executors for shader code, SIMD across invocations with NumPy (``pip install shaderkit[vm]``).

``shaderkit.vm.pica``: PICA200 (3DS) vertex and geometry shaders.
``shaderkit.vm.sm4``: Direct3D SM4/SM5 vertex, pixel and compute shaders.
``shaderkit.vm.d3d9``: Direct3D 9 vs/ps 1.x-3.0 shaders (bare token streams, level-9 programs).
``shaderkit.vm.fxlvm``: FXLVM code: the preshaders of D3D9 effect shaders, as d3dx9 runs them.
"""
