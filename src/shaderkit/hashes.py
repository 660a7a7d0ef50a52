"""Names other tools give shaders, computed from the file bytes (no I/O)."""

from __future__ import annotations

_FNV_64_PRIME = 0x100000001B3
_MASK_64 = (1 << 64) - 1

#: DXBC shader_type (as ``summary()`` names it) -> the suffix 3Dmigoto puts after the hash
MIGOTO_SUFFIXES = {"vertex": "vs", "pixel": "ps", "geometry": "gs", "hull": "hs", "domain": "ds", "compute": "cs"}


def fnv0_64(data: bytes) -> int:
    """64-bit FNV with offset basis 0, multiply then xor (FNV-0/FNV-1 order), as 3Dmigoto's
    ``fnv_64_buf`` computes it over the whole bytecode."""
    value = 0
    for byte in data:
        value = ((value * _FNV_64_PRIME) & _MASK_64) ^ byte
    return value


def migoto_hash(data: bytes, shader_type: str | None) -> str:
    """3Dmigoto's shader name: 16 lowercase hex digits of :func:`fnv0_64`, then ``-ps``/``-vs``/...
    when the stage is known (the name of its ShaderFixes/ file without ``.txt``)."""
    suffix = MIGOTO_SUFFIXES.get(shader_type or "")
    text = f"{fnv0_64(data):016x}"
    return f"{text}-{suffix}" if suffix else text
