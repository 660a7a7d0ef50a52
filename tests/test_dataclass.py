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


def _init_bodies(decorate: Callable[..., Any]) -> dict[str, Any]:
    """Classes whose ``__init__`` this module writes (documented, no InitVar/keyword-only fields) and
    classes it leaves to the standard decorator."""

    @decorate
    class Hidden:
        """Fields outside ``__init__``: a factory (called per instance) and a plain default (class attribute)."""

        a: int
        made: list[int] = field(default_factory=list, init=False)
        plain: int = field(default=3, init=False)
        tail: dict[str, int] = field(default_factory=dict)

    @decorate
    class Post:
        """A ``__post_init__`` runs after the fields are set."""

        a: int = 1
        doubled: int = field(default=0, init=False)

        def __post_init__(self) -> None:
            self.doubled = 2 * self.a

    @decorate(frozen=True)
    class FrozenFactory:
        """Frozen, with a factory field."""

        a: int
        rows: tuple[int, ...] = field(default_factory=tuple)

    @decorate(slots=True)
    class SlottedHidden:
        """Slots: a field outside ``__init__`` with a default is set per instance."""

        a: int
        plain: int = field(default=5, init=False)

    @decorate
    class SelfField:
        """A field called ``self``."""

        self: int
        other: int = 2

    @decorate
    class OwnInit:
        """The class's own ``__init__`` stays."""

        a: int = 0

        def __init__(self, value: int) -> None:
            self.a = value * 10

    @decorate
    class Undocumented:
        a: int
        b: str = "x"

    @decorate
    class WithInitVar:
        """An ``InitVar`` goes to ``__post_init__`` (the standard ``__init__``)."""

        a: int
        scale: dataclasses.InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            self.a *= scale

    @decorate(kw_only=True)
    class KeywordOnly:
        """Keyword-only fields (the standard ``__init__``)."""

        a: int
        b: int = 2

    @decorate
    class ChildOfPlain(Hidden):
        """Inherited fields first, then its own."""

        extra: bytes = b""

    return {name: cls for name, cls in locals().items() if isinstance(cls, type)}


OURS_INIT = _init_bodies(dataclass)
STANDARD_INIT = _init_bodies(dataclasses.dataclass)

#: (class, positional arguments, keyword arguments) calls made on both families
_INIT_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("Hidden", (1,), {}), ("Hidden", (1, {"k": 1}), {}), ("Hidden", (), {"a": 2, "tail": {}}),
    ("Post", (), {}), ("Post", (4,), {}), ("FrozenFactory", (1,), {}), ("FrozenFactory", (1, (2,)), {}),
    ("SlottedHidden", (7,), {}), ("SelfField", (1,), {}), ("SelfField", (), {"self": 1, "other": 3}),
    ("OwnInit", (2,), {}), ("Undocumented", (1,), {}), ("WithInitVar", (2, 3), {}),
    ("KeywordOnly", (), {"a": 1}), ("ChildOfPlain", (1, {}, b"e"), {}),
    # wrong calls: the same error text
    ("Hidden", (), {}), ("Hidden", (1, 2, 3), {}), ("Hidden", (1,), {"made": []}), ("Post", (), {"b": 1}),
    ("KeywordOnly", (1,), {}), ("SelfField", (), {}),
]


def _state(obj: Any) -> dict[str, Any]:
    names = [f.name for f in dataclasses.fields(obj)]
    return {name: getattr(obj, name) for name in names if hasattr(obj, name)}


@pytest.mark.parametrize(("name", "args", "kwargs"), _INIT_CALLS)
def test_init_behaves_as_the_standard_one(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    results = []
    for family in (OURS_INIT, STANDARD_INIT):
        try:
            made = family[name](*args, **kwargs)
        except TypeError as exc:
            results.append(("error", str(exc)))
        else:
            results.append(("made", _state(made), _strip_address(repr(made))))
    assert results[0] == results[1]


def test_factories_run_per_instance() -> None:
    first, second = OURS_INIT["Hidden"](1), OURS_INIT["Hidden"](1)
    assert first.made == [] and first.made is not second.made and first.tail is not second.tail
    assert "plain" not in first.__dict__  # read from the class, as the standard __init__ leaves it


@pytest.mark.parametrize("name", sorted(STANDARD_INIT))
def test_init_function_matches(name: str) -> None:
    import inspect

    ours, std = OURS_INIT[name].__init__, STANDARD_INIT[name].__init__
    assert str(inspect.signature(ours)) == str(inspect.signature(std))
    assert ours.__defaults__ == std.__defaults__
    assert ours.__kwdefaults__ == std.__kwdefaults__
    assert ours.__annotations__ == std.__annotations__
    assert ours.__qualname__ == std.__qualname__
    assert ours.__module__ == std.__module__
    assert ours.__globals__ is std.__globals__
    assert OURS_INIT[name].__doc__ == STANDARD_INIT[name].__doc__


def test_lean_init_only_where_it_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lean text is written for the documented classes without InitVar or keyword-only fields."""
    import shaderkit.dataclass as module

    lean: list[str] = []
    real = module._lean_init
    monkeypatch.setattr(module, "_lean_init", lambda cls, *rest: (lean.append(cls.__name__), real(cls, *rest)))
    _init_bodies(dataclass)
    assert set(lean) == set(OURS_INIT) - {"Undocumented", "WithInitVar", "KeywordOnly"}


def test_non_default_after_default_is_refused() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @dataclass
        class Bad:
            """b has no default after a."""

            a: int = 0
            b: int  # type: ignore[misc]
