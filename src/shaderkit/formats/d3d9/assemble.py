"""fxc's D3D9 listing (what ``shaderkit disasm`` prints for a bare D3D9 shader) -> a bare D3D9 shader.

The text gives the version and the instructions (:mod:`shaderkit.isa.d3d9.assembler`). A listing
does not hold the comment blocks' bytes (the ``CTAB`` header fxc prints is a summary of it), so:

* :func:`assemble_shader` makes a shader without a constant table (a ``DBUG`` block only when the
  text has ``#line`` directives or variable notes);
* :func:`assemble_with_base` takes the comment blocks (``CTAB``, ``DBUG``, preshader...), end token
  and trailing bytes from a base shader and the code from the text: ``disasm`` of a shader
  assembled with itself as the base gives back its bytes.

The preshader section a listing may start with (``preshader`` and its FXLVM instructions, before
the version line) is not assembled: :func:`assemble_shader` skips it, and
:func:`assemble_with_base` keeps the base's ``PRES`` block and refuses a section whose
instructions differ from the base's preshader (an edit there would otherwise be lost silently).
"""

from __future__ import annotations

import copy
import struct

from shaderkit.errors import AssemblyError, ShaderFormatError
from shaderkit.formats.d3d9.shader import D3D9Comment, D3D9Instruction, D3D9Shader, is_version_token
from shaderkit.isa.d3d9.assembler import assemble_lines, version_token
from shaderkit.isa.d3d9.text import split_program


def preshader_section(lines: list[str]) -> tuple[int, int, list[str]] | None:
    """Where a listing's preshader section lies: (index of its ``preshader`` line, index of the
    version line after it, its instructions without indentation and ``//`` comments); None when
    the first code line is not ``preshader`` or no version line follows."""
    start: int | None = None
    instructions: list[str] = []
    for n, line in enumerate(lines):
        code = line.split("//", 1)[0].strip()
        if code[:1] == "/":  # (fxc 9.30's stray slash)
            code = code[1:].lstrip()
        if not code:
            continue
        if start is None:
            if code != "preshader":
                return None
            start = n
        elif version_token(code) is not None:
            return start, n, instructions
        else:
            instructions.append(" ".join(code.split()))
    return None


def assemble_shader(text: str) -> D3D9Shader:
    """A bare D3D9 shader from a listing (no ``CTAB``; a ``DBUG`` block from ``#line``
    directives; a preshader section is skipped)."""
    lines = text.splitlines()
    return _assemble(lines, preshader_section(lines))


def _assemble(lines: list[str], section: tuple[int, int, list[str]] | None) -> D3D9Shader:
    if section is not None:  # (blanked: the code keeps its line numbers)
        lines = [*lines[: section[0]], *([""] * (section[1] - section[0])), *lines[section[1] :]]
    result = assemble_lines(lines)
    words = result.words
    if not is_version_token(words[0]):
        raise AssemblyError("not a bare D3D9 profile (vs/ps 1_x-3_0, tx_1_0)", result.line, 1)
    items, _end = split_program(words)
    shader = D3D9Shader(words[0])
    for first, last, comment in items:
        if comment:
            body = struct.pack(f"<{last - first - 1}I", *words[first + 1 : last])
            shader.comments.append(D3D9Comment(body, len(shader.instructions)))
        else:
            shader.instructions.append(D3D9Instruction(tuple(words[first:last])))
    return shader


def assemble_with_base(text: str, base: D3D9Shader) -> D3D9Shader:
    """``base`` with its instructions (and version) replaced by those of ``text``; its comment blocks
    stay before the same instruction indices (past the end: before the end token). AssemblyError
    when the text's preshader section does not list the base's preshader."""
    lines = text.splitlines()
    section = preshader_section(lines)
    if section is not None:
        _check_preshader(section, base)
    shader = _assemble(lines, section)
    shader.comments = copy.deepcopy(base.comments)
    for comment in shader.comments:
        comment.position = min(comment.position, len(shader.instructions))
    shader.end_token = base.end_token
    shader.trailing = base.trailing
    return shader


def _check_preshader(section: tuple[int, int, list[str]], base: D3D9Shader) -> None:
    """AssemblyError unless the section's instructions are those of the base's preshader."""
    from shaderkit.formats.d3d9.preshader import shader_preshader

    start, _, instructions = section
    try:
        preshader = shader_preshader(base)
        expected = preshader.instruction_lines() if preshader is not None else None
    except ShaderFormatError:
        raise AssemblyError("the text has a preshader section but the base's preshader does not read "
                            "(shaderkit does not assemble preshaders)", start + 1, 1) from None
    if expected is None:
        raise AssemblyError("the text has a preshader section but the base has no preshader "
                            "(shaderkit does not assemble preshaders)", start + 1, 1)
    if [" ".join(line.split()) for line in expected] != instructions:
        raise AssemblyError("the preshader section differs from the base's preshader: shaderkit keeps the "
                            "base's and does not assemble preshader code", start + 1, 1)
