"""fxc's D3D9 listing (what ``shaderkit disasm`` prints for a bare D3D9 shader) -> a bare D3D9 shader.

The text gives the version and the instructions (:mod:`shaderkit.isa.d3d9.assembler`). A listing
does not hold the comment blocks' bytes (the ``CTAB`` header fxc prints is a summary of it), so:

* :func:`assemble_shader` makes a shader without a constant table (a ``DBUG`` block only when the
  text has ``#line`` directives or variable notes);
* :func:`assemble_with_base` takes the comment blocks (``CTAB``, ``DBUG``, preshader...), end token
  and trailing bytes from a base shader and the code from the text: ``disasm`` of a shader
  assembled with itself as the base gives back its bytes.
"""

from __future__ import annotations

import copy
import struct

from shaderkit.errors import AssemblyError
from shaderkit.formats.d3d9.shader import D3D9Comment, D3D9Instruction, D3D9Shader, is_version_token
from shaderkit.isa.d3d9.assembler import assemble_lines
from shaderkit.isa.d3d9.text import split_program


def assemble_shader(text: str) -> D3D9Shader:
    """A bare D3D9 shader from a listing (no ``CTAB``; a ``DBUG`` block from ``#line`` directives)."""
    result = assemble_lines(text.splitlines())
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
    stay before the same instruction indices (past the end: before the end token)."""
    shader = assemble_shader(text)
    shader.comments = copy.deepcopy(base.comments)
    for comment in shader.comments:
        comment.position = min(comment.position, len(shader.instructions))
    shader.end_token = base.end_token
    shader.trailing = base.trailing
    return shader
