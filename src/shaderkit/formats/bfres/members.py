"""What Wii U and Switch BFRES share: embedded ("external") files and their member interface."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError


@dataclass
class ExternalFile:
    """An embedded file of a BFRES: name, data, and where its {offset, size} entry lies."""

    name: str
    data: bytes = field(repr=False)
    #: where the {offset, size} entry lies
    entry_offset: int = field(default=0, repr=False)
    #: (offset, size) as stored
    original: tuple[int, int] = field(default=(0, 0), repr=False)


class ExternalFileMembers:
    """The member interface (``archive//name`` paths) over ``external_files``."""

    external_files: list[ExternalFile]

    def member_names(self) -> list[str]:
        """Names of the external files, in file order."""
        return [f.name for f in self.external_files]

    def member(self, name: str) -> bytes:
        """The bytes of external file ``name``; KeyError when there is none."""
        return self._file(name).data

    def replace_member(self, name: str, data: bytes) -> None:
        """Put ``data`` as external file ``name`` (placed when the archive is written)."""
        self._file(name).data = bytes(data)

    def _file(self, name: str) -> ExternalFile:
        for f in self.external_files:
            if f.name == name:
                return f
        raise KeyError(f"no external file {name!r} (files: {', '.join(self.member_names())})")

    def _programs_of(self, materials: list[Any], open_archive: Callable[[bytes], Any],
                     locate: Callable[[Any, Any, str], str]) -> list[str]:
        """Per material, ``locate(archive, material, member name)`` in the embedded shader archive
        it names (opened once by ``open_archive``), or why there is none."""
        from shaderkit.formats.bfsha.wiiu import LookupFailed

        archives: dict[str, Any] = {}
        out = []
        for m in materials:
            name = f"{m.shader_archive}.bfsha"
            if name not in archives:
                try:
                    archives[name] = open_archive(self._file(name).data)
                except KeyError:
                    archives[name] = "archive not embedded"
                except ShaderFormatError as exc:
                    archives[name] = f"archive unreadable: {exc}"
            archive = archives[name]
            if isinstance(archive, str):
                out.append(archive)
                continue
            try:
                out.append(locate(archive, m, name))
            except LookupFailed as exc:
                out.append(exc.message)
        return out
