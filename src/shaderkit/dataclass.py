"""``@dataclass`` whose ``__repr__``, ``__eq__`` and ``__hash__`` are shared functions, not compiled per class.

The standard decorator compiles each generated method with ``exec``: about 0.7 ms a class on
CPython 3.11, half of it for ``__repr__`` and ``__eq__``. A command loads dozens of model classes
(a ``verify`` of the DXBC corpus 78), so that compile was a tenth of its time. Here the standard
decorator still builds the class (fields, ``__match_args__``, slots, frozen ``__setattr__``);
``__repr__``, ``__eq__`` and the frozen classes' ``__hash__`` are closures over the field names that
return what the generated methods of the running Python return (same text, same results, same hash
values, ``...`` for a recursive repr), and the ``__hash__ = None`` of a mutable class with
``__eq__`` is set as the standard decorator sets it.

``__init__`` must stay compiled (instances are made by the thousand), but its text is the standard
one without what the compiler need not see: the parameters' annotations and defaults are set on the
function afterwards (``__annotations__``, ``__defaults__``), not written as expressions, and a class
without factory fields or ``frozen`` gets no enclosing function. The body is the standard body, the
function the standard function (same parameters, defaults, annotations, globals, assignments,
``__post_init__`` call, errors) for about 40 % of the compile time. Classes with what that text
does not cover (``InitVar``, keyword-only fields, no docstring: the standard decorator writes one from
the signature) get the standard ``__init__``.
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

    MISSING = dataclasses.MISSING
    #: the default the standard ``__init__`` gives a factory field (shown as ``<factory>``)
    _HAS_FACTORY = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", None)
    if _HAS_FACTORY is None:  # pragma: no cover - every CPython from 3.7 has it

        class _Factory:
            def __repr__(self) -> str:
                return "<factory>"

        _HAS_FACTORY = _Factory()
    #: annotation words of pseudo-fields the lean ``__init__`` does not cover
    _STANDARD_INIT_WORDS = ("InitVar", "KW_ONLY")

    def _standard_annotation(annotation) -> bool:
        """True for an annotation that makes a pseudo-field the lean ``__init__`` does not write."""
        if isinstance(annotation, str):
            return any(word in annotation for word in _STANDARD_INIT_WORDS)
        return (isinstance(annotation, dataclasses.InitVar) or annotation is dataclasses.InitVar
                or annotation is getattr(dataclasses, "KW_ONLY", None))

    def _lean_init_fits(cls, options) -> bool:
        """True when :func:`_lean_init` writes the ``__init__`` the standard decorator would (decided
        before the class is processed: afterwards the standard ``__init__`` cannot be asked for)."""
        body = cls.__dict__
        if options.get("kw_only") or not body.get("__doc__"):
            return False
        if any(_standard_annotation(a) for a in body.get("__annotations__", {}).values()):
            return False
        if any(isinstance(v, dataclasses.Field) and getattr(v, "kw_only", MISSING) is True for v in body.values()):
            return False
        for base in cls.__mro__[1:]:
            for f in base.__dict__.get("__dataclass_fields__", {}).values():
                if _standard_annotation(f.type) or getattr(f, "kw_only", MISSING) is True:
                    return False
        return True

    #: compiled ``__init__`` texts (classes whose fields have the same names share one)
    _INIT_CODE: dict[str, object] = {}

    def _lean_init(cls, frozen, slots):
        """Install the standard ``__init__`` of the processed class ``cls``, compiled from a lean text."""
        if "__init__" in cls.__dict__:  # the class's own (the standard decorator keeps it too)
            return
        members = dataclasses.fields(cls)
        self_name = "__dataclass_self__" if any(f.name == "self" for f in members) else "self"
        params, defaults, lines = [self_name], [], []
        annotations = {}
        enclosed = {}  # the names the body reads from the enclosing function, and their values
        seen_default = False
        for f in members:
            name = f.name
            if f.default_factory is not MISSING:
                factory = f"__dataclass_dflt_{name}__"
                enclosed[factory] = f.default_factory
                if f.init:
                    enclosed["__dataclass_HAS_DEFAULT_FACTORY__"] = _HAS_FACTORY
                    value = f"{factory}() if {name} is __dataclass_HAS_DEFAULT_FACTORY__ else {name}"
                else:
                    value = f"{factory}()"
            elif f.init:
                value = name
            elif slots and f.default is not MISSING:
                value = f"__dataclass_dflt_{name}__"
                enclosed[value] = f.default
            else:
                value = None  # read from the class attribute
            if f.init:
                if f.default is not MISSING or f.default_factory is not MISSING:
                    seen_default = True
                    defaults.append(f.default if f.default_factory is MISSING else _HAS_FACTORY)
                elif seen_default:
                    raise TypeError(f"non-default argument {name!r} follows default argument")
                params.append(name)
                annotations[name] = f.type
            if value is not None:
                if frozen:
                    enclosed["__dataclass_builtins_object__"] = object
                    lines.append(f"__dataclass_builtins_object__.__setattr__({self_name},{name!r},{value})")
                else:
                    lines.append(f"{self_name}.{name}={value}")
        if hasattr(cls, "__post_init__"):
            lines.append(f"{self_name}.__post_init__()")
        head = f"def __init__({','.join(params)}):\n"
        if enclosed:  # as the standard text: a function that takes the values and returns __init__
            text = "".join([f"def __create_fn__({', '.join(enclosed)}):\n ", head,
                            *(f"  {line}\n" for line in lines or ["pass"]), " return __init__\n"])
        else:
            text = "".join([head, *(f" {line}\n" for line in lines or ["pass"])])
        code = _INIT_CODE.get(text)
        if code is None:
            code = _INIT_CODE[text] = compile(text, "<string>", "exec")
        module = sys.modules.get(cls.__module__)
        namespace: dict[str, object] = {}
        exec(code, module.__dict__ if module is not None else {}, namespace)  # noqa: S102 - our own text
        init = namespace["__create_fn__"](**enclosed) if enclosed else namespace["__init__"]
        init.__defaults__ = tuple(defaults) or None
        init.__annotations__ = {**annotations, "return": None}
        _install(cls, "__init__", init)

    def _process(cls, init, repr, eq, frozen, **options):  # noqa: A002 - the standard keywords
        body = cls.__dict__
        explicit_hash = body.get("__hash__", dataclasses.MISSING)
        has_explicit_hash = not (explicit_hash is dataclasses.MISSING
                                 or (explicit_hash is None and "__eq__" in body))
        lean_init = init and _lean_init_fits(cls, options)
        made = dataclasses.dataclass(cls, init=init and not lean_init, repr=False, eq=False, frozen=frozen,
                                     **options)
        if lean_init:
            _lean_init(made, frozen, options.get("slots", False))
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
