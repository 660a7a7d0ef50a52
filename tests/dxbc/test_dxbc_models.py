"""Hypothesis round trips: random chunk models -> bytes -> parse gives the same model back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.formats.dxbc.aon9 import (
    ConstantBufferMapping,
    Level9Shader,
    LoopRegisterMapping,
    RuntimeConstantMapping,
    SamplerMapping,
)
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.ifce import ClassInstance, ClassType, Interfaces, InterfaceSlot
from shaderkit.formats.dxbc.lfs0 import FunctionParameter, FunctionSignature
from shaderkit.formats.dxbc.rdef import (
    ConstantBuffer,
    ResourceBinding,
    ResourceDefinition,
    ShaderType,
    ShaderTypeMember,
    ShaderVariable,
)
from shaderkit.formats.dxbc.rts0 import (
    DescriptorRange,
    RootDescriptor,
    RootParameter,
    RootSignature,
    StaticSampler,
)
from shaderkit.formats.dxbc.signature import ELEMENT_SIZES, Signature, SignatureElement
from shaderkit.io.reader import Reader

names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcxyz019", min_size=1, max_size=12)
u32 = st.integers(0, 0xFFFFFFFF)
u16 = st.integers(0, 0xFFFF)
u8 = st.integers(0, 0xFF)


def _roundtrip(chunk: object) -> object:
    """Parse the built payload alone and inside a container."""
    payload = chunk.build()  # type: ignore[attr-defined]
    fourcc = chunk.fourcc  # type: ignore[attr-defined]
    container = DxbcContainer([chunk])  # type: ignore[list-item]
    again = DxbcContainer.from_bytes(container.to_bytes())
    assert again.chunks[0] == chunk
    assert len(payload) % 4 == 0
    return type(chunk).parse(Reader(payload), fourcc)  # type: ignore[attr-defined]


elements = st.builds(SignatureElement, names, u32, u32, u32, u32, u8, u8, u16, u32, u32)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(ELEMENT_SIZES)), st.lists(elements, max_size=8))
def test_signature(fourcc: str, elems: list[SignatureElement]) -> None:
    size = ELEMENT_SIZES[fourcc]
    for e in elems:  # fields a layout does not store read back as 0
        if size < 28:
            e.stream = 0
        if size < 32:
            e.min_precision = 0
    sig = Signature(fourcc, elems)
    assert _roundtrip(sig) == sig


def _types(depth: int) -> st.SearchStrategy[ShaderType]:
    scalar = st.builds(ShaderType, st.integers(0, 3), st.sampled_from([1, 2, 3, 19]), st.integers(1, 4),
                       st.integers(1, 4), st.integers(0, 3), name=st.sampled_from(["", "float4", "uint"]))
    if depth == 0:
        return scalar
    members = st.lists(st.builds(ShaderTypeMember, names, _types(depth - 1), st.integers(0, 256)), min_size=1,
                       max_size=3)
    struct_t = st.builds(ShaderType, st.just(5), st.just(0), st.just(1), st.integers(1, 8), st.integers(0, 2),
                         members, name=st.sampled_from(["", "Light"]))
    return st.one_of(scalar, struct_t)


variables = st.builds(ShaderVariable, names, _types(2), u16, st.integers(4, 64), st.integers(0, 3),
                      st.none())
cbuffers = st.builds(ConstantBuffer, names, st.lists(variables, max_size=4), u16, st.integers(0, 1),
                     st.integers(0, 3))
bindings = st.builds(ResourceBinding, names, st.integers(0, 11), st.integers(0, 8), st.integers(0, 11), u8, u8,
                     st.integers(1, 4), st.integers(0, 15))


@settings(max_examples=120, deadline=None)
@given(st.lists(cbuffers, max_size=3), st.lists(bindings, max_size=4), st.booleans(), names)
def test_rdef(cbs: list[ConstantBuffer], binds: list[ResourceBinding], sm5: bool, creator: str) -> None:
    rd = ResourceDefinition(cbs, binds, 0xFFFE0500 if sm5 else 0xFFFE0400, 0x100, creator,
                            rd11_tag=0x31314452 if sm5 else 0)
    for cb in cbs:
        for v in cb.variables:
            v.default_value = bytes(range(v.size)) if v.size % 4 == 0 else None
            if not sm5:  # SM4 stores neither type names nor texture/sampler slots
                v.start_texture, v.texture_size, v.start_sampler, v.sampler_size = 0xFFFFFFFF, 0, 0xFFFFFFFF, 0
                _drop_names(v.type)
    again = _roundtrip(rd)
    assert again == rd


def _drop_names(t: ShaderType) -> None:
    t.name = ""
    for m in t.members:
        _drop_names(m.type)


ranges10 = st.builds(DescriptorRange, st.integers(0, 3), u32, u32, u32, u32)


@settings(max_examples=100, deadline=None)
@given(st.booleans(), st.lists(st.tuples(st.integers(0, 4), st.integers(0, 7), st.lists(ranges10, max_size=3),
                                         u32, u32, u32), max_size=5), st.integers(0, 3), u32)
def test_root_signature(v11: bool, params: list, samplers: int, flags: int) -> None:
    parameters = []
    for ptype, vis, ranges, a, b, c in params:
        p = RootParameter(ptype, vis)
        if ptype == 0:
            p.ranges = ranges
            if not v11:
                for rg in ranges:
                    rg.flags = 0
        elif ptype == 1:
            from shaderkit.formats.dxbc.rts0 import RootConstants

            p.constants = RootConstants(a, b, c)
        else:
            p.descriptor = RootDescriptor(a, b, c if v11 else 0)
        parameters.append(p)
    statics = [StaticSampler(i, 1, 2, 3, 0.5, 16, 4, 1, 0.0, 1000.0, i, 0, 5) for i in range(samplers)]
    rs = RootSignature(2 if v11 else 1, parameters, statics, flags)
    assert _roundtrip(rs) == rs


@settings(max_examples=100, deadline=None)
@given(st.lists(st.builds(ClassType, names, u16, u16, u16, u16), max_size=4),
       st.lists(st.builds(ClassInstance, names, u16, u16, u16, u16, u16, u16), max_size=4),
       st.lists(st.integers(1, 6), max_size=3), u32)
def test_interfaces(types: list[ClassType], instances: list[ClassInstance], spans: list[int], slots: int) -> None:
    records = [InterfaceSlot(span, list(range(span)), [7 * i for i in range(span)]) for span in spans]
    ifce = Interfaces(types, instances, records, slots)
    assert _roundtrip(ifce) == ifce


@settings(max_examples=100, deadline=None)
@given(st.lists(st.builds(FunctionParameter, names, st.sampled_from(["", "COLOR", "SV_TARGET"]), u8, st.integers(0, 3),
                          st.integers(1, 4), st.integers(1, 4), u8, st.integers(0, 3), u32, u32, u32, u32),
                max_size=6))
def test_function_signature(params: list[FunctionParameter]) -> None:
    sig = FunctionSignature(params)
    assert _roundtrip(sig) == sig


@settings(max_examples=100, deadline=None)
@given(st.lists(st.builds(ConstantBufferMapping, u16, u16, u16, u16, st.tuples(u8, u8, u8, u8)), max_size=4),
       st.lists(st.builds(SamplerMapping, u8, u8, u8, u8), max_size=4),
       st.lists(st.builds(RuntimeConstantMapping, u16, u16), max_size=2),
       st.binary(max_size=64).map(lambda b: b[: len(b) // 4 * 4]),
       st.lists(st.builds(LoopRegisterMapping, u16, u16, u16, u16), max_size=2))
def test_level9(cbs: list, samplers: list, runtime: list, program: bytes, loops: list) -> None:
    aon9 = Level9Shader("Aon9", 0xFFFF0200, cbs, samplers, runtime, program, loops)
    assert _roundtrip(aon9) == aon9
