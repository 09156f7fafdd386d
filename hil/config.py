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

from rules.parsing import (MAX_DEPTH, TomlLines, data_problem, describe, did_you_mean, first_error, nearest,
                           toml_error_line, toml_error_message, toml_nesting_line)

__all__ = ["MAX_DEPTH", "ConfigError", "config_error", "did_you_mean", "dotted", "nearest", "parse_toml",
           "parse_yaml", "read_text", "validate"]

M = TypeVar("M", bound=pydantic.BaseModel)


class ConfigError(ValueError):
    """A configuration file is malformed: names the file, the line and the field."""

    def __init__(self, source: str, line: int | None, field: str, message: str) -> None:
        self.source, self.line, self.field, self.message = source, line, field, message
        where = f"{source}:{line}" if line else source
        # one sentence: where (file:line), the field when there is one, what is wrong
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


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


class _StrictLoader(yaml.SafeLoader):
    """YAML as a configuration file reads it: a key given twice, an alias (``*name``: anchors can
    expand without bound) or nesting deeper than ``MAX_DEPTH`` is refused at the node that does it
    (PyYAML's composer recurses per level: a RecursionError at ~300)."""

    _node: yaml.Node | None = None

    def __init__(self, stream: str) -> None:
        self.path: list[Any] = []  # the key path of the node being composed (the field of an error)
        super().__init__(stream)

    def _refuse(self, problem: str, mark: yaml.Mark) -> None:
        exc = yaml.composer.ComposerError(None, None, problem, mark)
        exc.field = dotted(self.path)  # type: ignore[attr-defined]
        raise exc

    def compose_node(self, parent, index):  # noqa: ANN001, ANN201 — PyYAML's signature
        event = self.peek_event()
        part = index.value if isinstance(index, yaml.ScalarNode) else index
        if part is not None:
            self.path.append(part)
        try:
            if isinstance(event, yaml.AliasEvent):
                self._refuse(f"an alias (*{event.anchor}): anchors and aliases are not supported in "
                             "configuration files; write the value out", event.start_mark)
            if len(self.path) > MAX_DEPTH:
                self._refuse(f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            if part is not None:
                self.path.pop()

    def compose_mapping_node(self, anchor):  # noqa: ANN001, ANN201
        node = super().compose_mapping_node(anchor)
        first: dict[tuple[str, str], int] = {}
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                line = key.start_mark.line + 1
                if (key.tag, key.value) in first:
                    self.path.append(key.value)
                    self._refuse(f"duplicate key {key.value!r}: first on line {first[key.tag, key.value]}, "
                                 f"again on line {line}", key.start_mark)
                first[key.tag, key.value] = line
        return node

    def construct_object(self, node, deep=False):  # noqa: ANN001, ANN201
        self._node = node
        return super().construct_object(node, deep)


def _path_of(root: yaml.Node | None, target: yaml.Node | None) -> tuple:
    """The key path of ``target`` in the composed tree (the field of a value PyYAML cannot build)."""
    stack: list[tuple[tuple, yaml.Node]] = [((), root)] if root is not None and target is not None else []
    while stack:
        path, n = stack.pop()
        if n is target:
            return path
        if isinstance(n, yaml.MappingNode):
            stack.extend(((*path, k.value), v) for k, v in n.value if isinstance(k, yaml.ScalarNode))
        elif isinstance(n, yaml.SequenceNode):
            stack.extend(((*path, i), v) for i, v in enumerate(n.value))
    return ()


def _line_of_offset(text: str, offset: int | None) -> int | None:
    return None if offset is None else text.count("\n", 0, max(0, offset)) + 1


def parse_yaml(text: str, source: str) -> tuple[Any, _LineMap]:
    if (deep := toml_nesting_line(text, 4 * MAX_DEPTH)) is not None:
        # flow brackets far past the limit: refused before PyYAML, whose scanner is quadratic in them
        # (nearer the limit the composer refuses them, naming the field)
        raise ConfigError(source, deep, "", f"YAML: nested deeper than {MAX_DEPTH} levels")
    loader, node = None, None
    try:
        loader = _StrictLoader(text)
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "malformed"
        field = getattr(exc, "field", "")
        raise ConfigError(source, mark.line + 1 if mark else None, field,
                          f"{'YAML' if field else 'YAML syntax'}: {what}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        char = f"U+{exc.character:04X}" if isinstance(exc.character, int) else repr(exc.character)
        raise ConfigError(source, _line_of_offset(text, exc.position), "",
                          f"YAML: the character {char} is not allowed in YAML text") from None
    except yaml.YAMLError as exc:
        raise ConfigError(source, None, "", f"YAML: {exc}") from None
    except (ValueError, TypeError, OverflowError) as exc:  # a scalar PyYAML resolved but cannot build (2026-13-45)
        bad = loader._node if loader is not None else None
        line = bad.start_mark.line + 1 if bad is not None else None
        raise ConfigError(source, line, dotted(_path_of(node, bad)), f"YAML: cannot read the value: {exc}") from None
    finally:
        if loader is not None:
            loader.dispose()
    lines = _LineMap(node)
    if (problem := data_problem(data)) is not None:
        loc, message = problem
        raise ConfigError(source, lines.line(loc), dotted(loc), message)
    return data, lines


# ----------------------------------------------------------------------------- TOML
#: the line of each key of a TOML text (``rules.parsing.TomlLines``: tables, arrays of tables, dotted
#: and quoted keys)
_TomlLines = TomlLines


def parse_toml(text: str, source: str) -> tuple[dict[str, Any], _TomlLines]:
    if (deep := toml_nesting_line(text)) is not None:  # tomllib recurses per level
        raise ConfigError(source, deep, "", f"TOML: nested deeper than {MAX_DEPTH} levels")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, toml_error_line(exc, text), "", f"TOML syntax: {toml_error_message(exc)}") from None
    except RecursionError:  # the pre-check missed a nesting: never a traceback
        raise ConfigError(source, None, "", f"TOML: nested deeper than {MAX_DEPTH} levels") from None
    lines = _TomlLines(text)
    if (problem := data_problem(data)) is not None:
        loc, message = problem
        raise ConfigError(source, lines.line(loc), dotted(loc), message)
    return data, lines


def config_error(exc: pydantic.ValidationError, model: Any, source: str, lines: _LineMap | _TomlLines,
                 prefix: Sequence[Any] = ()) -> ConfigError:
    """The first error of ``exc`` (validating ``model`` at ``prefix`` of the file) as a ConfigError:
    file, line and field, an unknown name with the nearest valid one (``rules.parsing.describe``)."""
    loc, message = describe(first_error(exc.errors()), model)
    more = exc.error_count() - 1
    if more:
        message += f"; the file has {more} more error{'s' * (more > 1)} after this one"
    loc = (*prefix, *loc)
    return ConfigError(source, lines.line(loc), dotted(loc), message)


def validate(model: type[M], data: Any, source: str, lines: _LineMap | _TomlLines) -> M:
    try:
        result = model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise config_error(exc, model, source, lines) from None
    except RecursionError:  # parse_yaml / parse_toml bound the nesting; never a traceback
        raise ConfigError(source, None, "", f"nested deeper than {MAX_DEPTH} levels") from None
    # a value pydantic coerced (1e30 for an int field) is held to the same bounds as one written
    if (problem := data_problem(result.model_dump(by_alias=True))) is not None:
        loc, message = problem
        raise ConfigError(source, lines.line(loc), dotted(loc), message)
    return result


def read_text(path: Path) -> str:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(str(path), None, "", f"cannot read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(str(path), line, "", f"not UTF-8 text (byte {raw[exc.start]:#04x} at offset "
                          f"{exc.start}): a configuration file is UTF-8") from None
