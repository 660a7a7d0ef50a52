"""The compiled part of the build (everything else is in pyproject.toml).

The modules ``shaderkit._native.NATIVE`` names are compiled by mypyc from their own source when a
wheel or an editable install is built. No mypyc, a type error it reports, or no working C compiler:
a warning (``pip install -v`` shows it) and the plain Python package, which runs the same code.
``SHADERKIT_PURE_PYTHON=1`` builds the plain package. An editable build first removes the compiled
files an earlier one left in the source tree, and records what it compiled against (see
``shaderkit._native``).
"""

from __future__ import annotations

import glob
import os
import runpy
import sys
from importlib.machinery import EXTENSION_SUFFIXES

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = runpy.run_path(os.path.join(HERE, "src", "shaderkit", "_native.py"))
PACKAGE_DIR: str = NATIVE["PACKAGE_DIR"]
#: the commands that build modules (metadata-only runs of this file compile nothing)
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}
#: the commands that build into the source tree
IN_PLACE = {"editable_wheel", "develop", "--inplace", "-i"}


def warn(message: str) -> None:
    print(f"shaderkit: {message}; building the plain Python package", file=sys.stderr)


def remove_compiled_files() -> None:
    """An earlier in-place build's compiled modules, shared libraries and manifest."""
    src = os.path.dirname(PACKAGE_DIR)
    for suffix in EXTENSION_SUFFIXES:
        for path in (glob.glob(os.path.join(PACKAGE_DIR, "**", "*" + suffix), recursive=True)
                     + glob.glob(os.path.join(src, "shaderkit_native_*" + suffix))):
            os.remove(path)
    manifest = os.path.join(PACKAGE_DIR, NATIVE["MANIFEST"])
    if os.path.exists(manifest):
        os.remove(manifest)


def native_extensions(against: list[str]) -> list[Extension]:
    try:
        from mypyc.build import mypycify
    except ImportError:
        warn("mypyc is not installed")
        return []
    paths = [os.path.relpath(NATIVE["source_path"](module), HERE) for module in NATIVE["NATIVE"]]
    try:
        return mypycify(paths, group_name=NATIVE["library_name"](against), opt_level="3")
    except (Exception, SystemExit) as exc:  # (mypyc exits on a type error)
        warn(f"mypyc failed ({exc})")
        return []


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the plain package when compiling fails, and writes an in-place
    build's manifest once every module is built."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # (CompileError, a missing compiler, a linker error)
            warn(f"compiling failed ({exc})")
            return
        if self.extensions and (self.inplace or getattr(self, "editable_mode", False)):
            with open(os.path.join(PACKAGE_DIR, NATIVE["MANIFEST"]), "w", encoding="utf-8") as file:
                file.write("\n".join(NATIVE["source_stamps"](AGAINST)) + "\n")


building = BUILDING & set(sys.argv[1:])
if building and IN_PLACE & set(sys.argv[1:]):
    remove_compiled_files()
AGAINST: list[str] = NATIVE["compiled_against"]() if building else []
setup(ext_modules=native_extensions(AGAINST) if building and not NATIVE["pure_requested"](os.environ) else [],
      cmdclass={"build_ext": OptionalBuildExt})
