"""Logging for the rig and the stubs: human lines on stderr, JSON lines in a log file.

Every logger of ours is named ``croupier.<area>`` (``croupier.run``, ``croupier.bench``,
``croupier.stub.<device>`` ...). A message carries its structured fields through ``extra=``::

    log = logging.getLogger("croupier.run")
    log.info("scenario finished", extra={"scenario": "wheel_push", "outcome": "met"})

On stderr that reads ``12:00:01 INFO croupier.run: scenario finished scenario=wheel_push
outcome=met``; in the log file it is one JSON object a line, with ``time`` (ISO 8601, UTC),
``level``, ``logger``, ``message`` and every ``extra`` field as its own key.

Verbosity (``-q`` -1, none 0, ``-v`` 1, ``-vv`` 2) sets what reaches stderr: errors only,
warnings, info, debug. The log file keeps info and above whatever the verbosity (so a quiet run
still leaves its structured record), and debug at ``-vv``.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import sys
from pathlib import Path
from typing import Any, TextIO

ROOT = "croupier"

#: stderr level per verbosity
_STDERR_LEVELS = {-1: logging.ERROR, 0: logging.WARNING, 1: logging.INFO, 2: logging.DEBUG}

# attributes every LogRecord has: whatever else is on a record came through ``extra=``
_RECORD_ATTRS = frozenset(
    vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None)).keys()
) | {"message", "asctime", "taskName"}

_TAG = "_croupier_handler"


def stderr_level(verbosity: int) -> int:
    """The stderr level of a verbosity (clamped to -1..2)."""
    return _STDERR_LEVELS[max(-1, min(2, int(verbosity)))]


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The structured fields a record was given through ``extra=``."""
    return {k: v for k, v in vars(record).items() if k not in _RECORD_ATTRS and not k.startswith("_")}


class HumanFormatter(logging.Formatter):
    """``HH:MM:SS LEVEL logger: message key=value ...`` (local time, one line)."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = _dt.datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        line = f"{stamp} {record.levelname} {record.name}: {record.getMessage()}"
        fields = extra_fields(record)
        if fields:
            line += " " + " ".join(f"{k}={_human_value(v)}" for k, v in fields.items())
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _human_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, separators=(",", ":"))
    return text if text and " " not in text else json.dumps(text)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, then the ``extra=`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "time": _dt.datetime.fromtimestamp(record.created, _dt.timezone.utc).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in extra_fields(record).items():
            doc.setdefault(key, value)
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str, ensure_ascii=False)


class StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time of each record, so a live progress
    display that redirects stderr (rich) prints log lines above its bars, and pytest's capture
    sees them."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:  # StreamHandler.__init__ assigns it
        pass


def configure(verbosity: int = 0, log_file: Path | None = None) -> logging.Logger:
    """Set up the ``croupier`` loggers: human lines on stderr at the verbosity's level, JSON
    lines appended to ``log_file`` (info and above; debug at -vv). Calling it again replaces
    the handlers an earlier call installed (closing the old log file). Returns the
    ``croupier`` logger."""
    root = logging.getLogger(ROOT)
    for handler in list(root.handlers):
        if getattr(handler, _TAG, False):
            root.removeHandler(handler)
            handler.close()
    err_level = stderr_level(verbosity)
    human = StderrHandler()
    human.setLevel(err_level)
    human.setFormatter(HumanFormatter())
    setattr(human, _TAG, True)
    root.addHandler(human)
    level = err_level
    if log_file is not None:
        log_file = Path(log_file)
        log_file.parent.mkdir(parents=True, exist_ok=True)
        file_level = min(logging.INFO, err_level)
        handler = logging.FileHandler(log_file, mode="a", encoding="utf-8")
        handler.setLevel(file_level)
        handler.setFormatter(JsonFormatter())
        setattr(handler, _TAG, True)
        root.addHandler(handler)
        level = min(level, file_level)
    # below warning (the stdlib's default) the loggers must let records through; at warning and above
    # the handlers' own levels filter, and an embedding process's level (pytest's caplog) still applies
    root.setLevel(level if level < logging.WARNING else logging.NOTSET)
    return root


def reset() -> None:
    """Remove the handlers ``configure`` installed (tests)."""
    root = logging.getLogger(ROOT)
    for handler in list(root.handlers):
        if getattr(handler, _TAG, False):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(logging.NOTSET)
