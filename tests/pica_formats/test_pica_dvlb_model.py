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
