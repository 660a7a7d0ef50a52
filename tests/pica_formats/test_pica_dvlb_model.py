"""Property: any DVLB model survives write -> parse, and the parsed file rebuilds exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.formats.dvlb.dvlb import Constant, Dvlb, Dvle, Dvlp, Label, OperandDescriptor, Output, Uniform

U8, U16, U32 = st.integers(0, 0xFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFFFF)
NAMES = st.text("abcxyz_$0123", min_size=1, max_size=10)

constants = st.builds(Constant, st.integers(0, 2), st.integers(0, 95), st.tuples(U32, U32, U32, U32))
labels = st.builds(Label, U8, U32, NAMES, U32, st.binary(min_size=3, max_size=3))
outputs = st.builds(Output, st.integers(0, 9), st.integers(0, 15), st.integers(0, 15), st.binary(min_size=3, max_size=3))
uniforms = st.builds(Uniform, NAMES, st.integers(0, 0x87), st.integers(0, 0x87))
dvles = st.builds(
    Dvle,
    shader_type=st.integers(0, 1),
    main_offset=U32,
    endmain_offset=U32,
    version=U16,
    merge_outmaps=U8,
    input_mask=U16,
    output_mask=U16,
    gs_mode=U8,
    gs_fixed_vertex_start=U8,
    gs_variable_vertex_num=U8,
    gs_fixed_vertex_num=U8,
    constants=st.lists(constants, max_size=4),
    labels=st.lists(labels, max_size=3),
    outputs=st.lists(outputs, max_size=4),
    uniforms=st.lists(uniforms, max_size=4),
)
dvlps = st.builds(
    Dvlp,
    code=st.lists(U32, max_size=16),
    opdescs=st.lists(st.builds(OperandDescriptor, U32, U32), max_size=8),
    version=U32,
    unknown_words=st.lists(U32, min_size=3, max_size=5),
)


@settings(max_examples=200, deadline=None)
@given(dvlps, st.lists(dvles, min_size=1, max_size=3))
def test_model_round_trip(dvlp: Dvlp, entries: list[Dvle]) -> None:
    model = Dvlb(dvlp, entries)
    data = model.to_bytes()
    assert len(data) % 4 == 0
    parsed = Dvlb.from_bytes(data)
    assert parsed == model  # layout hints are not compared
    assert parsed.to_bytes() == data
    assert parsed.relayout() == data


def test_writer_takes_what_a_model_holds() -> None:
    """A model holding lists where it declares tuples, tuples where it declares lists and NumPy
    integers writes the bytes of the same model with plain values (from source and compiled: the
    compiled writer reads the model untyped), fresh and after an edit of a parsed file."""
    import numpy as np

    def model(seq: type, num: type) -> Dvlb:
        return Dvlb(
            dvlp=Dvlp(code=seq([num(0x4C000000), num(0x88000000)]), opdescs=seq([OperandDescriptor(num(0x36F))])),
            dvles=seq([Dvle(main_offset=num(0), endmain_offset=num(1), output_mask=num(1),
                            constants=seq([Constant(num(2), num(95), seq([num(0x3F0000)] * 4))]),
                            labels=seq([Label(num(1), num(1), "done")]),
                            outputs=seq([Output(num(0), num(0), num(0xF))]),
                            uniforms=seq([Uniform("proj", num(0x10), num(0x13))]))]),
        )

    plain = Dvlb.from_bytes(model(list, int).to_bytes()).to_bytes()
    assert model(tuple, np.uint32).to_bytes() == plain
    words = model(list, int)
    words.dvles[0].constants[0].words = [np.uint32(0x3F0000)] * 4  # type: ignore[assignment]
    assert words.to_bytes() == plain
    parsed = Dvlb.from_bytes(plain)
    parsed.dvles[0].constants[0].words = [0x400000, 0, 0, 0x3F0000]  # type: ignore[assignment]
    parsed.dvles[0].uniforms = (Uniform("proj", 0x10, 0x13),)  # type: ignore[assignment]
    edited = Dvlb.from_bytes(parsed.to_bytes())
    assert edited.dvles[0].constants[0].words == (0x400000, 0, 0, 0x3F0000)
    assert len(edited.to_bytes()) == len(plain)
