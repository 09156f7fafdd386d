"""Pure helpers for loading typed configuration text (the Rules Submission here; the bench and
scenario files through ``hil.config``): where a TOML syntax error is, values no file may hold, and
pydantic's errors said with the nearest valid name.

No I/O. One place for these rules, so a Rules Submission, a bench file and a scenario file refuse
the same bad value with the same words (STYLE.md § 2, § 13).
"""

from __future__ import annotations

import difflib
import json
import math
import re
import types
import typing
from collections.abc import Iterator, Sequence
from typing import Any

import pydantic

#: The deepest nesting a configuration file may hold. The files are at most ~5 levels deep; the
#: limit keeps the parsers' and validators' recursion far from Python's (a RecursionError at
#: ~1,000 levels).
MAX_DEPTH = 32
#: Every integer of a configuration file fits a signed 64-bit integer (the trace's JSON, SQLite and
#: numpy's seeds hold no more).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_AT_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


def toml_error_line(exc: Exception, text: str) -> int | None:
    """The 1-based line of a ``tomllib.TOMLDecodeError`` (Python 3.11's has no ``lineno``: the
    position is in its message, "(at line N, column M)" or "(at end of document)")."""
    line = getattr(exc, "lineno", None)
    if isinstance(line, int):
        return line
    if m := _AT_LINE.search(str(exc)):
        return int(m[1])
    if "end of document" in str(exc):
        return max(1, len(text.splitlines()))
    return None


def toml_error_message(exc: Exception) -> str:
    """The decode error's message without its position (the line is said apart)."""
    msg = _AT_LINE.sub("", str(exc)).replace("(at end of document)", "at the end of the file").strip()
    return msg.replace("Cannot overwrite a value", "duplicate key (or a key set twice)")


def toml_nesting_line(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The line where the brackets/braces of TOML ``text`` (outside strings and comments) nest
    deeper than ``limit``, or None. Checked before ``tomllib`` parses (it recurses per level);
    YAML's flow collections use the same brackets and quotes (``hil.config.parse_yaml``)."""
    if text.count("[") + text.count("{") <= limit:  # cannot nest deeper: the common case, no scan
        return None
    depth, line, i, n = 0, 1, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c in "\"'":
            triple = text.startswith(c * 3, i)
            end = c * 3 if triple else c
            j = i + len(end)
            while j < n:
                if c == '"' and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(end, j):
                    break
                if text[j] == "\n":
                    if not triple:
                        break  # an unterminated string: tomllib says so
                    line += 1
                j += 1
            i = j + (len(end) if text.startswith(end, j) else 0)
            continue
        elif c in "[{":
            depth += 1
            if depth > limit:
                return line
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def _walk(data: Any) -> Iterator[tuple[tuple, Any, int]]:
    """(loc, value, depth) of every value of ``data`` in document order, iteratively, never
    deeper than ``MAX_DEPTH + 1`` (a value deeper than that is yielded, its content not)."""
    stack: list[tuple[tuple, Any, int]] = [((), data, 0)]
    while stack:
        loc, value, depth = stack.pop()
        yield loc, value, depth
        if depth > MAX_DEPTH:
            continue
        children: list[tuple[tuple, Any]] = []
        if isinstance(value, dict):
            for k, v in value.items():
                if isinstance(k, int | float) and not isinstance(k, bool):
                    children.append(((*loc, k), k))  # a number as a key is checked like a value
                children.append(((*loc, k), v))
        elif isinstance(value, list | tuple | set | frozenset):
            children = [((*loc, i), v) for i, v in enumerate(value)]
        stack.extend((child_loc, child, depth + 1) for child_loc, child in reversed(children))


def value_problem(value: Any) -> str | None:
    """Why one scalar may not stand in a configuration file, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            return (f"{'-' if value < 0 else ''}{_magnitude(value)} is outside the 64-bit integer range "
                    f"[-2^63, 2^63 - 1]")
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"not a finite number ({value!r})"
    return None


def _magnitude(value: int) -> str:
    digits = len(str(abs(value)))
    return str(abs(value)) if digits <= 24 else f"a {digits}-digit integer"


def data_problem(data: Any) -> tuple[tuple, str] | None:
    """The first value no configuration file may hold, as (loc, message): nesting deeper than
    ``MAX_DEPTH``, a non-finite number (``inf``, ``nan``), an integer outside 64 bits."""
    for loc, value, depth in _walk(data):
        if depth > MAX_DEPTH:
            return loc, f"nested deeper than {MAX_DEPTH} levels"
        if (why := value_problem(value)) is not None:
            return loc, why
    return None


# ----------------------------------------------------------------------------- pydantic errors
def nearest(word: Any, candidates: Sequence[str]) -> str | None:
    """The valid name closest to ``word`` (difflib), or None when none is close."""
    if not isinstance(word, str) or not candidates:
        return None
    got = difflib.get_close_matches(word, [str(c) for c in candidates], n=1, cutoff=0.6)
    if not got:
        lowered = {str(c).lower(): str(c) for c in candidates}
        got = [lowered[word.lower()]] if word.lower() in lowered else []
    return got[0] if got else None


def did_you_mean(word: Any, candidates: Sequence[str]) -> str:
    """" (did you mean 'x'?)" for the nearest valid name, or ""."""
    best = nearest(word, candidates)
    return f" (did you mean {best!r}?)" if best is not None else ""


def _unwrap(tp: Any) -> list[Any]:
    """The alternatives of an annotation (Optional/Union/Annotated unwrapped)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return [a for arg in typing.get_args(tp) for a in _unwrap(arg) if a is not type(None)]
    return [tp]


def _model_at(model: Any, loc: Sequence[Any]) -> Any:
    """The pydantic model class (or dataclass) holding the field at ``loc``, or None."""
    current: list[Any] = [model]
    for part in loc:
        nxt: list[Any] = []
        for tp in current:
            for alt in _unwrap(tp):
                fields = _fields_of(alt)
                if fields is not None:
                    if str(part) in fields:
                        nxt.append(fields[str(part)])
                    continue
                origin, args = typing.get_origin(alt), typing.get_args(alt)
                if origin is dict and len(args) == 2:
                    nxt.append(args[1])
                elif origin in (list, tuple, set, frozenset) and args and isinstance(part, int):
                    nxt.append(args[min(part, len(args) - 1)] if origin is tuple and args[-1] is not Ellipsis
                               else args[0])
        current = nxt
    for tp in current:
        for alt in _unwrap(tp):
            if _fields_of(alt) is not None:
                return alt
    return None


def _fields_of(tp: Any) -> dict[str, Any] | None:
    """name (and alias) -> annotation of a pydantic model or dataclass, or None."""
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        out = {}
        for name, f in tp.model_fields.items():
            out[name] = f.annotation
            if f.alias:
                out[f.alias] = f.annotation
        return out
    if isinstance(tp, type) and hasattr(tp, "__dataclass_fields__"):
        try:
            hints = typing.get_type_hints(tp)
        except Exception:  # noqa: BLE001 — a forward reference we cannot resolve: names only
            hints = {}
        return {name: hints.get(name, Any) for name in tp.__dataclass_fields__}
    return None


def field_names(model: Any, loc: Sequence[Any]) -> list[str]:
    """The fields a mapping at ``loc`` of ``model`` may hold (its aliases in place of names)."""
    cls = _model_at(model, loc)
    if cls is None:
        return []
    if issubclass(cls, pydantic.BaseModel):
        return [f.alias or name for name, f in cls.model_fields.items()]
    return list(cls.__dataclass_fields__)


def _non_finite(value: Any) -> bool:
    """A float, or a string pydantic would read as one, that is not finite."""
    if isinstance(value, str) and len(value) < 64:
        try:
            value = float(value)
        except ValueError:
            return False
    return isinstance(value, float) and not math.isfinite(value)


_LEADING_FIELD = re.compile(r"^'?([A-Za-z_][\w-]*(?:\.[\w-]+)*)'?(?::| is | are | must )")


def first_error(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The error to report first: pydantic's first, except that a misspelt key (a field missing
    and an unknown one beside it) is reported as the unknown key, with the nearest valid name."""
    missing = {tuple(e["loc"][:-1]) for e in errors if e["type"] == "missing" and e["loc"]}
    for e in errors:
        if e["type"] == "extra_forbidden" and e["loc"] and tuple(e["loc"][:-1]) in missing:
            return e
    return errors[0]


def describe(err: dict[str, Any], model: Any) -> tuple[tuple, str]:
    """(loc, message) of one pydantic error, said for a lab: an unknown field or value names the
    nearest valid one; a model-level error that names its field is located at that field."""
    loc = tuple(err["loc"])
    kind, msg, value = err["type"], str(err["msg"]), err.get("input")
    if kind == "extra_forbidden" and loc:
        known = [k for k in field_names(model, loc[:-1]) if k != loc[-1]]
        msg = f"unknown field {str(loc[-1])!r}{did_you_mean(str(loc[-1]), known)}"
        if known and len(known) <= 12:
            msg += f"; known: {', '.join(known)}"
    elif kind in ("literal_error", "enum") and "expected" in (err.get("ctx") or {}):
        options = re.findall(r"'([^']*)'", str(err["ctx"]["expected"]))
        msg = f"{value!r} is not one of {', '.join(options)}{did_you_mean(value, options)}" if options else msg
    elif kind == "finite_number" or _non_finite(value):  # "inf", "nan", "1e400": pydantic reads them as floats
        msg = f"not a finite number ({value!r})"
    else:
        msg = msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if kind not in ("missing",) and not isinstance(value, dict | list | tuple) and value is not None:
            if kind not in ("value_error", "assertion_error") and len(repr(value)) <= 60:
                msg += f" (found {value!r})"
    if "[key]" in loc:
        loc = tuple(p for p in loc if p != "[key]")
        msg = f"invalid key: {msg}"
    if kind in ("value_error", "assertion_error") and (m := _LEADING_FIELD.match(msg)):
        # a model validator's message names its field first ("players.count: ..."): locate it there
        path = tuple(m[1].split("."))
        names = field_names(model, loc)
        located = True
        if path[0] in names:
            loc = loc + path
        elif len(path) > 1 and path[:len(loc)] == tuple(str(p) for p in loc) and path[len(loc)] in names:
            loc = path
        else:
            located = False
        if located and m[0].endswith(":"):  # the field is said apart: not twice
            msg = msg[m.end():].lstrip()
    return loc, msg


# ----------------------------------------------------------------------------- TOML lines
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_key(s: str, i: int) -> tuple[list[str], int] | None:
    """The dotted key at ``s[i:]`` (bare, "basic" or 'literal' parts) and the index after it."""
    parts: list[str] = []
    n = len(s)
    while True:
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == '"':
            j, buf = i + 1, []
            while j < n and s[j] != '"':
                step = 2 if s[j] == "\\" else 1
                buf.append(s[j:j + step])
                j += step
            if j >= n:
                return None
            raw = "".join(buf)
            try:
                parts.append(json.loads(f'"{raw}"'))
            except ValueError:
                parts.append(raw)
            i = j + 1
        elif i < n and s[i] == "'":
            j = s.find("'", i + 1)
            if j < 0:
                return None
            parts.append(s[i + 1:j])
            i = j + 1
        else:
            m = _BARE_KEY.match(s, i)
            if m is None:
                return None
            parts.append(m[0])
            i = m.end()
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == ".":
            i += 1
            continue
        return parts, i


class TomlLines:
    """The line of each key of a TOML text (``tomllib`` keeps no positions): tables, arrays of
    tables (their elements by index), dotted and quoted keys. ``line(loc)``: the line of the
    deepest key of ``loc`` (a pydantic location) the text holds, or None."""

    def __init__(self, text: str) -> None:
        self.where: dict[tuple, int] = {}
        table: tuple = ()
        counts: dict[tuple, int] = {}
        open_string: str | None = None
        for n, raw in enumerate(text.splitlines(), 1):
            s = raw.strip()
            if open_string is not None:  # inside a multi-line string
                if open_string in raw:
                    open_string = None
                continue
            if not s or s.startswith("#"):
                continue
            if s.startswith("[["):
                got = _toml_key(s, 2)
                if got and s[got[1]:].startswith("]]"):
                    key = tuple(got[0])
                    index = counts.get(key, 0)
                    counts[key] = index + 1
                    table = (*key, index)
                    self._note(table, n)
                continue
            if s.startswith("["):
                got = _toml_key(s, 1)
                if got and s[got[1]:].startswith("]"):
                    table = tuple(got[0])
                    self._note(table, n)
                continue
            got = _toml_key(s, 0)
            if got and s[got[1]:].startswith("="):
                self._note((*table, *got[0]), n)
                value = s[got[1] + 1:].strip()
                for quote in ('"""', "'''"):
                    if value.startswith(quote) and value.count(quote) == 1:
                        open_string = quote

    def _note(self, key: tuple, line: int) -> None:
        for k in range(1, len(key) + 1):
            self.where.setdefault(key[:k], line)

    def line(self, loc: Sequence[Any]) -> int | None:
        loc = tuple(p for p in loc if p != "[key]")
        for depth in range(len(loc), 0, -1):
            prefix = loc[:depth]
            for key in (prefix, tuple(str(p) for p in prefix)):
                if key in self.where:
                    return self.where[key]
        return None
