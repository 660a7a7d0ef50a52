"""Run results by name: the mapping every stage's outputs share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


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
