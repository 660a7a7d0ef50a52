"""Level-9 chunks (``Aon9``, ``XNAP``, ``XNAS``) read back from an fxc listing.

fxc lists each level-9 program under ``// <title> shader bytecode:``, after its mapping tables
(constant buffers to DX9 constants, runtime constants, samplers); the first program's tables end
the comment header, every later program's follow the previous program's ``// approximately``
footer. The program itself goes through :mod:`shaderkit.isa.d3d9.assembler`.
"""

from __future__ import annotations

import re

from shaderkit.errors import AssemblyError
from shaderkit.formats.dxbc.aon9 import (
    CONVERSIONS,
    RUNTIME_CONSTANTS,
    ConstantBufferMapping,
    Level9Shader,
    LoopRegisterMapping,
    RuntimeConstantMapping,
    SamplerMapping,
)
from shaderkit.isa.d3d9.assembler import assemble_lines
from shaderkit.isa.d3d9.table import SHADER_VERSION_MINOR

#: chunk FourCC -> fxc's section title, in listing order
TITLES = {"Aon9": "Level9", "XNAP": "XNA Prepass", "XNAS": "XNA"}
_TITLE_LINES = {f"// {title} shader bytecode:": fourcc for fourcc, title in TITLES.items()}
_FOOTER = "// approximately "
_LOOP_RE = re.compile(r"// i(\d+) +cb(\d+) +(\d+) +(\d+)$")
_CB_RE = re.compile(r"// c(\d+) +cb(\d+) +(\d+) +(\d+) +\((.{4}),(.{4}),(.{4}),(.{4})\)$")
_RUNTIME_RE = re.compile(r"// c(\d+) +(\S.*)$")
_SAMPLER_RE = re.compile(r"// s(\d+) +s(\d+) +t(\d+)$")
_CONVERSION_VALUES = {name: value for value, name in CONVERSIONS.items()}
_RUNTIME_VALUES = {name: value for value, name in RUNTIME_CONSTANTS.items()}
_TABLES = ("// Constant buffer to DX9 shader constant mappings:", "// Runtime generated constant mappings:",
           "// Sampler/Resource to DX9 shader sampler mappings:")


def level9_sections(lines: list[str], stop: int, start: int = 0) -> list[tuple[str, int, int, int]]:
    """(FourCC, first line of its tables, title line, line after its footer) of every level-9
    program in ``lines[start:stop]`` (0-based line numbers)."""
    out: list[tuple[str, int, int, int]] = []
    region = n = start
    while n < stop:
        fourcc = _TITLE_LINES.get(lines[n].strip())
        if fourcc is None:
            n += 1
            continue
        end = n + 1
        while end < stop and not lines[end].strip().startswith(_FOOTER):
            end += 1
        out.append((fourcc, region, n, min(end + 1, stop)))
        region = n = min(end + 1, stop)
    return out


def _rows(lines: list[str], first: int, title: str, skip: int = 0) -> list[tuple[int, str]]:
    """(1-based line, text) of the rows of the table under ``title`` (after ``skip`` earlier
    tables under the same title: the loop-register table precedes the constant-buffer one)."""
    stripped = [line.strip() for line in lines]
    if title not in stripped:
        return []
    n = stripped.index(title) + 1
    while True:
        while n < len(stripped) and (stripped[n] == "//" or stripped[n].startswith(("// Target", "// ----"))):
            n += 1
        rows = []
        while n < len(stripped) and stripped[n].startswith("// ") and not stripped[n].endswith(":"):
            rows.append((first + n + 1, stripped[n]))
            n += 1
        if not skip or not rows:
            return rows
        skip -= 1


def _numbers(texts: tuple[str, ...], limit: int, line: int) -> list[int]:
    values = [int(t) for t in texts]
    if max(values) > limit:
        raise AssemblyError(f"a mapping value above {limit} does not fit its field", line, 1)
    return values


def _mappings(model: Level9Shader, lines: list[str], first: int) -> None:
    """The mapping tables of ``lines`` (the region before a program's title) into ``model``."""
    cb_rows = _rows(lines, first, _TABLES[0])
    if cb_rows and cb_rows[0][1].startswith("// i"):  # integer loop registers, then the constant buffers
        for line, text in cb_rows:
            m = _LOOP_RE.match(text)
            if m is None:
                raise AssemblyError(f"unreadable loop register mapping {text!r}", line, 1)
            target, buffer, source, component = _numbers(m.groups(), 0xFFFF, line)
            model.loop_register_mappings.append(LoopRegisterMapping(buffer, source, component, target))
        cb_rows = _rows(lines, first, _TABLES[0], skip=1)
    for line, text in cb_rows:
        m = _CB_RE.match(text)
        conversions = [_CONVERSION_VALUES.get(c.strip()) for c in m.groups()[4:]] if m is not None else [None]
        if m is None or None in conversions:
            raise AssemblyError(f"unreadable constant buffer mapping {text!r}", line, 1)
        target, buffer, start, count = _numbers(m.groups()[:4], 0xFFFF, line)
        c0, c1, c2, c3 = (int(c or 0) for c in conversions)
        model.constant_buffer_mappings.append(ConstantBufferMapping(buffer, start, count, target, (c0, c1, c2, c3)))
    for line, text in _rows(lines, first, _TABLES[1]):
        m = _RUNTIME_RE.match(text)
        description = m.group(2).strip() if m is not None else ""
        value = _RUNTIME_VALUES.get(description, int(description) if description.isdigit() else None)
        if m is None or value is None:
            raise AssemblyError(f"unreadable runtime constant mapping {text!r}", line, 1)
        (target,) = _numbers((m.group(1),), 0xFFFF, line)
        model.runtime_constant_mappings.append(RuntimeConstantMapping(value & 0xFFFF, target))
    for line, text in _rows(lines, first, _TABLES[2]):
        m = _SAMPLER_RE.match(text)
        if m is None:
            raise AssemblyError(f"unreadable sampler mapping {text!r}", line, 1)
        target, sampler, resource = _numbers(m.groups(), 0xFF, line)
        model.sampler_mappings.append(SamplerMapping(target, sampler, resource))


def level9_chunks(lines: list[str], stop: int, creator: str = "", start: int = 0) -> list[Level9Shader]:
    """The level-9 chunks of the listing ``lines[start:stop]``, in listing order (Aon9, XNAP,
    XNAS)."""
    out = []
    for fourcc, region, title, end in level9_sections(lines, stop, start):
        assembled = assemble_lines(lines[title + 1 : end], title + 2, creator)
        version = assembled.words[0] & ~SHADER_VERSION_MINOR.bits  # fxc's header version: minor 0
        model = Level9Shader(fourcc, version, program=assembled.program)
        _mappings(model, lines[region:title], region)
        out.append(model)
    return out
