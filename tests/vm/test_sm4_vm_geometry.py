"""Geometry shaders: emit/cut into streams, instancing, v[vertex][register] inputs, strip assembly.

Expected values are worked out by hand from the programs (fxc listings of corpus shaders, or the
text programs here) and the D3D11 rules: vertices past dcl_maxout are dropped, ``cut`` ends a
strip, triangle j of a strip is (j, j+1, j+2) for even j and (j+1, j, j+2) for odd j, instance i
of primitive p is written after instance i-1 and before primitive p+1.
"""

from __future__ import annotations

import numpy as np
import pytest
from sm4_text import machine

import shaderkit
from conftest import corpus_files, corpus_root
from shaderkit.vm.sm4 import Shader, VmError
from shaderkit.vm.sm4.geometry import INPUT_VERTICES, Streams, outputs
from shaderkit.vm.sm4.machine import Declarations

TRIANGLESTRIP, POINTLIST = 5, 1


def _corpus_shader(name: str) -> Shader:
    root = corpus_root()
    if root is None or not (root / "dxbc" / name).exists():
        pytest.skip(f"corpus file {name} not found")
    return Shader(shaderkit.open((root / "dxbc" / name).read_bytes()))


def test_passthrough_triangles_keep_every_vertex_in_order() -> None:
    # angle Passthrough3D: loop r0.x = 0..2 { o0 = v[r0.x][0]; o1.x = v[r0.x][1].x; o2.xyz = v[r0.x][2].xyz; emit }
    shader = _corpus_shader("angle__passthrough3d11gs__g_GS_Passthrough3D.dxbc")
    position = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    layer = np.array([[7, 8, 9], [10, 11, 12]], np.uint32)
    texcoord = np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 2
    out = shader.run_geometry({"SV_Position": position, "v1": layer, "TEXCOORD": texcoord})
    assert out["SV_Position"].tolist() == position.reshape(6, 4).tolist()
    assert out["SV_RenderTargetArrayIndex"].reshape(-1).tolist() == [7, 8, 9, 10, 11, 12]
    assert out["TEXCOORD"].tolist() == texcoord.reshape(6, 3).tolist()
    assert out.primitive.tolist() == [0, 0, 0, 1, 1, 1]
    assert out.strip.tolist() == [0, 0, 0, 1, 1, 1]  # each invocation's vertices form its own strip
    assert out.topology == "trianglestrip"
    assert out.primitives().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_instances_follow_their_primitive_in_instance_order() -> None:
    # HlslCrossCompiler gs5_instance: 24 instances, o0.xyz = v[0][0].xyz * v[0][1].xyz * float(vGSInstanceID)
    shader = _corpus_shader("dxdecompiler__HlslCrossCompiler_gs5_instance.dxbc")
    out = shader.run_geometry({"v0": np.array([[[1, 2, 3]], [[-1, 0, 1]]], np.float32),
                               "v1": np.array([[[2, 2, 0.5]], [[4, 4, 4]]], np.float32)})
    position = out["OUT_POSITION"]
    assert len(position) == 48 and out.topology == "pointlist"
    assert out.instance[:3].tolist() == [0, 1, 2] and out.primitive[23:25].tolist() == [0, 1]
    assert position[:3].tolist() == [[0, 0, 0], [2, 4, 1.5], [4, 8, 3]]  # (2, 4, 1.5) * instance
    assert position[24 + 5].tolist() == [-20, 0, 20]  # (-4, 0, 4) * 5
    assert out.primitives().tolist() == [[i] for i in range(48)]


GS_TEXT = """mov o0.x, l(1)
emit
mov o0.x, l(2)
emit
mov o0.x, l(3)
emit
if_nz v[0][0].x
  mov o0.x, l(4)
  emit
  cut
  mov o0.x, l(5)
  emit
endif
mov o0.y, vPrim.x
"""


def test_divergent_emits_cut_and_maxout() -> None:
    d = Declarations(temps=1, inputs=1, outputs=1, max_output_vertices=4, output_topology=TRIANGLESTRIP)
    table = np.zeros((1, 1, 2, 4), np.uint32)
    table[0, 0, 1, 0] = 1  # lane 1 takes the if
    m = machine(GS_TEXT, 2, decl=d, gs_inputs=table, streams=Streams(2, 4, 1, 4))
    out = outputs(m.streams, 0, 1, [], TRIANGLESTRIP)
    # lane 0: 1, 2, 3; lane 1: 1, 2, 3, 4, then cut, and 5 is past dcl_maxout 4: dropped
    assert out["o0"][:, 0].tolist() == [1, 2, 3, 1, 2, 3, 4]
    assert out.primitive.tolist() == [0, 0, 0, 1, 1, 1, 1]
    assert out.strip.tolist() == [0, 0, 0, 1, 1, 1, 1]
    # lane 1's strip of 4 gives triangles (3, 4, 5) and, odd, (5, 4, 6)
    assert out.primitives().tolist() == [[0, 1, 2], [3, 4, 5], [5, 4, 6]]
    assert out["o0"][:, 1].tolist() == [0] * 7  # o0.y was written after the last emit


def test_cut_splits_strips_and_streams_are_separate() -> None:
    text = """mov o0.x, l(1)
emit_stream m0
mov o0.x, l(2)
emit_stream m1
mov o0.x, l(3)
emit_stream m0
cut_stream m0
mov o0.x, l(4)
emit_stream m0
mov o0.x, l(5)
emit_stream m0
mov o0.x, l(6)
emit_stream m0
"""
    d = Declarations(temps=1, inputs=1, outputs=1, max_output_vertices=8, output_topology=TRIANGLESTRIP)
    m = machine(text, 1, decl=d, gs_inputs=np.zeros((1, 1, 1, 4), np.uint32), streams=Streams(1, 8, 1, 4))
    zero = outputs(m.streams, 0, 1, [], TRIANGLESTRIP)
    assert zero["o0"][:, 0].tolist() == [1, 3, 4, 5, 6]
    assert zero.strip.tolist() == [0, 0, 1, 1, 1]
    assert zero.primitives().tolist() == [[2, 3, 4]]  # the strip (1, 3) is too short for a triangle
    assert outputs(m.streams, 1, 1, [], TRIANGLESTRIP)["o0"][:, 0].tolist() == [2]


def test_geometry_errors_are_vm_errors() -> None:
    shader = _corpus_shader("angle__passthrough3d11gs__g_GS_Passthrough3D.dxbc")
    with pytest.raises(VmError, match="expected"):
        shader.run_geometry({"v0": np.zeros((2, 2, 4), np.float32)})  # triangles have 3 vertices
    with pytest.raises(VmError, match="no input"):
        shader.run_geometry({"NOPE": np.zeros((2, 3, 4), np.float32)})
    with pytest.raises(VmError, match="vertex shader|geometry"):
        shader.run_vertex({"v0": np.zeros((2, 4), np.float32)})


def test_cube_map_gs_writes_six_faces_as_strips() -> None:
    # SDK CubeMapGS: for face f in 0..5 { for vertex k in 0..2 { r1 = v[k][0] . cb1[4f .. 4f+3] (rows);
    # o0 = r1 . cb0[16..19]; o1.xy = v[k][1].xy; o2.x = f; emit } cut }
    shader = _corpus_shader("slimshader__Tests_Sdk_Direct3D10_CubeMapGS_GS_CubeMap_GS.dxbc")
    view = np.zeros((24, 4), np.float32)
    for face in range(6):
        view[4 * face : 4 * face + 4] = np.eye(4) * (face + 1)  # face f scales by f + 1
    projection = np.zeros((20, 4), np.float32)
    projection[16:20] = np.eye(4)
    shader.set_constant_buffer(1, view)
    shader.set_constant_buffer(0, projection)
    position = np.array([[[1, 2, 3, 1], [-1, 0, 0.5, 1], [0, 0, 0, 2]]], np.float32)
    texcoord = np.array([[[0.25, 0.5], [0.75, 0.5], [0, 1]]], np.float32)
    out = shader.run_geometry({"v0": position, "v1": texcoord})
    assert len(out["o0"]) == 18
    faces = out["o2"][:, 0].tolist()
    assert faces == [f for f in range(6) for _ in range(3)]
    got = out["o0"].copy().view(np.float32)
    for face in range(6):
        assert got[3 * face : 3 * face + 3].tolist() == (position[0] * (face + 1)).tolist()
    assert out["o1"][:, :2].copy().view(np.float32).tolist() == texcoord[0].tolist() * 6
    assert out.strip.tolist() == faces  # the cut after each face starts a new strip
    assert out.primitives().tolist() == [[3 * f, 3 * f + 1, 3 * f + 2] for f in range(6)]


# the corpus's 16 geometry shaders all say so in their names (the stage is checked below)
GEOMETRY_FILES = [p for p in corpus_files("dxbc", "*.dxbc") if "gs" in p.name.lower() or "geometry" in p.name.lower()]


@pytest.mark.skipif(not GEOMETRY_FILES, reason="corpus not found")
def test_every_corpus_geometry_shader_runs() -> None:
    rng = np.random.default_rng(3)
    ran = 0
    for path in GEOMETRY_FILES:
        container = shaderkit.open(path.read_bytes())
        code = getattr(container, "shader", None)
        if code is None or code.tokens[0] >> 16 & 0xFFFF != 2:
            continue
        shader = Shader(container)
        for slot, words in shader.constant_buffers.items():
            shader.set_constant_buffer(slot, rng.integers(0, 8, words.shape).astype(np.uint32))
        vertices = INPUT_VERTICES[shader.decl.input_primitive]
        feed = {f"v{r}": rng.uniform(-2, 2, (5, vertices, 4)).astype(np.float32) for r in range(shader.decl.inputs)}
        out = shader.run_geometry(feed)
        assert len(out.primitive) <= 5 * shader.decl.instances * shader.decl.max_output_vertices
        ran += 1
    assert ran == 16


def test_testing_api_runs_geometry_by_semantic() -> None:
    from shaderkit.testing import HlslShader

    root = corpus_root()
    name = "angle__passthrough3d11gs__g_GS_Passthrough3D.dxbc"
    if root is None or not (root / "dxbc" / name).exists():
        pytest.skip(f"corpus file {name} not found")
    gs = HlslShader.load(root / "dxbc" / name)
    out = gs.geometry(SV_Position=[[[0, 0, 0, 1], [1, 0, 0, 1], [0, 1, 0, 1]]])  # float64 lists: float32
    assert out["SV_Position"].tolist() == [[0, 0, 0, 1], [1, 0, 0, 1], [0, 1, 0, 1]]
    assert out.primitives().tolist() == [[0, 1, 2]]


def test_emit_then_cut_and_line_strips() -> None:
    text = "mov o0.x, l(1)\nemit\nmov o0.x, l(2)\nemitThenCut\nmov o0.x, l(3)\nemit\nmov o0.x, l(4)\nemit\n"
    d = Declarations(temps=1, inputs=1, outputs=1, max_output_vertices=4, output_topology=3)  # linestrip
    m = machine(text, 1, decl=d, gs_inputs=np.zeros((1, 1, 1, 4), np.uint32), streams=Streams(1, 4, 1, 4))
    out = outputs(m.streams, 0, 1, [], 3)
    assert out["o0"][:, 0].tolist() == [1, 2, 3, 4]
    assert out.strip.tolist() == [0, 0, 1, 1]  # emitThenCut ends the strip after vertex 2
    assert out.topology == "linestrip"
    assert out.primitives().tolist() == [[0, 1], [2, 3]]
