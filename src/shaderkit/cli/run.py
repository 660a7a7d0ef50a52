"""``shaderkit run``: execute a shader on the CPU: PICA200 SHBIN over a set of vertices, a DXBC
vertex/pixel/compute shader (``cli/run_sm4.py``), a bare D3D9 shader (``cli/run_d3d9.py``), a Wii U
Latte program (``cli/run_latte.py``) or a Switch Maxwell program (``cli/run_maxwell.py``)."""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import TYPE_CHECKING, Any

import click

from shaderkit.cli.common import json_rows, member_steps, parse_named, read_input, write_output

if TYPE_CHECKING:
    from shaderkit.vm.pica import RunResult

INPUT_KINDS = (".npy", ".csv", ".json")
OUTPUT_KINDS = (".npy", ".csv", ".json")
TABLE_ROWS = 20


def _numpy() -> Any:
    try:
        import numpy
    except ModuleNotFoundError:
        raise click.ClickException("shaderkit run needs NumPy: pip install 'shaderkit[vm]'") from None
    return numpy


def _kind(path: str, kinds: tuple[str, ...], what: str) -> str:
    for kind in kinds:
        if path.lower().endswith(kind):
            return kind
    raise click.ClickException(f"{path}: {what} must end in {', '.join(kinds)}")


def load_inputs(path: str) -> Any:
    """Vertex inputs from .npy ((n, k, 4) or (n, 4)), .json or .csv, for ``PicaShader.run``.

    JSON: ``{"v0": [[x, y, z, w], ...], ...}``, a list of such objects (one per vertex) or a plain
    (n, 4) / (n, k, 4) list. CSV: a header naming ``REG.x``..``REG.w`` columns (REG is v0-v15 or an
    input name), one row per vertex; missing components are 0.
    """
    np = _numpy()
    kind = _kind(path, INPUT_KINDS, "--inputs")
    data = read_input(path)
    try:
        if kind == ".npy":
            return np.load(io.BytesIO(data), allow_pickle=False)
        text = data.decode("utf-8-sig")
        if kind == ".json":
            value = json.loads(text)
            if isinstance(value, list) and value and isinstance(value[0], dict):
                names = sorted({key for item in value for key in item})
                return {name: [_vec4(item.get(name, [0, 0, 0, 0])) for item in value] for name in names}
            if isinstance(value, dict):
                return {name: [_vec4(row) for row in rows] for name, rows in value.items()}
            return value
        return _csv_inputs(text)
    except (ValueError, TypeError, KeyError, UnicodeDecodeError, EOFError) as exc:
        raise click.ClickException(f"{path}: cannot read inputs ({exc})") from None


def _vec4(row: Any) -> list[float]:
    values = [float(x) for x in (row if isinstance(row, list) else [row])]
    if len(values) > 4:
        raise ValueError(f"{len(values)} components (at most 4)")
    return values + [0.0] * (4 - len(values))


def _csv_inputs(text: str) -> dict[str, list[list[float]]]:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise ValueError("empty CSV")
    columns: list[tuple[str, int]] = []
    for name in rows[0]:
        reg, _, letter = name.strip().rpartition(".")
        if not reg or letter.lower() not in ("x", "y", "z", "w"):
            raise ValueError(f"column {name!r} is not REG.x/y/z/w")
        columns.append((reg, "xyzw".index(letter.lower())))
    result: dict[str, list[list[float]]] = {reg: [] for reg, _ in columns}
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(columns):
            raise ValueError(f"line {line}: {len(row)} values for {len(columns)} columns")
        vectors = {reg: [0.0, 0.0, 0.0, 0.0] for reg in result}
        for (reg, index), cell in zip(columns, row):
            vectors[reg][index] = float(cell)
        for reg, vector in vectors.items():
            result[reg].append(vector)
    return result


def parse_uniform(text: str) -> tuple[str, Any]:
    """``NAME=x,y,z,w`` (several registers: 4 values each); bools take true/false/1/0."""
    name, sep, values = text.partition("=")
    if not sep or not name.strip():
        raise click.ClickException(f"--uniform {text!r}: expected NAME=x,y,z,w")
    items = [item.strip() for item in values.split(",") if item.strip()]
    if not items:
        raise click.ClickException(f"--uniform {text!r}: no values")
    parsed: list[float] = []
    for item in items:
        lowered = item.lower()
        if lowered in ("true", "false"):
            parsed.append(1.0 if lowered == "true" else 0.0)
            continue
        try:
            parsed.append(float(item))
        except ValueError:
            raise click.ClickException(f"--uniform {text!r}: {item!r} is not a number") from None
    return name.strip(), parsed


def _set_uniform(shader: Any, name: str, values: list[float]) -> None:
    bank, _, _ = shader.resolve_uniform(name)
    if bank == "b":
        shader.set_uniform(name, [bool(v) for v in values])
    elif bank == "i":
        if any(v != int(v) for v in values):
            raise click.ClickException(f"--uniform {name}: int uniforms take whole numbers")
        shader.set_uniform(name, [int(v) for v in values])
    else:
        if len(values) % 4:
            values = values + [0.0] * (4 - len(values) % 4)  # x[,y[,z]] pads with zeros
        shader.set_uniform(name, [values[k:k + 4] for k in range(0, len(values), 4)])


def _registers(result: RunResult) -> list[int]:
    """o-registers worth showing: those in the output table, else all 16."""
    regs = sorted({reg for reg, _ in result.semantics.values()})
    return regs or list(range(16))


def result_json(result: RunResult) -> str:
    """The run's outputs as JSON text: vertex count, semantic -> register, per-register output rows and step counts."""
    regs = _registers(result)
    doc: dict[str, Any] = {
        "vertices": int(result.o.shape[0]),
        "semantics": {name: f"o{reg}" for name, (reg, _) in result.semantics.items()},
        "outputs": {f"o{reg}": json_rows(result.o[:, reg, :]) for reg in regs},
        "steps": [int(s) for s in result.steps],
    }
    if result.primitives is not None:
        doc["primitives"] = [
            [{"winding": prim.winding,
              "vertices": [{f"o{reg}": json_rows(vertex[reg]) for reg in regs}
                           for vertex in prim.vertices]} for prim in lane]
            for lane in result.primitives]
    return json.dumps(doc) + "\n"


def result_csv(result: RunResult) -> str:
    """The run's outputs as CSV: one row per vertex, one column per written component (``o0.x``...), then the step count."""
    regs = _registers(result)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["vertex"] + [f"o{reg}.{c}" for reg in regs for c in "xyzw"] + ["steps"])
    for lane in range(result.o.shape[0]):
        writer.writerow([lane] + [repr(float(x)) for reg in regs for x in result.o[lane, reg]]
                        + [int(result.steps[lane])])
    return out.getvalue()


def result_npy(result: RunResult) -> bytes:
    """The run's output array (vertices x registers x 4 float32) as the bytes of a ``.npy`` file."""
    np = _numpy()
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(result.o), allow_pickle=False)
    return buffer.getvalue()


def print_table(result: RunResult, console: Any) -> None:
    """Print the run's written output registers as a rich table on ``console`` (one row per vertex)."""
    from rich.table import Table

    by_reg: dict[int, str] = {}
    for name, (reg, _) in result.semantics.items():
        by_reg[reg] = f"{by_reg[reg]}, {name}" if reg in by_reg else name
    regs = _registers(result)
    table = Table(box=None, header_style="bold")
    table.add_column("vertex", justify="right")
    for reg in regs:
        table.add_column(f"o{reg} {by_reg.get(reg, '')}".strip())
    table.add_column("steps", justify="right")
    count = result.o.shape[0]
    for lane in range(min(count, TABLE_ROWS)):
        cells = [" ".join(f"{float(x):.6g}" for x in result.o[lane, reg]) for reg in regs]
        table.add_row(str(lane), *cells, str(int(result.steps[lane])))
    console.print(table)
    if count > TABLE_ROWS:
        console.print(f"... {count - TABLE_ROWS} more vertices (write them with -o OUT.json|.csv|.npy)")
    if result.primitives is not None:
        total = sum(len(lane) for lane in result.primitives)
        console.print(f"{total} primitive(s) emitted")


def _pica_program(model: Any, file: str) -> Any:
    """The DVLB inside ``model``: itself, a base64 .csdr payload, or a CGFX's only shader."""
    from shaderkit.formats.dvlb.cgfx import Cgfx
    from shaderkit.formats.dvlb.csdr import Csdr

    if isinstance(model, Csdr):
        return model.payload
    if isinstance(model, Cgfx):
        programs = [shader for shader in model.shaders if shader.dvlb is not None]
        if len(programs) != 1:
            names = ", ".join(shader.name for shader in programs) or "none"
            raise click.ClickException(f"{file}: the CGFX holds {len(programs)} shader programs ({names}); "
                                       "extract one first")
        return programs[0].dvlb
    return model


def _run_pica(model: Any, dvle: int, inputs: Any, uniforms: tuple[str, ...], max_steps: int | None) -> RunResult:
    from shaderkit.vm.pica import PicaShader

    shader = PicaShader.load(model, dvle)
    for text in uniforms:
        name, values = parse_uniform(text)
        _set_uniform(shader, name, values)
    return shader.run(inputs, max_steps=max_steps)


@click.command()
@click.argument("file")
@click.option("--dvle", type=int, default=0, show_default=True, help="Entry point (DVLE) to run.")
@click.option("--shader", "shader_index", type=int, default=0, show_default=True,
              help="GSH/SHARCFB/Wii U BFSHA: which shader program (file order; BFSHA: shaders[N] of disasm) to "
                   "run; Switch: the Nth Maxwell program in disasm order (default: the first vertex program).")
@click.option("--texture", "textures", multiple=True, metavar="ID=FILE.npy",
              help="GSH/SHARCFB/BFSHA: texture t<ID> (or a sampler by name) as decoded texels (H, W[, C]); "
                   "ID:KIND for 1d (H, W[, C]), 2d_array / 3d (S, H, W[, C]), cube (6, H, W[, C]) or cube_array (6N, H, W[, C]) "
                   "(default: the type of the sampler the file declares there, else 2d); "
                   "D3D9: a sampler by CTAB name, "
                   "s<N> or N; Switch: by the instruction's texture index or bindless handle (* for any); "
                   "repeatable.")
@click.option("--inputs", "inputs_path", default=None,
              help="Vertex (or DXBC pixel) inputs: .npy, .csv or .json (DXBC also .npz); PICA200 needs them.")
@click.option("--uniform", "uniforms", multiple=True, metavar="NAME=x,y,z,w",
              help="PICA200 / Latte / D3D9: set a uniform by name or register (c5, i0, b3; Latte C5 or a uniform "
                   "block by name, from its start; D3D9: a constant by CTAB name or register, or an effect "
                   "parameter its preshader reads); repeatable.")
@click.option("--cbuffer", "cbuffers", multiple=True, metavar="[BUFFER.]VAR=x,y,...",
              help="DXBC: set a constant-buffer variable by its RDEF name; D3D9: the same as --uniform; "
                   "Switch: SLOT=FILE|x,y,... constant buffer c[SLOT] from a file's bytes (.npy: its words) or "
                   "float values; repeatable.")
@click.option("--count", type=click.IntRange(min=1), default=None,
              help="DXBC: invocations (primitives, patches) without --inputs; D3D9, Latte and Switch: lanes "
                   "(vertices, pixels or threads).")
@click.option("--groups", default="1,1,1", show_default=True, help="DXBC compute: thread groups x,y,z.")
@click.option("--uav", "uavs", multiple=True, metavar="NAME=FILE.npy",
              help="DXBC compute: initial UAV contents; Switch: a surface by index or bindless handle (* for any), "
                   "listed after the run.")
@click.option("-o", "--output", "output_path", help="Write outputs to .json, .csv or .npy (- for JSON on stdout).")
@click.option("--max-steps", type=click.IntRange(min=1), default=None, help="Instructions a vertex may run.")
@click.option("--stage", default=None, help="Switch: only programs of this stage (vertex, pixel, ...).")
def run(file: str, dvle: int, shader_index: int, textures: tuple[str, ...], inputs_path: str | None,
        uniforms: tuple[str, ...], cbuffers: tuple[str, ...], count: int | None, groups: str, uavs: tuple[str, ...],
        output_path: str | None, max_steps: int | None, stage: str | None) -> None:
    """Execute FILE's shader on the CPU (PICA200: every vertex of --inputs; DXBC: vertex, pixel,
    geometry, hull, domain or compute shaders; D3D9: vs/ps 1.x-3.0; Wii U GSH/SHARCFB/BFSHA or
    FILE.bfsha//MODEL/PROGRAM/STAGE: one Latte program; Switch BNSH/NVN/DKSH: one Maxwell program) and
    show its outputs."""
    _numpy()
    from shaderkit.cli.run_sm4 import is_dxbc, run_dxbc
    from shaderkit.formats.dvlb.dvlb import Dvlb

    steps, data = member_steps(file)
    if is_dxbc(data):
        try:
            grid = [int(part) for part in groups.split(",")]
        except ValueError:
            raise click.ClickException(f"--groups {groups!r}: expected x,y,z") from None
        run_dxbc(data, inputs_path, cbuffers, output_path or "-", count, grid, uavs)
        return
    model = parse_named(file, data, steps)
    if model.format_name == "d3d9":
        from shaderkit.cli.run_d3d9 import run_d3d9
        from shaderkit.formats.archive.path import member_parameters

        run_d3d9(model, inputs_path, (*uniforms, *cbuffers), output_path or "-", count, textures, max_steps,
                 member_parameters(steps))  # (a member of an effect: its initial values)
        return
    from shaderkit.cli.run_latte import is_latte_model, run_latte

    if is_latte_model(model):
        run_latte(model, file, shader_index, inputs_path, uniforms, textures, count, output_path or "-", max_steps)
        return
    from shaderkit.cli.run_maxwell import is_maxwell, run_maxwell

    if is_maxwell(model):
        source = click.get_current_context().get_parameter_source("shader_index")
        program = None if source is click.core.ParameterSource.DEFAULT else shader_index
        try:  # VMError is a ValueError
            run_maxwell(model, program, stage, inputs_path, cbuffers, textures, count, output_path or "-", max_steps,
                        uavs)
        except ValueError as exc:
            raise click.ClickException(f"{file}: {exc}") from None
        return
    dvlb = _pica_program(model, file)
    if not isinstance(dvlb, Dvlb):
        raise click.ClickException(
            f"{file}: running {model.format_name} files is not supported (run takes DXBC, Direct3D 9, PICA200 "
            "SHBIN/CGFX/CSDR, Wii U GSH/SHARCFB and Switch BNSH/NVN/DKSH shaders)")
    if inputs_path is None:
        raise click.UsageError("PICA200 shaders need --inputs")
    result = _run_pica(dvlb, dvle, load_inputs(inputs_path), uniforms, max_steps)
    if output_path is None:
        if sys.stdout.isatty():
            from rich.console import Console

            print_table(result, Console())
        else:
            write_output("-", result_csv(result))
        return
    if output_path == "-":
        write_output("-", result_json(result))
        return
    kind = _kind(output_path, OUTPUT_KINDS, "-o")
    if kind == ".json":
        write_output(output_path, result_json(result))
    elif kind == ".csv":
        write_output(output_path, result_csv(result))
    else:
        write_output(output_path, result_npy(result))
