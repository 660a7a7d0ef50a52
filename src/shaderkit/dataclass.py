"""``@dataclass`` whose ``__repr__``, ``__eq__`` and ``__hash__`` are shared functions, not compiled per class.

The standard decorator compiles each generated method with ``exec``: about 0.7 ms a class on
CPython 3.11, half of it for ``__repr__`` and ``__eq__``. A command loads dozens of model classes
(a ``verify`` of the DXBC corpus 77), so that compile was a tenth of its time. Here the standard
decorator still builds the class and its ``__init__``; ``__repr__``, ``__eq__`` and the frozen
classes' ``__hash__`` are closures over the field names that return what the generated methods
of the running Python return (same text, same results, same hash values, ``...`` for a recursive
repr), and the ``__hash__ = None`` of a mutable class with ``__eq__`` is set as the standard
decorator sets it.
Options this module does not cover (``order``, ``unsafe_hash``) go to the standard decorator whole.

Type checkers see :func:`dataclasses.dataclass` itself.
"""

from __future__ import annotations

from dataclasses import field as field
from dataclasses import fields as fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:
    import dataclasses
    import sys
    from _thread import get_ident
    from operator import attrgetter

    def _values(names: tuple[str, ...]):
        """A function of an instance giving the tuple of the named attributes."""
        if not names:
            return lambda self: ()
        if len(names) == 1:
            one = attrgetter(names[0])
            return lambda self: (one(self),)
        return attrgetter(*names)

    def _repr_function(names: tuple[str, ...]):
        running: set[tuple[int, int]] = set()
        heads = tuple(name + "=" for name in names)
        values = _values(names)

        def __repr__(self) -> str:
            key = id(self), get_ident()
            if key in running:  # as reprlib.recursive_repr, which the standard __repr__ wears
                return "..."
            running.add(key)
            try:
                return (self.__class__.__qualname__ + "("
                        + ", ".join([head + repr(value) for head, value in zip(heads, values(self))]) + ")")
            finally:
                running.discard(key)

        return __repr__

    if sys.version_info >= (3, 13):  # the standard __eq__ compares field by field since 3.13

        def _eq_function(names: tuple[str, ...]):
            getters = tuple(attrgetter(name) for name in names)

            def __eq__(self, other: object) -> bool:
                if self is other:
                    return True
                if other.__class__ is self.__class__:
                    result = True
                    for get in getters:  # as "a == a2 and b == b2 ...": the first false result, else the last
                        result = get(self) == get(other)
                        if not result:
                            return result
                    return result
                return NotImplemented

            return __eq__
    else:  # a tuple of the fields each (a field that is the same object compares equal: NaN)

        def _eq_function(names: tuple[str, ...]):
            values = _values(names)

            def __eq__(self, other: object) -> bool:
                if other.__class__ is self.__class__:
                    return values(self) == values(other)
                return NotImplemented

            return __eq__

    def _hash_function(names: tuple[str, ...]):
        values = _values(names)

        def __hash__(self) -> int:
            return hash(values(self))

        return __hash__

    def _install(cls, name, method):
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)

    def _process(cls, init, repr, eq, frozen, **options):  # noqa: A002 - the standard keywords
        body = cls.__dict__
        explicit_hash = body.get("__hash__", dataclasses.MISSING)
        has_explicit_hash = not (explicit_hash is dataclasses.MISSING
                                 or (explicit_hash is None and "__eq__" in body))
        made = dataclasses.dataclass(cls, init=init, repr=False, eq=False, frozen=frozen, **options)
        own = made.__dict__
        members = dataclasses.fields(made)
        if repr and "__repr__" not in own:
            _install(made, "__repr__", _repr_function(tuple(f.name for f in members if f.repr)))
        if eq:
            if "__eq__" not in own:
                _install(made, "__eq__", _eq_function(tuple(f.name for f in members if f.compare)))
            if not has_explicit_hash:  # the standard table for eq=True, unsafe_hash=False
                if frozen:
                    _install(made, "__hash__", _hash_function(
                        tuple(f.name for f in members if (f.compare if f.hash is None else f.hash))))
                else:
                    made.__hash__ = None
        return made

    def dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False,  # noqa: A002
                  unsafe_hash=False, frozen=False, **options):
        """:func:`dataclasses.dataclass` with shared ``__repr__``/``__eq__``/``__hash__`` (see the module)."""
        if order or unsafe_hash:
            return dataclasses.dataclass(cls, init=init, repr=repr, eq=eq, order=order,
                                         unsafe_hash=unsafe_hash, frozen=frozen, **options)

        def wrap(cls):
            return _process(cls, init, repr, eq, frozen, **options)

        return wrap if cls is None else wrap(cls)

__all__ = ["dataclass", "field", "fields"]
