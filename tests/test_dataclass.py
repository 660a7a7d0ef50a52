"""shaderkit.dataclass.dataclass builds the classes dataclasses.dataclass builds: the same fields,
``__init__``, repr text, equality and hash values, only without compiling ``__repr__``/``__eq__``/
``__hash__`` per class. Each class body below is decorated both ways and the results compared."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from shaderkit.dataclass import dataclass, field


def _bodies(decorate: Callable[..., Any]) -> dict[str, Any]:
    @decorate
    class Plain:
        """Fields with defaults, a factory and flags."""

        name: str
        count: int = 0
        items: list[int] = field(default_factory=list)
        hidden: int = field(default=7, repr=False)
        loose: float = field(default=0.5, compare=False)

    @decorate(frozen=True)
    class Frozen:
        a: int
        b: tuple[int, ...] = ()
        skip: int = field(default=0, compare=False)
        forced: int = field(default=1, compare=False, hash=True)

    @decorate(repr=False)
    class NoRepr:
        a: int = 1

    @decorate(eq=False)
    class NoEq:
        a: int = 1

    @decorate
    class Empty:
        pass

    @decorate
    class OwnEq:
        a: int = 0

        def __eq__(self, other: object) -> bool:
            return True

    @decorate
    class OwnHash:
        a: int = 0

        def __hash__(self) -> int:
            return 42

    @decorate
    class OwnRepr:
        a: int = 0

        def __repr__(self) -> str:
            return "mine"

    @decorate(frozen=True, slots=True)
    class Slotted:
        a: int
        b: str = "x"

    @decorate
    class Child(Plain):
        extra: bytes = b""

    @decorate
    class Node:
        value: int
        children: list[Any] = field(default_factory=list)

    @decorate(order=True)
    class Ordered:
        a: int = 0

    return {name: cls for name, cls in locals().items() if isinstance(cls, type)}


NAN = float("nan")  # one object: a tuple of it equals itself, the float does not
OURS = _bodies(dataclass)
STANDARD = _bodies(dataclasses.dataclass)


def _instances(classes: dict[str, Any]) -> list[tuple[Any, Any]]:
    """Pairs of equal-or-not instances of each class, the same arguments for both families."""
    c = classes
    return [
        (c["Plain"]("a", 2, [1], 3, 0.25), c["Plain"]("a", 2, [1], 9, 0.75)),
        (c["Plain"]("a"), c["Plain"]("b")),
        (c["Frozen"](1, (2,), 3, 4), c["Frozen"](1, (2,), 5, 4)),
        (c["Frozen"](1), c["Frozen"](1, forced=2)),
        (c["NoRepr"](), c["NoRepr"]()),
        (c["NoEq"](), c["NoEq"]()),
        (c["Empty"](), c["Empty"]()),
        (c["OwnEq"](1), c["OwnEq"](2)),
        (c["OwnHash"](1), c["OwnHash"](1)),
        (c["OwnRepr"](1), c["OwnRepr"](1)),
        (c["Slotted"](1), c["Slotted"](1, "y")),
        (c["Child"]("a", extra=b"1"), c["Child"]("a", extra=b"1")),
        (c["Child"]("a"), c["Plain"]("a")),
        (c["Ordered"](1), c["Ordered"](2)),
        (c["NoRepr"](NAN), c["NoRepr"](NAN)),  # equal by tuple before 3.13, unequal field by field since
        (c["Frozen"](NAN), c["Frozen"](NAN)),
    ]


def _strip_address(text: str) -> str:
    """The default object repr carries an address; keep the class part."""
    return text.split(" object at ")[0]


@pytest.mark.parametrize("index", range(len(_instances(STANDARD))))
def test_same_behaviour_as_the_standard_decorator(index: int) -> None:
    (ours_a, ours_b), (std_a, std_b) = _instances(OURS)[index], _instances(STANDARD)[index]
    for ours, std in ((ours_a, std_a), (ours_b, std_b)):
        assert _strip_address(repr(ours)) == _strip_address(repr(std))
        assert dataclasses.astuple(ours) == dataclasses.astuple(std)
        assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(std)]
        assert (type(ours).__hash__ is None) == (type(std).__hash__ is None)
        if type(std).__hash__ is not None and type(std).__hash__ is not object.__hash__:
            assert hash(ours) == hash(std)
    assert (ours_a == ours_b) == (std_a == std_b)
    assert (ours_a != ours_b) == (std_a != std_b)
    assert (ours_a == ours_a) == (std_a == std_a)
    assert (ours_a == "text") == (std_a == "text")


def test_class_attributes_match() -> None:
    for name, std in STANDARD.items():
        ours = OURS[name]
        assert dataclasses.is_dataclass(ours), name
        assert ours.__match_args__ == std.__match_args__, name
        assert ours.__doc__ == std.__doc__, name
        assert hasattr(ours, "__slots__") == hasattr(std, "__slots__"), name
        for method in ("__repr__", "__eq__", "__hash__"):
            assert (method in ours.__dict__) == (method in std.__dict__), (name, method)
            made = ours.__dict__.get(method)
            if callable(made):
                assert made.__qualname__ == std.__dict__[method].__qualname__, (name, method)


def test_recursive_repr_prints_dots() -> None:
    ours, std = OURS["Node"](1), STANDARD["Node"](1)
    ours.children.append(ours)
    std.children.append(std)
    assert repr(ours) == repr(std) == "_bodies.<locals>.Node(value=1, children=[...])"


def test_frozen_stays_frozen_and_hashable() -> None:
    frozen = OURS["Frozen"](1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        frozen.a = 2
    assert {frozen, OURS["Frozen"](1)} == {frozen}
    with pytest.raises(TypeError):
        hash(OURS["Plain"]("a"))


def test_module_level_classes_pickle() -> None:
    from shaderkit.isa.sm4.model import Instruction

    inst = Instruction(1)
    assert pickle.loads(pickle.dumps(inst)) == inst
    assert type(inst).__eq__.__module__ == "shaderkit.dataclass"  # really the shared functions
