"""CPU executors: NumPy virtual machines, SIMD across invocations (pica, sm4)."""
