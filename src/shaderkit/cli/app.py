"""The click application: the command group, file-name completion and one-line errors.

Imported only when :func:`shaderkit.cli.main` cannot take its fast path (see ``fast.py``).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from shaderkit.cli import COMMANDS

#: parameters (by name) that hold file names: shells complete them as files
FILE_PARAMETERS = frozenset({"file", "files", "first", "second", "member", "paths", "sources", "data_path",
                             "output", "base", "data"})


class FileNameType(click.types.StringParamType):
    """A plain string whose shell completion offers file names (bash, zsh, fish)."""

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from click.shell_completion import CompletionItem

        return [CompletionItem(incomplete, type="file")]


FILE_NAMES = FileNameType()


def _complete_file_names(command: click.Command) -> None:
    for param in command.params:
        if param.name in FILE_PARAMETERS and isinstance(param.type, click.types.StringParamType):
            param.type = FILE_NAMES


class LazyGroup(click.Group):
    """The command group: commands are imported only when they run (fast start-up)."""
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, _, attr = entry[0].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            return None
        command = getattr(module, attr)
        assert isinstance(command, click.Command)
        _complete_file_names(command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, help_text) for name, (_, help_text) in COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="shaderkit", prog_name="shaderkit")
def cli() -> None:
    """shaderkit: see, disassemble, rebuild and edit compiled GPU shader binaries."""


def main(argv: list[str] | None = None) -> Any:
    """Run the click application: errors on input become one line on stderr and exit status 2."""
    from shaderkit.errors import ShaderkitError

    try:
        status = cli.main(args=argv, prog_name="shaderkit", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(2)
    except click.UsageError as exc:  # one line, not click's usage block
        where = exc.ctx.command_path if exc.ctx is not None else "shaderkit"
        click.echo(f"{where}: {exc.format_message()} (see '{where} --help')", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        click.echo(f"shaderkit: {' '.join(exc.format_message().split())}", err=True)
        sys.exit(2 if exc.exit_code in (1, 2) else exc.exit_code)
    except ShaderkitError as exc:
        click.echo(f"shaderkit: {' '.join(str(exc).split())}", err=True)
        sys.exit(2)
    except OSError as exc:
        name = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"shaderkit: {name}{exc.strerror or exc}", err=True)
        sys.exit(2)
    if isinstance(status, int) and status:
        sys.exit(status)
    return status
