"""Run results by name: the mapping every stage's outputs share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

#: numpy type of each signature component type (D3D_REGISTER_COMPONENT_TYPE: uint, sint, float)
COMPONENT_DTYPES = {1: np.uint32, 2: np.int32, 3: np.float32}


def element_key(element: Any) -> str:
    """A signature element's output key: upper-case semantic and index (``SV_TESSFACTOR2``)."""
    return f"{element.semantic_name.upper()}{element.semantic_index}"


def element_components(element: Any) -> list[int]:
    """The components a signature element's mask covers."""
    return [c for c in range(4) if element.mask >> c & 1]


def typed_columns(bits: np.ndarray, element: Any) -> np.ndarray:
    """The components of a signature element from (..., 4) uint32 bits, viewed as its type."""
    dtype = COMPONENT_DTYPES.get(element.component_type, np.float32)
    return np.ascontiguousarray(bits[..., element_components(element)]).view(dtype)


def normalize_key(key: str) -> str:
    """A semantic as the outputs store it: upper case, index 0 spelled out (``SV_Position`` -> ``SV_POSITION0``)."""
    upper = key.upper()
    return upper if upper[-1:].isdigit() else upper + "0"


class NamedOutputs(Mapping[str, np.ndarray]):
    """Arrays by semantic (``SV_POSITION0``/``SV_Position``) and register (``o0``); a value may be
    a function that builds the array on first access."""

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = values

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._values:
            key = normalize_key(key)
        if key in self._values:
            value = self._values[key]
            if callable(value):
                value = self._values[key] = value()
            return value
        raise KeyError(f"no output {key!r}; outputs: {', '.join(sorted(self._values))}")

    def __iter__(self) -> Any:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)
