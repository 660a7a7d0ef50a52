"""``shaderkit asm``: assemble SM4/5 (fxc syntax), PICA200 (picasso), Latte or Maxwell text into a file, optionally into a --base file."""

from __future__ import annotations

import os
import re

import click

from shaderkit.cli.common import member_steps, parse_named, read_input, store_member, utf8_text, write_output

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: a line that opens an SM4/5 program in fxc's listing syntax (hand edits may add a comment)
_SM4_VERSION = re.compile(r"^[ \t]*(ps|vs|gs|hs|ds|cs|lib)_[45]_[01][ \t]*(//.*)?$", re.M)
#: the first code line of a D3D9 listing (``ps_3_0``, ``vs_1_1``, ``ps_2_x``, ``vs_2_sw``, ``tx_1_0``;
#: the D3D8-era ``vs.1.1``; Helix mod's edited listings: ``vs_3_0 // Converted from vs_2_0``; fxc
#: 9.30's ``/    ps_3_0`` of a shader without constants)
_D3D9_VERSION = re.compile(r"^/?[ \t]*((ps|vs)([_.])[1-3]\3([0-4]|x|sw)|tx_1_0)[ \t]*((//|;).*)?$", re.M)


def detect_syntax(text: str) -> str:
    """``sm4`` for fxc listings (a ps_5_0 style version line), ``d3d9`` for fxc's D3D9 listings (a
    ps_3_0/vs_1_1 style version line), else ``pica``."""
    if _SM4_VERSION.search(text):
        return "sm4"
    return "d3d9" if _D3D9_VERSION.search(text) else "pica"


def _display(source: str) -> str:
    """A source's name in messages (``-`` is standard input)."""
    return source if source != "-" else "<stdin>"


def _default_output(source: str, extension: str = ".shbin") -> str:
    if source == "-":
        return "-"
    stem = os.path.basename(source)
    for suffix in (".pica", ".vsh", ".gsh", ".asm", ".s"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    if stem.lower().endswith((".v", ".g")):
        stem = stem[:-2]
    return os.path.join(os.path.dirname(source), stem + extension)


@click.command()
@click.argument("sources", nargs=-1, required=True)
@click.option("-o", "--output", default=None,
              help="SHBIN to write ('-' for standard output); default: first source with .shbin.")
@click.option("--header", "header", default=None, metavar="FILE",
              help="Also write a C header of uniform locations (like picasso -h).")
@click.option("--base", "base", default=None, metavar="FILE",
              help="SM4/5: replace the code of this DXBC container, keeping every other chunk. "
                   "D3D9: the bare shader (.cso/.vso/.pso) whose comment blocks (CTAB, DBUG, preshader) "
                   "the assembled code keeps. "
                   "Maxwell: the BNSH, NVN program blob or DKSH module whose stage code the assembled text replaces. "
                   "Wii U: GSH, SHARCFB or BFSHA whose programs an edited `disasm` listing replaces. "
                   "PICA200: the SHBIN, CGFX (.bcsdr) or CSDR whose shaders edited `disasm` text replaces.")
@click.option("--variation", type=int, default=None,
              help="Maxwell: replace only this BNSH variation's stage (NVN blob: part index; DKSH: program "
                   "index). Without --variation/--stage, every stage section of a whole `disasm` listing "
                   "goes back (a text without sections: variation 0, pixel).")
@click.option("--stage", default=None,
              help="Maxwell: replace only this BNSH stage (DKSH: program type, e.g. vertex/vert, fragment/frag, "
                   "compute/comp; not needed for a one-program module). See --variation.")
@click.option("-n", "--no-nop", "no_nop", is_flag=True,
              help="PICA200: no automatic padding NOPs (picasso -n), as picasso before v2.5 assembled.")
@click.option("--syntax", type=click.Choice(["auto", "sm4", "d3d9", "pica", "latte", "maxwell"]), default="auto",
              show_default=True,
              help="Source syntax. auto: fxc listings have a ps_5_0 style version line; decaf Latte sources "
                   "have CF lines and '; $' metadata (standard input needs an explicit latte); with --base "
                   "the base file decides between Latte listings and Maxwell text.")
def asm(sources: tuple[str, ...], output: str | None, header: str | None, base: str | None, variation: int | None,
        stage: str | None, no_nop: bool, syntax: str) -> None:
    """Assemble SOURCES: an fxc listing (SM4/5/5.1) into a DXBC container, an fxc D3D9 listing
    (vs_1_1..vs_3_0, ps_1_0..ps_3_0) into a bare D3D9 shader, PICA200 sources (picasso
    syntax) into one SHBIN (one DVLE per source in order), decaf latte-assembler sources into a GSH,
    or (with --base) Maxwell text into a BNSH/NVN stage and Wii U listings into their file.

    D3D9: the listing holds no constant table (its header is a summary), so a plain `asm` writes
    a shader without CTAB; `--base FILE.cso` keeps the base's comment blocks (`disasm` then `asm
    --base` of the same file gives back its bytes).

    A PICA200 source written by `shaderkit disasm` holds one part per DVLE, separated by
    "; shaderkit: DVLE n" lines; each part becomes its own DVLE.

    Wii U: decaf latte-assembler sources (a .vsh and/or a .psh, with their '; $NAME = value'
    metadata) become one GSH (default output: first source with .gsh).
    """
    from shaderkit.errors import AssemblyError

    raw = [(name, read_input(name)) for name in sources]  # (stdin is read once)
    texts = [(_display(name), data.decode("latin-1")) for name, data in raw]
    based = _Base(base) if base is not None else None
    if syntax == "auto":
        detected = detect_syntax(texts[0][1])
        if detected in ("sm4", "d3d9"):
            syntax = detected
    listing = _ONE_LISTING.get(syntax)
    if header and (listing is not None or based is not None):
        raise click.UsageError(_HEADER_IS_PICA)
    if listing is not None:
        kind, suffix, assemble_text = listing
        if len(texts) != 1:
            raise click.UsageError(f"{kind} takes one listing")
        try:
            data = assemble_text(texts[0][1], based)
        except AssemblyError as exc:
            raise exc.moved(filename=texts[0][0]) from None
        write_output(output or _default_output(sources[0], suffix), based.outer(data) if based is not None else data)
        return
    if based is not None:
        if syntax in ("auto", "pica") and _pica(texts, output, based, no_nop):
            return
        if syntax in ("auto", "latte") and _latte(raw, output, syntax, based):
            return
        if syntax in ("auto", "maxwell"):
            _maxwell(raw, output, based, variation, stage)
            return
        raise click.UsageError("--base is for SM4/5 listings, Maxwell text, Wii U listings and PICA200 text "
                               "(into a SHBIN, CGFX or CSDR)")
    if syntax == "maxwell":
        raise click.UsageError("Maxwell text needs --base FILE.bnsh (or an NVN blob or a DKSH module)")
    if syntax in ("auto", "latte") and _latte(raw, output, syntax, header=header):
        return
    from shaderkit.formats.dvlb.build import assemble_program, program_to_shbin

    program = assemble_program(texts, no_nop)
    data = program_to_shbin(program)
    write_output(output or _default_output(sources[0]), data)
    if header:
        write_output(header, program.c_header())


def _pica(texts: list[tuple[str, str]], output: str | None, base: _Base, no_nop: bool) -> bool:
    """PICA200 text (``shaderkit disasm`` output of a SHBIN, CGFX or CSDR file, edited) assembled
    into ``base``, the rest of the file kept; False when ``base`` is another format."""
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.dvlb.build import assemble_into
    from shaderkit.formats.dvlb.cgfx import Cgfx
    from shaderkit.formats.dvlb.csdr import Csdr
    from shaderkit.formats.dvlb.dvlb import Dvlb

    if not isinstance(base.model(), (Dvlb, Cgfx, Csdr)):
        return False
    if len(texts) != 1 or not output:
        raise click.UsageError("--base takes one source and needs -o OUT")
    name, text = texts[0]
    try:
        model = assemble_into(base.model(), text, name, no_nop)
    except AssemblyError as exc:
        raise exc.moved(filename=name) from None
    except ValueError as exc:  # (a CSDR around a DVOB: no program to replace)
        raise click.UsageError(str(exc)) from None
    write_output(output, base.outer(model.to_bytes()))
    return True


def _maxwell(raw: list[tuple[str, bytes]], output: str | None, base: _Base, variation: int | None,
             stage: str | None) -> None:
    """Maxwell text (``shaderkit disasm`` output of a BNSH/NVN/DKSH file) assembled into ``base``:
    one stage when --variation or --stage names it or the text has no sections, else every section."""
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.bnsh.text import assemble_into, assemble_listing, listing_sections

    if len(raw) != 1 or not output:
        raise click.UsageError("--base takes one source and needs -o OUT")
    name = _display(raw[0][0])
    text = utf8_text(name, raw[0][1])
    try:
        if variation is None and stage is None and listing_sections(text):
            data = assemble_listing(base.model(), text)
        else:
            data = assemble_into(base.model(), text, variation or 0, stage or "pixel")
    except AssemblyError as exc:
        raise exc.moved(filename=name) from None
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    write_output(output, base.outer(data))


class _Base:
    """``--base FILE`` (also an archive member, ``pack.szs//dir/x.cso``), read once: its bytes,
    the steps through the archives around it and, parsed when first asked for, its model."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.steps, self.data = member_steps(path)
        self._model: Any = None

    def model(self) -> Any:
        if self._model is None:
            self._model = parse_named(self.path, self.data, self.steps)
        return self._model

    def of(self, kind: type, what: str) -> Any:
        """The model, which must be a ``kind`` (a usage error names ``what`` it is not)."""
        model = self.model()
        if not isinstance(model, kind):
            raise click.UsageError(f"--base {self.path}: not {what}")
        return model

    def outer(self, data: bytes) -> bytes:
        """What ``-o`` gets for the assembled bytes: them, or for an archive member the whole
        outer file with them put back, as ``put`` writes it."""
        return store_member(self.path, self.steps, data)


def _assemble_dxbc(text: str, base: _Base | None) -> bytes:
    from shaderkit.formats.dxbc import assemble

    if base is None:
        return assemble.assemble_container(text).to_bytes()
    from shaderkit.formats.dxbc.container import DxbcContainer

    return assemble.assemble_with_base(text, base.of(DxbcContainer, "a DXBC container")).to_bytes()


def _assemble_d3d9(text: str, base: _Base | None) -> bytes:
    from shaderkit.formats.d3d9 import assemble

    if base is None:
        return assemble.assemble_shader(text).to_bytes()
    from shaderkit.formats.d3d9.shader import D3D9Shader

    return assemble.assemble_with_base(text, base.of(D3D9Shader, "a bare D3D9 shader")).to_bytes()


#: syntaxes assembled from one listing: (name in messages, output suffix, listing (+ --base) -> bytes)
_ONE_LISTING: dict[str, tuple[str, str, Callable[[str, _Base | None], bytes]]] = {
    "sm4": ("SM4/5", ".dxbc", _assemble_dxbc),
    "d3d9": ("D3D9", ".cso", _assemble_d3d9),
}


#: the one refusal of --header (only a PICA200 SHBIN assembled from sources has a C header)
_HEADER_IS_PICA = "--header is for PICA200 sources assembled without --base"


def _latte(raw: list[tuple[str, bytes]], output: str | None, syntax: str, base: _Base | None = None,
           header: str | None = None) -> bool:
    """Assemble decaf Latte sources into a GSH when ``--syntax latte`` says so or (auto) every
    source looks like one, or an edited ``disasm`` listing into a Wii U ``base``; False leaves the
    sources to the other syntaxes (a ``header`` asked for Latte sources is refused)."""
    from shaderkit.cli.latte_asm import apply_to_base, assemble_gsh, default_output, looks_like_latte

    if base is not None:
        return apply_to_base([(_display(name), data) for name, data in raw], output, base.model(), base.outer)
    if syntax == "auto" and any(name == "-" for name, _ in raw):
        return False
    texts = [(_display(name), data.decode("utf-8", "replace")) for name, data in raw]
    if syntax == "auto" and not all(looks_like_latte(text) for _, text in texts):
        return False
    if header:
        raise click.UsageError(_HEADER_IS_PICA)
    try:
        data = assemble_gsh(texts)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    write_output(output or default_output(raw[0][0]), data)
    return True
