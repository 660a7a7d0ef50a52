"""Encodings built from :mod:`table` at import time: masks, field slots and the decode lookup.

Every encoding keeps a flat list of *slots* (bit groups); an instruction is the encoding plus one
value per slot plus any bits no slot covers (``residual``), so ``encode(decode(w)) == w`` holds by
construction for every word an encoding matches.
"""

from __future__ import annotations

from shaderkit.dataclass import dataclass, field
from shaderkit.isa.maxwell.table import ALWAYS_PRINTED, DEFAULTS, ENUMS, ROWS

Bits = tuple[tuple[int, int], ...]  # (lowest bit, width), lowest value bits first
MASK64 = (1 << 64) - 1
GUARD_BITS: Bits = ((16, 3),)
GUARD_NOT_BIT = 19
OPERAND_KINDS = ("R", "P", "I", "H", "S", "F", "F20", "D20", "C", "K", "M", "A", "T", "N", "W")


def bits_mask(bits: Bits) -> int:
    """The mask covering every (low bit, width) range of ``bits``."""
    mask = 0
    for lo, width in bits:
        mask |= ((1 << width) - 1) << lo
    return mask


def bits_width(bits: Bits) -> int:
    """The total width of ``bits``."""
    return sum(width for _, width in bits)


def get_bits(word: int, bits: Bits) -> int:
    """The value of split field ``bits`` in ``word`` (first range lowest)."""
    value, shift = 0, 0
    for lo, width in bits:
        value |= ((word >> lo) & ((1 << width) - 1)) << shift
        shift += width
    return value


def put_bits(bits: Bits, value: int) -> int:
    """``value`` spread over split field ``bits`` (first range lowest), to OR into a word."""
    word = 0
    for lo, width in bits:
        word |= (value & ((1 << width) - 1)) << lo
        value >>= width
    return word


def _parse_bits(text: str) -> Bits:
    out = []
    for part in text.split("+"):
        lo, _, width = part.partition(":")
        out.append((int(lo), int(width or 1)))
    return tuple(out)


@dataclass(frozen=True)
class Operand:
    """One text operand: its kind, the slots of its sub-fields and of its flags."""

    kind: str
    fields: tuple[int, ...]  # slot indices, in the order the kind names them
    neg: int | None = None  # slot of a one-bit flag
    abs: int | None = None
    not_: int | None = None
    inv: int | None = None  # bitwise inversion (``~x``)
    cc: int | None = None
    h1: int | None = None  # the upper 16-bit half (``R2.H1``)
    part: int | None = None  # slot of a choice printed after the operand (``R2.H0_H0``), 0 unprinted
    part_enum: str | None = None  # the ENUMS entry naming it
    optional: int | None = None  # value that leaves the operand out of the text
    enum: str | None = None  # kind "N": the ENUMS entry naming the values
    pair: int | None = None  # kind "W": slot of the register whose RZ picks the mask names
    shift: int = 0  # kind "M": the offset field counts units of 1 << shift bytes (ATOMS: words)


@dataclass(frozen=True)
class Modifier:
    """A mnemonic suffix: a flag (``enum`` None; printed when its bit differs from ``default``) or
    a choice named by ``ENUMS[enum]``."""

    name: str
    slot: int
    enum: str | None = None
    values: tuple[str, ...] = ()
    default: int = 0
    always: bool = False

    def text(self, value: int) -> str | None:
        """The suffix for ``value`` (None: not printed)."""
        if self.enum is None:
            return self.name if value != self.default else None
        if value == self.default and not self.always:
            return None
        if value < len(self.values) and self.values[value]:
            return self.values[value]
        return f"{self.name}_{value}"

    def parse(self, token: str) -> int | None:
        """The value a suffix names, or None when this modifier does not take it."""
        if self.enum is None:
            return 1 - self.default if token == self.name else None
        if token in self.lookup:
            return self.lookup[token]
        prefix = self.name + "_"
        if token.startswith(prefix) and token[len(prefix):].isdigit():
            return int(token[len(prefix):])
        return None

    @property
    def lookup(self) -> dict[str, int]:
        """Suffix text -> field value for this modifier's enumeration."""
        return _LOOKUPS[(self.enum or "", self.values)]


OVERLAPS: list[str] = []
_LOOKUPS: dict[tuple[str, tuple[str, ...]], dict[str, int]] = {}


@dataclass
class Encoding:
    """One table row made usable: pattern mask/value, slots, operands and modifiers."""

    index: int
    mnemonic: str
    form: str
    pattern: str
    mask: int
    value: int
    slots: list[Bits] = field(default_factory=list)
    operands: list[Operand] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    suffix: str = ""
    guard: tuple[int, int] | None = None  # slots of the guard predicate and its "not" bit
    residual: int = 0  # bits neither the pattern nor a slot covers

    @property
    def name(self) -> str:
        """``MNEMONIC[.suffix][/form]``: the encoding's unique name."""
        return self.mnemonic + (f".{self.suffix}" if self.suffix else "") + (f"/{self.form}" if self.form else "")

    def add_slot(self, bits: Bits) -> int:
        """Add an operand bit range; returns its slot index."""
        self.slots.append(bits)
        return len(self.slots) - 1


def _enum_token(name: str) -> str:
    return name.lstrip("_").upper() if name else ""


#: Suffix spelling of every choice value, and the reverse lookups the assembler uses.
_ENUM_TOKENS = {name: tuple(_enum_token(v) for v in values) for name, values in ENUMS.items()}
for _name, _tokens in _ENUM_TOKENS.items():
    _LOOKUPS[(_name, _tokens)] = {v: i for i, v in enumerate(_tokens) if v}


def _build(index: int, row: tuple[str, str, str, str, str]) -> Encoding:
    mnemonic, form, pattern, operand_spec, modifier_spec = row
    if len(pattern) != 64 or set(pattern) - set("01x"):
        raise ValueError(f"row {index} {mnemonic}: bad pattern")
    mask = int(pattern.replace("0", "1").replace("x", "0"), 2)
    value = int(pattern.replace("x", "0"), 2)
    enc = Encoding(index, mnemonic, "" if form == "-" else form, pattern, mask, value)
    for token in filter(None, (t.strip() for t in operand_spec.split(","))):
        kind, bit_text, *flags = token.split()
        if kind not in OPERAND_KINDS:
            raise ValueError(f"row {index} {mnemonic}: unknown operand kind {kind}")
        slots = tuple(enc.add_slot(_parse_bits(part)) for part in bit_text.split("/"))
        extra: dict[str, int] = {}
        operand_enum = operand_enum_part = None
        for flag in flags:
            key, number = flag.split("=")
            if key == "opt":
                extra["optional"] = int(number)
            elif key == "part":
                bit_spec, _, part_enum = number.rpartition(":")
                if part_enum not in ENUMS:
                    raise ValueError(f"row {index} {mnemonic}: unknown enum {part_enum}")
                extra["part"] = enc.add_slot(_parse_bits(bit_spec))
                operand_enum_part = part_enum
            elif key == "shift":
                extra["shift"] = int(number)
            elif key == "pair":
                extra["pair"] = next(i for i, bits in enumerate(enc.slots) if bits[0][0] == int(number))
            elif key == "enum":
                if number not in ENUMS:
                    raise ValueError(f"row {index} {mnemonic}: unknown enum {number}")
                operand_enum = number
            else:
                extra["not_" if key == "not" else key] = enc.add_slot(((int(number), 1),))
        enc.operands.append(Operand(kind, slots, **extra, enum=operand_enum, part_enum=operand_enum_part))
    names: dict[str, int] = {}
    guarded = True
    for token in modifier_spec.split():
        if token == "-guard":
            guarded = False
            continue
        if token.startswith("="):
            enc.suffix = token[1:]
            continue
        name, bit_text = token.split("@")
        inverted = bit_text.startswith("!")  # a flag printed when its bit is clear
        slot = enc.add_slot(_parse_bits(bit_text.lstrip("!")))
        if name in ENUMS:
            values = _ENUM_TOKENS[name]
            enc.modifiers.append(Modifier(name.upper(), slot, name, values, DEFAULTS.get(name, 0),
                                          name in ALWAYS_PRINTED))
            for v in values:
                names[v] = names.get(v, 0) + 1
        else:
            enc.modifiers.append(Modifier(name, slot, default=int(inverted)))
            names[name] = names.get(name, 0) + 1
    # choices that share a value name with another modifier print even their default, so that
    # the assembler can tell which field a suffix belongs to
    shared = {n for n, count in names.items() if count > 1 and n}
    enc.modifiers = [
        Modifier(m.name, m.slot, m.enum, m.values, m.default, True)
        if m.enum and shared.intersection(m.values) else m
        for m in enc.modifiers
    ]
    covered = 0
    for bits in enc.slots:
        slot_mask = bits_mask(bits)
        if slot_mask & (covered | mask):
            OVERLAPS.append(f"row {index} {mnemonic}/{form}: field {bits} overlaps")
        covered |= slot_mask
    guard_mask = bits_mask(GUARD_BITS) | 1 << GUARD_NOT_BIT
    if guarded and not guard_mask & (covered | mask):
        enc.guard = (enc.add_slot(GUARD_BITS), enc.add_slot(((GUARD_NOT_BIT, 1),)))
        covered |= guard_mask
    enc.residual = MASK64 & ~(covered | mask)
    return enc


ENCODINGS: tuple[Encoding, ...] = tuple(_build(i, row) for i, row in enumerate(ROWS))
BY_MNEMONIC: dict[str, list[Encoding]] = {}
for _enc in sorted(ENCODINGS, key=lambda e: not e.suffix):  # forms with a fixed suffix are tried first
    BY_MNEMONIC.setdefault(_enc.mnemonic, []).append(_enc)

# Decode lookup on the top 14 bits: candidates ordered most specific pattern first.
_TOP_SHIFT = 50
_TOP_MASK = (1 << (64 - _TOP_SHIFT)) - 1
_buckets: list[list[Encoding]] = [[] for _ in range(1 << (64 - _TOP_SHIFT))]
for _enc in sorted(ENCODINGS, key=lambda e: -bin(e.mask).count("1")):  # most specific first
    _fixed, _want = _enc.mask >> _TOP_SHIFT, _enc.value >> _TOP_SHIFT
    _free = _TOP_MASK & ~_fixed
    _sub = _free
    while True:  # every value of the free top bits
        _buckets[_want | _sub].append(_enc)
        if _sub == 0:
            break
        _sub = (_sub - 1) & _free
_BY_TOP: tuple[tuple[Encoding, ...], ...] = tuple(map(tuple, _buckets))


def find_encoding(word: int) -> Encoding | None:
    """The most specific encoding whose pattern matches ``word``."""
    for enc in _BY_TOP[word >> _TOP_SHIFT]:
        if word & enc.mask == enc.value:
            return enc
    return None


def overlapping_encodings() -> list[tuple[str, str]]:
    """Pairs of encodings where one pattern matches words of the other and neither is more
    specific (the self-check: must be empty)."""
    out = []
    for a in ENCODINGS:
        for b in ENCODINGS:
            if a.index < b.index and not (a.value ^ b.value) & a.mask & b.mask:
                if bin(a.mask).count("1") == bin(b.mask).count("1"):
                    out.append((a.name, b.name))
    return out
