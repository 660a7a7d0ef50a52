"""``shaderkit disasm`` over several files without click: output names, the folder walk and the
batch loop. The click command (``disasm.py``) and the console script's fast path (``fast.py``)
both run :func:`disasm_files`."""

from __future__ import annotations

import os

#: file-name endings taken off an input's name before ".asm" goes on (longest first)
KNOWN_SUFFIXES = (
    ".bnsh_vert", ".bnsh_frag", ".bnsh_geom", ".bnsh_comp", ".sharcfb", ".bfsha", ".bcsdr", ".shbin",
    ".bnsh", ".dksh", ".sharc", ".dxbc", ".csdr", ".dvob", ".dvoj", ".bfres", ".cso", ".fxo", ".fxb", ".vso", ".pso",
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


def disasm_files(files: tuple[str, ...] | list[str], output: str, offsets: bool = False, raw: bool = False,
                 exact: bool = False, hex_literals: bool = False, color: bool | None = None) -> int:
    """``disasm -o DIR FILES...``: one NAME.asm per input (folders searched for shader files) in the
    folder ``output``; a file that cannot be disassembled is reported on stderr and the others still
    are. The exit status: 1 when a file failed."""
    from shaderkit.cli.common import echo, load_model
    from shaderkit.cli.listing import _coloured, listing_of
    from shaderkit.errors import ShaderkitError

    inputs, skipped = expand_inputs(files)
    os.makedirs(output, exist_ok=True)
    failed = 0
    for name, target in zip(inputs, output_names(inputs)):
        try:
            model = load_model(name)
            text = listing_of(model, offsets, raw, exact, hex_literals)
            write_file(os.path.join(output, target), _coloured(text, model) if color else text)
        except (ShaderkitError, OSError) as exc:
            failed += 1
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            message = reason if reason.startswith(name) else f"{name}: {reason}"
            echo(f"shaderkit: {message}", err=True)
    if failed or skipped:
        note = f", {skipped} files in folders skipped (not shaders)" if skipped else ""
        echo(f"shaderkit: {len(inputs) - failed} written, {failed} failed{note}", err=True)
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


def expand_inputs(names: tuple[str, ...] | list[str]) -> tuple[list[str], int]:
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
