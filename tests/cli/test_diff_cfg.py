"""shaderkit diff (metadata + aligned code) and shaderkit cfg (DOT), checked against hand-made expectations."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from shaderkit.cli import cli
from shaderkit.cli.cfg import EXIT, blocks, sm4_steps
from shaderkit.cli.diff import columns_view, flatten
from shaderkit.samples import SAMPLES


def test_flatten_paths() -> None:
    assert list(flatten({"a": 1, "b": [{"c": "x"}], "d": [1, 2]})) == ['a = 1', 'b[0].c = "x"', "d = [1, 2]"]


def test_columns_align_changes() -> None:
    rows = columns_view(["mov r0", "add r1", "ret"], ["mov r0", "mul r1", "ret"], 40)
    assert [r[19:20] for r in rows] == [" ", "|", " "]
    rows = columns_view(["a", "b"], ["a"], 40)
    assert rows[1].rstrip().endswith("<")


def test_diff_same_file_is_silent_exit_0(tmp_path: Path) -> None:
    path = tmp_path / "vs.dxbc"
    path.write_bytes(SAMPLES["sample_vs.dxbc"]())
    result = CliRunner().invoke(cli, ["diff", str(path), str(path)])
    assert result.exit_code == 0 and result.output == ""


def test_diff_two_corpus_shaders(corpus: Path) -> None:
    a = corpus / "dxbc" / "angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc"
    b = corpus / "dxbc" / "angle__buffertotexture11_ps_4f__g_PS_BufferToTexture_4F.dxbc"
    result = CliRunner().invoke(cli, ["diff", str(a), str(b)])
    assert result.exit_code == 1
    out = result.output
    assert '-shader_model = "gs_4_0"' in out and '+shader_model = "ps_4_0"' in out
    assert "=== code" in out and "-gs_4_0" in out and "+ps_4_0" in out
    code_only = CliRunner().invoke(cli, ["diff", "--code-only", "-y", "--width", "100", str(a), str(b)]).output
    assert "=== metadata" not in code_only
    assert re.search(r"^gs_4_0 +\| ps_4_0$", code_only, re.M)


def test_diff_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"junk")
    result = CliRunner().invoke(cli, ["diff", str(junk), str(junk)])
    assert result.exit_code != 0


SWITCH_LOOP = [
    "dcl_temps 1",        # 0
    "loop",               # 1
    "  breakc_z r0.x",    # 2
    "  switch r0.y",      # 3
    "    case l(0)",      # 4
    "    mov r0.x, l(1)", # 5
    "    break",          # 6
    "    default",        # 7
    "    continue",       # 8
    "  endswitch",        # 9
    "  if_nz r0.z",       # 10
    "    retc_nz r0.w",   # 11
    "  else",             # 12
    "    mov r0.x, l(2)", # 13
    "  endif",            # 14
    "endloop",            # 15
    "ret",                # 16
]


def test_sm4_graph_by_hand() -> None:
    graph = {b.start: (b.stop, sorted(b.edges)) for b in blocks(sm4_steps(SWITCH_LOOP))}
    assert graph == {
        0: (1, [(1, "")]),
        1: (3, [(3, ""), (16, "break")]),          # loop header + breakc
        3: (4, [(4, "case l(0)"), (7, "default")]),  # switch
        4: (7, [(9, "break")]),
        7: (9, [(1, "continue")]),
        9: (11, [(11, "true"), (13, "false")]),
        11: (12, [(EXIT, "ret"), (12, "")]),
        12: (13, [(14, "")]),                       # else: jump to endif
        13: (14, [(14, "")]),
        14: (16, [(1, "loop")]),                    # endloop goes back
        16: (17, [(EXIT, "ret")]),
    }


def test_cfg_dot_of_corpus_files(corpus: Path) -> None:
    switch = corpus / "dxbc" / "dxdecompiler__HlslCrossCompiler_vs4_switch.dxbc"
    result = CliRunner().invoke(cli, ["cfg", str(switch)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("digraph ") and result.output.rstrip().endswith("}")
    assert result.output.count('[label="case') == 2 and '[label="default"]' in result.output
    pica = corpus / "pica" / "normal_mapping__vshader__3c6324b5.shbin"
    dot = CliRunner().invoke(cli, ["cfg", str(pica)]).output
    assert dot.count('[label="true"]') == 3 and dot.count('[label="false"]') == 3  # three ifc in the source
    assert '-> exit [label="end"]' in dot


def test_cfg_refuses_other_formats(corpus: Path) -> None:
    result = CliRunner().invoke(cli, ["cfg", str(corpus / "wiiu" / "agl_simple_model.sharc")])  # source only
    assert result.exit_code != 0


def test_sm4_graph_of_unbalanced_flow_is_still_a_graph() -> None:
    # random, often unbalanced, structure: no exception, every edge lands on a block or the exit
    import random

    words = ["if_nz r0.x", "else", "endif", "loop", "endloop", "break", "breakc_z r0.x", "continue",
             "continuec_nz r0.x", "switch r0.x", "case l(1)", "default", "endswitch", "ret", "retc_z r0.x",
             "label l0", "call l0", "callc_nz r0.x, l1", "mov r0.x, l(1)"]
    rng = random.Random(7)
    for _ in range(300):
        texts = [rng.choice(words) for _ in range(rng.randrange(1, 30))]
        graph = blocks(sm4_steps(texts))
        starts = {b.start for b in graph} | {EXIT}
        assert graph[0].start == 0 and graph[-1].stop == len(texts)
        assert all(target in starts for b in graph for target, _ in b.edges), texts


#: ps_3_0 with every D3D9 flow construct; the step index of each instruction on the right
D3D9_FLOW = """ps_3_0
defi i0, 3, 0, 0, 0
def c0, 1, 0, 0, 0
mov r0, c0
rep i0
add r0, r0, c0
break_gt r0.x, c0.y
endrep
if_lt r0.x, c0.x
mov r0, c0
else
call l0
endif
mov oC0, r0
ret
label l0
mov r0, c0.y
ret
"""
#  0 defi  1 def  2 mov  3 rep  4 add  5 break_gt  6 endrep  7 if_lt  8 mov  9 else  10 call l0
# 11 endif  12 mov oC0  13 ret  14 label l0  15 mov  16 ret


def test_d3d9_graph_by_hand(tmp_path: Path) -> None:
    from shaderkit.cli.cfg import d3d9_steps
    from shaderkit.formats.d3d9.assemble import assemble_shader

    shader = assemble_shader(D3D9_FLOW)
    steps = d3d9_steps(shader.words())
    assert [s.text for s in steps][5:7] == ["break_gt r0.x, c0.y", "endrep"]
    assert steps[0].address == 4  # the byte offset of the word after the version token
    graph = {b.start: (b.stop, sorted(b.edges)) for b in blocks(steps)}
    assert graph == {
        0: (4, [(4, ""), (7, "skip")]),          # ... rep i0: a zero count skips the body
        4: (6, [(6, ""), (7, "break")]),         # add, break_gt: leaves the rep or goes on
        6: (7, [(4, "loop"), (7, "")]),          # endrep: back to the body or out
        7: (8, [(8, "true"), (10, "false")]),    # if_lt: the false edge enters the else part
        8: (10, [(11, "")]),                     # mov, else: jumps to endif
        10: (11, [(11, ""), (14, "call")]),      # call l0, then on
        11: (14, [(EXIT, "ret")]),               # endif, mov oC0, ret
        14: (17, [(EXIT, "ret")]),               # label l0: the subroutine
    }
    path = tmp_path / "flow.pso"
    path.write_bytes(shader.to_bytes())
    result = CliRunner().invoke(cli, ["cfg", str(path)])
    assert result.exit_code == 0, result.output
    assert '-> b14 [label="call", style=dashed];' in result.output and '[label="skip"]' in result.output


def test_d3d9_graph_of_unbalanced_flow_is_still_a_graph() -> None:
    # random, often unbalanced, structure: no exception, and every edge follows its construct
    import random

    from shaderkit.cli.cfg import d3d9_steps
    from shaderkit.formats.d3d9.assemble import assemble_shader

    lines = ["if b0", "if_lt r0.x, c0.x", "else", "endif", "rep i0", "endrep", "loop aL, i0", "endloop", "break",
             "break_gt r0.x, c0.x", "breakp p0.x", "ret", "label l0", "label l1", "call l0", "callnz l1, b0",
             "mov r0, c0"]
    rng = random.Random(1)
    edges = 0
    for _ in range(200):
        body = [rng.choice(lines) for _ in range(rng.randint(1, 12))]
        steps = d3d9_steps(assemble_shader("ps_3_0\n" + "\n".join(body) + "\n").words())
        assert [s.text for s in steps] == body
        for i, step in enumerate(steps):
            name = body[i].split()[0]
            assert step.falls_through == (name not in ("break", "ret", "else") and not name.startswith("if")
                                          or not step.targets), body
            for target, label in step.targets:
                edges += 1
                before = body[target - 1].split()[0] if 0 < target <= len(body) else None
                if label == "loop":
                    assert name in ("endrep", "endloop") and before in ("rep", "loop"), body
                elif label in ("skip", "break"):
                    assert before in ("endrep", "endloop"), body
                elif label == "call":
                    assert body[target].startswith("label ") and body[target].split()[1] == body[i].split()[1].rstrip(",")
                elif label == "ret":
                    assert target == EXIT and name == "ret"
                elif label == "true":
                    assert target == i + 1 and name.startswith("if")
                elif label == "false":
                    assert before in ("else", "endif") or body[target].startswith("endif"), body
                else:
                    assert label == "" and name == "else" and body[target] == "endif", body
    assert edges > 150  # the random programs do hold matched constructs (183 edges)
