"""Members of containers, named ``outer.szs//inner/path//deeper``: resolve, list, write back.

Compressed streams (Yaz0, zstd) are transparent: a name after ``//`` names a member of whatever
archive the stream holds. Containers with named members: SARC (member names), Wii U and Switch
BFRES (external files), Wii U RPX/RPL (sections by name, inflated), Wii U BFSHA
(``MODEL/PROGRAM/STAGE``: the GX2 microcode of one stage; ``geometry_copy`` names a geometry shader's
copy program; bare microcode, so the node gives its typed model, see :func:`member_model`),
Switch BFSHA (``MODEL.bnsh``), D3D9 effects (``TECHNIQUE/PASS/STATE`` or
``PARAMETER[k]``: the shaders, see :meth:`~shaderkit.formats.d3d9.effect.D3D9Effect.shader_members`;
an effect whose records are kept as bytes is searched like a file of unknown format) and any
file of unknown format (or of a format only identified) with known files
inside it (``@0x1a40``: the offset of one, see :mod:`shaderkit.formats.embedded`).
No file I/O here: callers pass the bytes of the outermost file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.io.limits import MAX_NESTING_DEPTH

if TYPE_CHECKING:
    from shaderkit.formats.base import ShaderFile

SEPARATOR = "//"


def split(path: str) -> tuple[str, list[str]]:
    """(file system path, member names); ``a.szs//b/c.bfsha//m/0/vertex`` -> ``a.szs``, [...]."""
    parts = path.split(SEPARATOR)
    # a URL-like "x://" or a leading "//" belongs to the file name, not to a member
    head = parts[0]
    rest = parts[1:]
    while rest and (head == "" or head.endswith(":")):
        head += SEPARATOR + rest.pop(0)
    return head, [p for p in rest if p != ""]


def open_node(data: bytes) -> Any | None:
    """The container model of ``data`` (compressed stream or archive), else None."""
    from shaderkit.formats.archive.compressed import Yaz0File, ZstdFile
    from shaderkit.formats.archive.sarc import Sarc
    from shaderkit.formats.archive.zstd import MAGIC as ZSTD_MAGIC
    from shaderkit.formats.bfres.wiiu import WiiUBfres, is_wiiu_fres, is_wiiu_fsha

    head = data[:4]
    if head == b"Yaz0":
        return Yaz0File.from_bytes(data)
    if head == ZSTD_MAGIC:
        return ZstdFile.from_bytes(data)
    if head == b"SARC":
        return SarcNode(Sarc.from_bytes(data))
    if is_wiiu_fres(data):
        return WiiUBfres.from_bytes(data)
    if head == b"FRES" and data[0xC:0xE] == b"\xff\xfe":
        from shaderkit.formats.bfres.switch import SwitchBfres

        return SwitchBfres.from_bytes(data)
    if is_wiiu_fsha(data):
        from shaderkit.formats.bfsha.wiiu import WiiUBfsha

        return BfshaNode(WiiUBfsha.from_bytes(data))
    if head == b"FSHA" and data[0xC:0xE] == b"\xff\xfe":
        from shaderkit.formats.bfsha.switch import SwitchBfsha

        return SwitchBfshaNode(SwitchBfsha.from_bytes(data))
    if data[:9] == b"\x7fELF\x01\x02\x01\xca\xfe":  # Wii U RPX/RPL: its sections
        from shaderkit.formats.rpl.rpl import Rpl

        return Rpl.from_bytes(data)
    from shaderkit.formats.registry import detect

    spec = detect(data)
    if spec is not None and spec.name == "fx2":
        from shaderkit.formats.d3d9.effect import D3D9Effect

        effect = D3D9Effect.from_bytes(data)
        if effect.records is not None:  # its shaders by TECHNIQUE/PASS/STATE
            return effect
    elif spec is not None and spec.target is not None:  # a format read as itself
        return None
    # unknown, identified but not read, or an effect whose records stay bytes: the shaders found inside
    from shaderkit.formats.embedded import find

    found = find(data)
    if found and found[0].offset == 0 and found[0].size == len(data):
        # (the input itself, e.g. an effect whose records stay bytes, is no member of itself: what
        # lies inside it is; listed as its own member, it opened again and again to the nesting cap)
        found = find(data, 1)
    return EmbeddedNode(data, found) if found else None


class SarcNode:
    """SARC with the member interface."""

    def __init__(self, sarc: Any) -> None:
        self.model = sarc

    def member_names(self) -> list[str]:
        """The SARC member names in file order."""
        return list(self.model.names())

    def member(self, name: str) -> bytes:
        """The bytes of member ``name``; KeyError when there is none."""
        return bytes(self.model.get(name))

    def replace_member(self, name: str, data: bytes) -> None:
        """Put ``data`` in place of member ``name``."""
        self.model.set(name, data)

    def to_bytes(self) -> bytes:
        """The SARC rebuilt with its current members."""
        return bytes(self.model.to_bytes())


class BfshaNode:
    """Wii U BFSHA with its programs' stages as members ``MODEL/PROGRAM/STAGE`` (microcode)."""

    def __init__(self, bfsha: Any) -> None:
        self.model = bfsha

    def member_names(self) -> list[str]:
        """Each GX2 shader as ``MODEL/PROGRAM/STAGE`` (and ``.../geometry_copy`` for a copy program)."""
        from shaderkit.formats.bfsha.wiiu import COPY

        names = []
        for m in self.model.models:
            for p in m.programs:
                for stage, index in p.shaders.items():
                    names.append(f"{m.name}/{p.index}/{stage}")
                    if self.model.shaders[index].copy_program:
                        names.append(f"{m.name}/{p.index}/{COPY}")
        return names

    def _shader(self, name: str) -> tuple[Any, str]:
        index, attr = self.model.program_stage(*self.model.split_member(name))
        return self.model.shaders[index], attr

    def member(self, name: str) -> bytes:
        """The Latte microcode of shader ``MODEL/PROGRAM/STAGE``."""
        shader, attr = self._shader(name)
        return bytes(getattr(shader, attr))

    def replace_member(self, name: str, data: bytes) -> None:
        """Put ``data`` as the microcode of shader ``MODEL/PROGRAM/STAGE``."""
        shader, attr = self._shader(name)
        setattr(shader, attr, bytes(data))

    def member_model(self, name: str) -> Any:
        """The typed model of member ``name`` (its bytes are bare microcode, which no registry
        format detects): a :class:`~shaderkit.formats.bfsha.wiiu_stage.WiiUBfshaStage` with the
        archive's GX2 struct and reflection for it."""
        from shaderkit.formats.bfsha.wiiu_stage import WiiUBfshaStage

        return WiiUBfshaStage.of_member(self.model, name)

    def to_bytes(self) -> bytes:
        """The Wii U BFSHA rebuilt with its current microcode."""
        return bytes(self.model.to_bytes())


class SwitchBfshaNode:
    """Switch BFSHA with each shading model's embedded BNSH as member ``MODEL.bnsh``."""

    def __init__(self, bfsha: Any) -> None:
        self.model = bfsha

    def member_names(self) -> list[str]:
        """Each shading model's embedded BNSH as ``MODEL.bnsh``."""
        return [f"{m.name}.bnsh" for m in self.model.models if m.bnsh]

    def _model(self, name: str) -> Any:
        if not name.endswith(".bnsh"):
            raise KeyError(f"{name!r} is not MODEL.bnsh (members: {', '.join(self.member_names())})")
        return self.model.model(name[: -len(".bnsh")])

    def member(self, name: str) -> bytes:
        """The BNSH bytes embedded in shading model ``MODEL.bnsh``."""
        return bytes(self._model(name).bnsh)

    def replace_member(self, name: str, data: bytes) -> None:
        """Put ``data`` as the BNSH of shading model ``MODEL.bnsh``."""
        self._model(name).bnsh = bytes(data)

    def to_bytes(self) -> bytes:
        """The Switch BFSHA rebuilt with its current BNSH files."""
        return bytes(self.model.to_bytes())


class EmbeddedNode:
    """A file of unknown format with known files inside it, each a member ``@0x1a40`` (its offset)."""

    def __init__(self, data: bytes, found: list[Any]) -> None:
        self.data = bytes(data)
        self.found = {item.offset: item for item in found}

    def member_names(self) -> list[str]:
        """The files found inside, by offset."""
        return [item.name for item in self.found.values()]

    def _item(self, name: str) -> Any:
        """The file found at the offset ``name`` gives (or one whose header starts there, for a
        file inside one found)."""
        from shaderkit.formats.embedded import Embedded, parse_name, size_at

        offset = parse_name(name)
        item = self.found.get(offset) if offset is not None else None
        if item is not None:
            return item
        size = size_at(self.data, offset) if offset is not None and 0 <= offset < len(self.data) else None
        if offset is None or size is None:
            listed = ", ".join(self.member_names()[:8]) + (" ..." if len(self.found) > 8 else "")
            raise KeyError(f"no known file starts at {name!r} (inside: {listed})")
        return Embedded(offset, size)

    def member(self, name: str) -> bytes:
        """The bytes of the file starting at the offset ``@0x...`` names."""
        item = self._item(name)
        return self.data[item.offset : item.offset + item.size]

    def replace_member(self, name: str, data: bytes) -> None:
        """Put ``data`` in place of the file at ``@0x...``: only a same-size file, since nothing says
        what else in the outer file points past it."""
        from shaderkit.errors import UnsupportedOperation

        item = self._item(name)
        if len(data) != item.size:
            raise UnsupportedOperation(
                f"{name}: the outer file's format is unknown, so only a file of the same size ({item.size} "
                f"bytes) can replace the one inside it; this one has {len(data)}")
        self.data = self.data[: item.offset] + bytes(data) + self.data[item.offset + item.size :]

    def to_bytes(self) -> bytes:
        """The outer file with its current contents."""
        return self.data


@dataclass
class Step:
    """One level of a resolved path: the container and the member taken from it ('' = payload)."""

    node: Any
    member: str


def resolve(data: bytes, members: list[str], where: str = "") -> tuple[list[Step], bytes]:
    """Walk ``members`` from ``data``: the steps taken and the bytes of the named member."""
    steps: list[Step] = []
    names = list(members)
    context = where
    for _ in range(MAX_NESTING_DEPTH * 2 + len(members)):
        if not names:
            return steps, data
        node = open_node(data)
        if node is None:
            raise ShaderFormatError(f"not an archive, so it has no member {names[0]!r}", 0, context)
        if hasattr(node, "payload"):
            steps.append(Step(node, ""))
            data = node.payload
            continue
        name = names.pop(0)
        try:
            data = node.member(name)
        except LookupError as exc:
            raise ShaderFormatError(str(exc.args[0] if exc.args else exc), None, context) from None
        steps.append(Step(node, name))
        context = f"{context}{SEPARATOR}{name}" if context else name
    raise ShaderFormatError("archives nest too deeply", None, context)


def member_model(steps: list[Step]) -> Any | None:
    """The typed model the innermost container offers for the member it gave (a member whose bytes
    no format detects, e.g. a Wii U BFSHA stage's bare microcode), else None (the member's bytes
    are a file of their own). Containers offer one through a ``member_model(name)`` method."""
    if not steps or not steps[-1].member:
        return None
    offer = getattr(steps[-1].node, "member_model", None)
    if offer is None:
        return None
    try:
        return offer(steps[-1].member)
    except LookupError as exc:
        raise ShaderFormatError(str(exc.args[0] if exc.args else exc), None, steps[-1].member) from None


def member_parameters(steps: list[Step]) -> dict[str, Any]:
    """The parameter values the innermost container gives the member it gave (a D3D9 effect's
    initial values, by name, for one of its shaders), else {}. Containers give them through a
    ``parameter_values()`` method."""
    values = getattr(steps[-1].node, "parameter_values", None) if steps else None
    return values() if values is not None else {}


def open_member(steps: list[Step], data: bytes) -> Any:
    """The model of the member ``steps`` reached (its bytes: ``data``): the typed model its
    container offers (:func:`member_model`), else :func:`shaderkit.open` of the bytes."""
    import shaderkit

    model = member_model(steps)
    return model if model is not None else shaderkit.open(data)


def write_back(steps: list[Step], data: bytes) -> bytes:
    """The outermost file's bytes after putting ``data`` in place of the innermost member."""
    for step in reversed(steps):
        if step.member:
            step.node.replace_member(step.member, data)
        else:
            step.node.payload = data
        data = step.node.to_bytes()
    return data


@dataclass
class Listed:
    """One listed file: its ``outer//inner`` path, format id, size in bytes, nesting depth and bytes."""
    path: str
    format: str
    size: int
    depth: int
    data: bytes
    #: why the members of this member could not be listed (a damaged inner archive)
    error: str = ""


def walk(data: bytes, prefix: str = "", depth: int = 0) -> Iterator[Listed]:
    """Every member below ``data``, recursively (compressed streams are opened, not listed)."""
    data, node, depth = unwrap(data, prefix, depth)
    if node is not None:
        yield from _members_of(node, prefix, depth)


def _members_of(node: Any, prefix: str, depth: int) -> Iterator[Listed]:
    """:func:`walk` below the container ``node`` (opened at ``depth``)."""
    from shaderkit.formats.registry import detect

    # (a node that finds each member by making the whole list, a D3D9 effect, gives the list at once)
    items = node.member_items() if hasattr(node, "member_items") else \
        ((name, node.member(name)) for name in node.member_names())
    for name, blob in items:
        path = f"{prefix}{SEPARATOR}{name}"
        if isinstance(node, BfshaNode):
            kind = "gx2-microcode"
        else:
            spec = detect(blob)
            kind = kind_of(blob) or (spec.name if spec else "unknown")
        if isinstance(node, BfshaNode):
            yield Listed(path, kind, len(blob), depth, blob)
            continue
        try:  # list the inner archive first, so that a damaged one only marks this member
            inner = list(walk(blob, path, depth + 1))
        except ShaderFormatError as exc:
            yield Listed(path, kind, len(blob), depth, blob, str(exc))
            continue
        yield Listed(path, kind, len(blob), depth, blob)
        yield from inner


def unwrap(data: bytes, where: str = "", depth: int = 0) -> tuple[bytes, Any | None, int]:
    """(bytes, container model or None, depth) inside the compressed streams around ``data``."""
    if depth > MAX_NESTING_DEPTH:
        raise ShaderFormatError("archives nest too deeply", None, where)
    node = open_node(data)
    while node is not None and hasattr(node, "payload"):
        data = node.payload
        node = open_node(data)
        depth += 1
        if depth > MAX_NESTING_DEPTH:
            raise ShaderFormatError("archives nest too deeply", None, where)
    return data, node, depth


@dataclass
class Member:
    """A shader inside a file with no text of its own: its ``outer//inner`` name and bytes, or why
    the archive holding it could not be listed (``error``; its bytes are the archive's)."""
    name: str
    data: bytes = field(repr=False)
    error: str = ""
    #: the model the container gives a member without magic (a Wii U BFSHA stage's microcode)
    offered: Any = field(default=None, repr=False)

    def open(self) -> ShaderFile:
        """The shader's typed model (:func:`shaderkit.open` of its bytes, or the one its archive
        offers), parsed now: ShaderFormatError for damaged bytes (the member's name before the
        structure it names), or with ``error`` when its archive could not be listed."""
        import shaderkit

        if self.error:
            raise ShaderFormatError(self.error, None, self.name)
        if self.offered is not None:
            return self.offered
        try:
            return shaderkit.open(self.data)
        except ShaderFormatError as exc:
            raise exc.within(self.name) from None


def shader_members(name: str, data: bytes) -> list[Member]:
    """The files with text of their own inside ``data`` (the file ``name``: an archive, a game
    executable, a package of unknown format), outermost first: not the members of one already
    taken (a BFSHA's stages are in its own listing), not containers (their shaders are taken)."""
    from shaderkit.formats.registry import detect

    inner, node, depth = unwrap(data, name)
    if node is None:
        spec = detect(inner) if depth else None
        if spec is not None and has_text(kind_of(inner) or spec.name):  # a compressed shader: the stream's name
            return [Member(name, inner)]
        return []
    found: list[Member] = []
    for item in _members_of(node, name, depth):
        if found and item.path.startswith(found[-1].name + SEPARATOR):
            continue  # (walk gives a member before the members inside it)
        if has_text(item.format):
            found.append(Member(item.path, item.data))
        elif item.error:
            found.append(Member(item.path, item.data, item.error))
    return found


def shaders_of(name: str, data: bytes) -> list[Member]:
    """The shaders ``disasm`` and ``verify`` take from the file ``name``: the file itself when its
    format has text of its own, else :func:`shader_members` (none for bytes of no known format
    with no known file inside)."""
    from shaderkit.formats.registry import detect

    spec = detect(data)
    if spec is not None and has_text(kind_of(data) or spec.name):
        return [Member(name, data)]
    return shader_members(name, data)


def has_text(format_name: str) -> bool:
    """True when models of the format ``format_name`` (a registry id) have a listing of their own."""
    from shaderkit.formats.base import textless
    from shaderkit.formats.registry import FORMATS

    spec = next((s for s in FORMATS if s.name == format_name), None)
    return spec is not None and spec.target is not None and not textless(spec.load())


def kind_of(data: bytes) -> str | None:
    """Format names for the containers the registry does not describe by variant."""
    from shaderkit.formats.bfres.wiiu import is_wiiu_fres, is_wiiu_fsha

    if is_wiiu_fsha(data):
        return "bfsha-wiiu"
    if is_wiiu_fres(data):
        return "bfres-wiiu"
    if data[:4] == b"FRES" and data[0xC:0xE] == b"\xff\xfe":
        return "bfres-switch"
    if data[:4] == b"FSHA" and data[0xC:0xE] == b"\xff\xfe":
        return "bfsha-switch"
    return None
