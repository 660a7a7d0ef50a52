"""Direct3D 9 effects (fx_2_0): the typed model, byte-exact rebuild, edits, members, text, bad input.

Every effect here is written word by word from the documented layout (Wine's d3dx9 parser, vkd3d's
fx_2_0 writer): header ``tag, block size``; the data block (a zero word first, then type
descriptors ``type, class, name, semantic, elements, rows/columns``, values, strings ``u32 length``
+ text + NUL padded to 4); the records ``parameter count, technique count, shader count, object
count``, parameters ``type, value, flags, annotation count``, techniques and passes
``name, annotation count, count``, states ``operation, index, type, value``; the objects
``small count, large count``, small ``id, size, bytes``, large ``technique, pass, element, state,
usage, size, bytes``. The offsets and the expected bytes after an edit are worked out by hand.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from d3d9_build import pack as words
from d3d9_build import string
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.d3d9.effect import CLASS_SCALAR, D3D9Effect, EffectType
from shaderkit.formats.d3d9.shader import D3D9Shader
from shaderkit.formats.registry import detect

TAG = 0xFEFF0901
ONE = 0x3F800000  # 1.0f


#: vs_1_1 with an empty CTAB comment: mov r0, v0 (7 words)
VS11 = words(0xFFFE0101, 0x0001FFFE) + b"CTAB" + words(0x00000001, 0x800F0000, 0x90E40000, 0x0000FFFF)
#: the same program without the comment (5 words)
VS11_SHORT = words(0xFFFE0101, 0x00000001, 0x800F0000, 0x90E40000, 0x0000FFFF)
#: ps_2_0: mov oC0, c0 (7 words)
PS20 = words(0xFFFF0200, 0x0001FFFE) + b"CTAB" + words(0x02000001, 0x800F0800, 0xA0E40000, 0x0000FFFF)

# The data block of the small effect ``float k = 1; technique T { pass P { VertexShader = asm {...}; } }``:
#   0  zero word
#   4  type of k: float (3), scalar (0), name at 36, no semantic, 0 elements, 1 row, 1 column  (28 bytes)
#  32  value of k: 1.0
#  36  "k"   (4 + 2 bytes, 2 bytes padding)
#  44  "T"
#  52  "P"
#  60  type of the VertexShader state: VertexShader (16), object (4), no name  (20 bytes)
#  80  its value: object id 1
BLOCK = (words(0) + words(3, 0, 36, 0, 0, 1, 1) + words(ONE) + string(b"k") + string(b"T") + string(b"P")
         + words(16, 4, 0, 0, 0) + words(1))
assert len(BLOCK) == 84


def records(shader: bytes, k_type: int = 4) -> bytes:
    return (words(1, 1, 1, 2)                          # 1 parameter, 1 technique, 1 shader, 2 object ids
            + words(k_type, 32, 0, 0)                  # k: type, value, flags, no annotation
            + words(44, 0, 1) + words(52, 0, 1)        # technique "T" with one pass "P" with one state
            + words(146, 0, 60, 80)                    # VertexShader (146), index 0, type at 60, value at 80
            + words(0, 1)                              # no small object, one large
            + words(0, 0, 0xFFFFFFFF, 0, 0, len(shader)) + shader + bytes(-len(shader) % 4))


EFFECT = words(TAG, len(BLOCK)) + BLOCK + records(VS11)


def test_a_hand_built_effect_reads_into_the_model_and_writes_back() -> None:
    spec = detect(EFFECT)
    assert spec is not None and spec.name == "fx2" and spec.target is not None
    effect = D3D9Effect.from_bytes(EFFECT)
    assert effect.records is not None and effect.untyped == ""
    (k,) = effect.parameters
    assert (k.name, k.type.type_name, k.type.klass, k.type.rows, k.type.columns) == ("k", "float", CLASS_SCALAR, 1, 1)
    assert k.value.words == [ONE] and k.value.numbers(k.type) == [1.0]
    (tech,) = effect.techniques
    assert tech.name == "T" and [p.name for p in tech.passes] == ["P"]
    (state,) = tech.passes[0].states
    assert (state.name, state.index, state.type.type_name, state.value and state.value.ids) == (
        "VertexShader", 0, "VertexShader", [1])
    (lo,) = effect.records.large_objects
    assert lo.kind == "shader" and lo.shader is not None and lo.shader.profile == "vs_1_1"
    assert effect.member_names() == ["T/P/VertexShader"] and effect.member("T/P/VertexShader") == VS11
    assert effect.to_bytes() == EFFECT


def test_a_renamed_parameter_moves_its_name_to_the_end_of_the_block() -> None:
    effect = D3D9Effect.from_bytes(EFFECT)
    effect.parameters[0].type.name = "kappa"
    # "kappa\0" (4 + 6 bytes) is new: appended at 84, the block padded to 96; the type (same size)
    # goes back to 4 with its name offset now 84; the old "k" stays where it was, unreferenced
    block = (words(0) + words(3, 0, 84, 0, 0, 1, 1) + BLOCK[32:]
             + words(6) + b"kappa\0" + bytes(2))
    assert len(block) == 96
    expected = words(TAG, 96) + block + records(VS11)
    assert effect.to_bytes() == expected
    again = D3D9Effect.from_bytes(expected)
    assert again.parameters[0].name == "kappa" and again.to_bytes() == expected


def test_a_shader_of_another_size_replaces_the_one_of_a_pass() -> None:
    effect = D3D9Effect.from_bytes(EFFECT)
    effect.replace_member("T/P/VertexShader", VS11_SHORT)
    # only the large object changes: its size word (28 -> 20) and its bytes
    expected = words(TAG, len(BLOCK)) + BLOCK + records(VS11_SHORT)
    assert effect.to_bytes() == expected
    assert D3D9Effect.from_bytes(expected).member("T/P/VertexShader") == VS11_SHORT
    with pytest.raises(KeyError):
        effect.member("T/P/PixelShader")


def test_an_unedited_effect_writes_its_stored_block_without_placing(monkeypatch: pytest.MonkeyPatch) -> None:
    from shaderkit.io.layout import PlacedWriter

    effect = D3D9Effect.from_bytes(EFFECT)
    places = []
    original = PlacedWriter.place
    monkeypatch.setattr(PlacedWriter, "place", lambda self, key, data: places.append(key) or original(self, key, data))
    assert effect.to_bytes() == EFFECT and places == []
    # an edited item: the block is placed item by item (as in the test above)
    effect.parameters[0].type.name = "kk"
    assert len(effect.to_bytes()) > len(EFFECT) and ("p", 0, "type", "name") in places


def test_a_new_effect_is_laid_out_by_the_rule() -> None:
    """A model made in code (no stored layout): the zero word, then each item in record order."""
    from shaderkit.formats.d3d9.effect import EffectParameter, EffectRecords, EffectValue

    effect = D3D9Effect(EffectRecords(parameters=[EffectParameter(EffectType(3, 0, "k"), EffectValue(words=[ONE]))]))
    # strings are placed before the type that points at them: "k" at 4, the type at 12, the value at 40
    block = words(0) + string(b"k") + words(3, 0, 4, 0, 0, 1, 1) + words(ONE)
    assert effect.to_bytes() == (words(TAG, len(block)) + block + words(1, 0, 0, 1) + words(12, 40, 0, 0)
                                 + words(0, 0))


def build_rich_effect() -> tuple[bytes, dict[str, int]]:
    """An effect with a texture, a sampler with a parameter-assigned state, a struct with an
    annotation, and a shader parameter (small object); offsets computed as the parts are laid out."""
    block = bytearray(words(0))
    at: dict[str, int] = {}

    def put(label: str, data: bytes) -> int:
        at[label] = len(block)
        block.extend(data)
        return at[label]

    # texture2D tex
    put("tex.type", bytes(20))
    put("tex.value", words(1))
    put("tex.name", string(b"tex"))
    block[at["tex.type"] : at["tex.type"] + 20] = words(7, 4, at["tex.name"], 0, 0)
    # sampler s = sampler_state { Texture = <tex>; MinFilter = 2; }
    put("s.name", string(b"s"))
    put("s.type", words(10, 4, at["s.name"], 0, 0))
    put("tstate.type", words(5, 4, 0, 0, 0))
    put("tstate.value", words(2))
    put("min.type", words(2, 0, 0, 0, 0, 1, 1))
    put("min.value", words(2))
    put("s.value", words(2, 164, 0, at["tstate.type"], at["tstate.value"], 170, 0, at["min.type"], at["min.value"]))
    # struct { float a; int b[2]; } st : POS = {0.5, 3, 4}; with <string UIName = "x";>
    put("st.name", string(b"st"))
    put("st.sem", string(b"POS"))
    put("a.name", string(b"a"))
    put("b.name", string(b"b"))
    put("st.type", words(3, 5, at["st.name"], at["st.sem"], 0, 2)
        + words(3, 0, at["a.name"], 0, 0, 1, 1) + words(2, 0, at["b.name"], 0, 2, 1, 1))
    put("st.value", words(0x3F000000, 3, 4))
    put("ui.name", string(b"UIName"))
    put("ui.type", words(4, 4, at["ui.name"], 0, 0))
    put("ui.value", words(3))
    # VertexShader vs (object 4: its shader is a small object)
    put("vs.name", string(b"vs"))
    put("vs.type", words(16, 4, at["vs.name"], 0, 0))
    put("vs.value", words(4))
    put("T", string(b"T"))
    put("P", string(b"P"))
    put("ps.type", words(15, 4, 0, 0, 0))
    put("ps.value", words(5))
    recs = (words(4, 1, 2, 6)
            + words(at["tex.type"], at["tex.value"], 0, 0)
            + words(at["s.type"], at["s.value"], 0, 0)
            + words(at["st.type"], at["st.value"], 1, 1) + words(at["ui.type"], at["ui.value"])
            + words(at["vs.type"], at["vs.value"], 0, 0)
            + words(at["T"], 0, 1) + words(at["P"], 0, 1) + words(147, 0, at["ps.type"], at["ps.value"])
            + words(3, 2)
            + words(1, 0)                                     # tex: no data
            + words(3, 2) + b"x\0" + b"\xab\xab"             # the annotation's string, padded with 0xAB
            + words(4, len(VS11)) + VS11                      # vs
            + words(0xFFFFFFFF, 1, 0, 0, 1, 4) + b"tex\0"    # s's state 0 (Texture) = <tex>
            + words(0, 0, 0xFFFFFFFF, 0, 0, len(PS20)) + PS20)
    return words(TAG, len(block)) + bytes(block) + recs, at


def test_samplers_structs_annotations_and_object_data() -> None:
    data, _ = build_rich_effect()
    effect = D3D9Effect.from_bytes(data)
    assert effect.records is not None and effect.to_bytes() == data
    tex, s, st, vs = effect.parameters
    assert (tex.name, tex.type.type_name, tex.value.ids) == ("tex", "texture2D", [1])
    assert s.type.type_name == "sampler" and s.value.samplers is not None
    (states,) = s.value.samplers
    assert [(x.name, x.type.type_name) for x in states] == [("Texture", "texture"), ("MinFilter", "int")]
    assert states[1].value is not None and states[1].value.words == [2]
    assert st.type.type_name == "struct" and st.type.semantic == "POS" and st.flags == 1
    assert [(m.name, m.type_name, m.elements) for m in st.type.members] == [("a", "float", 0), ("b", "int", 2)]
    assert st.type.value_words() == 3 and st.value.words == [0x3F000000, 3, 4]
    (ui,) = st.annotations
    assert (ui.type.name, ui.type.type_name, ui.value.ids) == ("UIName", "string", [3])
    assert effect.records.small_objects[1].padding == b"\xab\xab"
    assert effect.member_names() == ["vs", "T/P/PixelShader"]
    assert effect.records.large_objects[0].kind == "parameter" and effect.records.large_objects[0].text() == "tex"
    text = effect.disassemble()
    for line in ("texture2D tex = <object 1>;", "sampler s = sampler_state", "    Texture = <tex>;",
                 "    MinFilter = 2;", "shared struct { float a; int b[2]; } st : POS", '    string UIName = "x";',
                 "= {0.5, 3, 4};", "VertexShader vs = asm", "        PixelShader = asm", "technique T", "    pass P"):
        assert line in text.split("\n"), line
    # an edit of the shader a parameter holds (another size) and of the annotation's padding-kept string
    effect.replace_member("vs", VS11_SHORT)
    out = effect.to_bytes()
    assert out == data.replace(words(4, len(VS11)) + VS11, words(4, len(VS11_SHORT)) + VS11_SHORT)


def test_every_truncation_raises() -> None:
    for cut in range(len(EFFECT)):
        with pytest.raises(ShaderFormatError):
            D3D9Effect.from_bytes(EFFECT[:cut])


@pytest.mark.parametrize("where, value", [
    (8 + 84 + 16, 0x7FFFFFF0),         # the parameter's type offset past the block
    (8 + 84 + 20, 0xFFFFFFF0),         # its value offset
    (8 + 84 + 4, 0x10000000),          # technique count
    (8 + 4 + 8, 0x7FFFFFFF),           # the type's name offset
    (8 + 84 + 72, 0x7FFFFFFF),         # the large object's size
])
def test_damaged_offsets_and_counts_raise_with_the_offset(where: int, value: int) -> None:
    data = bytearray(EFFECT)
    data[where : where + 4] = words(value)
    with pytest.raises(ShaderFormatError) as info:
        D3D9Effect.from_bytes(bytes(data))
    assert info.value.offset is not None and info.value.context.startswith("FX2")


def test_a_sampler_state_that_points_at_its_own_sampler_is_bounded() -> None:
    # s's Texture state typed as a sampler whose value is s's own state list
    data, at = build_rich_effect()
    data = bytearray(data)
    base = 8
    data[base + at["tstate.type"] : base + at["tstate.type"] + 4] = words(10)
    data[base + at["s.value"] + 16 : base + at["s.value"] + 20] = words(at["s.value"])
    with pytest.raises(ShaderFormatError, match="nest deeper"):
        D3D9Effect.from_bytes(bytes(data))


def test_many_parameters_sharing_one_large_value_spend_the_budget() -> None:
    # 1,024 parameters whose type (at 4) is float[16384] and whose value is the one 64 KB value at 32:
    # each expansion costs its 64 KB, 64 MB in all for an 82 KB file (budget 64 x size + 1 MB)
    block = words(0) + words(3, 0, 0, 0, 16384, 1, 1) + bytes(4 * 16384)
    data = (words(TAG, len(block)) + block + words(1024, 0, 0, 1) + words(4, 32, 0, 0) * 1024
            + words(0, 0))
    with pytest.raises(ShaderFormatError, match="more work than its size allows"):
        D3D9Effect.from_bytes(data)


def test_a_chain_of_samplers_sharing_their_next_level_spends_the_budget() -> None:
    # a sampler type (sampler 10, object 4) at 4; 17 levels of sampler values at 24 + 36 * L, each
    # "2 states, both a sampler whose value is level L + 1" (the last: no state): 2 + 4 + ... + 2^16
    # state expansions from a 652-byte file, within the nesting limit of 16
    levels = b"".join(words(2) + words(164, 0, 4, 24 + 36 * (n + 1)) * 2 for n in range(16)) + words(0)
    block = words(0) + words(10, 4, 0, 0, 0) + levels
    assert len(block) == 24 + 36 * 16 + 4
    data = words(TAG, len(block)) + block + words(1, 0, 0, 1) + words(4, 24, 0, 0) + words(0, 0)
    assert len(data) == 652
    with pytest.raises(ShaderFormatError, match="more work than its size allows"):
        D3D9Effect.from_bytes(data)


# Work bounds. The rule (effect.py, REREAD_*): a byte the walk expands for the first time costs 1 of
# the input's budget (64 x its size + 1 MB); a byte expanded again costs REREAD_BYTE (16) plus
# REREAD_ITEM (1024) per item the expansion makes; a value naming a small object another value
# already named costs REREAD_ITEM + REREAD_BYTE per byte of the object. The figures below are
# worked out by hand from that rule.
BUDGET_SLACK = 1 << 20


def test_parameters_sharing_one_type_and_value_pay_for_every_expansion() -> None:
    # a float type (28 bytes at 4, no name) and its value (4 bytes at 32) shared by 2,000 parameters;
    # the file is 8 + 36 + 16 (counts) + 2,000 x 16 + 8 = 32,068 bytes: budget 64 x 32,068 + 1 MB =
    # 3,100,928. Counts 16 and parameter 0 (16 + 28 + 4) are first reads: 64. Each later parameter:
    # its record 16, the type again 28 + 28 x 16 + 1024 = 1,500, the value again 4 + 64 + 1024 =
    # 1,092: 2,608. After parameters 0..1188: 64 + 1,188 x 2,608 = 3,098,368, 2,560 left; parameter
    # 1189 spends 16 and 1,500 and cannot pay its value's 1,092.
    block = words(0) + words(3, 0, 0, 0, 0, 1, 1) + words(ONE)
    data = words(TAG, len(block)) + block + words(2000, 0, 0, 1) + words(4, 32, 0, 0) * 2000 + words(0, 0)
    assert len(data) == 32068
    with pytest.raises(ShaderFormatError, match=r"^FX2\.parameters\[1189\]\.value: value: tables of this input"):
        D3D9Effect.from_bytes(data)
    # the file of P parameters is 68 + 16P bytes and needs 64 + (P - 1) x 2,608: 666 parameters
    # (10,724 bytes, budget 1,734,912, need 1,734,384) are read and written back; 667 (10,740
    # bytes, budget 1,735,936; 1,552 left after parameter 665) are refused at parameter 666's value
    def shared(count: int) -> bytes:
        return words(TAG, len(block)) + block + words(count, 0, 0, 1) + words(4, 32, 0, 0) * count + words(0, 0)

    effect = D3D9Effect.from_bytes(shared(666))
    assert len(effect.parameters) == 666 and effect.to_bytes() == shared(666)
    with pytest.raises(ShaderFormatError, match=r"^FX2\.parameters\[666\]\.value: value: tables of this input"):
        D3D9Effect.from_bytes(shared(667))


def test_sampler_elements_shared_by_parameters_pay_per_element() -> None:
    # sampler[4096] (20 bytes at 4) whose value (at 24) is 4,096 empty elements (a zero state count
    # each), shared by 64 parameters: 17,464 bytes, budget 64 x 17,464 + 1 MB = 2,166,272. Parameter 0
    # reads everything once (16 + 16 + 20 + 16,384 = 16,436 with the counts); parameter 1: its record
    # 16, the type again 20 + 320 + 1024 = 1,364, then each element again 4 + 64 + 1024 = 1,092:
    # 2,148,456 left pay for 1,967 of its 4,096 elements. (Read at 4 bytes each, the 262,144 element
    # expansions fitted the budget and took seconds.)
    block = words(0) + words(10, 4, 0, 0, 4096) + bytes(4 * 4096)
    data = words(TAG, len(block)) + block + words(64, 0, 0, 1) + words(4, 24, 0, 0) * 64 + words(0, 0)
    assert len(data) == 17464
    with pytest.raises(ShaderFormatError, match=r"^FX2\.parameters\[1\]\.value: sampler states: tables"):
        D3D9Effect.from_bytes(data)


def test_an_object_named_by_many_values_pays_for_each_name() -> None:
    # texture[E] (20 bytes at 4) whose E ids (at 24) all name small object 1, a 1,024-byte string: the
    # file is 8 + (24 + 4E) + 16 + 16 + 8 + 8 + 1,024 = 1,104 + 4E bytes. Every name after the first
    # costs 1024 + 16 x 1024 = 17,408.
    def effect(count: int) -> bytes:
        block = words(0) + words(5, 4, 0, 0, count) + words(1) * count
        text = b"x" * 1023 + b"\0"
        return (words(TAG, len(block)) + block + words(1, 0, 0, 2) + words(4, 24, 0, 0)
                + words(1, 0) + words(1, len(text)) + text)

    # E = 32: 1,232 bytes, budget 1,127,424; 31 x 17,408 = 539,648 and the 1,224 bytes read: kept
    data = effect(32)
    assert len(data) == 1232
    parsed = D3D9Effect.from_bytes(data)
    assert parsed.to_bytes() == data and parsed.disassemble().count("x" * 1023) == 32
    # E = 128: 1,616 bytes, budget 1,152,000 < 127 x 17,408 = 2,210,816
    data = effect(128)
    assert len(data) == 1616
    with pytest.raises(ShaderFormatError, match="objects named by several values: tables of this input"):
        D3D9Effect.from_bytes(data)


def test_a_shader_named_by_several_values_is_disassembled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # VertexShader[3] (20 bytes at 4) whose 3 ids (at 24) all name small object 1, the vs_1_1 VS11
    block = words(0) + words(16, 4, 0, 0, 3) + words(1, 1, 1)
    data = (words(TAG, len(block)) + block + words(1, 0, 1, 2) + words(4, 24, 0, 0)
            + words(1, 0) + words(1, len(VS11)) + VS11)
    effect = D3D9Effect.from_bytes(data)
    assert effect.to_bytes() == data
    calls = []
    original = D3D9Shader.disassemble
    monkeypatch.setattr(D3D9Shader, "disassemble", lambda self: calls.append(1) or original(self))
    text = effect.disassemble()
    assert len(calls) == 1 and text.count("mov r0, v0") == 3


def test_struct_value_text_follows_its_words(monkeypatch: pytest.MonkeyPatch) -> None:
    # struct { float a; struct {} e0..e199; }[200] (at 4: 24 bytes, the float member 28, 200 empty
    # struct members 24 each) and its value: 200 zero words, one per element (a's). The text walks the
    # members that hold words: one text per word (it walked 200 x 201 members, a call each).
    from shaderkit.formats.d3d9 import effect as module

    members = words(3, 0, 0, 0, 0, 1, 1) + words(3, 5, 0, 0, 0, 0) * 200
    block = words(0) + words(3, 5, 0, 0, 200, 201) + members
    value_at = len(block)
    block += bytes(4 * 200)
    data = words(TAG, len(block)) + block + words(1, 0, 0, 1) + words(4, value_at, 0, 0) + words(0, 0)
    effect = D3D9Effect.from_bytes(data)
    assert effect.to_bytes() == data
    calls = []
    for name in ("_number_texts", "_leaf_texts"):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, _f=original: calls.append(1) or _f(*args))
    value = module._value_text(effect.parameters[0].type, effect.parameters[0].value)
    assert value == "{" + ", ".join(["0"] * 200) + "}"
    assert len(calls) <= 200 + 2


def test_effects_tried_in_one_input_pay_again_for_bytes_read_before() -> None:
    # float[16384] (28 bytes at 4) and its 64 KB value (at 32): 65,616 bytes, budget 64 x 65,616 +
    # 1 MB = 5,248,000. The first walk reads 65,604 bytes once (counts 16, record 16, type 28, value
    # 65,536, object counts 8); each walk after it reads them again: 1,296 + 1,296 + 1,500 +
    # (65,536 + 1,048,576 + 1,024) + 1,160 = 1,120,388. 5,182,396 left after the first pay for four
    # more walks; the sixth is refused (it was the 80th).
    from shaderkit.formats.d3d9.effect import embedded_size

    block = words(0) + words(3, 0, 0, 0, 16384, 1, 1) + bytes(4 * 16384)
    data = words(TAG, len(block)) + block + words(1, 0, 0, 1) + words(4, 32, 0, 0) + words(0, 0)
    assert len(data) == 65616
    memo: dict[str, object] = {}
    assert [embedded_size(data, 0, memo) for _ in range(7)] == [len(data)] * 5 + [None] * 2


def test_an_effect_that_shares_nothing_spends_at_most_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from shaderkit.formats.d3d9 import effect as module
    from shaderkit.io.reader import Reader

    data, _ = build_rich_effect()
    size = int.from_bytes(data[4:8], "little")
    reader = Reader(data)
    before = reader._budget[0]
    module.read_records(data, 8, size, reader)
    assert before - reader._budget[0] <= len(data) - 8
    # and the summary of a parsed effect reads its records no second time (its layout is its own)
    effect = D3D9Effect.from_bytes(data)
    walks = []
    original = module.read_records
    monkeypatch.setattr(module, "read_records", lambda *args: walks.append(1) or original(*args))
    assert [row["item"] for row in effect.summary()["layout"]][:3] == ["header", "raw", "block.p.0.type"]
    assert not walks


def test_a_struct_of_no_members_with_4g_elements_prints_at_once() -> None:
    # the type at 4: struct (class 5) of 0xFFFFFFFF elements and no member; its value (at 28) has no word
    block = words(0) + words(3, 5, 0, 0, 0xFFFFFFFF, 0)
    data = words(TAG, len(block)) + block + words(1, 0, 0, 1) + words(4, 28, 0, 0) + words(0, 0)
    assert len(data) == 76
    effect = D3D9Effect.from_bytes(data)
    assert effect.to_bytes() == data
    assert "struct {  }[4294967295] = {};" in effect.disassemble()
    assert effect.summary()["parameters"][0]["elements"] == 0xFFFFFFFF
    # the same type as a pass state's value (info prints state values)
    # (no parameter; technique and pass unnamed, one state: operation 0, index 0, the type at 4, value at 28)
    data = words(TAG, len(block)) + block + words(0, 1, 0, 1) + words(0, 0, 1) + words(0, 0, 1) + words(0, 0, 4, 28)
    data += words(0, 0)
    effect = D3D9Effect.from_bytes(data)
    assert effect.summary()["techniques"][0]["passes"][0]["states"][0]["value"] == "{}"


def test_shaders_of_one_state_are_numbered_in_order() -> None:
    # the small effect with three large objects for technique 0, pass 0, state 0
    large = words(0, 0, 0xFFFFFFFF, 0, 0, len(VS11)) + VS11
    data = EFFECT[: -len(large) - 8] + words(0, 3) + large * 3
    effect = D3D9Effect.from_bytes(data)
    assert effect.to_bytes() == data
    assert effect.member_names() == ["T/P/VertexShader", "T/P/VertexShader#2", "T/P/VertexShader#3"]


def test_listing_the_shaders_makes_their_names_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from shaderkit.formats.archive.path import walk

    # the three shaders of the test above: listed (ls) with one making of the names (it was one per
    # member besides: quadratic in the shaders)
    large = words(0, 0, 0xFFFFFFFF, 0, 0, len(VS11)) + VS11
    data = EFFECT[: -len(large) - 8] + words(0, 3) + large * 3
    calls = []
    original = D3D9Effect.shader_members
    monkeypatch.setattr(D3D9Effect, "shader_members", lambda self: calls.append(1) or original(self))
    listed = list(walk(data))
    assert [m.path for m in listed] == ["//T/P/VertexShader", "//T/P/VertexShader#2", "//T/P/VertexShader#3"]
    assert [m.size for m in listed] == [28] * 3 and len(calls) == 1


def test_an_object_id_0xffffffff_keeps_the_records_as_bytes() -> None:
    # the VertexShader state's value (block offset 80) names object 0xFFFFFFFF: the object count
    # written would be 1 + 0xFFFFFFFF, which no u32 holds
    data = bytearray(EFFECT)
    data[8 + 80 : 8 + 84] = words(0xFFFFFFFF)
    effect = D3D9Effect.from_bytes(bytes(data))
    assert effect.records is None and "object id 0xFFFFFFFF" in effect.untyped
    assert effect.to_bytes() == bytes(data)


def test_an_unknown_class_keeps_the_records_as_bytes() -> None:
    data = bytearray(EFFECT)
    data[8 + 8 : 8 + 12] = words(9)  # k's class: not one of D3DXPARAMETER_CLASS
    effect = D3D9Effect.from_bytes(bytes(data))
    assert effect.records is None and "unknown parameter class 9" in effect.untyped
    assert effect.to_bytes() == bytes(data)
    assert effect.summary()["typed"] is False and "kept as bytes" in effect.disassemble()


def test_the_xna_header_is_kept() -> None:
    data = words(0xBCF00BCF, 12, 0xDEADBEEF) + EFFECT
    spec = detect(data)
    assert spec is not None and spec.name == "fx2"
    effect = D3D9Effect.from_bytes(data)
    assert effect.prefix == data[:12] and effect.records is not None and effect.to_bytes() == data
    assert effect.summary()["prefix_size"] == 12
    with pytest.raises(ShaderFormatError):
        D3D9Effect.from_bytes(words(0xBCF00BCF, 0x1000) + EFFECT)


def test_listing_of_the_small_effect() -> None:
    body = D3D9Shader.from_bytes(VS11).disassemble().rstrip("\n").split("\n")
    expected = ["// fx_2_0 effect: 1 parameter, 1 technique, 2 objects (0 small, 1 large)", "",
                "float k = 1;", "",
                "technique T", "{", "    pass P", "    {", "        VertexShader = asm", "        {",
                *[("            " + line) if line else "" for line in body], "        };", "    }", "}"]
    assert D3D9Effect.from_bytes(EFFECT).disassemble() == "\n".join(expected) + "\n"


def test_cli_info_disasm_ls_get_put(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    from tests.conftest import run_cli

    path = tmp_path / "small.fxo"
    path.write_bytes(EFFECT)
    code, out, _ = run_cli(capsys, "info", "--json", str(path))
    assert code == 0
    info = json.loads(out)
    assert info["format"] == "fx2" and info["typed"] is True and info["parameters"][0]["name"] == "k"
    assert info["techniques"][0]["passes"][0]["states"][0]["operation_name"] == "VertexShader"
    assert info["shaders"] == [{"member": "T/P/VertexShader", "shader_model": "vs_1_1", "size": 28}]
    code, out, _ = run_cli(capsys, "ls", str(path))
    assert code == 0 and "small.fxo//T/P/VertexShader" in out
    short = tmp_path / "vs.bin"
    short.write_bytes(VS11_SHORT)
    code, _, err = run_cli(capsys, "put", f"{path}//T/P/VertexShader", str(short), "-o", str(tmp_path / "out.fxo"))
    assert code == 0, err
    assert (tmp_path / "out.fxo").read_bytes() == words(TAG, len(BLOCK)) + BLOCK + records(VS11_SHORT)
    code, _, _ = run_cli(capsys, "get", f"{tmp_path / 'out.fxo'}//T/P/VertexShader", "-o", str(tmp_path / "g.bin"))
    assert code == 0 and (tmp_path / "g.bin").read_bytes() == VS11_SHORT
    code, out, _ = run_cli(capsys, "verify", str(path))
    assert code == 0 and "1 passed" in out


def test_info_json_follows_the_fx2_schema(tmp_path: Path) -> None:
    import copy
    import json

    jsonschema = pytest.importorskip("jsonschema")
    from shaderkit.cli.info import info_record
    from shaderkit.schemas import schema_for

    for data in (EFFECT, build_rich_effect()[0]):
        record = json.loads(json.dumps(info_record(data, D3D9Effect.from_bytes(data))))
        schema = schema_for(record)
        assert schema["$id"].endswith("fx2.schema.json")
        assert not list(jsonschema.Draft202012Validator(schema).iter_errors(record))
        bad = copy.deepcopy(record)
        bad["parameters"][0]["elements"] = "0"
        assert list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
    untyped = bytearray(EFFECT)
    untyped[16:20] = words(9)
    record = json.loads(json.dumps(info_record(bytes(untyped), D3D9Effect.from_bytes(bytes(untyped)))))
    assert record["typed"] is False
    assert not list(jsonschema.Draft202012Validator(schema_for(record)).iter_errors(record))


def fx20(*comments: tuple[bytes, bytes]) -> bytes:
    """An FX20 expression: version 0x46580200, comment blocks (token 0xFFFE | words << 16, FourCC,
    payload), end token."""
    out = words(0x46580200)
    for fourcc, payload in comments:
        out += words(0xFFFE | ((1 + len(payload) // 4) << 16)) + fourcc + payload
    return out + words(0x0000FFFF)


#: FXLC: 1 instruction, mul (0x205 << 20) of 1 component; inputs c0.x (table 2, component 0) and
#: literal 0 (table 1); output expr.x (table 4)
FXLC_MUL = words(1, 0x205 << 20 | 1, 2, 0, 2, 0, 0, 1, 0, 0, 4, 0)
CLIT_TWO = words(1) + struct.pack("<d", 2.0)


def test_array_selector_expressions_print_as_eval() -> None:
    from shaderkit.formats.d3d9.effect_listing import expression_lines

    blob = fx20((b"CLIT", CLIT_TWO), (b"FXLC", FXLC_MUL))
    assert expression_lines(blob) == ["mul expr.x, c0.x, (2)"]
    assert expression_lines(blob[:-8]) is None and expression_lines(words(0xFFFE0101, 0xFFFF)) is None
    selector = words(8) + b"vsArray\0" + blob
    data = words(TAG, len(BLOCK)) + BLOCK + records(VS11)[: -(24 + len(VS11))] + words(
        0, 0, 0xFFFFFFFF, 0, 2, len(selector)) + selector
    effect = D3D9Effect.from_bytes(data)
    assert effect.to_bytes() == data and effect.member_names() == []
    (lo,) = effect.records.large_objects if effect.records else []
    assert (lo.kind, lo.text()) == ("array_selector", "vsArray")
    assert "        VertexShader = vsArray[eval(mul expr.x, c0.x, (2))];" in effect.disassemble().split("\n")


def test_the_object_count_covers_a_new_object_id() -> None:
    effect = D3D9Effect.from_bytes(EFFECT)
    assert effect.records is not None
    effect.techniques[0].passes[0].states[0].value.ids[0] = 7  # type: ignore[union-attr]
    out = effect.to_bytes()
    # the object count word (after the block) becomes 8; the value at block offset 80 becomes 7
    expected = bytearray(EFFECT)
    expected[8 + 84 + 12 : 8 + 84 + 16] = words(8)
    expected[8 + 80 : 8 + 84] = words(7)
    assert out == bytes(expected)


def test_vector_and_matrix_dimensions_are_stored_in_their_own_orders() -> None:
    """D3DX reads a vector's ``columns, rows`` and a scalar's or matrix's ``rows, columns``."""
    from shaderkit.formats.d3d9.effect import (
        CLASS_MATRIX_COLUMNS,
        EffectParameter,
        EffectRecords,
        EffectValue,
    )

    m = EffectType(3, CLASS_MATRIX_COLUMNS, "m", rows=3, columns=4)
    v = EffectType(3, 1, "v", rows=1, columns=2)
    effect = D3D9Effect(EffectRecords(parameters=[EffectParameter(m, EffectValue(words=list(range(12)))),
                                                  EffectParameter(v, EffectValue(words=[5, 6]))]))
    data = effect.to_bytes()
    # "m" at 4, its type at 12 (3, 3, 4, 0, 0, rows 3, columns 4), its 12 words at 40; "v" at 88,
    # its type at 96 (3, 1, 88, 0, 0, columns 2, rows 1), its words at 124
    block = (words(0) + string(b"m") + words(3, 3, 4, 0, 0, 3, 4) + words(*range(12))
             + string(b"v") + words(3, 1, 88, 0, 0, 2, 1) + words(5, 6))
    assert data[8 : 8 + len(block)] == block
    back = D3D9Effect.from_bytes(data)
    assert [(p.type.type_name, p.type.rows, p.type.columns) for p in back.parameters] == [
        ("column_major float3x4", 3, 4), ("float2", 1, 2)]
    # the words 5 and 6 read as floats: denormals 5 and 6 x 2^-149 (2^-149 = 1.40129846432e-45), printed
    # %.9g with MSVC's three-digit exponent as fxc prints effect constants
    assert "float2 v = {7.00649232e-045, 8.40779079e-045};" in back.disassemble()


def test_an_unaligned_data_block_keeps_its_size() -> None:
    # a block of 85 bytes (one byte after the last item): kept as it is, the records after it unaligned
    data = words(TAG, 85) + BLOCK + b"\xab" + records(VS11)
    effect = D3D9Effect.from_bytes(data)
    assert effect.records is not None and effect.to_bytes() == data
    effect.techniques[0].name = "Tech"  # grows: "Tech\0" appended at 88 (aligned), the block padded to 100
    out = effect.to_bytes()
    assert out[4:8] == words(100) and out[8 + 88 : 8 + 100] == words(5) + b"Tech\0" + bytes(3)


def test_an_untyped_effect_still_shows_its_shaders_by_offset() -> None:
    from shaderkit.formats.archive.path import EmbeddedNode, open_node

    data = bytearray(EFFECT)
    data[16:20] = words(9)  # an unknown class: the records stay bytes
    node = open_node(bytes(data))
    # VS11 (found by its CTAB comment) lies after the header, the block, 20 record words and 6 large object words
    at = 8 + 84 + 4 * (20 + 6)
    assert isinstance(node, EmbeddedNode) and node.member_names() == [f"@{at:#x}"]
    assert node.member(f"@{at:#x}") == VS11


def test_an_untyped_effect_is_no_member_of_itself() -> None:
    from shaderkit.formats.archive.path import EmbeddedNode, open_node

    # k's name (block offset 36) made a string of no byte: read as "", written back with its NUL
    # (length 1), so the records stay bytes; the walk holds, so the effect is found at offset 0 as the
    # whole input, which is no member of itself: the member is VS11, as above
    data = bytearray(EFFECT)
    data[8 + 36 : 8 + 40] = words(0)
    effect = D3D9Effect.from_bytes(bytes(data))
    assert effect.records is None and effect.to_bytes() == data
    node = open_node(bytes(data))
    at = 8 + 84 + 4 * (20 + 6)
    assert isinstance(node, EmbeddedNode) and node.member_names() == [f"@{at:#x}"]


def test_sampler_states_in_a_pass_name_their_sampler() -> None:
    from shaderkit.formats.d3d9.effect import (
        EffectPass,
        EffectRecords,
        EffectState,
        EffectTechnique,
        EffectValue,
    )

    texture = EffectState(164, 2, EffectType(5, 4), EffectValue(ids=[1]))
    stage = EffectState(103, 1, EffectType(2, 0), EffectValue(words=[4]))  # ColorOp of stage 1
    sampler = EffectState(164, 256, EffectType(5, 4), EffectValue(ids=[1]))
    records = EffectRecords(techniques=[EffectTechnique("T", passes=[EffectPass("P", states=[texture, stage])])])
    effect = D3D9Effect(records)
    lines = D3D9Effect.from_bytes(effect.to_bytes()).disassemble().split("\n")
    assert "        Texture[2] = <object 1>;" in lines and "        ColorOp[1] = 4;" in lines
    data = effect.to_bytes()
    size = struct.unpack_from("<I", data, 4)[0]
    # no parameter, one technique, shader count 0, object count 2 (object id 1 is used)
    assert struct.unpack_from("<4I", data, 8 + size) == (0, 1, 0, 2)
    from shaderkit.formats.d3d9.effect_listing import _Printer

    printer = _Printer(effect)
    printer.state(1, sampler, None)  # in a sampler_state block the index (256 as fxc stores it) is not printed
    assert printer.lines[-1] == "    Texture = <object 1>;"


def test_layout_rows_of_the_small_effect() -> None:
    rows = D3D9Effect.from_bytes(EFFECT).layout_rows()
    by_item = {row["item"]: (row["offset"], row["size"]) for row in rows}
    # file offsets: the block starts at 8 (see BLOCK); the records at 8 + 84
    assert rows[0] == {"item": "header", "offset": 0, "size": 8} and rows[1] == {"item": "raw", "offset": 8, "size": 4}
    assert by_item["block.p.0.type"] == (12, 28) and by_item["block.p.0.value"] == (40, 4)
    assert by_item["block.p.0.type.name"] == (44, 6) and by_item["block.t.0.name"] == (52, 6)
    assert by_item["block.t.0.p.0.s.0.type"] == (68, 20) and by_item["block.t.0.p.0.s.0.value"] == (88, 4)
    assert rows[-1] == {"item": "records", "offset": 92, "size": len(EFFECT) - 92}
    # string padding is raw: 2 bytes after "k\0"
    assert {"item": "raw", "offset": 50, "size": 2} in rows


def test_a_shared_string_splits_when_one_owner_is_renamed() -> None:
    # the pass points at the technique's name "T" (block offset 44): written once while both agree
    def shared(pass_name_offset: int, block: bytes) -> bytes:
        recs = bytearray(records(VS11))
        recs[4 * 11 : 4 * 12] = words(pass_name_offset)  # the pass's name word (record word 11)
        return words(TAG, len(block)) + block + bytes(recs)

    data = shared(44, BLOCK)
    effect = D3D9Effect.from_bytes(data)
    assert effect.techniques[0].passes[0].name == "T" and effect.to_bytes() == data
    effect.techniques[0].passes[0].name = "Q"
    # "Q" cannot go to 44 (the technique keeps "T" there): appended at 84, the block padded to 92
    assert effect.to_bytes() == shared(84, BLOCK + words(2) + b"Q\0" + bytes(2))


def test_cfg_draws_each_shader_of_an_effect(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from shaderkit.cli import cli

    # the small effect with two shaders for technique 0, pass 0, state 0: VS11, then PS20
    large = [words(0, 0, 0xFFFFFFFF, 0, 0, len(shader)) + shader for shader in (VS11, PS20)]
    path = tmp_path / "two.fxo"
    path.write_bytes(EFFECT[: -len(large[0]) - 8] + words(0, 2) + b"".join(large))
    result = CliRunner().invoke(cli, ["cfg", str(path)])
    assert result.exit_code == 0, result.output
    # one cluster per shader, named as ls names them; each one instruction at word 3 (byte 0x0c) of its
    # shader: the version token, the comment token and its one word "CTAB" come first
    assert 'label="T/P/VertexShader";' in result.output and 'label="T/P/VertexShader#2";' in result.output
    assert 'p0_b0 [label="000c  mov r0, v0\\l"];' in result.output
    assert 'p1_b0 [label="000c  mov oC0, c0\\l"];' in result.output and "p1_b0 -> p1_exit;" in result.output


def test_run_takes_a_shader_of_an_effect_by_member_name(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from shaderkit.cli import cli

    path = tmp_path / "ps.fxo"
    path.write_bytes(words(TAG, len(BLOCK)) + BLOCK + records(PS20))  # the pass's shader: mov oC0, c0
    result = CliRunner().invoke(cli, ["run", f"{path}//T/P/VertexShader", "--uniform", "c0=1,2,3,4", "--count", "2"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["COLOR0"] == [[1, 2, 3, 4], [1, 2, 3, 4]]


def pass_effect(tname: bytes, pname: bytes) -> bytes:
    """``technique TNAME { pass PNAME { VertexShader = asm {...}; } }`` (no parameter)."""
    # block: zero word; at 4 the state's type: VertexShader (16), object (4), no name (20 bytes);
    # at 24 its value: object id 1; then the technique's and the pass's names
    block = words(0) + words(16, 4, 0, 0, 0) + words(1)
    t_at = len(block)
    block += string(tname)
    p_at = len(block)
    block += string(pname)
    recs = (words(0, 1, 1, 2) + words(t_at, 0, 1) + words(p_at, 0, 1) + words(146, 0, 4, 24)
            + words(0, 1) + words(0, 0, 0xFFFFFFFF, 0, 0, len(VS11)) + VS11)
    return words(TAG, len(block)) + block + recs


def parameter_effect(name: bytes, count: int, sampler_shader: bool = False) -> bytes:
    """``VertexShader NAME[COUNT]`` holding object ids 1..COUNT, the last of them a shader (a small
    object); ``sampler_shader``: a large object of the parameter (technique 0xFFFFFFFF) holds one too."""
    # block: zero word; at 4 the type: VertexShader (16), object (4), name after the ids, COUNT
    # elements (20 bytes); at 24 the ids; then the name
    name_at = 24 + 4 * count
    block = words(0) + words(16, 4, name_at, 0, count) + words(*range(1, count + 1)) + string(name)
    recs = (words(1, 0, 0, count + 1) + words(4, 24, 0, 0)
            + words(1, int(sampler_shader)) + words(count, len(VS11)) + VS11)
    if sampler_shader:
        recs += words(0xFFFFFFFF, 0, 0, 0, 0, len(VS11)) + VS11
    return words(TAG, len(block)) + block + recs


def test_member_names_of_long_technique_and_pass_names_are_their_indices() -> None:
    # names of up to MAX_MEMBER_NAME (256) characters make the member name; a longer one gives its index
    for tname, pname, member in ((b"T" * 256, b"P", "T" * 256 + "/P/VertexShader"),
                                 (b"T" * 257, b"P", "0/P/VertexShader"),
                                 (b"T", b"P" * 257, "T/0/VertexShader"),
                                 (b"T" * 100_000, b"P" * 100_000, "0/0/VertexShader")):
        data = pass_effect(tname, pname)
        effect = D3D9Effect.from_bytes(data)
        assert effect.records is not None and effect.to_bytes() == data
        assert effect.techniques[0].name == tname.decode() and effect.techniques[0].passes[0].name == pname.decode()
        assert effect.member_names() == [member]
        assert effect.member(member) == VS11


def test_member_names_of_a_long_parameter_name_are_its_index() -> None:
    data = parameter_effect(b"v" * 256, 3, sampler_shader=True)
    effect = D3D9Effect.from_bytes(data)
    assert effect.records is not None and effect.to_bytes() == data
    assert effect.member_names() == ["v" * 256 + "[2]", "v" * 256 + "/state0"]
    data = parameter_effect(b"v" * 257, 3, sampler_shader=True)
    effect = D3D9Effect.from_bytes(data)
    assert effect.records is not None and effect.to_bytes() == data and effect.parameters[0].name == "v" * 257
    assert effect.member_names() == ["parameter0[2]", "parameter0/state0"]
    assert effect.object_owners() == {1: "parameter0[0]", 2: "parameter0[1]", 3: "parameter0[2]"}


def test_only_the_objects_that_hold_a_shader_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # 4096 distinct ids in one parameter, one of them a shader: one name is made (it was one per id,
    # each as long as the parameter's name: 4096 x 100 KB)
    data = parameter_effect(b"t" * 100_000, 4096)
    effect = D3D9Effect.from_bytes(data)
    assert effect.records is not None and effect.to_bytes() == data
    made = []
    original = D3D9Effect._owner_name
    monkeypatch.setattr(D3D9Effect, "_owner_name", lambda self, i, k: made.append((i, k)) or original(self, i, k))
    assert effect.member_names() == ["parameter0[4095]"]
    assert made == [(0, 4095)]


def test_a_cut_object_and_its_cut_padding_are_refused_where_they_end() -> None:
    # the small effect's large object (its 6 words after the header, the block and 80 bytes of
    # records: at 8 + 84 + 80 = 172) made 26 bytes long: its bytes lie at 196..222, its padding at 222..224
    head = EFFECT[:172] + words(0, 0, 0xFFFFFFFF, 0, 0, 26)
    assert len(head) == 196
    # (a large object count of 1 needs 24 bytes of records; the four counts 16 bytes at 92)
    for data, message, offset, context in (
            (head + VS11[:26], "object padding needs 2 bytes, 0 left", 222, "FX2.large_objects[0]"),
            (head + VS11[:20], "object needs 26 bytes, 20 left", 196, "FX2.large_objects[0]"),
            (head[:192], "count: count 1 needs 24 bytes, 20 left", 172, "FX2.large_objects"),
            (EFFECT[:100], "records needs 16 bytes, 8 left", 92, "FX2.counts")):
        with pytest.raises(ShaderFormatError) as caught:
            D3D9Effect.from_bytes(data)
        assert (caught.value.message, caught.value.offset, caught.value.context) == (message, offset, context)
