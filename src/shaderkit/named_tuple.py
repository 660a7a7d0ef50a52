"""``NamedTuple`` without loading :mod:`typing` (a large share of a command's start-up): for the ISA tables and the layout records.

``class Row(NamedTuple):`` with annotated fields (defaults allowed), methods, properties and a
docstring builds what ``typing.NamedTuple`` builds: a :func:`collections.namedtuple` class carrying
the body's attributes, the annotations kept as written. Type checkers see ``typing.NamedTuple``
itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    from collections import namedtuple

    #: names the generated class owns (as typing refuses them in a NamedTuple body)
    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                             "_make", "_replace", "_asdict", "_source"})
    #: names of the class body that are not copied onto the generated class
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMeta(type):
        def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
            if namespace.get("_named_tuple_root"):  # the NamedTuple base below
                return super().__new__(cls, name, bases, namespace)
            if bases != (NamedTuple,):
                raise TypeError("can only inherit from a NamedTuple type")
            annotations = dict(namespace.get("__annotations__", {}))
            defaults: list[str] = []
            for field_name in annotations:
                if field_name in namespace:
                    defaults.append(field_name)
                elif defaults:
                    raise TypeError(f"Non-default namedtuple field {field_name} cannot follow default field"
                                    f"{'s' if len(defaults) > 1 else ''} {', '.join(defaults)}")
            made = namedtuple(name, list(annotations), defaults=[namespace[n] for n in defaults],
                              module=str(namespace["__module__"]))
            made.__annotations__ = made.__new__.__annotations__ = annotations
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in made._fields:
                    setattr(made, key, value)
            return made

    class NamedTuple(metaclass=_NamedTupleMeta):
        """Base of a named tuple class written as a class body (see the module docstring)."""

        _named_tuple_root = True

__all__ = ["NamedTuple"]
