"""Containers: Yaz0 (.szs), zstd (.zs), SARC; members are named ``outer.szs//inner/path``."""
