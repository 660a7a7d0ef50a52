"""The fast path of the command line: ``disasm FILE``, ``info FILE`` and ``info --json FILE`` run
without loading click (about half of a bare start-up's cost).

Only those exact forms are taken here, with the same code, output, messages and exit status as
the click commands; anything else (options, several files, folders, ``-`` for standard input,
``--help``, shell completion) returns False and goes to the click application.
"""

from __future__ import annotations

import errno
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
else:
    ModuleType = type(sys)  # (without importing types)


def _simple_form(argv: list[str]) -> tuple[str, str, bool] | None:
    """(verb, file, as_json) of a form this module runs, else None."""
    if "_SHADERKIT_COMPLETE" in os.environ or not 2 <= len(argv) <= 3:
        return None
    verb, *rest = argv
    as_json = False
    if verb == "info" and len(rest) == 2 and "--json" in rest:
        rest.remove("--json")
        as_json = True
    if len(rest) != 1 or verb not in ("disasm", "info"):
        return None
    file = rest[0]
    if not file or file.startswith("-") or (verb == "disasm" and os.path.isdir(file)):
        return None
    return verb, file, as_json


def _fail(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    sys.exit(2)


#: cyclic-garbage collection threshold (allocations) while a simple form runs as its own process:
#: loading the modules allocates a lot and frees little, so the default (700) would walk the
#: young objects over and over; a larger one still bounds the memory of cycles on big inputs
OWN_PROCESS_GC_THRESHOLD = 50_000

#: standard modules a simple form's own process loads only on first use: ``dataclasses`` imports
#: ``inspect`` (with ast, dis and tokenize, ~8 ms) for one call made only for classes without a docstring
DEFERRED_MODULES = ("inspect",)


class _DeferredModule(ModuleType):
    """A stand-in in ``sys.modules`` that imports the real module on its first attribute access,
    then reads through to it (its own attributes become the real module's)."""

    def __getattr__(self, name: str) -> object:
        module_name = self.__name__
        if sys.modules.get(module_name) is self:
            del sys.modules[module_name]
        real = __import__(module_name)
        self.__dict__.update(real.__dict__)
        return getattr(real, name)


def _defer_imports() -> None:
    for name in DEFERRED_MODULES:
        if name not in sys.modules:
            sys.modules[name] = _DeferredModule(name)


def run_fast(argv: list[str], own_process: bool = False) -> bool:
    """Run ``argv`` when it is one of the simple forms and return True; else False (nothing done).

    ``own_process``: the caller exits right after (the console script), so the collector may run
    less often, the objects still alive at the end are frozen (the exit need not walk them), and
    :data:`DEFERRED_MODULES` load on first use.
    """
    form = _simple_form(argv)
    if form is None:
        return False
    verb, file, as_json = form
    if own_process:
        import gc

        gc.set_threshold(OWN_PROCESS_GC_THRESHOLD)
        _defer_imports()
        try:
            _run(verb, file, as_json)
        finally:
            gc.freeze()
    else:
        _run(verb, file, as_json)
    return True


def _run(verb: str, file: str, as_json: bool) -> None:
    from shaderkit.errors import ShaderkitError

    try:
        if verb == "disasm":
            _disasm(file)
        else:
            from shaderkit.cli.render import show_info

            show_info(file, as_json, None)
    except (EOFError, KeyboardInterrupt):  # as click: a new line, then "aborted"
        sys.stderr.write("\n")
        _fail("aborted")
    except ShaderkitError as exc:
        _fail(f"shaderkit: {' '.join(str(exc).split())}")
    except OSError as exc:
        if exc.errno == errno.EPIPE:  # as click: the reader went away; exit quietly
            _quiet_streams()
            sys.exit(1)
        name = f"{exc.filename}: " if exc.filename else ""
        _fail(f"shaderkit: {name}{exc.strerror or exc}")


def _disasm(file: str) -> None:
    """``shaderkit disasm FILE`` (the single-file form of cli/disasm.py's command)."""
    from shaderkit.cli.common import load_model, write_output
    from shaderkit.cli.listing import _coloured, listing_of, use_colour
    from shaderkit.errors import UnsupportedOperation

    model = load_model(file)
    try:
        text = listing_of(model)
    except UnsupportedOperation as exc:
        raise UnsupportedOperation(f"{file}: {exc}") from None
    write_output("-", _coloured(text, model) if use_colour(None, "-") else text)


def _quiet_streams() -> None:
    """Standard output whose flush at exit cannot fail on the closed pipe (as click's
    PacifyFlushWrapper): it now goes to the null device."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, sys.stdout.fileno())
    except (AttributeError, ValueError, OSError):
        pass
    finally:
        os.close(null)
