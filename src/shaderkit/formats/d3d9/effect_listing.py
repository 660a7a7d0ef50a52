"""The text of a Direct3D 9 effect (fx_2_0): the effect written back as effect-file source.

No fxc ``/Fc`` listing of an fx_2_0 effect was found to copy its spelling, so this is shaderkit's own,
in the syntax of an ``.fx`` file so that it reads like the source:

* a comment header (``// fx_2_0 effect: N parameters, N techniques, N objects``);
* each parameter as a declaration: ``float4 DiffuseColor = {1, 1, 1, 1};`` with its semantic
  (``: NAME``), annotations (``< string UIName = "x"; >``), struct members, and its value: numbers
  (floats ``%.9g`` with MSVC's three-digit exponent, as fxc prints FX10 effect constants; ints;
  ``true``/``false``), ``sampler_state { ... }`` for a sampler,
  a string's text, ``<object N>`` for a texture or shader without data, ``asm { ... }`` bodies for the
  shaders it is initialised with;
* each technique: ``technique NAME { pass NAME { STATE = VALUE; ... } }``; a state the effect
  computes from a large object shows it: ``VertexShader = asm { ... };`` (the shader's fxc
  listing, indented), ``Texture = <Parameter>;`` (a parameter reference), ``VertexShader =
  VSArray[eval(mov expr.x, VSIndices[0].x[ShaderIndex.x])];`` (an array selector: its ``FX20``
  expression's FXLVM instructions as fxc prints those of FX10 effects, literals from its ``CLIT``,
  inputs named by its ``CTAB``), ``eval(...)`` (an expression), ``/* expression, N bytes */`` for
  one whose code does not decode.
  States are named by :data:`~.effect.STATE_NAMES`, with ``[index]`` for indexed states
  (texture stages, lights, constants, and in a pass the sampler states: ``Texture[0]``);
* an unnamed technique or pass keeps an empty name (``pass``), as in the source.

Effects whose records are not typed print the header and the reason.
"""

from __future__ import annotations

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.d3d9.effect import (
    CLASS_OBJECT,
    CLASS_STRUCT,
    EXPRESSION_TAG,
    FIRST_SAMPLER_STATE,
    INDEXED_STATES,
    MAX_DEPTH,
    NO_TECHNIQUE,
    TYPE_STRING,
    D3D9Effect,
    EffectAnnotation,
    EffectState,
    EffectType,
    EffectValue,
    LargeObject,
    _value_text,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from shaderkit.formats.d3d9.shader import D3D9Shader

INDENT = "    "


class _Printer:
    def __init__(self, effect: D3D9Effect) -> None:
        self.effect = effect
        records = effect.records
        assert records is not None
        self.small = {o.id: o for o in records.small_objects}
        self.large: dict[tuple[int, int, int, int], LargeObject] = {}
        for lo in records.large_objects:
            element = lo.element if lo.technique == NO_TECHNIQUE and lo.element != NO_TECHNIQUE else 0
            self.large.setdefault((lo.technique, lo.index, element, lo.state), lo)
        self.lines: list[str] = []
        #: id(shader) -> its listing's lines (a shader several values name is disassembled once)
        self.shader_lines: dict[int, list[str]] = {}

    def emit(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text)

    def asm(self, depth: int, shader: D3D9Shader, head: str, tail: str) -> None:
        self.emit(depth, head + "asm")
        self.emit(depth, "{")
        lines = self.shader_lines.get(id(shader))
        if lines is None:
            lines = self.shader_lines[id(shader)] = shader.disassemble().rstrip("\n").split("\n")
        indent = INDENT * (depth + 1)
        self.lines += [(indent + line) if line else "" for line in lines]
        self.emit(depth, "}" + tail)

    def object_text(self, type_: int, object_id: int) -> tuple[str, D3D9Shader | None]:
        """(text, shader to print) for an object id."""
        o = self.small.get(object_id)
        if o is None:
            return f"<object {object_id}>", None
        if o.shader is not None:
            return "", o.shader
        if type_ == TYPE_STRING or (o.data and o.data.endswith(b"\0")):
            return _quoted(o.data), None
        return (f"<object {object_id}, {len(o.data)} bytes>" if o.data else f"<object {object_id}>"), None

    def value(self, depth: int, t: EffectType, v: EffectValue, head: str, large_key: tuple[int, int, int] | None,
              tail: str = ";") -> None:
        """``head = value;`` lines (``head`` already holds the declaration or the state name)."""
        if v.samplers is not None:
            for e, states in enumerate(v.samplers):
                label = head if len(v.samplers) == 1 else f"{head}[{e}]"
                self.emit(depth, f"{_assign(label)}sampler_state")
                self.emit(depth, "{")
                for k, s in enumerate(states):
                    key = (large_key[0], large_key[1], e, k) if large_key is not None else None
                    self.state(depth + 1, s, key)
                self.emit(depth, "}" + tail)
            return
        if t.klass == CLASS_OBJECT:
            texts = [self.object_text(t.type, i) for i in v.ids]
            if all(shader is None for _, shader in texts):
                joined = texts[0][0] if len(texts) == 1 else "{" + ", ".join(text for text, _ in texts) + "}"
                self.emit(depth, f"{_assign(head)}{joined}{tail}")
                return
            if len(texts) == 1:
                shader = texts[0][1]
                assert shader is not None
                self.asm(depth, shader, _assign(head), tail)
                return
            self.emit(depth, _assign(head).rstrip())
            self.emit(depth, "{")
            for k, (text, shader) in enumerate(texts):
                comma = "," if k < len(texts) - 1 else ""
                if shader is None:
                    self.emit(depth + 1, text + comma)
                else:
                    self.asm(depth + 1, shader, "", comma)
            self.emit(depth, "}" + tail)
            return
        self.emit(depth, f"{_assign(head)}{_value_text(t, v)}{tail}")

    def state(self, depth: int, s: EffectState, key: tuple[int, int, int, int] | None, in_pass: bool = False) -> None:
        indexed = s.operation in INDEXED_STATES or (in_pass and s.operation >= FIRST_SAMPLER_STATE)
        name = f"{s.name}[{s.index}]" if indexed else s.name
        lo = self.large.get(key) if key is not None else None
        if lo is not None:
            if lo.shader is not None:
                self.asm(depth, lo.shader, f"{name} = ", ";")
                return
            kind = lo.kind
            if kind == "parameter":
                self.emit(depth, f"{name} = <{lo.text()}>;")
                return
            if kind in ("array_selector", "expression"):
                blob = lo.data
                if kind == "array_selector":
                    size = int.from_bytes(blob[:4], "little") if len(blob) >= 4 else 0
                    blob = blob[4 + size :]
                lines = expression_lines(blob)
                if lines is None:
                    body = f"/* expression, {len(blob)} bytes */"
                else:
                    body = "eval(" + ("\n" + INDENT * depth + " " * (len(name) + 8)).join(lines) + ")"
                rhs = f"{lo.text()}[{body}]" if kind == "array_selector" else body
                self.lines += f"{INDENT * depth}{name} = {rhs};".split("\n")
                return
            self.emit(depth, f"{name} = <{kind}, {len(lo.data)} bytes>;")
            return
        self.value(depth, s.type, s.value if s.value is not None else EffectValue(), name, None)

    def annotations(self, depth: int, annotations: list[EffectAnnotation]) -> None:
        if not annotations:
            return
        self.emit(depth, "<")
        for a in annotations:
            self.value(depth + 1, a.type, a.value, _declaration(a.type), None)
        self.emit(depth, ">")

    def run(self) -> str:
        effect = self.effect
        records = effect.records
        assert records is not None
        self.lines += [
            f"// fx_2_0 effect: {_count(len(records.parameters), 'parameter')}, "
            f"{_count(len(records.techniques), 'technique')}, {_count(records.object_count, 'object')} "
            f"({len(records.small_objects)} small, {len(records.large_objects)} large)",
            "",
        ]
        for i, p in enumerate(records.parameters):
            head = ("shared " if p.flags & 1 else "") + _declaration(p.type)
            if p.annotations:
                self.emit(0, head)
                self.annotations(0, p.annotations)
                head = ""
            self.value(0, p.type, p.value, head, (NO_TECHNIQUE, i, 0))
            self.lines.append("")
        for t_index, tech in enumerate(records.techniques):
            self.emit(0, f"technique {tech.name or ''}".rstrip())
            self.annotations(0, tech.annotations)
            self.emit(0, "{")
            for p_index, ps in enumerate(tech.passes):
                self.emit(1, f"pass {ps.name or ''}".rstrip())
                self.annotations(1, ps.annotations)
                self.emit(1, "{")
                for k, s in enumerate(ps.states):
                    self.state(2, s, (t_index, p_index, 0, k), in_pass=True)
                self.emit(1, "}")
                if p_index < len(tech.passes) - 1:
                    self.lines.append("")
            self.emit(0, "}")
            self.lines.append("")
        return "\n".join(self.lines).rstrip("\n") + "\n"


def expression_lines(blob: bytes) -> list[str] | None:
    """The instructions of an ``FX20`` expression (an FXLVM token stream of version ``0x46580200``:
    :mod:`~shaderkit.formats.d3d9.preshader`) as fxc prints FXLVM code, inputs named by its
    ``CTAB``, literals from its ``CLIT``; None when the blob is not one or its code does not
    decode."""
    from shaderkit.formats.d3d9.preshader import read_fxlvm

    if int.from_bytes(blob[:4], "little") != EXPRESSION_TAG:
        return None
    try:
        return read_fxlvm(blob, 0, "FX20").instruction_lines()
    except ShaderFormatError:
        return None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _assign(head: str) -> str:
    return f"{head} = " if head else "= "


def _quoted(data: bytes) -> str:
    text = data.split(b"\0", 1)[0].decode("latin-1")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _declaration(t: EffectType, depth: int = 0) -> str:
    """``float4 Name : SEMANTIC`` (arrays ``[n]``; a struct spelled with its members inline)."""
    type_text = t.type_name
    if t.klass == CLASS_STRUCT and depth < MAX_DEPTH:
        type_text = "struct { " + " ".join(_declaration(m, depth + 1) + ";" for m in t.members) + " }"
    text = f"{type_text} {t.name or ''}".rstrip()
    if t.elements:
        text += f"[{t.elements}]"
    if t.semantic:
        text += f" : {t.semantic}"
    return text


def effect_listing(effect: D3D9Effect) -> str:
    """The effect's text (see the module documentation)."""
    if effect.records is None:
        return (f"// fx_2_0 effect, {len(effect.block)}-byte data block; its records are kept as bytes:\n"
                f"// {effect.untyped}\n")
    return _Printer(effect).run()
