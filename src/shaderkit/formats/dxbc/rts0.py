"""RTS0 chunk (placeholder model: payload kept as bytes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shaderkit.io.reader import Reader


@dataclass
class RootSignature:
    data: bytes
    fourcc: str = "RTS0"

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "RTS0") -> RootSignature:
        return cls(r.read(r.remaining))

    def build(self) -> bytes:
        return self.data

    def summary(self) -> dict[str, Any]:
        return {}
