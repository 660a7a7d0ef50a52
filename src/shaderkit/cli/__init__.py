"""Command-line interface. Commands load lazily so that start-up stays fast.

The plain forms of the common verbs (``disasm FILE``, ``info FILE``) run without click (see
``fast.py``); everything else goes to the click application in ``app.py``.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: verb -> ("module:function" of its click command, one-line help); modules import only when the verb runs.
COMMANDS: dict[str, tuple[str, str]] = {
    "info": ("shaderkit.cli.info:info", "Show what is inside a file."),
    "disasm": ("shaderkit.cli.disasm:disasm", "Disassemble every program in a file."),
    "asm": ("shaderkit.cli.asm:asm", "Assemble fxc listings (DXBC), picasso (SHBIN), decaf Latte (GSH) or SASS (--base)."),
    "rebuild": ("shaderkit.cli.rebuild:rebuild", "Parse a file and write it back from the model."),
    "verify": ("shaderkit.cli.verify:verify", "Parse, rebuild and compare files or folders."),
    "variation": ("shaderkit.cli.variation:variation", "Find the binaries of a SHARCFB variation."),
    "extract": ("shaderkit.cli.extract:extract", "Write one stage's code out of a BNSH, GSH, SHARCFB or Wii U BFSHA."),
    "replace": ("shaderkit.cli.replace:replace", "Put new stage code into a BNSH, GSH, SHARCFB or Wii U BFSHA."),
    "ls": ("shaderkit.cli.archive:ls", "List the members of an archive (SZS, zstd, SARC, BFRES, BFSHA, RPX, fx_2_0 effects)."),
    "get": ("shaderkit.cli.archive:get", "Write one archive member (pack.szs//dir/file) out."),
    "put": ("shaderkit.cli.archive:put", "Replace one archive member and write the archive back."),
    "scan": ("shaderkit.cli.archive:scan", "Find every shader of a game dump, inside archives too (JSON Lines)."),
    "diff": ("shaderkit.cli.diff:diff", "Compare two shaders: metadata and aligned disassembly."),
    "cfg": ("shaderkit.cli.cfg:cfg", "Control-flow graph of a shader as Graphviz DOT (or SVG)."),
    "demo": ("shaderkit.cli.demo:demo", "Build the sample files and show what shaderkit does with them."),
    "run": ("shaderkit.cli.run:run", "Run a shader on the CPU (PICA200, DXBC SM4/5, Direct3D 9, Wii U Latte, Switch Maxwell)."),
}

#: names that live in ``app.py`` (click loads only when one of them is used)
_APP_NAMES = frozenset({"cli", "FILE_NAMES", "FILE_PARAMETERS", "FileNameType", "LazyGroup"})


def __getattr__(name: str) -> Any:
    if name in _APP_NAMES:
        from shaderkit.cli import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> Any:
    """Entry point: errors on input become one line on stderr and exit status 2."""
    from shaderkit.cli.fast import run_fast

    if run_fast(sys.argv[1:] if argv is None else list(argv), own_process=argv is None):
        return None
    from shaderkit.cli.app import main as app_main

    return app_main(argv)
