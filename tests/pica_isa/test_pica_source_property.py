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
