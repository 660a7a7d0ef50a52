"""RDEF chunk (placeholder model: payload kept as bytes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shaderkit.io.reader import Reader


@dataclass
class ResourceDefinition:
    data: bytes
    fourcc: str = "RDEF"

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "RDEF") -> ResourceDefinition:
        return cls(r.read(r.remaining))

    def build(self) -> bytes:
        return self.data

    def summary(self) -> dict[str, Any]:
        return {}
