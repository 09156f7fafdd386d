"""Loading typed, versioned configuration files (bench TOML, scenario YAML, Rules Submission TOML).

A bad file fails at load with file, line and field — never mid-run (STYLE.md § 2).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import pydantic
import yaml

M = TypeVar("M", bound=pydantic.BaseModel)


class ConfigError(ValueError):
    """A configuration file is malformed: names the file, the line and the field."""

    def __init__(self, source: str, line: int | None, field: str, message: str) -> None:
        self.source, self.line, self.field, self.message = source, line, field, message
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {field or '(file)'}: {message}")


def dotted(loc: Sequence[Any]) -> str:
    return ".".join(str(p) for p in loc)


# ----------------------------------------------------------------------------- YAML
class _LineMap:
    """Maps a field path (pydantic ``loc``) to the line of the YAML node that holds it."""

    def __init__(self, root: yaml.Node | None) -> None:
        self.root = root

    def line(self, loc: Sequence[Any]) -> int | None:
        node = self.root
        best = node.start_mark.line + 1 if node is not None else None
        for part in loc:
            child = None
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if str(key.value) == str(part):
                        child = value
                        best = key.start_mark.line + 1
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                child = node.value[part]
                best = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return best


def parse_yaml(text: str, source: str) -> tuple[Any, _LineMap]:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise ConfigError(source, mark.line + 1 if mark else None, "", f"YAML syntax: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(source, None, "", f"YAML: {exc}") from None
    return data, _LineMap(node)


# ----------------------------------------------------------------------------- TOML
class _TomlLines:
    """Best-effort line lookup for a dotted field in TOML text (tomllib keeps no positions)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def line(self, loc: Sequence[Any]) -> int | None:
        # Find the table header of the deepest matching prefix, then the key below it.
        parts = [str(p) for p in loc]
        start, found = 0, None
        for depth in range(len(parts), 0, -1):
            header = "[" + ".".join(parts[:depth]) + "]"
            for i, raw in enumerate(self.lines):
                if raw.strip() == header:
                    start, found = i, i + 1
                    break
            if found:
                rest = parts[depth:]
                break
        else:
            rest = parts
        if rest:
            key = rest[0]
            for i in range(start, len(self.lines)):
                stripped = self.lines[i].lstrip()
                if stripped.startswith((key + " ", key + "=", f'"{key}"')):
                    return i + 1
        return found


def parse_toml(text: str, source: str) -> tuple[dict[str, Any], _TomlLines]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        raise ConfigError(source, line, "", f"TOML syntax: {exc}") from None
    return data, _TomlLines(text)


def validate(model: type[M], data: Any, source: str, lines: _LineMap | _TomlLines) -> M:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"]
        raise ConfigError(source, lines.line(loc), dotted(loc), err["msg"]) from None


def read_text(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), None, "", f"cannot read: {exc.strerror or exc}") from None
