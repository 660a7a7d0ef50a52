"""The compiled part of the build (everything else is in pyproject.toml).

The modules ``shaderkit._native.NATIVE`` names are compiled by mypyc from their own source when a
wheel or an editable install is built, under the library name that guard checks. No mypyc, a type
error it reports, or no working C compiler: a warning, and the plain Python package, which runs the
same code. ``SHADERKIT_PURE_PYTHON=1`` builds the plain package.
"""

from __future__ import annotations

import os
import runpy
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.join(HERE, "src", "shaderkit")
#: the commands that build modules (metadata-only runs of this file compile nothing)
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def warn(message: str) -> None:
    print(f"shaderkit: {message}; building the plain Python package", file=sys.stderr)


def native_extensions() -> list[Extension]:
    native = runpy.run_path(os.path.join(PACKAGE_DIR, "_native.py"))
    if native["pure_requested"](os.environ) or not BUILDING & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        warn("mypyc is not installed")
        return []
    paths = [os.path.relpath(native["source_path"](module, PACKAGE_DIR), HERE) for module in native["NATIVE"]]
    try:
        return mypycify(paths, group_name=native["library_name"](PACKAGE_DIR), opt_level="3")
    except (Exception, SystemExit) as exc:  # (mypyc exits on a type error)
        warn(f"mypyc failed ({exc})")
        return []


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the plain package when compiling fails: whatever part was built
    is harmless, the guard loads compiled modules only with their library."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # (CompileError, a missing compiler, a linker error)
            warn(f"compiling failed ({exc})")


setup(ext_modules=native_extensions(), cmdclass={"build_ext": OptionalBuildExt})
