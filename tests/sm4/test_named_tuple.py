"""shaderkit.named_tuple.NamedTuple builds the classes typing.NamedTuple builds (the ISA tables'
rows use it so that a command's start-up need not load typing)."""

from __future__ import annotations

import copy
import pickle
import typing

import pytest

from shaderkit.isa.field import Field
from shaderkit.named_tuple import NamedTuple


def _row_class(base: typing.Any) -> typing.Any:
    class Row(base):  # type: ignore[misc, valid-type]
        """A row of a table."""

        name: str
        low: int = 0
        names: dict[int, str] | None = None

        @property
        def high(self) -> int:
            """The bit after the field."""
            return self.low + 1

        def shifted(self, by: int) -> int:
            """``low`` moved up by ``by``."""
            return self.low + by

    return Row


def test_same_class_as_typing_builds() -> None:
    ours, theirs = _row_class(NamedTuple), _row_class(typing.NamedTuple)
    for cls in (ours, theirs):
        row = cls("a", 3)
        assert isinstance(row, tuple) and tuple(row) == ("a", 3, None)
        assert row.high == 4 and row.shifted(2) == 5
        assert repr(row) == "Row(name='a', low=3, names=None)"
        assert row._replace(low=5) == ("a", 5, None) and row._asdict() == {"name": "a", "low": 3, "names": None}
        assert cls._make(["b", 1, {1: "x"}]).names == {1: "x"}
    for attribute in ("_fields", "_field_defaults", "__doc__", "__name__", "__qualname__", "__module__", "__bases__",
                      "__slots__"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert list(ours.__annotations__) == list(theirs.__annotations__) == ["name", "low", "names"]


def test_rows_pickle_and_copy() -> None:
    field = Field("type", 12, 8)
    assert pickle.loads(pickle.dumps(field)) == field
    assert copy.deepcopy(field) == field and field.mask == 0xFF and field.bits == 0xFF000


def test_refuses_what_typing_refuses() -> None:
    with pytest.raises(TypeError, match="Non-default namedtuple field low cannot follow default field name"):
        class Bad(NamedTuple):  # noqa: F841
            name: str = ""
            low: int
    with pytest.raises(AttributeError, match="_replace"):
        class Clash(NamedTuple):  # noqa: F841
            name: str

            def _replace(self) -> None:
                """Not allowed."""
