"""``shaderkit disasm``: the text of every program in one or many files, with optional offsets, raw words and hex literals."""

from __future__ import annotations

import os

import click

from shaderkit.cli.common import load_model, write_output
from shaderkit.cli.listing import _coloured, _text, format_id, listing_of, use_colour  # noqa: F401 (used by tests, diff, demo)

#: file-name endings taken off an input's name before ".asm" goes on (longest first)
KNOWN_SUFFIXES = (
    ".bnsh_vert", ".bnsh_frag", ".bnsh_geom", ".bnsh_comp", ".sharcfb", ".bfsha", ".bcsdr", ".shbin",
    ".bnsh", ".sharc", ".dxbc", ".csdr", ".dvob", ".dvoj", ".bfres", ".cso", ".fxo", ".vso", ".pso",
    ".gsh", ".gtx", ".vsh", ".psh", ".bin", ".szs", ".zs", ".o",
)


def output_stem(name: str) -> str:
    """The base name of input ``name`` without its known shader suffixes (``a/b.cso`` -> ``b``)."""
    stem = os.path.basename(name.rstrip("/").split("//")[-1]) or "shader"
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
    stems: list[str] = []
    for name in files:
        stem = output_stem(name)
        chosen, n = stem, 2
        while chosen.lower() in taken:
            chosen, n = f"{stem}-{n}", n + 1
        taken.add(chosen.lower())
        stems.append(chosen)
    return stems


def output_names(files: tuple[str, ...] | list[str]) -> list[str]:
    """One distinct ``.asm`` name per input (:func:`distinct_stems` + ``.asm``)."""
    return [stem + ".asm" for stem in distinct_stems(files)]


@click.command()
@click.argument("files", nargs=-1, required=True)
@click.option("-o", "--output", default="-", help="Output file, or a folder when several files are given.")
@click.option("--offsets", is_flag=True,
              help="Show each instruction's byte offset in its program (DXBC, SHBIN, Latte, Maxwell).")
@click.option("--raw", is_flag=True, help="Show each instruction's raw 32-bit words (DXBC, SHBIN, Latte, Maxwell).")
@click.option("--hex", "hex_literals", is_flag=True,
              help="Print literals as their bits in hex: DXBC immediates l(0x3f800000) (fxc /Lx), ICB and "
                   "declaration values; Maxwell float immediates. Reads back with `shaderkit asm`.")
@click.option("--color/--no-color", "color", default=None,
              help="Colour the text (default: only when writing to a terminal).")
@click.option("--split", is_flag=True,
              help="SHBIN/DVLB: one picasso source per DVLE into the folder -o names (NAME.N.v.pica, .g.pica "
                   "for a geometry shader), numbered in the order picasso and `shaderkit asm` take them back.")
@click.option("--exact", is_flag=True,
              help="DXBC: print floats so that they read back bit for bit (and the words fxc does not "
                   "print), so `shaderkit asm` rebuilds identical code from the text alone.")
def disasm(files: tuple[str, ...], output: str, offsets: bool, raw: bool, color: bool | None, exact: bool,
           hex_literals: bool, split: bool) -> None:
    """Print the text of every program in FILES (fxc style for DXBC, picasso syntax for PICA200,
    decaf listings with gfd-tool-like headers for Wii U GSH, SHARCFB and BFSHA, SASS for Switch).

    With several FILES, folders (searched for shader files) or -o naming a folder, one NAME.asm is
    written per input into the folder given by -o; a file that cannot be disassembled is reported on
    stderr and the others still are (exit status 1 at the end).
    """
    if split:
        _split(files, output, offsets or raw or exact or hex_literals)
        return
    if len(files) == 1 and not os.path.isdir(files[0]) and not (output != "-" and os.path.isdir(output)):
        from shaderkit.errors import UnsupportedOperation

        model = load_model(files[0])
        try:
            text = listing_of(model, offsets, raw, exact, hex_literals)
        except UnsupportedOperation as exc:
            raise UnsupportedOperation(f"{files[0]}: {exc}") from None
        write_output(output, _coloured(text, model) if use_colour(color, output) else text)
        return
    if output == "-":
        raise click.UsageError("several inputs need -o DIR")
    from shaderkit.errors import ShaderkitError

    inputs, skipped = _expand(files)
    os.makedirs(output, exist_ok=True)
    failed = 0
    for name, target in zip(inputs, output_names(inputs)):
        try:
            model = load_model(name)
            text = listing_of(model, offsets, raw, exact, hex_literals)
            _write_file(os.path.join(output, target), _coloured(text, model) if color else text)
        except (ShaderkitError, OSError) as exc:
            failed += 1
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            message = reason if reason.startswith(name) else f"{name}: {reason}"
            click.echo(f"shaderkit: {message}", err=True)
    if failed or skipped:
        note = f", {skipped} files in folders skipped (not shaders)" if skipped else ""
        click.echo(f"shaderkit: {len(inputs) - failed} written, {failed} failed{note}", err=True)
    if failed:
        raise click.exceptions.Exit(1)


def split_names(stem: str, geometry: list[bool]) -> list[str]:
    """The file names of one SHBIN's per-DVLE sources: ``STEM.N.v.pica`` (``.g.pica`` for a
    geometry shader), N zero-padded so that the names sort in DVLE order."""
    width = len(str(max(len(geometry) - 1, 0)))
    return [f"{stem}.{n:0{width}d}.{'g' if g else 'v'}.pica" for n, g in enumerate(geometry)]


def _split(files: tuple[str, ...], output: str, other_options: bool) -> None:
    """``disasm --split``: every input's DVLEs as separate picasso sources in the folder ``output``."""
    from shaderkit.errors import UnsupportedOperation
    from shaderkit.formats.dvlb.dvlb import Dvlb
    from shaderkit.formats.dvlb.source import dvlb_to_sources

    if output == "-":
        raise click.UsageError("--split writes several files: name a folder with -o")
    if other_options:
        raise click.UsageError("--split writes plain picasso sources: no --offsets, --raw, --exact or --hex")
    inputs, _ = _expand(files)
    models = []
    for name in inputs:
        model = load_model(name)
        if not isinstance(model, Dvlb):
            raise UnsupportedOperation(f"{name}: --split is for SHBIN/DVLB files")
        models.append(model)
    os.makedirs(output, exist_ok=True)
    for stem, model in zip(distinct_stems(inputs), models):
        targets = split_names(stem, [d.is_geometry for d in model.dvles])
        for target, text in zip(targets, dvlb_to_sources(model)):
            _write_file(os.path.join(output, target), text)


def _write_file(path: str, text: str) -> None:
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


def _expand(names: tuple[str, ...]) -> tuple[list[str], int]:
    """(inputs, skipped): files named, plus the shader files below each folder named; files in
    folders that are no known format are skipped (counted), files named explicitly never are."""
    from shaderkit.cli.common import walk_paths
    from shaderkit.formats.registry import detect

    inputs: list[str] = []
    skipped = 0
    for name in names:
        if not os.path.isdir(name):
            inputs.append(name)
            continue
        for path in walk_paths((name,)):
            with open(path, "rb") as handle:
                head = handle.read(4096)
            if detect(head) is None:
                skipped += 1
            else:
                inputs.append(str(path))
    unique = list(dict.fromkeys(os.path.normpath(n) if "//" not in n else n for n in inputs))  # named twice: once
    return unique, skipped
