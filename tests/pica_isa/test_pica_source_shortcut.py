"""disasm decides its pragmas (descriptor hints, DVLE header overrides, uniform orders) without
assembling its own text when the text's structure and picasso's descriptor merging show what
assembly would give; that decision must never disagree with the full check by assembly."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_params
from shaderkit.formats.dvlb import source
from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb, OperandDescriptor

FILES = corpus_params("pica", "*.shbin")


def _plain(model: Dvlb) -> list[str]:
    return source._sources(model, False, [{}] * len(model.dvles), "")


def _same(choice: source._Choice) -> source._Choice:
    hints, headers, rule, orders = choice
    return hints, headers, rule, orders if orders and any(orders) else None  # (no orders: None or all empty)


def _decided(model: Dvlb) -> source._Choice | None:
    units = source._units(model, False, [{}] * len(model.dvles), "")
    return source._decided_without_assembly(model, units, "")


def _agree(model: Dvlb) -> bool:
    """True when the shortcut decided without assembling (and then agreed with assembly)."""
    fast = _decided(model)
    if fast is not None:
        assert _same(fast) == _same(source._checked_by_assembly(model, _plain(model), ""))
    return fast is not None


def _plain_decided(model: Dvlb) -> bool:
    """True when the shortcut decided that the plain text needs no pragma (checked by _agree)."""
    return _agree(model) and _decided(model) == (False, [{}] * len(model.dvles), "", None)


@pytest.mark.parametrize("path", FILES)
def test_shortcut_is_sound_on_the_corpus(path: Path) -> None:
    _agree(Dvlb.from_bytes(path.read_bytes()))


def test_shortcut_covers_the_corpus_but_geometry_shaders() -> None:
    paths = [p.values[0] for p in FILES if p.values[0] is not None]
    if not paths:
        pytest.skip("corpus not found")
    # every corpus file but the one geometry shader (RetroArch ctr_sprite): picasso and old picasso
    # vertex shaders with and without flow control, nihstro files with label tables
    assert sum(_agree(Dvlb.from_bytes(p.read_bytes())) for p in paths) >= 24


_reg = st.integers(0, 15).map(lambda n: f"r{n}")
_swz = st.sampled_from(["", ".x", ".yx", ".wzyx", ".xxxx", ".zw"])
_mask = st.sampled_from(["", ".x", ".xy", ".xyz", ".yw", ".w"])
_src = st.builds(lambda neg, r, s: f"{'-' if neg else ''}{r}{s}", st.booleans(),
                 st.one_of(_reg, st.just("k"), st.builds(lambda n: f"u[{n}]", st.integers(0, 3))), _swz)
_narrow = st.builds(lambda neg, r, s: f"{'-' if neg else ''}{r}{s}", st.booleans(), _reg, _swz)
_dst = st.builds(lambda r, m: f"{r}{m}", st.one_of(_reg, st.just("o0")), _mask)
_line = st.one_of(
    st.builds(lambda op, d, a, b: f"{op} {d}, {a}, {b}",
              st.sampled_from(["add", "dp3", "dp4", "dph", "mul", "sge", "slt", "max", "min"]), _dst, _src, _narrow),
    st.builds(lambda op, d, a, b: f"{op} {d}, {a}, {b}", st.sampled_from(["dph", "sge", "slt"]), _dst, _narrow, _src),
    st.builds(lambda op, d, a: f"{op} {d}, {a}", st.sampled_from(["mov", "rcp", "rsq", "flr", "ex2"]), _dst, _src),
    st.builds(lambda d, a, b, c: f"mad {d}, {a}, {b}, {c}", _dst, _narrow, _src, _narrow),
    st.builds(lambda a, b: f"cmp {a}, lt, ge, {b}", _src, _narrow),
    st.builds(lambda t, a: f"mova {t}, {a}", st.sampled_from(["a0.x", "a0.y", "a0.xy"]), _narrow),
    st.just("nop"),
)


def _program(lines: list[str]) -> Dvlb:
    src = (".fvec u[4]\n.constf k(1.0, 2.0, 0.5, -1.0)\n.out o_pos position\n.proc main\n"
           + "\n".join("  " + line for line in lines) + "\n  end\n.end\n")
    return Dvlb.from_bytes(assemble_sources([("p.pica", src)]))


@settings(max_examples=80, deadline=None)
@given(st.lists(_line, min_size=1, max_size=30))
def test_shortcut_accepts_picasso_output(lines: list[str]) -> None:
    # what picasso's merging made, it makes again: the shortcut proves it without assembling
    assert _plain_decided(_program(lines))


@settings(max_examples=80, deadline=None)
@given(st.lists(_line, min_size=1, max_size=30), st.data())
def test_shortcut_never_contradicts_assembly_on_edited_tables(lines: list[str], data: st.DataObject) -> None:
    # split, reorder or alter descriptors (as nihstro keeps them), rename a uniform: wherever the
    # shortcut still says "plain", assembling the plain text must confirm it
    model = _program(lines)
    table = model.dvlp.opdescs
    for _ in range(data.draw(st.integers(1, 3))):
        choice = data.draw(st.integers(0, 3))
        if choice == 3:
            uniform = model.dvles[0].uniforms[0]
            uniform.name = data.draw(st.sampled_from(["r1", "c0", "v0", "o0", "R2", "b0", "k2", "x1"]))
        elif choice == 0 and table:
            i = data.draw(st.integers(0, len(table) - 1))
            table[i] = OperandDescriptor(table[i].value ^ (1 << data.draw(st.integers(0, 30))))
        elif choice == 1 and len(table) < 32:
            table.append(OperandDescriptor(data.draw(st.integers(0, 0x7FFFFFFF))))
        elif model.dvlp.code:
            pos = data.draw(st.integers(0, len(model.dvlp.code) - 1))
            word = model.dvlp.code[pos]
            if word >> 26 < 0x20 and table:
                model.dvlp.code[pos] = (word & ~0x7F) | data.draw(st.integers(0, len(table) - 1))
    _agree(model)


def test_register_like_uniform_name_goes_to_the_full_check() -> None:
    # a uniform named "r1" (another tool may write one) shadows the register r1 in the text
    model = _program(["mov r2, r1", "add r0, u[1], r2"])
    model.dvles[0].uniforms[0].name = "r1"
    assert not _agree(model)


# -- the check by assembly with instruction lines handed over already scanned ---------------------


def _scanned_equals_text(model: Dvlb) -> None:
    units = source._units(model, False, [{}] * len(model.dvles), "", scan=True)
    texts = ["\n".join(unit.lines) + "\n" for unit in units]
    assert texts == _plain(model)  # scanning does not change the text
    if any(unit.notes for unit in units):
        return  # lossy text is always parsed
    assert source._rebuild_scanned(units) == source._rebuild(texts)


@pytest.mark.parametrize("path", FILES)
def test_scanned_lines_assemble_like_their_text_on_the_corpus(path: Path) -> None:
    _scanned_equals_text(Dvlb.from_bytes(path.read_bytes()))


_words = st.one_of(
    st.integers(0, 0xFFFFFFFF),
    st.sampled_from([0x88000000, 0x84000000, 0x4E000000, 0x4E0A2001, 0x62045180, 0xD0232480, 0xF0229240,
                     0x48011000, 0xBC000000, 0x9C400000, 0xA4000405, 0x9D000402]),
)


@settings(max_examples=120, deadline=None)
@given(st.lists(_words, min_size=1, max_size=24), st.lists(st.integers(0, 0x7FFFFFFF), max_size=10),
       st.integers(0, 3), st.sampled_from(["", "r1", "pos", "c3"]))
def test_scanned_lines_assemble_like_their_text_on_any_code(code: list[int], descs: list[int], main: int,
                                                            name: str) -> None:
    # arbitrary words and descriptors (aliases, inverted forms, input clashes, MAD limits...)
    from shaderkit.formats.dvlb.dvlb import Dvle, Dvlp, Output, Uniform

    dvle = Dvle(main_offset=main, endmain_offset=len(code),
                outputs=[Output(0, 0, 0xF), Output(2, 9, 0xF)],
                uniforms=[Uniform("u", 0x10, 0x13)] + ([Uniform(name, 0x20, 0x20)] if name else []))
    model = Dvlb(dvlp=Dvlp(code=code, opdescs=[OperandDescriptor(d) for d in descs]), dvles=[dvle])
    _scanned_equals_text(model)


@settings(max_examples=60, deadline=None)
@given(st.lists(_line, min_size=1, max_size=30))
def test_scanned_lines_assemble_like_their_text_on_picasso_output(lines: list[str]) -> None:
    _scanned_equals_text(_program(lines))


# -- flow control: blocks, procedures, calls and jumps laid out as picasso lays them out ------------

_alu = st.sampled_from(["add r0, r1, r2", "mul r1.xy, k, r0", "mov r2, u[1]", "dp4 o0.x, u[0], r0", "mad r0, r1, k, r2"])


def _body(depth: int) -> st.SearchStrategy[list[str]]:
    """Lines of a block body: instructions and (to ``depth``) nested if/else/for blocks, jumps, calls."""
    if depth == 0:
        return st.lists(_alu, min_size=0, max_size=3)
    inner = _body(depth - 1)
    block = st.one_of(
        st.builds(lambda a, b: ["ifu f0", *a, ".end"], inner, st.just(None)),
        st.builds(lambda a, b: ["ifc cmp.x", *a, ".else", *b, ".end"], inner, inner),
        st.builds(lambda a, b: ["ifc !cmp.x && cmp.y", *a, ".end"], inner, st.just(None)),
        st.builds(lambda a, b: ["for n0", *a, ".end"], inner, st.just(None)),
        st.just(["call helper"]),
        st.just(["callu f1, helper"]),
        st.just(["breakc cmp.y"]),
    )
    return st.lists(st.one_of(_alu.map(lambda line: [line]), block), min_size=0, max_size=4).map(
        lambda parts: [line for part in parts for line in part])


_FLOW_SEEN = {True: 0, False: 0}


def _flow_program(body: list[str], helper: list[str], jump: bool) -> Dvlb | None:
    lines = [*body, *(["jmpu !f2, skip", "mov r3, r0", "skip:"] if jump else []), "end"]
    src = (".fvec u[4]\n.constf k(1.0, 2.0, 0.5, -1.0)\n.out o_pos position\n.bool f0\n.bool f1\n.bool f2\n"
           ".ivec n0\n.proc main\n" + "\n".join(lines) + "\n.end\n.proc helper\n" + "\n".join(helper or ["nop"])
           + "\n.end\n")
    try:
        return Dvlb.from_bytes(assemble_sources([("p.pica", src)]))
    except Exception:  # noqa: BLE001 (an impossible program: picasso refuses it too)
        return None


@settings(max_examples=120, deadline=None)
@given(_body(2), st.lists(_alu, max_size=3), st.booleans(), st.integers(0, 3))
def test_shortcut_never_contradicts_assembly_on_flow_control(body: list[str], helper: list[str], jump: bool,
                                                             edit: int) -> None:
    model = _flow_program(body, helper, jump)
    _FLOW_SEEN[model is not None] += 1
    if model is None:
        return
    dvle = model.dvles[0]
    if edit == 1:
        dvle.version = 0  # (old picasso / nihstro headers)
    elif edit == 2:
        dvle.endmain_offset = 0
    elif edit == 3 and len(model.dvlp.opdescs) > 1:
        model.dvlp.opdescs.reverse()  # the descriptors in another order: hints
        for pos, word in enumerate(model.dvlp.code):
            if word >> 26 < 0x20 or word >> 29 in (6, 7):  # (forms with a descriptor index)
                mad = word >> 29 in (6, 7)
                index = word & (0x1F if mad else 0x7F)
                if index < len(model.dvlp.opdescs):
                    model.dvlp.code[pos] = (word & ~(0x1F if mad else 0x7F)) | (len(model.dvlp.opdescs) - 1 - index)
    _agree(model)


def test_flow_control_programs_were_made() -> None:
    # (runs after the property test above: most generated programs did assemble)
    if sum(_FLOW_SEEN.values()):
        assert _FLOW_SEEN[True] > _FLOW_SEEN[False]


def test_shortcut_decides_flow_control_from_picasso() -> None:
    model = _flow_program(["ifc cmp.x", "add r0, r1, r2", "mov r1, r0", ".else", "mul r1.xy, k, r0",
                           "mov r2, u[1]", ".end", "for n0", "add r0, r1, r2", "mov r2, u[1]", ".end",
                           "call helper"], ["mov r2, u[1]"], True)
    assert model is not None
    assert _plain_decided(model)


@settings(max_examples=150, deadline=None)
@given(st.lists(_words, min_size=1, max_size=24), st.lists(st.integers(0, 0x7FFFFFFF), max_size=10),
       st.integers(0, 3), st.sampled_from(["", "r1", "pos", "c3"]), st.integers(0, 2))
def test_shortcut_never_contradicts_assembly_on_any_code(code: list[int], descs: list[int], main: int, name: str,
                                                        outputs: int) -> None:
    # arbitrary words, descriptors, headers and outputs: where the shortcut decides, assembly agrees
    from shaderkit.formats.dvlb.dvlb import Dvle, Dvlp, Output, Uniform

    outs = [[Output(0, 0, 0xF), Output(2, 9, 0xF)], [Output(0, 0, 0xF)], [Output(0, 0, 0x3), Output(2, 0, 0xC)]][outputs]
    dvle = Dvle(main_offset=main, endmain_offset=len(code), outputs=outs,
                uniforms=[Uniform("u", 0x10, 0x13)] + ([Uniform(name, 0x20, 0x20)] if name else []))
    model = Dvlb(dvlp=Dvlp(code=code, opdescs=[OperandDescriptor(d) for d in descs]), dvles=[dvle])
    _agree(model)


_emit = st.builds(lambda v, flags, body: [f"setemit {v}{flags}", *body, "emit"], st.integers(0, 2),
                  st.sampled_from(["", ", prim", ", inv", ", prim inv"]), st.lists(_alu, max_size=2))


@settings(max_examples=60, deadline=None)
@given(st.lists(_emit, min_size=1, max_size=4), st.booleans(), st.integers(0, 2))
def test_shortcut_never_contradicts_assembly_on_geometry_shaders(emits: list[list[str]], vertex_first: bool,
                                                                edit: int) -> None:
    # picasso's compatible geometry mode (a bare .gsh, uniforms shared with the vertex shader before it)
    geometry = (".gsh\n.fvec u[4]\n.constf k(1.0, 2.0, 0.5, -1.0)\n.out o_pos position\n.proc main_g\n" + "\n".join(line for e in emits for line in e)
                + "\nend\n.end\n")
    sources = [("g.pica", geometry.replace(".proc main_g", ".entry main_g\n.proc main_g") if vertex_first else
                geometry.replace("main_g", "main"))]
    if vertex_first:
        sources.insert(0, ("v.pica", ".fvec u[4]\n.out o_pos position\n.proc main\nmov o_pos, u[0]\nend\n.end\n"))
    try:
        model = Dvlb.from_bytes(assemble_sources(sources))
    except Exception:  # noqa: BLE001 (an impossible program: picasso refuses it too)
        return
    if edit == 1:
        model.dvles[-1].version = 0
    elif edit == 2:
        model.dvles[-1].output_mask = 0
    _agree(model)


def test_shortcut_decides_compatible_geometry_shaders() -> None:
    src = ".gsh\n.fvec u[2]\n.out o_pos position\n.proc main\nsetemit 0, prim\nmov o_pos, u[1]\nemit\nend\n.end\n"
    assert _plain_decided(Dvlb.from_bytes(assemble_sources([("g.pica", src)])))


@pytest.mark.parametrize("path", FILES)
def test_shortcut_never_contradicts_assembly_on_damaged_files(path: Path) -> None:
    # bit flips anywhere in a real file (headers, tables, code): constants or outputs the text
    # cannot declare must send the decision to assembly, never to different pragmas
    import random

    from shaderkit.errors import ShaderFormatError

    data = path.read_bytes()
    rng = random.Random(path.name)
    for _ in range(24):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        try:
            model = Dvlb.from_bytes(bytes(damaged))
        except ShaderFormatError:
            continue
        _agree(model)


def test_setemit_in_a_vertex_dvle_is_left_to_assembly() -> None:
    # picasso makes the DVLE of a text holding setemit a geometry shader: the same words under a
    # vertex DVLE are not what picasso writes for the text, so the shortcut must not decide them
    src = ".gsh\n.fvec u[2]\n.out o_pos position\n.proc main\nsetemit 0, prim\nmov o_pos, u[1]\nemit\nend\n.end\n"
    model = Dvlb.from_bytes(assemble_sources([("g.pica", src)]))
    assert _decided(model) is not None
    model.dvles[0].shader_type = 0
    assert _decided(model) is None
    _agree(model)
