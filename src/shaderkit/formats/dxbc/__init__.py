"""Direct3D shader bytecode containers (DXBC) and their chunks."""
