"""``shaderkit disasm`` over several files without click: output names, the folder walk and the
batch loop, and the listings of the shaders inside archives. The click command (``disasm.py``) and
the console script's fast path (``fast.py``) both run :func:`disasm_file` and :func:`disasm_files`."""

from __future__ import annotations

import os

from shaderkit.cli.common import member_steps, parse_named
from shaderkit.errors import ShaderFormatError, ShaderkitError, UnsupportedOperation
from shaderkit.formats.base import textless

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from shaderkit.formats.archive.path import Member
    from shaderkit.formats.base import ShaderFile

#: file-name endings taken off an input's name before ".asm" goes on (longest first)
KNOWN_SUFFIXES = (
    ".bnsh_vert", ".bnsh_frag", ".bnsh_geom", ".bnsh_comp", ".sharcfb", ".bfsha", ".bcsdr", ".shbin",
    ".bnsh", ".dksh", ".sharc", ".dxbc", ".csdr", ".dvob", ".dvoj", ".bfres", ".cso", ".fxo", ".fxb", ".vso", ".pso",
    ".gsh", ".gtx", ".vsh", ".psh", ".bin", ".szs", ".zs", ".o",
)


def output_stem(name: str) -> str:
    """The base name of input ``name`` without its known shader suffixes (``a/b.cso`` -> ``b``; a
    file found at an offset is named after the outer file: ``a/game.rpx//.rodata//@0x40`` -> ``game.rpx@0x40``;
    ``x/game.pak//@0x40`` -> ``game.pak@0x40``)."""
    parts = name.rstrip("/").split("//")
    if len(parts) > 1 and parts[-1].startswith("@"):
        return output_stem(parts[0]) + parts[-1]
    stem = os.path.basename(parts[-1]) or "shader"
    changed = True
    while changed:
        changed = False
        lower = stem.lower()
        if not lower.endswith(KNOWN_SUFFIXES):  # the common last round: no suffix left
            break
        for suffix in KNOWN_SUFFIXES:
            if lower.endswith(suffix) and len(stem) > len(suffix):
                stem = stem[: -len(suffix)]
                changed = True
                break
    return stem


def distinct_stems(files: tuple[str, ...] | list[str]) -> list[str]:
    """One distinct output stem per input, in order: ``STEM``, then ``STEM-2``, ... for inputs
    whose stems are the same (compared without case, for case-insensitive file systems)."""
    taken: set[str] = set()
    return [_distinct_stem(name, taken) for name in files]


def _distinct_stem(name: str, taken: set[str]) -> str:
    """The stem of ``name`` not yet in ``taken`` (lower case), which then holds it."""
    stem = output_stem(name)
    chosen, n = stem, 2
    while chosen.lower() in taken:
        chosen, n = f"{stem}-{n}", n + 1
    taken.add(chosen.lower())
    return chosen


def _open(name: str, data: bytes | None) -> tuple[ShaderFile | None, list[Member] | None, ShaderFormatError | None]:
    """(model, None, None) of an input with text of its own; (model, the shaders inside it,
    error) of one without: an archive, an executable, or bytes of no known format (model None,
    error: why they are no shader, a package perhaps). ``data``: the input's bytes when already read."""
    steps: list[object] = []
    if data is None:
        steps, data = member_steps(name)
    failure = None
    try:
        model: ShaderFile | None = parse_named(name, data, steps)
    except ShaderFormatError as exc:
        from shaderkit.formats.registry import detect

        if steps or detect(data) is not None:
            raise
        model, failure = None, exc  # bytes of no known format
    if model is not None and not textless(type(model)):
        return model, None, None
    from shaderkit.formats.archive.path import shader_members

    return model, shader_members(name, data), failure


def _nothing_inside(name: str, model: ShaderFile | None, failure: ShaderFormatError | None) -> ShaderkitError:
    """The error of a named input with no text of its own and no shaders inside: for bytes of no
    known format (``failure``) the usual one, which names the known files inside, if any."""
    if failure is not None:
        return failure
    kind = model.format_name if model is not None else "a file"
    return UnsupportedOperation(f"{name}: {kind} with no shaders inside (no text of its own; "
                                "`shaderkit ls` lists what it holds)")


def disasm_file(file: str, output: str, offsets: bool = False, raw: bool = False, exact: bool = False,
                hex_literals: bool = False, color: bool | None = None) -> int:
    """``disasm FILE [-o OUT]``: the listing of FILE into OUT (``-``: standard output). A file with
    no text of its own that holds shaders (an archive, a game executable) is the folder of its
    shaders: with -o, one NAME.asm per shader goes into the folder OUT (:func:`disasm_files`); on
    standard output, its one shader's listing (several need -o). The exit status."""
    from shaderkit.cli.common import write_output
    from shaderkit.cli.listing import _coloured, listing_of, use_colour

    model, members, failure = _open(file, None)
    if members is not None:
        if len(members) > 1:
            if output == "-":
                shown = ", ".join(m.name for m in members[:3]) + (", ..." if len(members) > 3 else "")
                raise UnsupportedOperation(f"{file} holds {len(members)} shaders ({shown}): name one, or write "
                                           "their listings into a folder with -o DIR")
            return _write_listings([(m.name, m.data, m.error) for m in members], output, offsets, raw, exact,
                                   hex_literals, color)
        if not members:
            raise _nothing_inside(file, model, failure)
        if members[0].error:
            raise UnsupportedOperation(f"{members[0].name}: {members[0].error}")
        file, model = members[0].name, parse_named(members[0].name, members[0].data)
    assert model is not None  # (None only for a package: its members above)
    try:
        text = listing_of(model, offsets, raw, exact, hex_literals)
    except UnsupportedOperation as exc:
        raise UnsupportedOperation(f"{file}: {exc}") from None
    write_output(output, _coloured(text, model) if use_colour(color, output) else text)
    return 0


def disasm_files(files: tuple[str, ...] | list[str], output: str, offsets: bool = False, raw: bool = False,
                 exact: bool = False, hex_literals: bool = False, color: bool | None = None) -> int:
    """``disasm -o DIR FILES...``: one NAME.asm per input (folders searched for shader files; a
    file with no text of its own counts as the folder of the shaders inside it) in the folder
    ``output``; a file that cannot be disassembled is reported on stderr and the others still
    are. The exit status: 1 when a file failed."""
    inputs, skipped = expand_inputs(files, packages=True)
    return _write_listings([(name, None, "") for name in inputs], output, offsets, raw, exact, hex_literals, color,
                           skipped, {_normal(name) for name in files})


def _write_listings(inputs: list[tuple[str, bytes | None, str]], output: str, offsets: bool, raw: bool, exact: bool, hex_literals: bool,
                    color: bool | None, skipped: int = 0, named: set[str] | frozenset[str] = frozenset()) -> int:
    """The batch of :func:`disasm_files` over ``inputs`` (name, bytes or None: read on use, why it
    cannot be listed or ""; the archive code stays unloaded for plain files):
    a file with no text of its own is replaced by the shaders inside it; one found in a folder
    that holds none is skipped, one ``named`` is reported. A file that fails keeps its output name."""
    from shaderkit.cli.common import echo
    from shaderkit.cli.listing import _coloured, listing_of

    os.makedirs(output, exist_ok=True)
    failed = written = 0
    taken: set[str] = set()
    pending = list(reversed(inputs))
    while pending:
        name, given, error = pending.pop()
        try:
            if error:
                raise UnsupportedOperation(error)
            model, members, failure = _open(name, given)
            if members is not None:
                if members:
                    pending.extend((m.name, m.data, m.error) for m in reversed(members))
                    continue
                if name not in named:  # (found in a folder: an archive of other files, or no shader)
                    skipped += 1
                    continue
                raise _nothing_inside(name, model, failure)
            assert model is not None
            text = listing_of(model, offsets, raw, exact, hex_literals)
            write_file(os.path.join(output, _distinct_stem(name, taken) + ".asm"),
                       _coloured(text, model) if color else text)
            written += 1
        except (ShaderkitError, OSError) as exc:
            _distinct_stem(name, taken)  # (its name stays taken, as when every input had one)
            failed += 1
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            message = reason if reason.startswith(name) else f"{name}: {reason}"
            echo(f"shaderkit: {message}", err=True)
    if failed or skipped:
        note = f", {skipped} files in folders skipped (not shaders)" if skipped else ""
        echo(f"shaderkit: {written} written, {failed} failed{note}", err=True)
    return 1 if failed else 0


def write_file(path: str, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` in a folder that exists (the batch's -o folder): one
    unbuffered open/write/close, no folder checks per file."""
    data = text.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def expand_inputs(names: tuple[str, ...] | list[str], packages: bool = False) -> tuple[list[str], int]:
    """(inputs, skipped): files named, plus the files of known formats below each folder named;
    the other files in folders are skipped (counted), files named explicitly never are.
    ``packages``: files of unknown formats in folders are inputs too (shaders may lie inside)."""
    from shaderkit.cli.common import walk_paths
    from shaderkit.formats.registry import detect

    inputs: list[str] = []
    skipped = 0
    for name in names:
        if not os.path.isdir(name):
            inputs.append(name)
            continue
        for path in walk_paths((name,)):
            if not packages:
                with open(path, "rb") as handle:
                    head = handle.read(4096)
                if detect(head) is None:
                    skipped += 1
                    continue
            inputs.append(str(path))
    unique = list(dict.fromkeys(map(_normal, inputs)))  # named twice: once
    return unique, skipped


def _normal(name: str) -> str:
    """``name`` as the batch spells it (a file path normalised; a member path as given)."""
    return os.path.normpath(name) if "//" not in name else name
