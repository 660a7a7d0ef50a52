"""The modules a compiled build accelerates, and the guard that loads them only when current.

Where a C compiler is at hand, ``setup.py`` compiles the modules of :data:`NATIVE` from their own
source with mypyc (as black and mypy ship); the ``.py`` files stay beside them, and a build without
a compiler is the plain Python package. Nothing is written twice: the compiled module is the source.

A wheel's compiled modules were built from the sources beside them. An editable build (``pip
install -e .``) compiles in the source tree, where the sources go on changing: it writes
:data:`MANIFEST` beside them, the size and modification time of every module mypyc compiled
against (:func:`compiled_against`), and each editable build first removes what an
earlier one left. :class:`SourceWhenStale` loads every NATIVE module from source when one of those
files has changed since (an edit or a checkout) or when ``SHADERKIT_PURE_PYTHON=1`` is set. All or
none: compiled modules call each other directly, so a mix could run code older than its source.

In the PICA200 NATIVE modules, module-level tables are annotated ``Final`` (imported for type
checkers only): mypyc then keeps them in C variables instead of reading the module dict at every
use. A class an interpreted module subclasses is marked ``allow_interpreted_subclasses`` (the
PICA200 assembler extends ``opdescs.DescriptorTable``).
"""

from __future__ import annotations

import os
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    ModuleSpec,
    SourceFileLoader,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from types import ModuleType

#: compiled by mypyc where a compiler is available (hot paths of disasm: SM4/SM5 and PICA200 text,
#: PICA200's layout rules, descriptor merging and float24 constants; every rebuild's stored bytes)
NATIVE = (
    "shaderkit.isa.sm4.decode",
    "shaderkit.isa.sm4.dcl",
    "shaderkit.isa.sm4.text",
    "shaderkit.isa.sm4.printer",
    "shaderkit.formats.dvlb.pack",
    "shaderkit.formats.dvlb.rules",
    "shaderkit.formats.dvlb.source",
    "shaderkit.isa.pica.opdescs",
    "shaderkit.isa.pica.float24",
    "shaderkit.io.stored",
)
#: set to 1 to run the source modules even where a current compiled build is installed
PURE_ENV = "SHADERKIT_PURE_PYTHON"
#: the package directory (``shaderkit/``), where every NATIVE module's source lies
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
#: an editable build's record, beside the sources: one :func:`source_stamps` line per module
MANIFEST = "_native_build.txt"


def source_path(module: str, package_dir: str = PACKAGE_DIR) -> str:
    """Where ``module``'s source lies under ``package_dir`` (a package: its ``__init__.py``)."""
    path = os.path.join(package_dir, *module.split(".")[1:])
    return path + ".py" if not os.path.isdir(path) else os.path.join(path, "__init__.py")


def compiled_against(package_dir: str = PACKAGE_DIR) -> list[str]:
    """This module, the NATIVE modules and every shaderkit module they import, directly or not, at
    any level (function bodies and type-checking blocks too: mypyc checks calls into all of them
    against their annotations), read from the sources. The build's part; nothing imports ast at
    run time."""
    import ast

    found = ["shaderkit._native", *NATIVE]
    todo = list(NATIVE)
    while todo:
        with open(source_path(todo.pop(), package_dir), "rb") as file:
            tree = ast.parse(file.read())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("shaderkit"):
                module = node.module or ""
                names = [module] + [f"{module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names if alias.name.startswith("shaderkit")]
            for name in names:
                if name not in found and os.path.isfile(source_path(name, package_dir)):
                    found.append(name)
                    todo.append(name)
    return found


def library_name(modules: Iterable[str], package_dir: str = PACKAGE_DIR) -> str:
    """The compiled library's name (mypyc's group name) for these modules' current sources: a
    CRC-32 and an Adler-32 (change detection, not security; zlib is cheap to load, hashlib is not)
    over each module's name, length and bytes, so any edit to one of them gives another name."""
    from zlib import adler32, crc32

    crc, adler = 0, 1
    for module in modules:
        with open(source_path(module, package_dir), "rb") as file:
            source = file.read()
        for part in (b"%s\0%d\0" % (module.encode(), len(source)), source):
            crc, adler = crc32(part, crc), adler32(part, adler)
    return f"shaderkit_native_{crc:08x}{adler:08x}"


def pure_requested(environ: Mapping[str, str]) -> bool:
    """True when ``environ`` asks for the plain Python modules (:data:`PURE_ENV` set to 1)."""
    return environ.get(PURE_ENV, "").lower() in ("1", "true", "yes")


def source_stamps(modules: Iterable[str], package_dir: str = PACKAGE_DIR) -> list[str]:
    """``module size mtime_ns`` of each module's source: what an editable build records, and what
    an edit (or a checkout) changes. A stat per file, nothing read."""
    stamps = []
    for module in modules:
        stat = os.stat(source_path(module, package_dir))
        stamps.append(f"{module} {stat.st_size} {stat.st_mtime_ns}")
    return stamps


def build_is_current(package_dir: str = PACKAGE_DIR) -> bool:
    """True unless an editable build's :data:`MANIFEST` records sources that have changed since
    (any stamp of :func:`source_stamps` differs, or a module is gone). No manifest: a wheel, built
    from the files beside it."""
    path = os.path.join(package_dir, MANIFEST)
    if not os.path.exists(path):
        return True
    try:
        with open(path, encoding="utf-8") as file:
            recorded = file.read().splitlines()
        return bool(recorded) and source_stamps((line.split(" ", 1)[0] for line in recorded), package_dir) == recorded
    except (OSError, ValueError):
        return False


_current: bool | None = None


def compiled_is_current() -> bool:
    """True when the compiled modules may load: not asked for source (:data:`PURE_ENV`) and the
    build is current (:func:`build_is_current`). Decided once per process, on the first import of
    a NATIVE module that has a compiled module beside it."""
    global _current
    if _current is None:
        _current = not pure_requested(os.environ) and build_is_current()
    return _current


def has_compiled_module(module: str, path: Iterable[str]) -> bool:
    """True when a compiled ``module`` lies in one of the folders of ``path``."""
    return any(FileFinder(entry, (ExtensionFileLoader, EXTENSION_SUFFIXES)).find_spec(module) is not None
               for entry in path)


def compiled_in_use(package_dir: str = PACKAGE_DIR) -> bool:
    """True when the NATIVE modules run compiled in this process: each has a compiled module
    beside its source, and :func:`compiled_is_current`."""
    return all(has_compiled_module(module, [os.path.dirname(source_path(module, package_dir))])
               for module in NATIVE) and compiled_is_current()


class SourceWhenStale:
    """A meta path finder ahead of the standard ones: a NATIVE module with a compiled module beside
    its source loads from its ``.py`` file unless :func:`compiled_is_current`; every other module
    (and every module of a pure install: nothing is read or hashed) is left to the standard finders."""

    _names = frozenset(NATIVE)

    @classmethod
    def find_spec(cls, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in cls._names or path is None or not has_compiled_module(fullname, path):
            return None  # (not ours, or no compiled module: the standard finders load the source)
        if compiled_is_current():
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname)
            if spec is not None:
                return spec
        return None
