"""Property: for random picasso programs, asm(disasm(asm(src))) == asm(src) byte for byte."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dvlb.source import dvlb_to_source

_COMP = "xyzw"
_swz = st.text(alphabet=_COMP, min_size=0, max_size=4)
_mask = st.lists(st.sampled_from(_COMP), min_size=1, max_size=4, unique=True).map(
    lambda cs: "".join(c for c in _COMP if c in cs))


def _reg(prefix: str, count: int) -> st.SearchStrategy[str]:
    return st.integers(0, count - 1).map(lambda n: f"{prefix}{n}")


_narrow = st.one_of(_reg("r", 16), st.just("v0"))
_wide = st.one_of(_narrow, st.builds(lambda n: f"u[{n}]", st.integers(0, 7)), st.just("k"),
                  st.builds(lambda i, n: f"u[{i}+{n}]", st.sampled_from(["a0.x", "a0.y", "aL"]),
                            st.integers(0, 3)))
_dest = st.one_of(_reg("r", 16), st.just("o0"), st.just("o1"))


def _operand(reg: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(lambda neg, r, s: f"{'-' if neg else ''}{r}{'.' + s if s else ''}",
                     st.booleans(), reg, _swz)


_dst = st.builds(lambda r, m: f"{r}.{m}", _dest, _mask)
_two = st.builds(lambda op, d, a, b: f"{op} {d}, {a}, {b}",
                 st.sampled_from(["add", "dp3", "dp4", "dph", "dst", "mul", "sge", "slt", "max", "min"]),
                 _dst, _operand(_wide), _operand(_narrow))
_inv = st.builds(lambda op, d, a, b: f"{op} {d}, {a}, {b}", st.sampled_from(["dph", "sge", "slt"]),
                 _dst, _operand(_reg("r", 16)), _operand(st.just("k")))
_one = st.builds(lambda op, d, a: f"{op} {d}, {a}",
                 st.sampled_from(["ex2", "lg2", "litp", "flr", "rcp", "rsq", "mov"]), _dst, _operand(_wide))
_cmp = st.builds(lambda a, x, y, b: f"cmp {a}, {x}, {y}, {b}", _operand(_wide),
                 st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]),
                 st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]), _operand(_narrow))
_mad = st.builds(lambda d, a, b, c: f"mad {d}, {a}, {b}, {c}", _dst, _operand(_reg("r", 16)),
                 _operand(st.one_of(_reg("r", 16), st.just("k"))), _operand(_reg("r", 16)))
_mova = st.builds(lambda t, a: f"mova {t}, {a}", st.sampled_from(["a0.x", "a0.y", "a0.xy"]),
                  _operand(_reg("r", 16)))
_inst = st.one_of(_two, _inv, _one, _cmp, _mad, _mova)


@settings(max_examples=120, deadline=None)
@given(st.lists(_inst, min_size=1, max_size=40), st.integers(0, 20))
def test_random_programs_roundtrip(lines: list[str], gap: int) -> None:
    head = f".fvec pad[{gap + 1}]\n.fvec u[12]\n.constf k(1.0, 2.0, 0.5, -1.0)\n.out o_pos position\n.out o_clr color\n"
    src = head + ".proc main\n" + "\n".join("  " + line for line in lines) + "\n  end\n.end\n"
    data = assemble_sources([("p.pica", src)])
    text = dvlb_to_source(Dvlb.from_bytes(data))
    assert "; shaderkit: desc" not in text  # picasso's own merging rebuilds the table
    assert assemble_sources([("re.pica", text)]) == data, text


_simple = st.sampled_from(["add r0, r1, r2", "mul r3.xy, c0.yxzw, r1", "mov r4, -r5.wzyx", "nop",
                           "cmp r1, lt, ge, r2", "dp4 o0.x, c1, r0"])
_cond = st.sampled_from(["cmp.x", "!cmp.y", "cmp.x && cmp.y", "!cmp.x || cmp.y"])


@st.composite
def _block(draw: st.DrawFn, depth: int = 0, in_loop: bool = False) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 9 if depth < 3 else 2))
        if kind <= 2:
            lines.append(draw(_simple))
        elif kind == 3:
            lines.append(f"call helper{draw(st.integers(0, 1))}")
        elif kind == 4 and in_loop:
            lines.append(f"breakc {draw(_cond)}")
        elif kind == 5:
            lines.append(f"jmpc {draw(_cond)}, out")
        elif kind == 6:
            lines.append(f"jmpu {'!' if draw(st.booleans()) else ''}b{draw(st.integers(0, 15))}, out")
        elif kind in (7, 8):
            head = f"ifu b{draw(st.integers(0, 15))}" if kind == 7 else f"ifc {draw(_cond)}"
            lines.append(head)
            lines += draw(_block(depth + 1, in_loop))
            if draw(st.booleans()):
                lines.append(".else")
                lines += draw(_block(depth + 1, in_loop))
            lines.append(".end")
        else:
            lines.append(f"for i{draw(st.integers(0, 3))}")
            lines += draw(_block(depth + 1, True))
            lines.append(".end")
    return lines


@settings(max_examples=150, deadline=None)
@given(_block(), _block(), _block())
def test_random_flow_control_roundtrips(main: list[str], helper0: list[str], helper1: list[str]) -> None:
    procs = []
    for name, body in (("helper0", helper0), ("helper1", helper1), ("main", [*main, "out:", "end"])):
        procs.append(f".proc {name}\n" + "\n".join(body) + "\n.end\n")
    data = assemble_sources([("f.pica", "".join(procs))])
    text = dvlb_to_source(Dvlb.from_bytes(data))
    assert "; !" not in text and "; shaderkit: desc" not in text, text
    assert assemble_sources([("re.pica", text)]) == data, text


_POOL = [(".fvec", "mat", 4), (".fvec", "vec", 1), (".fvec", "arr", 3), (".fvec", "_priv", 2),
         (".ivec", "cnt", 1), (".ivec", "cnt2", 2), (".bool", "flag", 1), (".bool", "flags", 4)]


@st.composite
def _unit(draw: st.DrawFn, index: int) -> str:
    chosen = draw(st.lists(st.sampled_from(_POOL), unique=True, max_size=len(_POOL)))
    lines = [f"{kind} {name}[{size}]" if size > 1 else f"{kind} {name}" for kind, name, size in chosen]
    for n in range(draw(st.integers(0, 3))):
        lines.append(f".constf k{n}({draw(st.floats(-1e6, 1e6, width=32))}, 1.0, 0.0, -2.0)")
    if draw(st.booleans()):
        lines.append(".consti kc(4, 0, 1, 0)")
    if draw(st.booleans()):
        lines.append(f".setb b{draw(st.integers(0, 15))} {draw(st.sampled_from(['true', 'false']))}")
    lines.append(".out opos position")
    if draw(st.booleans()):
        lines.append(".out - texcoord0 o1.xy")
    fvecs = [name for kind, name, _ in chosen if kind == ".fvec"]
    body = [f"  mov r{i}, {name}" for i, name in enumerate(fvecs)]
    lines.append(f".entry m{index}\n.proc m{index}\n" + "\n".join(body) + "\n  mov opos, r0\n  end\n.end")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(*[_unit(i) for i in range(n)])))
def test_random_uniform_layouts_roundtrip(units: tuple[str, ...]) -> None:
    data = assemble_sources([(f"u{i}.pica", text) for i, text in enumerate(units)])
    text = dvlb_to_source(Dvlb.from_bytes(data))
    assert "; !" not in text, text
    assert assemble_sources([("re.pica", text)]) == data, text
