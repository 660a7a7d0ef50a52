"""The fixed-function tessellator: domain points and primitives of one patch, by D3D11's rules.

The rules are those of Microsoft's reference tessellator (the one the D3D11 specification and
Mesa's gallium share): tessellation factors are culled (a factor not above 0, or NaN, drops the
patch), clamped to the partitioning's range (integer and pow2 [1, 64] rounded up, fractional odd
[1, 63], fractional even [2, 64]) and turned into 16.16 fixed point. An edge's points are placed
on its first half with 16.16 reciprocals of the segment count (a table: 1/3 is 0x5555, so a third
of an edge is 0.33332825), the second half mirrors the first (1 - x) and the middle point of an
even edge is exactly 0.5; fractional factors blend the placements of the factor rounded down and
up, splitting points in "ruler function" order. Points are generated ring by ring from the
outside in (quads clockwise from (0, 0), triangles from the U = 0 edge), each ring stitched to
the next with triangles; points are returned in generation order and primitives as indices into
them. Locations are multiples of 2^-16, exact in float32; a triangle domain's third coordinate
is computed as (1 - u) - v in float32, as Mesa's pipeline does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from shaderkit.dataclass import dataclass
from shaderkit.vm.sm4.machine import VmError

#: 16.16 reciprocals of 1..64 segments (entry 0 unused)
_RECIPROCALS = (0xFFFFFFFF, 0x10000, 0x8000, 0x5555, 0x4000, 0x3333, 0x2AAB, 0x2492, 0x2000, 0x1C72, 0x199A,
                0x1746, 0x1555, 0x13B1, 0x1249, 0x1111, 0x1000, 0xF0F, 0xE39, 0xD79, 0xCCD, 0xC31, 0xBA3, 0xB21,
                0xAAB, 0xA3D, 0x9D9, 0x97B, 0x925, 0x8D4, 0x889, 0x842, 0x800, 0x7C2, 0x788, 0x750, 0x71C,
                0x6EB, 0x6BD, 0x690, 0x666, 0x63E, 0x618, 0x5F4, 0x5D1, 0x5B0, 0x591, 0x572, 0x555, 0x539,
                0x51F, 0x505, 0x4EC, 0x4D5, 0x4BE, 0x4A8, 0x492, 0x47E, 0x46A, 0x457, 0x444, 0x432, 0x421,
                0x410, 0x400)
_ONE, _HALF, _ONE_THIRD, _TWO_THIRDS = 1 << 16, 1 << 15, 0x5555, 0xAAAA
#: partitioning -> (lowest, highest) tessellation factor (D3D11_TESSELLATOR_MIN/MAX_*_TESSELLATION_FACTOR)
FACTOR_RANGE = {"integer": (1.0, 64.0), "pow2": (1.0, 64.0), "fractional_odd": (1.0, 63.0),
                "fractional_even": (2.0, 64.0)}
#: output primitives -> indices per primitive
OUTPUTS = {"point": 1, "line": 2, "triangle_cw": 3, "triangle_ccw": 3}
#: where point i of a half edge ends up at the largest factor (ruler-function split order), and
#: the first and last table entries that matter for each half factor
_FINAL_POSITION = (0, 32, 16, 8, 17, 4, 18, 9, 19, 2, 20, 10, 21, 5, 22, 11, 23, 1, 24, 12, 25, 6, 26, 13, 27, 3, 28,
                   14, 29, 7, 30, 15, 31)
_LOOP_START = (1, 1, 17, 9, 9, 5, 5, 5, 5, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)
_LOOP_END = (0, 0, 17, 17, 25, 25, 25, 25, 29, 29, 29, 29, 29, 29, 29, 29, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
             31, 31, 31, 31, 31, 32)
_SMALLEST_NORMAL = 2.0 ** -126
#: a fractional-odd factor above this becomes more than 1 in fixed point (1 + 2^-17)
_ODD_ONE_PLUS_HALF_EPSILON, _EPSILON = 1.0 + 2.0 ** -17, 2.0 ** -16


@dataclass
class Edge:
    """One tessellation factor's placement context (16.16 fixed point throughout)."""
    odd: bool
    half_points: int  # points on the first half of the edge (the middle one excluded)
    fraction: int  # fractional part of half the factor: the weight of the rounded-up placement
    split: int  # the point after which the rounded-down placement lags one point behind
    inverse_floor: int  # 1 / segments of the factor rounded down, and up
    inverse_ceil: int


def _ceil(value: int) -> int:
    return (value & ~0xFFFF) + _ONE if value & 0xFFFF else value


def _remove_msb(value: int) -> int:
    return value & ~(1 << (value.bit_length() - 1)) if value > 0 else 0


def fixed(value: float) -> int:
    """A clamped factor as 16.16 fixed point, rounded to nearest even."""
    return int(round(float(np.float32(value)) * _ONE))


def point_count(factor: int, odd: bool) -> int:
    """Points on an edge of 16.16 ``factor`` (both ends included)."""
    half = (factor + 1) // 2
    if odd:
        return _ceil(_HALF + half) * 2 >> 16
    return (_ceil(half) * 2 >> 16) + 1


def edge(factor: int, odd: bool) -> Edge:
    """The placement context of a 16.16 factor of the given parity."""
    half = (factor + 1) // 2
    if odd or half == _HALF:  # a factor of 1 is placed as odd
        half += _HALF
    floor, ceil = half & ~0xFFFF, _ceil(half)
    half_points = ceil >> 16
    if ceil == floor:
        split = half_points + 1  # never reached
    elif odd:
        split = 0 if floor == _ONE else (_remove_msb((floor >> 16) - 1) << 1) + 1
    else:
        split = (_remove_msb(floor >> 16) << 1) + 1
    floor_segments, ceil_segments = (floor * 2 >> 16) - odd, (ceil * 2 >> 16) - odd
    return Edge(odd, half_points, half - floor, split, _RECIPROCALS[floor_segments], _RECIPROCALS[ceil_segments])


def place(context: Edge, point: int) -> int:
    """The 16.16 position of point ``point`` along an edge."""
    flip = point >= context.half_points
    if flip:
        point = (context.half_points << 1) - point - context.odd
    if point == context.half_points:
        return _HALF  # the middle point, exactly 0.5
    on_floor = point - 1 if point > context.split else point
    location = (on_floor * context.inverse_floor * (_ONE - context.fraction)
                + point * context.inverse_ceil * context.fraction + _HALF) >> 16
    return _ONE - location if flip else location


def _flushed(value: float) -> float:
    return value if abs(value) >= _SMALLEST_NORMAL or value != value else 0.0 * value


def _clamp(value: float, low: float, high: float) -> float:
    """D3D's min(high, max(low, x)) with denormals flushed; NaN becomes ``low``."""
    value = _flushed(value)
    value = low if value != value or value < low else value
    return min(high, value)


@dataclass
class _Factor:
    """A processed tessellation factor: 16.16 value, parity, context, point count."""
    value: int
    odd: bool
    context: Edge
    points: int


def _factor(value: float, odd: bool) -> _Factor:
    number = fixed(value)
    return _Factor(number, odd, edge(number, odd), point_count(number, odd))


class _Patch:
    """One patch's points (16.16 pairs in generation order) and index store."""

    def __init__(self, output: str) -> None:
        self.output = output
        self.points: list[tuple[int, int]] = []
        self.indices: dict[int, int] = {}
        self.count = 0  # indices defined so far (D3D's m_NumIndices)
        self.inside_outside: tuple[int, int, int, int, int, int, int] | None = None
        self.inverted: tuple[int, int, int, int] | None = None

    # -- points and indices --------------------------------------------------------------------

    def point(self, u: int, v: int) -> None:
        self.points.append((u, v))

    def index(self, index: int, at: int) -> None:
        if self.inside_outside is not None:
            inside_delta, inside_bad, inside_replacement, outside_base, outside_delta, outside_bad, \
                outside_replacement = self.inside_outside
            if index >= outside_base:
                index = outside_replacement if index == outside_bad else index + outside_delta
            else:
                index = inside_replacement if index == inside_bad else index + inside_delta
        elif self.inverted is not None:
            base, corner_bad, corner_replacement, end = self.inverted
            if index >= base:
                index = corner_replacement if index == corner_bad else end - index
            elif index == corner_bad:
                index = corner_replacement
        self.indices[at] = index

    def triangle(self, a: int, b: int, c: int, at: int) -> None:
        """A clockwise triangle, stored clockwise or counter-clockwise as the output asks."""
        self.index(a, at)
        if self.output == "triangle_cw":
            self.index(b, at + 1)
            self.index(c, at + 2)
        else:
            self.index(c, at + 1)
            self.index(b, at + 2)

    def all_points(self) -> None:
        for p in range(len(self.points)):
            self.index(p, self.count)
            self.count += 1

    def in_order_lines(self) -> None:
        for p in range(1, len(self.points)):
            self.index(p - 1, self.count)
            self.index(p, self.count + 1)
            self.count += 2

    def result(self, domain: str) -> tuple[np.ndarray, np.ndarray]:
        fixed_points = np.array(self.points, np.float64).reshape(-1, 2) / _ONE
        if domain == "tri":
            u, v = fixed_points[:, 0].astype(np.float32), fixed_points[:, 1].astype(np.float32)
            points = np.stack([u, v, (np.float32(1) - u) - v], axis=1)
        else:
            points = fixed_points.astype(np.float32)
        width = OUTPUTS[self.output]  # (checked by _check before any patch)
        flat = np.array([self.indices.get(k, 0) for k in range(self.count)], np.int64)
        return points, flat.reshape(-1, width)

    # -- stitching two rows of points ----------------------------------------------------------

    def stitch_regular(self, trapezoid: bool, diagonals: str, at: int, inside_points: int, inside: int,
                       outside: int) -> None:
        if trapezoid:
            self.triangle(outside, outside + 1, inside, at)
            at, outside = at + 3, outside + 1
        if diagonals == "inside_to_outside":
            for _ in range(inside_points - 1):
                self.triangle(inside, outside, outside + 1, at)
                self.triangle(inside, outside + 1, inside + 1, at + 3)
                at, inside, outside = at + 6, inside + 1, outside + 1
        elif diagonals == "inside_to_outside_except_middle":
            for _ in range(inside_points // 2 - 1):
                self.triangle(outside, outside + 1, inside, at)
                self.triangle(inside, outside + 1, inside + 1, at + 3)
                at, inside, outside = at + 6, inside + 1, outside + 1
            p = max(inside_points // 2 - 1, 0)
            self.triangle(outside, inside + 1, inside, at)
            self.triangle(outside, outside + 1, inside + 1, at + 3)
            at, inside, outside, p = at + 6, inside + 1, outside + 1, p + 2
            while p < inside_points:
                self.triangle(outside, outside + 1, inside, at)
                self.triangle(inside, outside + 1, inside + 1, at + 3)
                at, inside, outside, p = at + 6, inside + 1, outside + 1, p + 1
        else:  # mirrored
            half = inside_points // 2
            for p in range(inside_points - 1):
                if p < half:
                    self.triangle(outside, inside + 1, inside, at)
                    self.triangle(outside, outside + 1, inside + 1, at + 3)
                else:
                    self.triangle(inside, outside, outside + 1, at)
                    self.triangle(inside, outside + 1, inside + 1, at + 3)
                at, inside, outside = at + 6, inside + 1, outside + 1
        if trapezoid:
            self.triangle(outside, outside + 1, inside, at)

    def stitch_transition(self, at: int, inside: int, inside_half: int, inside_odd: bool, outside: int,
                          outside_half: int, outside_odd: bool) -> None:
        inside_half -= inside_odd
        outside_half -= outside_odd
        first = min(_LOOP_START[inside_half], _LOOP_START[outside_half])
        last = max(_LOOP_END[inside_half], _LOOP_END[outside_half])
        if _FINAL_POSITION[0] < outside_half:
            self.triangle(outside, outside + 1, inside, at)
            at, outside = at + 3, outside + 1
        for i in range(first, last + 1):
            if _FINAL_POSITION[i] < inside_half:
                self.triangle(inside, outside, inside + 1, at)
                at, inside = at + 3, inside + 1
            if _FINAL_POSITION[i] < outside_half:
                self.triangle(outside, outside + 1, inside, at)
                at, outside = at + 3, outside + 1
        if inside_odd != outside_odd or inside_odd:
            if inside_odd == outside_odd:  # a quad in the middle
                self.triangle(inside, outside, inside + 1, at)
                self.triangle(inside + 1, outside, outside + 1, at + 3)
                at, inside, outside = at + 6, inside + 1, outside + 1
            elif not inside_odd:  # a triangle pointing inside
                self.triangle(inside, outside, outside + 1, at)
                at, outside = at + 3, outside + 1
            else:  # a triangle pointing outside
                self.triangle(inside, outside, inside + 1, at)
                at, inside = at + 3, inside + 1
        for i in range(last, first - 1, -1):
            if _FINAL_POSITION[i] < outside_half:
                self.triangle(outside, outside + 1, inside, at)
                at, outside = at + 3, outside + 1
            if _FINAL_POSITION[i] < inside_half:
                self.triangle(inside, outside, inside + 1, at)
                at, inside = at + 3, inside + 1
        if _FINAL_POSITION[0] < outside_half:
            self.triangle(outside, outside + 1, inside, at)


def _check(partitioning: str, output: str) -> tuple[float, float, bool]:
    if partitioning not in FACTOR_RANGE:
        raise VmError(f"partitioning {partitioning!r}: one of {', '.join(FACTOR_RANGE)}")
    if output not in OUTPUTS:
        raise VmError(f"output primitive {output!r}: one of {', '.join(OUTPUTS)}")
    low, high = FACTOR_RANGE[partitioning]
    return low, high, partitioning in ("integer", "pow2")


def _culled(output: str, points: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((0, points), np.float32), np.zeros((0, OUTPUTS[output]), np.int64)


def tessellate_isoline(density: float, detail: float, partitioning: str = "integer",
                       output: str = "line") -> tuple[np.ndarray, np.ndarray]:
    """The domain points ((n, 2) float32 (u, v)) and primitives (index pairs (k, 2) for
    ``output="line"``, (n, 1) for ``"point"``) of one isoline patch. The density factor is clamped
    to [1, 64] and rounded up whatever the partitioning; lines run along u at v = 0 ..
    (density - 1) / density (the line at v = 1 is not drawn)."""
    low, high, integer = _check(partitioning, output)
    density, detail = float(np.float32(density)), float(np.float32(detail))
    if not density > 0 or not detail > 0:  # NaN culls too
        return _culled(output, 2)
    detail = _clamp(detail, low, high)
    density = float(np.ceil(_clamp(density, 1.0, 64.0)))
    if integer:
        detail = float(np.ceil(detail))
    along = _factor(detail, int(detail) % 2 == 1 if integer else partitioning == "fractional_odd")
    across = _factor(density, int(density) % 2 == 1)
    u = [place(along.context, p) for p in range(along.points)]
    patch = _Patch(output)
    for line in range(across.points - 1):
        v = place(across.context, line)
        for x in u:
            patch.point(x, v)
    per_line = along.points
    for line in range(across.points - 1):
        for p in range(per_line):
            if output == "point":
                patch.index(line * per_line + p, patch.count)
                patch.count += 1
            elif p > 0:
                patch.index(line * per_line + p - 1, patch.count)
                patch.index(line * per_line + p, patch.count + 1)
                patch.count += 2
    return patch.result("isoline")


def _inside_lower_bound(partitioning: str, low: float, factors: list[float]) -> float:
    """Fractional odd: any factor above 1 in fixed point forces the inside factors above 1 (a
    picture frame)."""
    if partitioning == "fractional_odd" and any(f > _ODD_ONE_PLUS_HALF_EPSILON for f in factors):
        return 1.0 + _EPSILON
    return low


def _parity(value: float, integer: bool, partitioning: str, inside: bool) -> bool:
    """True for odd: integer partitioning goes by each factor (an inside factor of 1 counts as
    even), fractional partitioning by its kind."""
    if integer:
        return int(value) % 2 == 1 and not (inside and value == 1.0)
    return partitioning == "fractional_odd"


def tessellate_quad(edges: list[float], inside: list[float], partitioning: str = "integer",
                    output: str = "triangle_cw") -> tuple[np.ndarray, np.ndarray]:
    """The domain points ((n, 2) float32 (u, v)) and primitives ((k, 3) triangles, (n, 1) points or
    (n - 1, 2) in-order lines) of one quad patch: ``edges`` are the U=0, V=0, U=1, V=1 edge factors
    (SV_TessFactor[0..3]), ``inside`` the U and V inside factors (SV_InsideTessFactor[0..1])."""
    low, high, integer = _check(partitioning, output)
    outside = [float(np.float32(f)) for f in edges[:4]]
    within = [float(np.float32(f)) for f in inside[:2]]
    if len(outside) != 4 or len(within) != 2:
        raise VmError("a quad patch has 4 edge and 2 inside tessellation factors")
    if not all(f > 0 for f in outside):
        return _culled(output, 2)
    outside = [_clamp(f, low, high) for f in outside]
    if integer:
        outside = [float(np.ceil(f)) for f in outside]
    inside_low = _inside_lower_bound(partitioning, low, outside + within)
    within = [_clamp(f, inside_low, high) for f in within]
    if integer:
        within = [float(np.ceil(f)) for f in within]
    sides = [_factor(f, _parity(f, integer, partitioning, False)) for f in outside]
    axes = [_factor(f, _parity(f, integer, partitioning, True)) for f in within]
    patch = _Patch(output)
    if (integer or partitioning == "fractional_odd") and all(f.value == _ONE for f in sides + axes):
        for u, v in ((0, 0), (_ONE, 0), (_ONE, _ONE), (0, _ONE)):
            patch.point(u, v)
        _minimum(patch, ((0, 1, 3), (1, 2, 3)))
        return patch.result("quad")
    for axis in axes:
        axis.points = max(4 if axis.odd else 3, axis.points)
    inside_base = sum(side.points for side in sides) - 4
    _quad_points(patch, sides, axes)
    _primitives(patch, lambda: _quad_triangles(patch, sides, axes, inside_base))
    return patch.result("quad")


def _primitives(patch: _Patch, triangles: Callable[[], None]) -> None:
    """The patch's points as its output primitive: every point, lines in point order, or the
    domain's ``triangles``."""
    if patch.output == "point":
        patch.all_points()
    elif patch.output == "line":
        patch.in_order_lines()
    else:
        triangles()


def _minimum(patch: _Patch, triangles: tuple[tuple[int, int, int], ...]) -> None:
    """Every factor 1: the corners alone."""
    def corners() -> None:
        for triangle in triangles:
            patch.triangle(*triangle, patch.count)
            patch.count += 3

    _primitives(patch, corners)


def _quad_points(patch: _Patch, sides: list[_Factor], axes: list[_Factor]) -> None:
    for number, side in enumerate(sides):  # the outer ring, clockwise from (0, 0)
        end = side.points - 1
        for p in range(end):
            q = p if number in (1, 2) else end - p
            at = place(side.context, q)
            if number & 1:
                patch.point(at, _ONE if number == 3 else 0)
            else:
                patch.point(_ONE if number == 2 else 0, at)
    u_axis, v_axis = axes
    rings = min(u_axis.points, v_axis.points) >> 1
    for ring in range(1, rings):  # inner rings, spiralling in
        ends = (u_axis.points - 1 - ring, v_axis.points - 1 - ring)
        for number in range(4):
            across, along = number & 1, (number + 1) & 1
            perpendicular = place(axes[across].context, ring if number < 2 else ends[across])
            for p in range(ring, ends[along]):
                q = p if number in (1, 2) else ends[along] - (p - ring)
                at = place(axes[along].context, q)
                patch.point(perpendicular, at) if along else patch.point(at, perpendicular)
    if u_axis.points > v_axis.points and not v_axis.odd:  # even: a middle row of points
        for p in range(rings, u_axis.points - rings):
            patch.point(place(u_axis.context, p), _HALF)
    elif v_axis.points >= u_axis.points and not u_axis.odd:
        for p in range(v_axis.points - 1 - rings, rings - 1, -1):
            patch.point(_HALF, place(v_axis.context, p))


def _quad_triangles(patch: _Patch, sides: list[_Factor], axes: list[_Factor], inside_base: int) -> None:
    rows = [(axis.points + 1) >> 1 for axis in axes]
    rings = min(rows)
    degenerate = [rows[1] - 1 if not axes[1].odd else -1, rows[0] - 1 if not axes[0].odd else -1]
    contexts = [(side.context.half_points, side.odd) for side in sides]
    outside_points = [side.points for side in sides]
    outside_base = 0
    for ring in range(1, rings):
        inside_points = [axes[0].points - 2 * ring, axes[1].points - 2 * ring]
        first_inside, first_outside = inside_base, outside_base
        for number in range(4):
            along = (number + 1) & 1
            triangles = inside_points[along] + outside_points[number] - 2
            if number == 3 and ring == degenerate[along]:
                base = inside_base + 1
                patch.inverted = (base, outside_base + outside_points[number] - 1, first_outside, (base << 1) - 1)
                inside_at, outside_at = base, outside_base
            elif number == 3:
                bad = inside_points[along] - 1
                patch.inside_outside = (inside_base, bad, first_inside, bad + 1, outside_base - (bad + 1),
                                        bad + 1 + outside_points[number] - 1, first_outside)
                inside_at, outside_at = 0, bad + 1
            elif number == 2 and ring == degenerate[along]:
                patch.inverted = (inside_base, -1, -1, inside_base << 1)
                inside_at, outside_at = inside_base, outside_base
            else:
                inside_at, outside_at = inside_base, outside_base
            if ring == 1:
                half, odd = contexts[number]
                patch.stitch_transition(patch.count, inside_at, axes[along].context.half_points, axes[along].odd,
                                        outside_at, half, odd)
            else:
                patch.stitch_regular(True, "mirrored", patch.count, inside_points[along], inside_at, outside_at)
            patch.inside_outside = patch.inverted = None
            patch.count += triangles * 3
            outside_base += outside_points[number] - 1
            if number == 2 and ring == degenerate[along]:
                inside_base -= inside_points[along] - 1
            else:
                inside_base += inside_points[along] - 1
            outside_points[number] = inside_points[along]
        if ring == 1:
            contexts = [(axes[number & 1].context.half_points, axes[number & 1].odd) for number in range(4)]
    u_axis, v_axis = axes
    if u_axis.points > v_axis.points and v_axis.odd:  # the middle: a strip of quads
        quads = (((u_axis.points >> 1) - (v_axis.points >> 1)) << 1) + (1 if u_axis.odd else 2)
        base = outside_base + quads + 2
        patch.inverted = (base, base, outside_base, base + base + quads)
        patch.stitch_regular(False, "inside_to_outside", patch.count, quads + 1, base, outside_base + 1)
        patch.inverted = None
        patch.count += quads * 6
    elif v_axis.points >= u_axis.points and u_axis.odd:
        quads = (((v_axis.points >> 1) - (u_axis.points >> 1)) << 1) + (1 if v_axis.odd else 2)
        base = outside_base + quads + 1
        patch.inverted = (base, -1, -1, base + base + quads)
        diagonals = "inside_to_outside" if not v_axis.odd else "inside_to_outside_except_middle"
        patch.stitch_regular(False, diagonals, patch.count, quads + 1, base, outside_base)
        patch.inverted = None
        patch.count += quads * 6


def tessellate_tri(edges: list[float], inside: float, partitioning: str = "integer",
                   output: str = "triangle_cw") -> tuple[np.ndarray, np.ndarray]:
    """The domain points ((n, 3) float32 (u, v, w)) and primitives of one triangle patch:
    ``edges`` are the U=0, V=0, W=0 edge factors (SV_TessFactor[0..2]), ``inside`` the inside
    factor (SV_InsideTessFactor)."""
    low, high, integer = _check(partitioning, output)
    outside = [float(np.float32(f)) for f in edges[:3]]
    within = float(np.float32(inside))
    if len(outside) != 3:
        raise VmError("a triangle patch has 3 edge tessellation factors")
    if not all(f > 0 for f in outside):
        return _culled(output, 3)
    outside = [_clamp(f, low, high) for f in outside]
    if integer:
        outside = [float(np.ceil(f)) for f in outside]
    within = _clamp(within, _inside_lower_bound(partitioning, low, outside), high)
    if integer:
        within = float(np.ceil(within))
    sides = [_factor(f, _parity(f, integer, partitioning, False)) for f in outside]
    middle = _factor(within, _parity(within, integer, partitioning, True))
    patch = _Patch(output)
    if (integer or partitioning == "fractional_odd") and all(f.value == _ONE for f in [*sides, middle]):
        for u, v in ((0, _ONE), (0, 0), (_ONE, 0)):
            patch.point(u, v)
        _minimum(patch, ((0, 1, 2),))
        return patch.result("tri")
    middle.points = max(4 if middle.odd else 3, middle.points)
    inside_base = sum(side.points for side in sides) - 3
    _tri_points(patch, sides, middle)
    _primitives(patch, lambda: _tri_triangles(patch, sides, middle, inside_base))
    return patch.result("tri")


def _tri_points(patch: _Patch, sides: list[_Factor], middle: _Factor) -> None:
    for number, side in enumerate(sides):  # the outer ring, from V (the U = 0 edge)
        end = side.points - 1
        for p in range(end):
            at = place(side.context, p if number & 1 else end - p)
            if number == 0:
                patch.point(0, at)
            else:
                patch.point(at, _ONE - at if number == 2 else 0)
    for ring in range(1, middle.points >> 1):
        end = middle.points - 1 - ring
        for number in range(3):
            perpendicular = (place(middle.context, ring) * _TWO_THIRDS + _HALF) >> 16
            shift = (perpendicular + 1) // 2
            for p in range(ring, end):
                at = place(middle.context, p if number & 1 else end - (p - ring))
                if number == 0:
                    patch.point(perpendicular, at - shift)
                elif number == 1:
                    patch.point(at - shift, perpendicular)
                else:
                    patch.point(at - shift, _ONE - (at - shift) - perpendicular)
    if not middle.odd:
        patch.point(_ONE_THIRD, _ONE_THIRD)  # the centre


def _tri_triangles(patch: _Patch, sides: list[_Factor], middle: _Factor, inside_base: int) -> None:
    rings = (middle.points + 1) >> 1
    contexts = [(side.context.half_points, side.odd) for side in sides]
    outside_points = [side.points for side in sides]
    outside_base = 0
    for ring in range(1, rings):
        inside_points = middle.points - 2 * ring
        first_inside, first_outside = inside_base, outside_base
        for number in range(3):
            triangles = inside_points + outside_points[number] - 2
            if number == 2:
                bad = inside_points - 1
                patch.inside_outside = (inside_base, bad, first_inside, bad + 1, outside_base - (bad + 1),
                                        bad + 1 + outside_points[number] - 1, first_outside)
                inside_at, outside_at = 0, bad + 1
            else:
                inside_at, outside_at = inside_base, outside_base
            if ring == 1:
                half, odd = contexts[number]
                patch.stitch_transition(patch.count, inside_at, middle.context.half_points, middle.odd, outside_at,
                                        half, odd)
            else:
                patch.stitch_regular(True, "mirrored", patch.count, inside_points, inside_at, outside_at)
            patch.inside_outside = None
            patch.count += triangles * 3
            outside_base += outside_points[number] - 1
            inside_base += inside_points - 1
            outside_points[number] = inside_points
        if ring == 1:
            contexts = [(middle.context.half_points, middle.odd)] * 3
    if middle.odd:  # the centre triangle
        patch.triangle(outside_base, outside_base + 1, outside_base + 2, patch.count)
        patch.count += 3


#: the tessellator's patch domains
DOMAINS = ("isoline", "tri", "quad")


def tessellate_patch(domain: str, edges: Sequence[float], inside: Sequence[float], partitioning: str = "integer",
                     output: str = "triangle_cw") -> tuple[np.ndarray, np.ndarray]:
    """One patch of ``domain``: :func:`tessellate_tri` of ``edges[:3]`` and ``inside[0]``,
    :func:`tessellate_quad` of ``edges[:4]`` and ``inside[:2]``, or :func:`tessellate_isoline`
    of the density ``edges[0]`` and the detail ``edges[1]`` (``inside`` unused)."""
    if domain == "tri":
        return tessellate_tri(list(edges[:3]), inside[0], partitioning, output)
    if domain == "quad":
        return tessellate_quad(list(edges[:4]), list(inside[:2]), partitioning, output)
    if domain == "isoline":
        return tessellate_isoline(edges[0], edges[1], partitioning, output)
    raise VmError(f"domain {domain!r}: the tessellator takes {', '.join(DOMAINS)}")


def tessellate_patches(domain: str, edges: np.ndarray, inside: np.ndarray, partitioning: str = "integer",
                       output: str = "triangle_cw") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every patch of ``edges`` and ``inside`` (one row a patch, as :func:`tessellate_patch`
    reads them) in order: the domain points of all ((n, 3) float32 for triangles, (n, 2)
    otherwise), each point's patch ((n,) int64) and the primitives as indices into all points."""
    runs = [tessellate_patch(domain, e, i, partitioning, output) for e, i in zip(edges, inside)]
    points = [where for where, _ in runs]
    firsts = np.cumsum([0] + [len(where) for where in points])[:-1]
    primitives = [indices + first for (_, indices), first in zip(runs, firsts)]
    width = 3 if domain == "tri" else 2
    return (np.concatenate(points) if points else np.zeros((0, width), np.float32),
            np.repeat(np.arange(len(runs)), [len(where) for where in points]).astype(np.int64),
            np.concatenate(primitives) if primitives else np.zeros((0, OUTPUTS[output]), np.int64))
