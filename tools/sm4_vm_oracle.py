"""Compare shaderkit's SM4/SM5 VM with the independent DXBC oracle (vkd3d -> SPIR-V -> GLSL -> llvmpipe).

    python tools/sm4_vm_oracle.py [CORPUS_DXBC_DIR] [--stages vs,ps,cs,gs,hs,ds] [--every N] [--json OUT] [-v]
    python tools/sm4_vm_oracle.py --vm-only     # the VM alone: how many vs/ps/cs it runs
    python tools/sm4_vm_oracle.py --tessellator 100   # the tessellator alone against Mesa's

Geometry shaders (:func:`compare_geometry`) run behind a generated pass-through vertex shader with
transform feedback of their stream 0; hull shaders as GL tessellation control shaders, alone
(:func:`compare_tessellation` with a generated evaluation stage) and with the domain shader of
the same source (``TESSELLATION_PAIRS``); domain shaders alone behind a generated control stage
(:func:`compare_domain`). Where vkd3d 1.2 translates wrongly the reason is in
``KNOWN_DIFFERENCES`` / ``KNOWN_PATCH_CONSTANTS``.

Each file runs in a child process with a timeout (llvmpipe can crash or hang on out-of-range
accesses) and its time is printed with -v; a full sweep of the corpus takes about 10 minutes.

For every vertex, pixel and compute shader the oracle can run, both executors get the same random
inputs and resources (the oracle's own ``auto_inputs``/``auto_resources``), and their outputs are
compared: bit-exact for integer outputs, within a small relative tolerance for float outputs (the
oracle is not D3D: see shared/reference/dxbc_oracle.md section 6). Prints one line per mismatch and
a closing ``N passed, M failed, K skipped`` line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ORACLE_DIR = Path(os.environ.get("SHADERKIT_SHARED", ROOT.parent / "shared")) / "tools"

FLOAT_RTOL = 2e-4
FLOAT_ATOL = 2e-5


#: files whose comparison is meaningless because the oracle is not D3D there (reason given)
_NAN_CUBE = ("derivatives are 0 (one-pixel points), so rsq(0) makes the perturbed normal NaN and the cube "
             "maps are sampled at NaN coordinates, which the VM and llvmpipe resolve to different faces")
KNOWN_DIFFERENCES = {
    "directxtk__PBREffect_PSTexturedVelocity.dxbc": _NAN_CUBE,
    "directxtk__PBREffect_PSTexturedEmissive.dxbc": _NAN_CUBE,
    "directxtk12__PBREffect_PSTexturedEmissiveVelocity.dxbc": _NAN_CUBE,
    "angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc": (
        "vkd3d 1.2 bug: the GLSL passes an unwritten copy of o1 (o1_1) to the output epilogue, so the oracle's "
        "TEXCOORD and SV_RenderTargetArrayIndex are garbage; the VM gives v1.xy as the fxc listing says"),
}

#: hull shaders whose patch constants vkd3d 1.2 translates wrongly: (registers, reason). The hull
#: shader alone is compared without those registers; its pairs with a domain shader are skipped
KNOWN_PATCH_CONSTANTS = {
    "slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_HS.dxbc": ({6}, (
        "vkd3d 1.2 bug: the join phases' vpc inputs (the fork phases' patch constants) become unwritten GLSL "
        "globals, so the oracle's CENTER (o6) is garbage; the VM's equals the listing's arithmetic by hand")),
    "slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_HS_4444.dxbc": (set(range(6, 14)), (
        "vkd3d 1.2 bug: vicp[r0.y][r0.x + 1] (a relative register index, with dcl_index_range, which vkd3d "
        "ignores) reads the wrong register, so the oracle's TANGENT/TEXCOORD patch constants o6-o13 .xy are "
        "wrong; the VM's are vicp[i][2] / vicp[i][1] as the listing says (checked by hand)")),
}


def load_oracle() -> Any:
    """The oracle module, or None when it or its packages (moderngl, vkd3d-compiler) are missing."""
    import importlib.util
    import shutil

    path = ORACLE_DIR / "dxbc_oracle.py"
    if not path.exists() or shutil.which("vkd3d-compiler") is None or shutil.which("spirv-cross") is None:
        return None
    if importlib.util.find_spec("moderngl") is None:
        return None
    spec = importlib.util.spec_from_file_location("dxbc_oracle", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dxbc_oracle"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


_GL: Any = None


def _gl(oracle: Any) -> Any:
    global _GL
    if _GL is None:
        _GL = oracle.GLOracle()
    return _GL


def _close(ours: np.ndarray, theirs: np.ndarray) -> bool:
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.shape != theirs.shape:
        return False
    if theirs.dtype.kind == "f":
        a, b = ours.astype(np.float64), theirs.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(b)
        with np.errstate(invalid="ignore"):
            ok = both_nan | np.isclose(a, b, rtol=FLOAT_RTOL, atol=FLOAT_ATOL) | (a == b)
        return bool(ok.all())
    return bool((ours.view(np.uint32) == theirs.view(np.uint32)).all())


def _typed(words: Any, channels: int) -> np.ndarray:
    """Typed buffer elements (count, 4) as a GL texel buffer reads the words: rgba32 takes four
    words per element, r32 one (y, z = 0, w = 1)."""
    words = np.asarray(words, np.uint32)
    if channels == 4:
        return words[: len(words) // 4 * 4].reshape(-1, 4).copy()
    out = np.zeros((len(words), 4), np.uint32)
    out[:, 0] = words
    out[:, 3] = 1
    return out


def _diff(ours: np.ndarray, theirs: np.ndarray) -> str:
    """Where two outputs differ, for the report: count, first row, the values there."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.shape != theirs.shape:
        return f"shapes {ours.shape} vs {theirs.shape}"
    bad = np.argwhere(ours.view(np.uint32) != theirs.view(np.uint32)) if ours.dtype.kind != "f" else \
        np.argwhere(~(np.isclose(ours, theirs, rtol=FLOAT_RTOL, atol=FLOAT_ATOL) | (np.isnan(ours) & np.isnan(theirs))))
    if len(bad) == 0:
        return "?"
    row = int(bad[0][0])
    return f"{len(bad)} values, first row {row}: {ours[row].tolist()} vs {theirs[row].tolist()}"


def compare_file(oracle: Any, path: Path, n: int = 16, seed: int = 1234) -> tuple[str, str]:
    """("passed" | "failed" | "skipped", reason) for one DXBC file."""
    import shaderkit
    from shaderkit.vm.sm4 import Buffer, Shader, Texture, VmError

    raw = path.read_bytes()
    try:
        info = oracle.parse_dxbc(raw)
    except ValueError as exc:
        return "skipped", str(exc)
    if info.stage not in ("vs", "ps", "cs"):
        return "skipped", f"{info.stage}: not vs/ps/cs"
    if path.name in KNOWN_DIFFERENCES:
        return "skipped", "known difference: " + KNOWN_DIFFERENCES[path.name]
    try:
        tr = oracle.translate(str(path))
    except oracle.TranslateError as exc:
        return "skipped", f"oracle cannot translate: {str(exc)[:80]}"
    rng = np.random.default_rng(seed)
    res = oracle.auto_resources(tr, rng, oracle.parse_rdef(raw))
    inputs = oracle.auto_inputs(tr.glsl, n, rng) if info.stage != "cs" else {}
    try:
        gl = _gl(oracle)
        if info.stage == "vs":
            theirs = gl.run_vs(tr, inputs, n, res)
        elif info.stage == "ps":
            theirs = gl.run_ps(tr, inputs, n, res)
        else:
            theirs = gl.run_cs(tr, (2, 1, 1), res)
    except Exception as exc:  # noqa: BLE001 - the oracle's own limits
        return "skipped", f"oracle cannot run: {type(exc).__name__}: {str(exc)[:80]}"

    try:
        shader = Shader(shaderkit.open(raw))
    except VmError as exc:
        return "failed", f"VM refused: {exc}"
    decl = shader.decl
    if any(dim.startswith("texture2dms") for dim, _ in decl.resources.values()):
        return "skipped", "multisampled texture: the oracle binds a single-sampled one (its results are NaN)"
    if any(dim.startswith("texture1d") for dim in [*(d for d, _ in decl.resources.values()),
                                                    *decl.uav_dimensions.values()]):
        return "skipped", "1D texture: the oracle binds a 2D one to the sampler1D or image1D (moderngl makes no 1D ones)"
    _bind_vm_resources(shader, res)
    for slot, (words, _fmt) in res.uav_buffers.items():
        stride = decl.structured.get((30, slot), 0)
        if decl.uav_dimensions.get(slot) == "buffer":  # typed UAV buffer: r32ui/r32i/r32f words
            shader.bind_buffer(slot, Buffer(typed=_typed(words, 1)), uav=True)
        else:
            shader.bind_buffer(slot, Buffer(np.asarray(words, np.uint32).copy(), stride), uav=True)
    for slot, kind in decl.uavs.items():
        dim = decl.uav_dimensions.get(slot, "buffer")
        if kind == "typed" and dim not in ("buffer", "unknown"):
            # the oracle's default storage image: 64x64 zeros, rgba32 (one layer for arrays and 3D)
            shape = (1, 64, 64, 4) if dim in ("texture3d", "texture2darray", "texture1darray") else (64, 64, 4)
            shader.bind_texture(slot, Texture.from_array(np.zeros(shape, np.uint32), dim), uav=True)
            continue
        if (30, slot) not in shader.buffers:
            shader.bind_buffer(slot, Buffer(np.zeros(1024, np.uint32), decl.structured.get((30, slot), 0)), uav=True)
    try:
        if info.stage == "cs":
            shader.dispatch((2, 1, 1))
        else:
            feed = _vm_feed(shader, {loc: values for loc, values in inputs.items() if loc < decl.inputs})
            if info.stage == "vs":
                ours = shader.run_vertex(feed, count=n)
            else:
                ours = shader.run_pixel(feed, count=n)
    except VmError as exc:
        return "failed", f"VM: {exc}"
    except Exception as exc:  # noqa: BLE001 - a VM bug: report it as a failure
        return "failed", f"VM crashed: {type(exc).__name__}: {exc}"
    problems: list[str] = []
    if info.stage == "cs":
        for key, words in theirs.items():
            slot = key[1] if isinstance(key, tuple) else key
            buf = shader.buffers.get((30, slot))
            if buf is None:
                tex = shader.uav_textures.get(slot)
                if tex is None:
                    continue
                mine = np.ascontiguousarray(tex.levels[0]).view(np.uint32).reshape(-1)
            else:
                mine = buf.words if buf.typed is None else buf.typed[:, 0].copy()
            size = min(len(mine), len(words))
            if not _close(mine[:size].view(np.float32), np.asarray(words)[:size].view(np.float32)) and \
                    not _close(mine[:size], np.asarray(words)[:size]):
                problems.append(f"u{slot} differs")
        return _verdict(shader, problems)
    position = None
    for element in shader.container.output_signature.elements if shader.container.output_signature else []:
        if element.semantic_name.upper() == "SV_POSITION":
            position = element.register
    written = theirs.get("written") if info.stage == "ps" else None
    for key, value in theirs.items():
        if key == "written" or value is None:
            continue
        if key == "gl_Position":
            reg = position
        elif isinstance(key, tuple):
            reg = key[1]
        elif isinstance(key, int):
            reg = key
        else:
            continue  # depth, mask, clip distances: compared through registers elsewhere
        if reg is None or f"o{reg}" not in ours:
            continue
        mine = ours[f"o{reg}"][:, : np.asarray(value).shape[1]]
        mine = np.ascontiguousarray(mine).view(np.asarray(value).dtype)
        theirs_v = np.asarray(value)
        if written is not None:
            keep = np.asarray(written) & ~ours.discarded
            mine, theirs_v = mine[keep], theirs_v[keep]
        if not _close(mine, theirs_v):
            problems.append(f"o{reg} differs: {_diff(mine, theirs_v)}")
    return _verdict(shader, problems)


#: comparison sampling: the oracle binds RGBA32F colour textures, for which GL leaves depth
#: comparison undefined (llvmpipe returns fractional values where D3D returns 0 or 1)
_COMPARISON_OPCODES = {"sample_c", "sample_c_lz", "gather4_c", "gather4_po_c", "sample_c_cl_s", "sample_c_lz_s",
                       "gather4_c_s", "gather4_po_c_s"}


def _verdict(shader: Any, problems: list[str]) -> tuple[str, str]:
    if not problems:
        return "passed", ""
    from shaderkit.isa.sm4.opcodes import OPCODES

    used = {OPCODES[i.opcode].name for i in shader.program.instructions if i.opcode in OPCODES}
    if used & _COMPARISON_OPCODES:
        return "skipped", ("unverifiable: comparison sampling of a colour texture is undefined in GL "
                           "(the oracle's llvmpipe returns fractions); " + "; ".join(problems))[:300]
    return "failed", "; ".join(problems)


# ---------------------------------------------------------------------------------------------
# geometry, hull and domain shaders: GL programs with transform feedback
# ---------------------------------------------------------------------------------------------

#: GL enums used through raw calls (moderngl's transform() cannot begin transform feedback for a
#: tessellation pipeline: it takes the feedback mode from the draw mode or a geometry stage)
GL_POINTS, GL_LINES, GL_TRIANGLES, GL_PATCHES = 0x0000, 0x0001, 0x0004, 0x000E
GL_LINES_ADJACENCY, GL_TRIANGLES_ADJACENCY = 0x000A, 0x000C
GL_RASTERIZER_DISCARD, GL_TRANSFORM_FEEDBACK_BUFFER = 0x8C89, 0x8C8E
GL_PRIMITIVES_GENERATED, GL_QUERY_RESULT, GL_PATCH_VERTICES = 0x8C87, 0x8866, 0x8E72
#: dcl_inputprimitive code -> (GL draw mode, vertices per primitive)
GS_INPUT_MODES = {1: (GL_POINTS, 1), 2: (GL_LINES, 2), 3: (GL_TRIANGLES, 3), 6: (GL_LINES_ADJACENCY, 4),
                  7: (GL_TRIANGLES_ADJACENCY, 6)}
#: GS output topology -> (feedback mode, vertices per captured primitive)
GS_OUTPUT_MODES = {"pointlist": (GL_POINTS, 1), "linestrip": (GL_LINES, 2), "trianglestrip": (GL_TRIANGLES, 3)}
#: built-in outputs captured under an ordinary name (transform feedback cannot capture them or
#: Mesa refuses them) -> (GLSL type, D3D system value of the signature element)
_BUILTIN_OUTPUTS = {"gl_Layer": ("int", "RTINDEX"), "gl_ViewportIndex": ("int", "VPINDEX"),
                    "gl_PrimitiveID": ("int", "PRIMID")}
#: GLSL type -> (numpy dtype, components)
GLSL_TYPES = {f"{prefix}{kind}": (dtype, n) for prefix, dtype in (("", "f4"), ("i", "i4"), ("u", "u4"))
              for kind, n in (("vec2", 2), ("vec3", 3), ("vec4", 4))}
GLSL_TYPES.update({"float": ("f4", 1), "int": ("i4", 1), "uint": ("u4", 1)})
_IO_RE = re.compile(r"^layout\(([^)]*)\)\s+((?:(?:flat|noperspective|centroid|sample|smooth|patch)\s+)*)"
                    r"(in|out)\s+(\w+)\s+(\w+)(\[\d*\])?;", re.M)


class _RawGL:
    """The few GL entry points the pipelines below call directly (through EGL)."""

    def __init__(self) -> None:
        import ctypes

        egl = ctypes.CDLL("libEGL.so.1")
        egl.eglGetProcAddress.restype = ctypes.c_void_p
        egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]
        u, i = ctypes.c_uint, ctypes.c_int
        self.ctypes = ctypes

        def f(name: str, restype: Any, *args: Any) -> Any:
            return ctypes.CFUNCTYPE(restype, *args)(egl.eglGetProcAddress(name.encode()))

        self.Enable = f("glEnable", None, u)
        self.Disable = f("glDisable", None, u)
        self.UseProgram = f("glUseProgram", None, u)
        self.BindVertexArray = f("glBindVertexArray", None, u)
        self.BindBufferBase = f("glBindBufferBase", None, u, u, u)
        self.BeginTransformFeedback = f("glBeginTransformFeedback", None, u)
        self.EndTransformFeedback = f("glEndTransformFeedback", None)
        self.DrawArrays = f("glDrawArrays", None, u, i, i)
        self.PatchParameteri = f("glPatchParameteri", None, u, i)
        self.GenQueries = f("glGenQueries", None, i, ctypes.POINTER(u))
        self.DeleteQueries = f("glDeleteQueries", None, i, ctypes.POINTER(u))
        self.BeginQuery = f("glBeginQuery", None, u, u)
        self.EndQuery = f("glEndQuery", None, u)
        self.GetQueryObjectuiv = f("glGetQueryObjectuiv", None, u, u, ctypes.POINTER(u))
        self.GetError = f("glGetError", u)
        self.Finish = f("glFinish", None)

    def feedback(self, prog: Any, vao: Any, out: Any, draw_mode: int, feedback_mode: int, vertices: int,
                 patch_vertices: int = 0) -> int:
        """Draw ``vertices`` with rasterizer discard, capturing into ``out``; the primitives
        generated (GL_PRIMITIVES_GENERATED)."""
        ct = self.ctypes
        query = ct.c_uint()
        self.GenQueries(1, ct.byref(query))
        self.GetError()
        self.UseProgram(prog.glo)
        self.BindVertexArray(vao.glo)
        self.BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, out.glo)
        if patch_vertices:
            self.PatchParameteri(GL_PATCH_VERTICES, patch_vertices)
        self.Enable(GL_RASTERIZER_DISCARD)
        self.BeginQuery(GL_PRIMITIVES_GENERATED, query.value)
        self.BeginTransformFeedback(feedback_mode)
        self.DrawArrays(draw_mode, 0, vertices)
        self.EndTransformFeedback()
        self.EndQuery(GL_PRIMITIVES_GENERATED)
        self.Disable(GL_RASTERIZER_DISCARD)
        self.Finish()
        error = self.GetError()
        count = ct.c_uint()
        self.GetQueryObjectuiv(query.value, GL_QUERY_RESULT, ct.byref(count))
        self.DeleteQueries(1, ct.byref(query))
        self.BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0)
        if error:
            raise RuntimeError(f"GL error 0x{error:04x}")
        return int(count.value)


_RAW: Any = None


def _raw() -> Any:
    global _RAW
    if _RAW is None:
        _RAW = _RawGL()
    return _RAW


def _io(glsl: str, direction: str) -> list[tuple[int, int, str, str, str, bool]]:
    """(location, first component, type, name, array suffix, patch) of every located in/out."""
    rows = []
    for layout, quals, d, ty, name, arr in _IO_RE.findall(glsl):
        if d != direction:
            continue
        loc = re.search(r"location = (\d+)", layout)
        if loc is None:
            continue
        comp = re.search(r"component = (\d+)", layout)
        rows.append((int(loc.group(1)), int(comp.group(1)) if comp else 0, ty, name, arr, "patch" in quals))
    return rows


def _capture(glsl: str, signature: list[Any]) -> tuple[str, list[str], list[tuple[int, int, str, int]]]:
    """The last stage's GLSL made capturable, its varyings and their layout: (register, first
    component, numpy dtype, components) per varying; registers from the D3D output signature."""
    varyings: list[str] = []
    layout: list[tuple[int, int, str, int]] = []
    by_sysval = {e.sysval: e for e in signature if e.stream == 0}
    if re.search(r"\bgl_Position\b", glsl) and "POS" in by_sysval:
        varyings.append("gl_Position")
        layout.append((by_sysval["POS"].register, 0, "f4", 4))
    for builtin, (ty, sysval) in _BUILTIN_OUTPUTS.items():
        if re.search(r"\b" + builtin + r"\s*=", glsl) and sysval in by_sysval:
            alias = "_sk" + builtin[2:]
            element = by_sysval[sysval]
            glsl = re.sub(r"\b" + builtin + r"\b", alias, glsl)
            glsl = _declare(glsl, f"flat out {ty} {alias};")
            varyings.append(alias)
            layout.append((element.register, (element.mask & -element.mask).bit_length() - 1, "i4", 1))
    for loc, comp, ty, name, arr, patch in _io(glsl, "out"):
        if patch or arr or ty not in GLSL_TYPES or name.startswith("_sk_"):
            continue
        dt, nc = GLSL_TYPES[ty]
        varyings.append(name)
        layout.append((loc, comp, dt, nc))
    return glsl, varyings, layout


def _declare(glsl: str, line: str) -> str:
    """Insert a global declaration before the first function of a GLSL shader."""
    where = re.search(r"^\w[\w ]*\([^;{]*\)\s*\n?\{", glsl, re.M)
    at = where.start() if where else len(glsl)
    return glsl[:at] + line + "\n" + glsl[at:]


def _passthrough_vs(next_glsl: str, position_location: int | None) -> tuple[str, list[tuple[int, int, str, int]]]:
    """A vertex shader that copies attribute ``location`` to output ``location`` for every input
    of the next stage (and gl_Position from attribute ``position_location`` when it reads
    gl_in[].gl_Position); returns it and (location, first component, dtype, components) per attribute."""
    lines, body, attributes = ["#version 450"], [], []
    seen = set()
    for loc, comp, ty, _name, _arr, patch in _io(next_glsl, "in"):
        if patch or loc in seen or ty not in GLSL_TYPES:
            continue
        seen.add(loc)
        dt, nc = GLSL_TYPES[ty]
        lines.append(f"layout(location = {loc}) in {ty} a{loc};")
        lines.append(f"layout(location = {loc}{f', component = {comp}' if comp else ''}) out {ty} p{loc};")
        body.append(f"    p{loc} = a{loc};")
        attributes.append((loc, comp, dt, nc))
    if position_location is not None and re.search(r"gl_in\[[^\]]*\]\s*\.\s*gl_Position", next_glsl):
        if position_location not in seen:
            lines.append(f"layout(location = {position_location}) in vec4 a{position_location};")
            attributes.append((position_location, 0, "f4", 4))
        body.append(f"    gl_Position = a{position_location};")
    return "\n".join(lines + ["void main()", "{"] + body + ["}"]) + "\n", attributes


def _random_registers(attributes: list[tuple[int, int, str, int]], count: int,
                      rng: Any) -> dict[int, np.ndarray]:
    """(count, 4) uint32 bits per input register: random values (floats U(-2, 2), integers 0..7)
    in the components the GLSL reads, zeros elsewhere."""
    data: dict[int, np.ndarray] = {}
    for loc, comp, dt, nc in attributes:
        bits = data.setdefault(loc, np.zeros((count, 4), np.uint32))
        if dt == "f4":
            values = rng.uniform(-2, 2, (count, nc)).astype(np.float32).view(np.uint32)
        else:
            values = rng.integers(0, 8, (count, nc)).astype(np.uint32)
        bits[:, comp : comp + nc] = values
    return data


def _vertex_array(ctx: Any, prog: Any, attributes: list[tuple[int, int, str, int]],
                  data: dict[int, np.ndarray], keep: dict[str, list[Any]]) -> Any:
    content = []
    for loc, comp, dt, nc in attributes:
        name = f"a{loc}"
        if name not in prog:
            continue
        buf = ctx.buffer(np.ascontiguousarray(data[loc][:, comp : comp + nc]).tobytes())
        keep.setdefault("bufs", []).append(buf)
        content.append((buf, f"{nc}{ {'f4': 'f', 'i4': 'i', 'u4': 'u'}[dt]}", name))
    return ctx.vertex_array(prog, content)


def _bind_vm_resources(shader: Any, res: Any) -> None:
    """Bind the oracle's resources (cbuffers, texel buffers, textures, samplers) to a VM shader."""
    from shaderkit.vm.sm4 import Buffer, Sampler, Texture

    decl = shader.decl
    for slot, words in res.cbuffers.items():
        if slot in shader.constant_buffers:
            shader.set_constant_buffer(slot, np.asarray(words, np.uint32))
    for slot, (words, _fmt) in res.srv_buffers.items():
        stride = decl.structured.get((7, slot), 0)
        dim, ret = decl.resources.get(slot, ("", ""))
        if dim == "buffer":  # typed: the oracle's texel buffer is rgba32f, or r32ui/r32i for int types
            shader.bind_buffer(slot, Buffer(typed=_typed(words, 1 if ret in ("sint", "uint") else 4)))
        else:
            shader.bind_buffer(slot, Buffer(np.asarray(words, np.uint32).copy(), stride))
    for slot, array in res.textures.items():
        dim, ret = decl.resources.get(slot, ("texture2d", "float"))
        data = np.asarray(array)
        if ret in ("sint", "uint"):
            data = data.astype(np.int32 if ret == "sint" else np.uint32)
        if dim == "texture3d" and data.ndim == 3:
            data = data[None]
        shader.bind_texture(slot, Texture.from_array(data, dim if dim != "unknown" else "texture2d"))
    for slot in decl.samplers:  # the oracle's default: nearest, clamp, compare "<="
        shader.bind_sampler(slot, Sampler(filter="point", mip_filter="point", address=("clamp",) * 3,
                                          comparison="less_equal"))


def _unpack(raw: np.ndarray, layout: list[tuple[int, int, str, int]]) -> dict[tuple[int, int], np.ndarray]:
    """Captured rows -> {(register, first component): (n, components) typed values}."""
    out, col = {}, 0
    for reg, comp, dt, nc in layout:
        out[(reg, comp)] = raw[:, col : col + nc].copy().view(dt)
        col += nc
    return out


def _compare_registers(mine: Any, theirs: dict[tuple[int, int], np.ndarray], rows: np.ndarray) -> list[str]:
    """Compare captured values with the VM's ``o#`` bits at ``rows`` (vertex indices)."""
    problems = []
    for (reg, comp), value in theirs.items():
        if f"o{reg}" not in mine:
            problems.append(f"o{reg}: the VM has no such output")
            continue
        ours = np.ascontiguousarray(np.asarray(mine[f"o{reg}"])[rows][:, comp : comp + value.shape[1]]).view(value.dtype)
        if not _close(ours, value):
            problems.append(f"o{reg}.{'xyzw'[comp:comp + value.shape[1]]} differs: {_diff(ours, value)}")
    return problems


class _OracleSkip(Exception):
    """The oracle cannot link or run a comparison's GL program (the message says why)."""


def _feedback_run(gl: Any, stages: dict[str, str], varyings: list[str], bind: Callable[[Any, dict[str, list[Any]]], None],
                  attributes: Any, data: dict[int, np.ndarray], layout: list[Any], rows: int,
                  draw: tuple[int, int, int, int], rows_per_primitive: int,
                  link_chars: int = 120) -> tuple[int, np.ndarray]:
    """Link ``stages`` capturing ``varyings``, bind (``bind(prog, keep)``), draw the vertex
    ``data`` with rasterizer discard (``draw``: draw mode, feedback mode, vertices, patch
    vertices) into room for ``rows`` captured rows: (primitives generated, the captured rows as
    uint32). _OracleSkip when GL cannot link or run it."""
    ctx = gl.ctx
    keep: dict[str, list[Any]] = {}
    try:
        try:
            prog = ctx.program(**stages, varyings=varyings, varyings_capture_mode="interleaved")
        except Exception as exc:  # noqa: BLE001 - GLSL the oracle's translation cannot link
            raise _OracleSkip(f"oracle cannot link: {str(exc).strip().splitlines()[-1][:link_chars]}") from None
        bind(prog, keep)
        vao = _vertex_array(ctx, prog, attributes, data, keep)
        stride = sum(nc for *_, nc in layout)
        out = ctx.buffer(reserve=max(4, rows * stride * 4))
        keep.setdefault("bufs", []).append(out)
        gl._dummy_fbo.use()
        generated = _raw().feedback(prog, vao, out, *draw)
        captured = np.frombuffer(out.read(), np.uint32).reshape(-1, stride)[: generated * rows_per_primitive]
        vao.release()
        prog.release()
    except _OracleSkip:
        raise
    except Exception as exc:  # noqa: BLE001 - the oracle's own limits
        raise _OracleSkip(f"oracle cannot run: {type(exc).__name__}: {str(exc)[:80]}") from None
    finally:
        gl._cleanup(keep)
    return generated, captured


def compare_geometry(oracle: Any, path: Path, primitives: int = 8, seed: int = 1234) -> tuple[str, str]:
    """("passed" | "failed" | "skipped", reason) for one geometry shader: the oracle's GS behind a
    pass-through vertex shader, its stream-0 output captured with transform feedback (strips cut
    into lists by GL), against :meth:`Shader.run_geometry` assembled by
    :meth:`GeometryOutputs.primitives`."""
    import shaderkit
    from shaderkit.vm.sm4 import Shader, VmError

    raw = path.read_bytes()
    if path.name in KNOWN_DIFFERENCES:
        return "skipped", "known difference: " + KNOWN_DIFFERENCES[path.name]
    try:
        tr = oracle.translate(str(path))
    except oracle.TranslateError as exc:
        return "skipped", f"oracle cannot translate: {str(exc)[:80]}"
    try:
        shader = Shader(shaderkit.open(raw))
    except VmError as exc:
        return "failed", f"VM refused: {exc}"
    d = shader.decl
    if d.input_primitive not in GS_INPUT_MODES:
        return "skipped", f"input primitive code {d.input_primitive}: no GL draw mode (patches)"
    draw_mode, per = GS_INPUT_MODES[d.input_primitive]
    from shaderkit.isa.sm4.opcodes import PRIMITIVE_TOPOLOGIES

    topology = PRIMITIVE_TOPOLOGIES.get(d.output_topology, "undefined")
    if topology not in GS_OUTPUT_MODES:
        return "skipped", f"output topology {topology}"
    feedback_mode, out_per = GS_OUTPUT_MODES[topology]
    glsl = oracle.strip_bindings(tr.glsl)
    position = next((e.register for e in tr.info.isgn if e.sysval == "POS"), None)
    vs, attributes = _passthrough_vs(glsl, position)
    glsl, varyings, layout = _capture(glsl, tr.info.osgn)
    if not varyings:
        return "skipped", "no capturable output"
    rng = np.random.default_rng(seed)
    res = oracle.auto_resources(tr, rng, oracle.parse_rdef(raw))
    data = _random_registers(attributes, primitives * per, rng)
    instances = max(d.instances, 1)
    capacity = primitives * instances * max(d.max_output_vertices, 1) * out_per
    gl = _gl(oracle)
    try:
        generated, captured = _feedback_run(
            gl, {"vertex_shader": vs, "geometry_shader": glsl}, varyings, lambda prog, keep: gl._bind_resources(
                prog, tr, res, keep), attributes, data, layout, capacity, (draw_mode, feedback_mode, primitives * per, 0),
            out_per, link_chars=100)
    except _OracleSkip as exc:
        return "skipped", str(exc)
    theirs = _unpack(captured, layout)
    _bind_vm_resources(shader, res)
    feed = {f"v{r}": bits.reshape(primitives, per, 4) for r, bits in data.items() if r < max(d.inputs, 1)}
    try:
        ours = shader.run_geometry(feed, count=primitives)
        rows = ours.primitives().reshape(-1)
    except VmError as exc:
        return "failed", f"VM: {exc}"
    except Exception as exc:  # noqa: BLE001 - a VM bug
        return "failed", f"VM crashed: {type(exc).__name__}: {exc}"
    if len(rows) != len(captured):
        return "failed", f"{len(rows) // out_per} primitives, the oracle {generated}"
    status, reason = _verdict(shader, _compare_registers(ours, theirs, rows))
    return status, reason or f"{generated} primitives"


#: hull and domain shaders of the same source (tools and tests pair them by file name)
TESSELLATION_PAIRS = [
    ("slimshader__Tests_HlslCrossCompiler_hs5_basic.dxbc", "slimshader__Tests_HlslCrossCompiler_ds5_basic.dxbc"),
    ("slimshader__Tests_HlslCrossCompiler_hs5_basic.dxbc", "dxdecompiler__HlslCrossCompiler_ds5_basic.dxbc"),
    ("dxdecompiler__Internal_General_AdvancedHLSL_HS.dxbc", "dxdecompiler__Internal_General_AdvancedHLSL_DS.dxbc"),
    ("slimshader__Tests_Sdk_Direct3D11_DecalTessellation11_DecalTessellation11_HS.dxbc",
     "slimshader__Tests_Sdk_Direct3D11_DecalTessellation11_DecalTessellation11_DS.dxbc"),
    ("slimshader__VirtualMachine_HS_DecalTessellation11_HS.dxbc",
     "dxdecompiler__Sdk_Direct3D11_DecalTessellation11_DecalTessellation11_DS.dxbc"),
    ("slimshader__Tests_Sdk_Direct3D11_DetailTessellation11_DetailTessellation11_HS.dxbc",
     "slimshader__Tests_Sdk_Direct3D11_DetailTessellation11_DetailTessellation11_DS.dxbc"),
    ("slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_HS.dxbc",
     "slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_DS.dxbc"),
    ("slimshader__Tests_Sdk_Direct3D11_SimpleBezier11_SimpleBezier11_HS.dxbc",
     "slimshader__Tests_Sdk_Direct3D11_SimpleBezier11_SimpleBezier11_DS.dxbc"),
    ("slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_HS.dxbc", "slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_DS.dxbc"),
    ("slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_HS_4444.dxbc",
     "slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_DS.dxbc"),
    ("dxdecompiler__3Dmigoto_hull.dxbc", "dxdecompiler__3Dmigoto_signatures_ds.dxbc"),
]
#: D3D partitioning -> GLSL spacing. pow2 has no GL spacing, but D3D11's reference tessellator
#: (and Mesa's copy of it) treats pow2 as integer: the rounding to powers of two is the HLSL
#: helpers' job, in the shader
GL_SPACING = {"integer": "equal_spacing", "fractional_odd": "fractional_odd_spacing",
              "fractional_even": "fractional_even_spacing", "pow2": "equal_spacing"}
#: D3D output primitive -> (GLSL vertex order / point mode, feedback mode, vertices per primitive).
#: GL's tessellation domain has its origin at the lower left, D3D's (and Vulkan's) at the upper
#: left, so the same (u, v) points wound clockwise in D3D are counter-clockwise in GL
GL_OUTPUT = {"triangle_cw": ("ccw", GL_TRIANGLES, 3), "triangle_ccw": ("cw", GL_TRIANGLES, 3),
             "line": ("ccw", GL_LINES, 2), "point": ("ccw, point_mode", GL_POINTS, 1)}
GL_DOMAIN = {"tri": "triangles", "quad": "quads", "isoline": "isolines"}


class _Merged:
    """Two stages' translations as one for the oracle's resource binder: slots become
    (stage, slot) so that each stage's cbuffers and textures stay its own."""

    def __init__(self, parts: list[tuple[str, Any]]) -> None:
        self.parts = parts
        self.glsl = "\n".join(glsl for _, glsl, _ in parts)  # type: ignore[misc]

    def slot_of(self, name: str) -> Any:
        for stage, _glsl, tr in self.parts:  # type: ignore[misc]
            suffix = f"_{stage}"
            if name.endswith(suffix):
                return (stage, tr.slot_of(name[: -len(suffix)]))
        for stage, _glsl, tr in self.parts:  # type: ignore[misc]  # textures and samplers: whose?
            if any(r["name"] == name for key in ("separate_images", "separate_samplers", "images")
                   for r in tr.refl.get(key, [])):
                return (stage, tr.slot_of(name))
        stage, _glsl, tr = self.parts[-1]  # type: ignore[misc]
        return (stage, tr.slot_of(name))


def _rename_blocks(glsl: str, stage: str) -> str:
    """Give a stage's uniform blocks stage-specific names (GL links blocks of the same name
    across stages as one)."""
    for name in set(re.findall(r"uniform (\w+)\s*\n\{", glsl)):
        glsl = re.sub(r"\b" + name + r"\b", f"{name}_{stage}", glsl)
    return glsl


def _merge_aliases(glsl: str) -> str:
    """vkd3d 1.2 may declare one input register twice (``vicp0`` and ``vicp0_1``, both location
    0), which GL refuses to link: keep the first declaration and rename the others to it."""
    first: dict[int, tuple[str, str]] = {}
    for layout, _quals, d, ty, name, _arr in _IO_RE.findall(glsl):
        loc = re.search(r"location = (\d+)", layout)
        if d != "in" or loc is None or "component" in layout:
            continue
        if int(loc.group(1)) not in first:
            first[int(loc.group(1))] = (name, ty)
        elif first[int(loc.group(1))][1] == ty:
            glsl = re.sub(r"^layout\([^)]*\)\s+in\s+\w+\s+" + name + r"\[\d*\];\n", "", glsl, flags=re.M)
            glsl = re.sub(r"\b" + name + r"\b", first[int(loc.group(1))][0], glsl)
    return glsl


def _tess_inputs(rng: Any, res: Any, shader: Any) -> None:
    """Make the random cbuffer floats positive (1 to 7), so that tessellation factors computed
    from them rarely cull a patch; integer words (0..7) stay as they are. Typed uint/sint
    buffers get integers 1..7 (the oracle fills a stripped-RDEF uint buffer with float bits,
    which as loop counts or indices run away; a 0 there, as in SubD11's "valence - 1", does too)."""
    for slot, (words, fmt) in list(res.srv_buffers.items()):
        dim, ret = shader.decl.resources.get(slot, ("", ""))
        if dim == "buffer" and ret in ("uint", "sint"):
            res.srv_buffers[slot] = (rng.integers(1, 8, len(words)).astype(np.uint32), fmt)
    for slot, words in list(res.cbuffers.items()):
        words = np.asarray(words, np.uint32).copy()
        floats = words >= 8
        words[floats] = (np.abs(words[floats].view(np.float32)) * 3 + 1).astype(np.float32).view(np.uint32)
        res.cbuffers[slot] = words


def compare_tessellation(oracle: Any, hs_path: Path, ds_path: Path | None = None, patches: int = 4,
                         seed: int = 1234) -> tuple[str, str]:
    """("passed" | "failed" | "skipped", reason) for a hull shader and its domain shader (or the
    hull shader alone, ``ds_path`` None: a generated domain stage then captures the domain
    location, the tessellation factors as the TES reads them and every output control point).

    GL pipeline: pass-through VS -> TCS (the hull shader through vkd3d/spirv-cross) -> TES (the
    domain shader, with the spacing and vertex order of the hull shader's declarations, which
    GLSL wants in the evaluation stage) -> transform feedback of every primitive with its
    gl_TessCoord. VM: :meth:`Shader.run_hull` -> :meth:`HullOutputs.tessellate` ->
    :meth:`Shader.run_domain`; primitive for primitive, vertex for vertex."""
    import shaderkit
    from shaderkit.vm.sm4 import Shader, VmError

    for path in (hs_path, ds_path):
        if path is not None and path.name in KNOWN_DIFFERENCES:
            return "skipped", "known difference: " + KNOWN_DIFFERENCES[path.name]
    masked, mask_reason = KNOWN_PATCH_CONSTANTS.get(hs_path.name, (set(), ""))
    if masked and ds_path is not None:
        return "skipped", "known difference: " + mask_reason
    try:
        tr_hs = oracle.translate(str(hs_path))
        tr_ds = oracle.translate(str(ds_path)) if ds_path is not None else None
    except oracle.TranslateError as exc:
        return "skipped", f"oracle cannot translate: {str(exc)[:80]}"
    try:
        hull = Shader(shaderkit.open(hs_path.read_bytes()))
        domain = Shader(shaderkit.open(ds_path.read_bytes())) if ds_path is not None else None
    except VmError as exc:
        return "failed", f"VM refused: {exc}"
    d = hull.decl
    from shaderkit.vm.sm4.tessellation import tessellator_names

    kind, partitioning, output = tessellator_names(d)
    if partitioning not in GL_SPACING:
        return "skipped", f"partitioning {partitioning}: GL has no such spacing"
    if kind not in GL_DOMAIN or output not in GL_OUTPUT:
        return "skipped", f"domain {kind}, output {output}"
    order, feedback_mode, per = GL_OUTPUT[output]
    tcs = _merge_aliases(_rename_blocks(oracle.strip_bindings(tr_hs.glsl), "hs"))
    if kind == "isoline":
        # vkd3d 1.2 writes the line density factor to gl_TessLevelOuter[1] and the detail factor
        # to [0]; GL (and Vulkan) take the number of lines from [0] and the segments from [1]
        tcs = re.sub(r"gl_TessLevelOuter\[([01])u?\]", lambda m: f"gl_TessLevelOuter[{1 - int(m.group(1))}]", tcs)
    layout_in = f"layout({GL_DOMAIN[kind]}, {GL_SPACING[partitioning]}, {order}) in;"
    coord_type = "vec3" if kind == "tri" else "vec2"
    coord_line = f"layout(location = 30) out {coord_type} _sk_coord;"
    hull_extra: list[tuple[str, tuple[Any, ...], str, int]] = []  # hull alone: (varying, what, dtype, components)
    if tr_ds is not None:
        tes = _rename_blocks(oracle.strip_bindings(tr_ds.glsl), "ds")
        tes, count = re.subn(r"^layout\((?:triangles|quads|isolines)[^)]*\) in;", layout_in, tes, count=1, flags=re.M)
        if not count:
            return "skipped", "the translated domain shader declares no domain"
        tes = _declare(tes, coord_line)
        tes = re.sub(r"(void main\(\)\s*\{)", r"\1\n    _sk_coord = gl_TessCoord." + coord_type[-1:].replace("3", "xyz")
                     .replace("2", "xy") + ";", tes, count=1)
        signature = tr_ds.info.osgn
    else:
        body = [f"    _sk_coord = gl_TessCoord.{'xyz' if kind == 'tri' else 'xy'};",
                "    _sk_outer = vec4(gl_TessLevelOuter[0], gl_TessLevelOuter[1], gl_TessLevelOuter[2], "
                "gl_TessLevelOuter[3]);",
                "    _sk_inner = vec2(gl_TessLevelInner[0], gl_TessLevelInner[1]);"]
        decls = ["#version 450", layout_in, coord_line, "layout(location = 29) out vec4 _sk_outer;",
                 "layout(location = 28) out vec2 _sk_inner;"]
        # capture the patch constants and then as many output control points as fit in
        # llvmpipe's 64 interleaved components (patch-constant location = register + the
        # control-point output registers, vkd3d 1.2's numbering)
        outs = [row for row in _io(tcs, "out") if row[2] in GLSL_TYPES]
        offset = max((loc + 1 for loc, _c, _t, _n, _a, patch in outs if not patch), default=0)
        budget = 64 - (3 if kind == "tri" else 2) - 6
        for loc, comp, ty, _name, _arr, patch in outs:
            dt, nc = GLSL_TYPES[ty]
            quals = f"layout(location = {loc}{f', component = {comp}' if comp else ''})"
            if patch:
                decls.append(f"{quals} patch in {ty} pc{loc}_{comp};")
                if nc <= budget:
                    decls.append(f"out {ty} _skpc{loc}_{comp};")
                    body.append(f"    _skpc{loc}_{comp} = pc{loc}_{comp};")
                    hull_extra.append((f"_skpc{loc}_{comp}", ("pc", loc - offset, comp), dt, nc))
                    budget -= nc
            else:
                decls.append(f"{quals} in {ty} c{loc}_{comp}[];")
        for point in range(d.output_control_points):
            for loc, comp, ty, _name, _arr, patch in outs:
                dt, nc = GLSL_TYPES[ty]
                if patch or nc > budget:
                    continue
                decls.append(f"out {ty} _skcp{point}_{loc}_{comp};")
                body.append(f"    _skcp{point}_{loc}_{comp} = c{loc}_{comp}[{point}];")
                hull_extra.append((f"_skcp{point}_{loc}_{comp}", ("cp", point, loc, comp), dt, nc))
                budget -= nc
        tes = "\n".join(decls + ["void main()", "{"] + body + ["}"]) + "\n"
        signature = []
    tes, varyings, layout = _capture(tes, signature)
    varyings.insert(0, "_sk_coord")
    layout.insert(0, (-1, 0, "f4", 3 if kind == "tri" else 2))
    if tr_ds is None:
        varyings += ["_sk_outer", "_sk_inner"] + [name for name, *_ in hull_extra]
        layout += [(-2, 0, "f4", 4), (-3, 0, "f4", 2)] + [(-4 - k, 0, dt, nc) for k, (_, _, dt, nc) in enumerate(hull_extra)]
    points_in = max(d.input_control_points, 1)
    position = next((e.register for e in tr_hs.info.isgn if e.sysval == "POS"), None)
    vs, attributes = _passthrough_vs(tcs, position)
    rng = np.random.default_rng(seed)
    res_hs = oracle.auto_resources(tr_hs, rng, oracle.parse_rdef(hs_path.read_bytes()))
    res_ds = oracle.auto_resources(tr_ds, rng, oracle.parse_rdef(ds_path.read_bytes())) if ds_path and tr_ds else None
    _tess_inputs(rng, res_hs, hull)
    if res_ds is not None:
        _tess_inputs(rng, res_ds, domain)
    data = _random_registers(attributes, patches * points_in, rng)
    gl = _gl(oracle)
    parts = [("hs", tcs, tr_hs)] + ([("ds", tes, tr_ds)] if tr_ds is not None else [])
    merged = oracle.Resources()
    for stage, res in (("hs", res_hs), ("ds", res_ds)):
        if res is None:
            continue
        for field in ("cbuffers", "srv_buffers", "textures", "samplers"):
            getattr(merged, field).update({(stage, k): v for k, v in getattr(res, field).items()})
    try:
        generated, captured = _feedback_run(
            gl, {"vertex_shader": vs, "tess_control_shader": tcs, "tess_evaluation_shader": tes}, varyings,
            lambda prog, keep: gl._bind_resources(prog, _Merged(parts), merged, keep), attributes, data, layout,
            patches * 64 * 64 * 6 * per, (GL_PATCHES, feedback_mode, patches * points_in, points_in), per)
    except _OracleSkip as exc:
        return "skipped", str(exc)
    theirs = _unpack(captured, layout)
    _bind_vm_resources(hull, res_hs)
    if domain is not None and res_ds is not None:
        _bind_vm_resources(domain, res_ds)
    feed = {f"v{r}": bits.reshape(patches, points_in, 4) for r, bits in data.items()}
    try:
        hs_out = hull.run_hull(feed, count=patches)
        tess = hs_out.tessellate()
        rows = tess.primitives.reshape(-1)
        ours = domain.run_domain(hs_out, tess.domain, patch=tess.patch) if domain is not None else None
    except VmError as exc:
        return "failed", f"VM: {exc}"
    except Exception as exc:  # noqa: BLE001 - a VM bug
        return "failed", f"VM crashed: {type(exc).__name__}: {exc}"
    coord = theirs.pop((-1, 0))
    mine_coord = tess.domain[rows][:, : coord.shape[1]]
    if len(rows) != len(captured):
        return "failed", (f"{len(rows) // per} primitives, the oracle {generated} (factors "
                          f"{hs_out.tess_factors[:2].tolist()} / {hs_out.inside_tess_factors[:2].tolist()})")
    problems = []
    if not np.array_equal(mine_coord, coord):
        exact = np.all(mine_coord == coord, axis=1)
        same_set = {tuple(r) for r in mine_coord.tolist()} == {tuple(r) for r in coord.tolist()}
        problems.append(f"domain points: {int((~exact).sum())} of {len(rows)} differ (same point set: {same_set}); "
                        f"first at {int(np.argmin(exact))}: {mine_coord[np.argmin(exact)].tolist()} vs "
                        f"{coord[np.argmin(exact)].tolist()}")
    if ours is not None:
        problems += _compare_registers(ours, theirs, rows)
    else:
        outer, inner = theirs.pop((-2, 0)), theirs.pop((-3, 0))
        patch = tess.patch[rows]
        edges, inside = hs_out.tess_factors[patch], hs_out.inside_tess_factors[patch]
        if not _close(edges, outer[:, : edges.shape[1]]) or not _close(inside, inner[:, : inside.shape[1]]):
            problems.append("tessellation factors differ")
        for k, (_name, what, _dt, nc) in enumerate(hull_extra):
            value = theirs.pop((-4 - k, 0))
            if what[0] == "pc":
                _, register, comp = what
                if not 0 <= register < hs_out.patch_constant_bits.shape[1] or register in masked:
                    continue
                bits = hs_out.patch_constant_bits[patch, register, comp : comp + nc]
                label = f"patch constant {register}.{'xyzw'[comp:comp + nc]}"
            else:
                _, point, register, comp = what
                if register >= hs_out.control_point_bits.shape[2]:
                    continue
                bits = hs_out.control_point_bits[patch, point, register, comp : comp + nc]
                label = f"control point {point} o{register}.{'xyzw'[comp:comp + nc]}"
            mine = np.ascontiguousarray(bits).view(value.dtype)
            if not _close(mine, value):
                problems.append(f"{label} differs: {_diff(mine, value)}")
    status, reason = _verdict(hull, problems)
    note = f" (patch constants {sorted(masked)} not compared: vkd3d 1.2 bug)" if masked else ""
    return status, reason or f"{generated} primitives, {len(rows)} vertices{note}"


def compare_domain(oracle: Any, path: Path, patches: int = 4, seed: int = 1234) -> tuple[str, str]:
    """("passed" | "failed" | "skipped", reason) for a domain shader alone: a generated TCS passes
    random control points through and writes random patch constants and tessellation factors (1
    to 12) from uniforms; the domain shader runs as the TES for integer, fractional odd and
    fractional even spacing (clockwise triangles, or lines for isolines). VM: the tessellator
    with the same factors, then :meth:`Shader.run_domain` with the same control points and
    patch constants."""
    import shaderkit
    from shaderkit.vm.sm4 import Shader, VmError
    from shaderkit.vm.sm4.tessellation import EDGE_FACTORS, INSIDE_FACTORS, signature_registers

    if path.name in KNOWN_DIFFERENCES:
        return "skipped", "known difference: " + KNOWN_DIFFERENCES[path.name]
    try:
        tr = oracle.translate(str(path))
    except oracle.TranslateError as exc:
        return "skipped", f"oracle cannot translate: {str(exc)[:80]}"
    raw = path.read_bytes()
    try:
        shader = Shader(shaderkit.open(raw))
    except VmError as exc:
        return "failed", f"VM refused: {exc}"
    d = shader.decl
    from shaderkit.vm.sm4.tessellation import tessellator_names

    kind = tessellator_names(d)[0]
    if kind not in GL_DOMAIN:
        return "skipped", f"domain {kind}"
    points = max(d.input_control_points, 1)
    tes_base = _merge_aliases(_rename_blocks(oracle.strip_bindings(tr.glsl), "ds"))
    ins = [row for row in _io(tes_base, "in") if row[2] in GLSL_TYPES]
    named = [(loc, int(name[3:])) for loc, _c, _t, name, _a, patch in ins if patch and re.fullmatch(r"vpc\d+", name)]
    cp_locations = [loc for loc, _c, _t, _n, _a, patch in ins if not patch]
    offset = named[0][0] - named[0][1] if named else max(cp_locations, default=-1) + 1
    registers = max([loc - offset + 1 for loc, _c, _t, _n, _a, patch in ins if patch] + [1])
    pcs = shader.container.patch_constant_signature
    registers = max(registers, signature_registers(pcs))
    rng = np.random.default_rng(seed)
    # uniform data: patch constants (patches x registers vec4) and factors
    constants = rng.uniform(-2, 2, (patches, registers, 4)).astype(np.float32)
    if kind == "isoline":
        factors = np.stack([rng.integers(1, 5, patches), rng.uniform(1, 12, patches)], 1).astype(np.float32)
        edges, inside = factors, np.zeros((patches, 0), np.float32)
    else:
        edges = rng.uniform(1, 12, (patches, 3 if kind == "tri" else 4)).astype(np.float32)
        inside = rng.uniform(1, 12, (patches, 1 if kind == "tri" else 2)).astype(np.float32)
    line_factors = {16: edges[:, 0], 15: edges[:, 1]} if kind == "isoline" else {}
    edge_elements = sorted((e for e in (pcs.elements if pcs else []) if e.system_value_type in EDGE_FACTORS),
                           key=lambda e: e.semantic_index)
    inside_elements = sorted((e for e in (pcs.elements if pcs else []) if e.system_value_type in INSIDE_FACTORS),
                             key=lambda e: e.semantic_index)
    for k, element in enumerate(edge_elements):
        column = (element.mask & -element.mask).bit_length() - 1
        values = line_factors.get(element.system_value_type, edges[:, min(k, edges.shape[1] - 1)])
        constants[:, element.register, column] = values
    for k, element in enumerate(inside_elements):
        if k < inside.shape[1]:
            constants[:, element.register, (element.mask & -element.mask).bit_length() - 1] = inside[:, k]
    outer = np.zeros((patches, 4), np.float32)
    outer[:, : edges.shape[1]] = edges
    inner = np.zeros((patches, 4), np.float32)
    inner[:, : inside.shape[1]] = inside
    tcs_lines = ["#version 450", f"layout(vertices = {points}) out;",
                 f"uniform vec4 sk_pc[{patches * registers}];", f"uniform vec4 sk_outer[{patches}];",
                 f"uniform vec4 sk_inner[{patches}];"]
    body = ["    int p = gl_PrimitiveID;",
            "    for (int i = 0; i < 4; i++) gl_TessLevelOuter[i] = sk_outer[p][i];",
            "    gl_TessLevelInner[0] = sk_inner[p].x; gl_TessLevelInner[1] = sk_inner[p].y;"]
    seen = set()
    for loc, comp, ty, _name, _arr, patch in ins:
        quals = f"layout(location = {loc}{f', component = {comp}' if comp else ''})"
        dt, nc = GLSL_TYPES[ty]
        if patch:
            register = loc - offset
            swizzle = "xyzw"[comp : comp + nc]
            value = f"sk_pc[p * {registers} + {register}].{swizzle}"
            if dt != "f4":
                value = f"{'floatBitsToInt' if dt == 'i4' else 'floatBitsToUint'}({value})"
            tcs_lines.append(f"{quals} patch out {ty} q{loc}_{comp};")
            body.append(f"    q{loc}_{comp} = {value};")
        elif (loc, comp) not in seen:
            seen.add((loc, comp))
            tcs_lines += [f"{quals} in {ty} x{loc}_{comp}[];", f"{quals} out {ty} y{loc}_{comp}[];"]
            body.append(f"    y{loc}_{comp}[gl_InvocationID] = x{loc}_{comp}[gl_InvocationID];")
    if re.search(r"gl_in\[[^\]]*\]\s*\.\s*gl_Position", tes_base):
        body.append("    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;")
    tcs = "\n".join(tcs_lines + ["void main()", "{"] + body + ["}"]) + "\n"
    position = next((e.register for e in tr.info.isgn if e.sysval == "POS"), None)
    vs, attributes = _passthrough_vs(tcs.replace("gl_in[gl_InvocationID].gl_Position", "gl_in[0].gl_Position"),
                                     position)
    data = _random_registers(attributes, patches * points, rng)
    res = oracle.auto_resources(tr, rng, oracle.parse_rdef(raw))
    _tess_inputs(rng, res, shader)
    merged = oracle.Resources()
    for field in ("cbuffers", "srv_buffers", "textures", "samplers"):
        getattr(merged, field).update({("ds", k): v for k, v in getattr(res, field).items()})
    _bind_vm_resources(shader, res)
    coord_type = "vec3" if kind == "tri" else "vec2"
    output = "line" if kind == "isoline" else "triangle_cw"
    order, feedback_mode, per = GL_OUTPUT[output]
    feed = {f"v{r}": bits.reshape(patches, points, 4) for r, bits in data.items()}
    problems: list[str] = []
    total = 0
    gl = _gl(oracle)
    for partitioning in ("integer", "fractional_odd", "fractional_even"):
        tes, count = re.subn(r"^layout\((?:triangles|quads|isolines)[^)]*\) in;",
                             f"layout({GL_DOMAIN[kind]}, {GL_SPACING[partitioning]}, {order}) in;", tes_base,
                             count=1, flags=re.M)
        if not count:
            return "skipped", "the translated domain shader declares no domain"
        tes = _declare(tes, f"layout(location = 30) out {coord_type} _sk_coord;")
        tes = re.sub(r"(void main\(\)\s*\{)", r"\1\n    _sk_coord = gl_TessCoord." + ("xyz" if kind == "tri" else "xy")
                     + ";", tes, count=1)
        tes, varyings, layout = _capture(tes, tr.info.osgn)
        varyings.insert(0, "_sk_coord")
        layout.insert(0, (-1, 0, "f4", 3 if kind == "tri" else 2))

        def bind(prog: Any, keep: dict[str, list[Any]], tes: str = tes) -> None:
            gl._bind_resources(prog, _Merged([("ds", tes, tr)]), merged, keep)
            for name, values in (("sk_pc", constants.reshape(-1, 4)), ("sk_outer", outer), ("sk_inner", inner)):
                if name in prog:  # unused uniforms are optimised out
                    prog[name].write(np.ascontiguousarray(values).tobytes())

        try:
            generated, captured = _feedback_run(
                gl, {"vertex_shader": vs, "tess_control_shader": tcs, "tess_evaluation_shader": tes}, varyings, bind,
                attributes, data, layout, patches * 13 * 13 * 6 * per, (GL_PATCHES, feedback_mode, patches * points, points),
                per)
        except _OracleSkip as exc:
            return "skipped", str(exc)
        theirs = _unpack(captured, layout)
        from shaderkit.vm.sm4.tessellator import tessellate_patches

        where_all, patch_of, primitives = tessellate_patches(kind, edges, inside, partitioning, output)
        rows = primitives.reshape(-1)
        try:
            ours = shader.run_domain(feed, where_all, {f"vpc{r}": constants[:, r] for r in range(registers)},
                                     patch=patch_of)
        except VmError as exc:
            return "failed", f"VM: {exc}"
        except Exception as exc:  # noqa: BLE001 - a VM bug
            return "failed", f"VM crashed: {type(exc).__name__}: {exc}"
        coord = theirs.pop((-1, 0))
        if len(rows) != len(coord):
            problems.append(f"{partitioning}: {len(rows) // per} primitives, the oracle {generated}")
            continue
        if not np.array_equal(np.asarray(where_all, np.float32)[rows][:, : coord.shape[1]], coord):
            problems.append(f"{partitioning}: domain points differ")
        problems += [f"{partitioning}: {p}" for p in _compare_registers(ours, theirs, rows)]
        total += generated
    status, reason = _verdict(shader, problems)
    return status, reason or f"{total} primitives over 3 spacings"


def compare_tessellator(oracle: Any, domain: str, partitioning: str, output: str, factors: np.ndarray) -> list[str]:
    """The fixed-function tessellator alone: GL tessellates one patch per row of ``factors``
    ((patches, 6) float32: edge factors 0-3, inside 0-1; for isolines 0 = density, 1 = detail)
    through a generated TCS/TES that captures gl_TessCoord; the VM's tessellate_tri/quad/isoline
    must give the same points in the same primitive order. Returns the problems (empty: agree)."""
    from shaderkit.vm.sm4.tessellator import tessellate_patch

    order, feedback_mode, per = GL_OUTPUT[output]
    width = 3 if domain == "tri" else 2
    # the patch number travels as a patch constant: llvmpipe's gl_PrimitiveID in the TES was seen
    # to repeat after 64 patches of one draw
    vs = ("#version 450\nlayout(location = 0) in vec4 a0;\nlayout(location = 1) in vec2 a1;\n"
          "layout(location = 0) out vec4 f0;\nlayout(location = 1) out vec2 f1;\nlayout(location = 2) flat out int id;\n"
          "void main() { f0 = a0; f1 = a1; id = gl_VertexID; }\n")
    tcs = ("#version 450\nlayout(vertices = 1) out;\nlayout(location = 0) in vec4 f0[];\nlayout(location = 1) in vec2 f1[];\n"
           "layout(location = 2) flat in int id[];\nlayout(location = 3) patch out int pid;\n"
           "void main() {\n  for (int i = 0; i < 4; i++) gl_TessLevelOuter[i] = f0[0][i];\n"
           "  gl_TessLevelInner[0] = f1[0].x; gl_TessLevelInner[1] = f1[0].y; pid = id[0];\n}\n")
    tes = (f"#version 450\nlayout({GL_DOMAIN[domain]}, {GL_SPACING[partitioning]}, {order}) in;\n"
           f"layout(location = 3) patch in int pid;\n"
           f"layout(location = 0) out vec{width} coord;\nlayout(location = 1) flat out int patch_id;\n"
           f"void main() {{ coord = gl_TessCoord.{'xyz'[:width]}; patch_id = pid; }}\n")
    gl = _gl(oracle)
    ctx = gl.ctx
    factors = np.ascontiguousarray(factors, np.float32)
    prog = ctx.program(vertex_shader=vs, tess_control_shader=tcs, tess_evaluation_shader=tes,
                       varyings=["coord", "patch_id"], varyings_capture_mode="interleaved")
    b0, b1 = ctx.buffer(factors[:, :4].tobytes()), ctx.buffer(np.ascontiguousarray(factors[:, 4:6]).tobytes())
    vao = ctx.vertex_array(prog, [(b0, "4f", "a0"), (b1, "2f", "a1")])
    out = ctx.buffer(reserve=len(factors) * 65 * 65 * 6 * per * (width + 1) * 4)
    try:
        gl._dummy_fbo.use()
        generated = _raw().feedback(prog, vao, out, GL_PATCHES, feedback_mode, len(factors), 1)
        raw = np.frombuffer(out.read(), np.uint32).reshape(-1, width + 1)[: generated * per]
    finally:
        for obj in (vao, out, b0, b1, prog):
            obj.release()
    theirs_coord, theirs_patch = raw[:, :width].copy().view(np.float32), raw[:, width].astype(np.int64)
    problems = []
    for patch, row in enumerate(factors):
        where, indices = tessellate_patch(domain, row[:4], row[4:6], partitioning, output)
        mine = np.asarray(where, np.float32)[np.asarray(indices).reshape(-1)][:, :width]
        theirs = theirs_coord[theirs_patch == patch]
        if mine.shape != theirs.shape:
            problems.append(f"{domain} {partitioning} {output} factors {row.tolist()}: {len(mine) // per} primitives, "
                            f"GL {len(theirs) // per}")
        elif not np.array_equal(mine, theirs):
            bad = int(np.argmax(np.any(mine != theirs, axis=1)))
            same = sorted(map(tuple, mine.tolist())) == sorted(map(tuple, theirs.tolist()))
            problems.append(f"{domain} {partitioning} {output} factors {row.tolist()}: vertex {bad} "
                            f"{mine[bad].tolist()} vs GL {theirs[bad].tolist()} (same vertices: {same})")
    return problems


def compare_tessellator_batches(oracle: Any, domain: str, partitioning: str, output: str, factors: np.ndarray,
                                batch: int = 8) -> list[str]:
    """compare_tessellator ``batch`` patches per draw. With 100 large-factor patches in one draw,
    llvmpipe captured about twice the primitives of the same patches drawn 8 at a time (not
    investigated; the oracle's side, since the small draws agree with the VM exactly)."""
    problems: list[str] = []
    for start in range(0, len(factors), batch):
        problems += compare_tessellator(oracle, domain, partitioning, output, factors[start : start + batch])
    return problems


def tessellator_sweep(oracle: Any, patches: int = 64, seed: int = 7) -> dict[str, list[str]]:
    """compare_tessellator over every domain, GL spacing and output primitive with random factors
    (0.5 to 66, a quarter of them whole numbers, some at the clamps): {case: problems}."""
    rng = np.random.default_rng(seed)
    results = {}
    for domain in ("tri", "quad", "isoline"):
        for partitioning in ("integer", "fractional_odd", "fractional_even"):
            outputs = ("line", "point") if domain == "isoline" else ("triangle_cw", "triangle_ccw", "point")
            for output in outputs:
                factors = rng.uniform(0.5, 66, (patches, 6)).astype(np.float32)
                whole = rng.random((patches, 6)) < 0.25
                factors[whole] = np.round(factors[whole])
                if domain == "isoline":
                    factors[:, 0] = np.minimum(factors[:, 0], 12)  # density: fewer lines, faster
                results[f"{domain} {partitioning} {output}"] = compare_tessellator_batches(
                    oracle, domain, partitioning, output, factors)
    return results


def run_alone(path: Path, n: int = 16) -> tuple[str, str]:
    """Run the VM alone (no oracle) on random inputs and zero-filled resources: ("ran" | "failed" |
    "skipped", reason); the figure for "the VM runs the corpus's vertex, pixel and compute shaders"."""
    import shaderkit
    from shaderkit.vm.sm4 import Buffer, Shader, VmError

    try:
        container = shaderkit.open(path.read_bytes())
    except Exception as exc:  # noqa: BLE001
        return "skipped", f"not a DXBC file: {exc}"
    code = getattr(container, "shader", None)
    if code is None:
        return "skipped", "no SHDR/SHEX program"
    stage = {0: "ps", 1: "vs", 5: "cs"}.get(code.tokens[0] >> 16 & 0xFFFF)
    if stage is None:
        return "skipped", "not vs/ps/cs"
    rng = np.random.default_rng(3)
    try:
        shader = Shader(container)
        decl = shader.decl
        for slot, words in shader.constant_buffers.items():
            shader.set_constant_buffer(slot, rng.integers(0, 8, words.shape).astype(np.uint32))
        for slot, kind in decl.uavs.items():
            if kind != "typed" or decl.uav_dimensions.get(slot) == "buffer":
                shader.bind_buffer(slot, Buffer(np.zeros(4096, np.uint32), decl.structured.get((30, slot), 0)), uav=True)
        if stage == "cs":
            shader.dispatch((2, 1, 1))
        else:
            feed = {f"v{r}": rng.uniform(-2, 2, (n, 4)).astype(np.float32) for r in range(decl.inputs)
                    if r not in decl.system_inputs}
            (shader.run_vertex if stage == "vs" else shader.run_pixel)(feed, count=n)
    except VmError as exc:
        return "failed", f"VM: {exc}"
    except Exception as exc:  # noqa: BLE001 - a VM bug
        return "failed", f"VM crashed: {type(exc).__name__}: {exc}"
    return "ran", ""


def _vm_feed(shader: Any, inputs: dict[int, Any]) -> dict[str, np.ndarray]:
    """The VM's inputs from the oracle's (by location): whole registers, except that a register
    holding a system value (SV_PrimitiveID in ``v3.z`` beside an ordinary ``v3.x``) is fed by its
    ordinary signature elements only, so the VM supplies the system value as the oracle does."""
    from shaderkit.vm.sm4.outputs import element_key

    signature = shader.container.input_signature
    feed: dict[str, np.ndarray] = {}
    for loc, values in inputs.items():
        values = np.asarray(values)
        values = values if values.ndim == 2 else values[:, None]
        if loc not in shader.decl.system_inputs:
            feed[f"v{loc}"] = values
            continue
        for element in signature.elements if signature else []:
            start = (element.mask & -element.mask).bit_length() - 1
            if element.register == loc and not element.system_value_type and 0 <= start < values.shape[1]:
                feed[element_key(element)] = values[:, start : start + bin(element.mask).count("1")]
    return feed


def compare_any(oracle: Any, path: Path, domain: Path | None = None) -> tuple[str, str]:
    """compare_file for vs/ps/cs, compare_geometry for gs, compare_tessellation for a hull
    shader (with ``domain``, the pair; without, the hull shader alone), compare_domain for a
    domain shader alone."""
    try:
        stage = oracle.parse_dxbc(path.read_bytes()).stage
    except (ValueError, AssertionError) as exc:
        return "skipped", str(exc)
    if stage == "gs":
        return compare_geometry(oracle, path)
    if stage == "hs":
        return compare_tessellation(oracle, path, domain)
    if stage == "ds":
        return compare_domain(oracle, path)
    return compare_file(oracle, path)


def _isolated(path: Path, timeout: float, domain: Path | None = None) -> tuple[str, str]:
    """compare_any in a child process: llvmpipe can crash or hang on out-of-range accesses."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    extra = ["--domain", str(domain)] if domain is not None else []
    try:
        done = subprocess.run([sys.executable, __file__, "--one", str(path)] + extra, capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "failed", f"timed out after {timeout:.0f} s"
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        if done.returncode < 0:  # a signal: llvmpipe crashed on the oracle's side
            return "skipped", f"oracle crashed (signal {-done.returncode}): {done.stderr.strip()[-120:]}"
        return "failed", f"child exited {done.returncode}: {done.stderr.strip()[-200:]}"
    row = json.loads(lines[-1])
    return row["status"], row["reason"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(ROOT.parent / "shared" / "corpus" / "dxbc"))
    parser.add_argument("--every", type=int, default=1, help="only every Nth file")
    parser.add_argument("--json", help="write per-file results here")
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per file (run in a child process)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child mode: one file, one JSON line
    parser.add_argument("--domain", help=argparse.SUPPRESS)  # child mode: the domain shader of --one
    parser.add_argument("--stages", default="vs,ps,cs,gs,hs,ds", help="stages to sweep (hs: hull shaders alone "
                        "and the hull/domain pairs of TESSELLATION_PAIRS; ds: domain shaders alone)")
    parser.add_argument("--vm-only", action="store_true", help="run the VM alone over every vs/ps/cs (no oracle)")
    parser.add_argument("--tessellator", type=int, metavar="PATCHES",
                        help="compare the fixed-function tessellator alone with GL's, PATCHES random patches per case")
    args = parser.parse_args(argv)
    if args.tessellator:
        oracle = load_oracle()
        if oracle is None:
            print("the oracle is not available (vkd3d-compiler, spirv-cross, moderngl)", file=sys.stderr)
            return 2
        failed = 0
        for case, problems in tessellator_sweep(oracle, args.tessellator).items():
            failed += bool(problems)
            print(f"{case}: {'agree' if not problems else f'{len(problems)} patches differ: ' + problems[0]}", flush=True)
        return 1 if failed else 0
    if args.vm_only:
        tally = {"ran": 0, "failed": 0, "skipped": 0}
        for path in sorted(Path(args.corpus).glob("*.dxbc"))[:: args.every]:
            start = time.monotonic()
            status, reason = run_alone(path)
            tally[status] += 1
            if status == "failed" or args.verbose:
                print(f"{path.name}: {status} ({time.monotonic() - start:.1f} s) {reason}", flush=True)
        print(f"{tally['ran']} ran, {tally['failed']} failed, {tally['skipped']} skipped (not vs/ps/cs)")
        return 1 if tally["failed"] else 0
    if args.one:
        oracle = load_oracle()
        if oracle is None:
            print(json.dumps({"status": "skipped", "reason": "oracle unavailable"}))
            return 0
        status, reason = compare_any(oracle, Path(args.one), Path(args.domain) if args.domain else None)
        print(json.dumps({"status": status, "reason": reason}))
        return 0
    oracle = load_oracle()
    if oracle is None:
        print("the oracle is not available (vkd3d-compiler, spirv-cross, moderngl)", file=sys.stderr)
        return 2
    stages = set(args.stages.split(","))
    files: list[tuple[Path, Path | None]] = []
    for path in sorted(Path(args.corpus).glob("*.dxbc"))[:: args.every]:
        try:
            stage = oracle.parse_dxbc(path.read_bytes()).stage
        except (ValueError, AssertionError):
            stage = "?"
        if stage in stages or (stage not in ("vs", "ps", "cs", "gs", "hs", "ds") and stages >= {"vs", "ps", "cs"}):
            files.append((path, None))
    if "hs" in stages:
        files += [(Path(args.corpus) / hs, Path(args.corpus) / ds) for hs, ds in TESSELLATION_PAIRS
                  if (Path(args.corpus) / hs).exists() and (Path(args.corpus) / ds).exists()]
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    rows = []
    for path, domain in files:
        start = time.monotonic()
        status, reason = _isolated(path, args.timeout, domain)
        seconds = time.monotonic() - start
        counts[status] += 1
        name = path.name if domain is None else f"{path.name} + {domain.name}"
        rows.append({"file": name, "status": status, "reason": reason, "seconds": round(seconds, 2)})
        if status == "failed" or (args.verbose and status == "skipped"):
            print(f"{name}: {status} ({seconds:.1f} s): {reason}", flush=True)
        elif args.verbose:
            print(f"{name}: {status} ({seconds:.1f} s) {reason}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
