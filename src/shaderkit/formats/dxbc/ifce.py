"""IFCE chunk (placeholder model: payload kept as bytes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shaderkit.io.reader import Reader


@dataclass
class Interfaces:
    data: bytes
    fourcc: str = "IFCE"

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "IFCE") -> Interfaces:
        return cls(r.read(r.remaining))

    def build(self) -> bytes:
        return self.data

    def summary(self) -> dict[str, Any]:
        return {}
