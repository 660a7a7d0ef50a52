"""The modules a compiled build accelerates, and the guard that loads them only when current.

Where a C compiler is at hand, ``setup.py`` compiles the modules of :data:`NATIVE` from their own
source with mypyc (as black and mypy ship); the ``.py`` files stay beside them, and a build without
a compiler is the plain Python package. Nothing is written twice: the compiled module is the source.

The compiled modules share one library named after a checksum of their sources and of the modules
they were compiled against (:func:`library_name`). :class:`SourceWhenStale` loads every one of them from source when that
library is absent: a pure build, a build older than the sources (an editable install after an
edit), or ``SHADERKIT_PURE_PYTHON=1`` in the environment. All or none: compiled modules call each
other directly, so a mix could run code older than its source.
"""

from __future__ import annotations

import os
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    ModuleSpec,
    PathFinder,
    SourceFileLoader,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import ModuleType

#: compiled by mypyc where a compiler is available (hot paths of disasm: SM4/SM5 and PICA200 text)
NATIVE = (
    "shaderkit.isa.sm4.decode",
    "shaderkit.isa.sm4.dcl",
    "shaderkit.isa.sm4.text",
    "shaderkit.isa.sm4.printer",
    "shaderkit.formats.dvlb.rules",
    "shaderkit.formats.dvlb.source",
)
#: the modules the NATIVE ones import at module level, directly or not: mypyc compiled against
#: their types, so an edit to one of them makes the build stale too (a test keeps this complete)
COMPILED_AGAINST = (
    "shaderkit.dataclass",
    "shaderkit.errors",
    "shaderkit.formats.base",
    "shaderkit.formats.dvlb.dvlb",
    "shaderkit.formats.dvlb.placement",
    "shaderkit.io.float32",
    "shaderkit.io.layout",
    "shaderkit.io.limits",
    "shaderkit.io.reader",
    "shaderkit.isa.field",
    "shaderkit.isa.pica.decode",
    "shaderkit.isa.pica.float24",
    "shaderkit.isa.pica.opdescs",
    "shaderkit.isa.pica.table",
    "shaderkit.isa.sm4.model",
    "shaderkit.isa.sm4.opcodes",
    "shaderkit.isa.sm4.table",
    "shaderkit.named_tuple",
)
#: set to 1 to run the source modules even where a current compiled build is installed
PURE_ENV = "SHADERKIT_PURE_PYTHON"
#: the package directory (``shaderkit/``), where every NATIVE module's source lies
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def source_path(module: str, package_dir: str = PACKAGE_DIR) -> str:
    """Where ``module``'s source lies under ``package_dir``."""
    return os.path.join(package_dir, *module.split(".")[1:]) + ".py"


def library_name(package_dir: str = PACKAGE_DIR) -> str:
    """The name of the compiled library built from the current sources (mypyc's group name): a
    CRC-32 and an Adler-32 (change detection, not security; zlib is cheap to load, hashlib is not)
    over the name, length and bytes of every NATIVE and COMPILED_AGAINST module, so any edit to
    them gives another name."""
    from zlib import adler32, crc32

    crc, adler = 0, 1
    for module in NATIVE + COMPILED_AGAINST:
        with open(source_path(module, package_dir), "rb") as file:
            source = file.read()
        for part in (b"%s\0%d\0" % (module.encode(), len(source)), source):
            crc, adler = crc32(part, crc), adler32(part, adler)
    return f"shaderkit_native_{crc:08x}{adler:08x}"


def pure_requested(environ: Mapping[str, str]) -> bool:
    """True when ``environ`` asks for the plain Python modules (:data:`PURE_ENV` set to 1)."""
    return environ.get(PURE_ENV, "").lower() in ("1", "true", "yes")


_current: bool | None = None


def compiled_is_current() -> bool:
    """True when the compiled modules may load: not asked for source (:data:`PURE_ENV`), and a
    library built from these very sources is importable. Decided once per process, on the first
    import of a NATIVE module."""
    global _current
    if _current is None:
        _current = not pure_requested(os.environ) and (
            PathFinder.find_spec(library_name() + "__mypyc") is not None)
    return _current


class SourceWhenStale:
    """A meta path finder ahead of the standard ones: a NATIVE module with a compiled module beside
    its source loads from its ``.py`` file unless :func:`compiled_is_current`; every other module
    (and every module of a pure install: nothing is read or hashed) is left to the standard finders."""

    _names = frozenset(NATIVE)

    @classmethod
    def find_spec(cls, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in cls._names or path is None:
            return None
        for entry in path:
            if FileFinder(entry, (ExtensionFileLoader, EXTENSION_SUFFIXES)).find_spec(fullname) is not None:
                break
        else:
            return None  # (no compiled module: the standard finders load the source)
        if compiled_is_current():
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname)
            if spec is not None:
                return spec
        return None
