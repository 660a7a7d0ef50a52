"""The fast path of the command line: the plain forms of ``disasm``, ``info`` and ``verify`` (see
:func:`_simple_form`) run without loading click (about half of a bare start-up's cost).

Only those forms are taken here, running the same code as the click commands, with the same output,
messages and exit status; anything else (other options, ``-`` for standard input, ``--help``, shell
completion) returns False and goes to the click application.
"""

from __future__ import annotations

import errno
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
else:
    ModuleType = type(sys)  # (without importing types)


#: characters click expands in arguments on Windows (wildcards, ``~``, environment variables)
_WINDOWS_EXPANDED = frozenset("*?[~$%")


def _plain_names(names: list[str]) -> bool:
    """True when click would take every name as it is: none could be an option (``-x``, ``--``),
    and on Windows none has what click expands there."""
    if os.name == "nt" and any(_WINDOWS_EXPANDED.intersection(name) for name in names):
        return False
    return all(name and not name.startswith("-") for name in names)


def _take_option(rest: list[str], *spellings: str) -> str | None:
    """Remove ``--opt VALUE`` (any of ``spellings``, once) from ``rest``; its value, "" when absent,
    None when given twice, without a value or with an empty one."""
    found = [i for i, arg in enumerate(rest) if arg in spellings]
    if not found:
        return ""
    if len(found) > 1 or found[0] + 1 >= len(rest):
        return None
    i = found[0]
    value = rest[i + 1]
    del rest[i : i + 2]
    return value or None


def _simple_form(argv: list[str]) -> Callable[[], int] | None:
    """What runs the plain form of ``argv`` (returning the exit status), else None (click takes it).

    ``disasm FILE [-o OUT]``, ``info [--json] FILE``, ``disasm -o DIR FILES...`` (several files or
    folders: the batch) and ``verify [--jobs N] [--json] PATHS...`` (every path present; standard
    error not a terminal, where click's command shows a progress bar).
    """
    if "_SHADERKIT_COMPLETE" in os.environ or not argv:
        return None
    verb, *rest = argv
    if verb == "info":
        as_json = "--json" in rest
        if as_json:
            rest.remove("--json")
        if len(rest) != 1 or not _plain_names(rest):
            return None
        return lambda: _info(rest[0], as_json)
    if verb == "disasm":
        output = _take_option(rest, "-o", "--output")
        if output is None or not rest or not _plain_names(rest) or output.startswith("-"):
            return None
        if len(rest) == 1 and not os.path.isdir(rest[0]) and not (output and os.path.isdir(output)):
            return lambda: _disasm(rest[0], output or "-")
        return (lambda: _disasm_files(rest, output)) if output else None  # (none: click's usage error)
    if verb == "verify":
        jobs = _take_option(rest, "-j", "--jobs")
        as_json = "--json" in rest
        if as_json:
            rest.remove("--json")
        if jobs is None or (jobs and not (jobs.isascii() and jobs.isdigit() and int(jobs) >= 1)) or not rest \
                or not _plain_names(rest):
            return None
        if sys.stderr.isatty() or not all(os.path.exists(p) or "//" in p for p in rest):
            return None  # a progress bar, or click's message for a missing path
        count = int(jobs or 1)
        return lambda: _verify(rest, count, as_json)
    return None


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
    if own_process:
        import gc

        gc.set_threshold(OWN_PROCESS_GC_THRESHOLD)
        _defer_imports()
        try:
            status = _run(form)
        finally:
            gc.freeze()
    else:
        status = _run(form)
    if status:
        sys.exit(status)
    return True


def _run(form: Callable[[], int]) -> int:
    """Run one plain form; its exit status (errors end the process as click's commands do)."""
    from shaderkit.errors import ShaderkitError

    try:
        return form()
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
    return 2  # (not reached: _fail exits)


def _disasm(file: str, output: str) -> int:
    """``shaderkit disasm FILE [-o OUT]`` (the single-file form of cli/disasm.py's command)."""
    from shaderkit.cli.batch import disasm_file

    return disasm_file(file, output)


def _info(file: str, as_json: bool) -> int:
    """``shaderkit info [--json] FILE``."""
    from shaderkit.cli.render import show_info

    show_info(file, as_json, None)
    return 0


def _disasm_files(files: list[str], output: str) -> int:
    """``shaderkit disasm -o DIR FILES...``."""
    from shaderkit.cli.batch import disasm_files

    return disasm_files(files, output)


def _verify(paths: list[str], jobs: int, as_json: bool) -> int:
    """``shaderkit verify [--jobs N] [--json] PATHS...``."""
    from shaderkit.cli.checks import verify_files, verify_targets

    return verify_files(verify_targets(paths), jobs, as_json)


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
