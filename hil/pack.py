"""The evidence pack: a manifest of SHA-256 hashes, one deterministic archive, and its verification.

``croupier run`` writes ``OUT/manifest.json`` (``write_manifest``) once the traces are closed and
before the reports: the SHA-256 and size of every trace and of every input file the run read (each
scenario YAML, each Rules Submission, the bench TOML or the embedded bench, register maps and VISA
instrument files the bench names), each trace's hash-chain head (``hil.trace.chain_head``), the
tool's version and the git commit. The inputs are copied beside it into ``OUT/inputs/`` under their
repository-relative (or sanitised) paths, so the run folder holds every byte the pack needs.
``report.json`` names the manifest's own hash (``report["manifest"]``).

``croupier pack OUT`` (``write_pack``) writes ONE uncompressed POSIX ustar archive::

    seal.json        every other member's name, size and SHA-256, in order; its own hash inside
    report.json      (names manifest.json's SHA-256)
    report.html      (when the run wrote one)
    junit.xml
    manifest.json    (hashes of every trace and input, chain heads)
    traces/...       the SQLite traces, each with its per-round hash chain
    inputs/...       every input file

Deterministic: fixed member order, mode 0644, uid/gid 0, no user or group names, every mtime the
manifest's ``written_utc``, two zero blocks at the end and nothing else: the same run folder gives
the same bytes. So ``verify`` can rebuild every header from the seal and compare it byte for byte:
a byte changed anywhere in the file lies in a header, a member's content, its padding or the end
marker, and each of these is named.

``croupier verify PACK`` (``verify_pack``): the container against the seal (headers, padding, end,
length), every member's hash against the seal, and then — only when every byte is as sealed — the
meaning: the report's manifest hash, the manifest's hashes of traces and inputs, each trace's hash
chain and head, the provenance hashes against the inputs, and the checks re-run on every trace
compared with report.json. docs/pack.md says what a pass proves and what it does not.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import importlib.resources
import inspect
import json
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

MANIFEST_NAME = "manifest.json"
SEAL_NAME = "seal.json"
INPUTS_DIR = "inputs"
TRACES_DIR = "traces"
MANIFEST_SCHEMA = 1
PACK_SCHEMA = 1
DEFAULT_PACK_NAME = "evidence-pack.tar"
#: the report files packed after the seal, in this order (those marked False may be absent)
REPORT_MEMBERS = (("report.json", True), ("report.html", False), ("junit.xml", False), (MANIFEST_NAME, True))

BLOCK = 512
ZERO_BLOCK = bytes(BLOCK)
#: the ustar header's fields: (name, offset, length)
HEADER_FIELDS = (("name", 0, 100), ("mode", 100, 8), ("uid", 108, 8), ("gid", 116, 8), ("size", 124, 12),
                 ("mtime", 136, 12), ("checksum", 148, 8), ("typeflag", 156, 1), ("linkname", 157, 100),
                 ("magic", 257, 6), ("version", 263, 2), ("uname", 265, 32), ("gname", 297, 32),
                 ("devmajor", 329, 8), ("devminor", 337, 8), ("prefix", 345, 155), ("pad", 500, 12))
_REPO = Path(__file__).resolve().parents[1]


class PackError(Exception):
    """The run folder cannot be packed (a file missing, or changed since its manifest)."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_sha256(path: Path) -> tuple[str, int]:
    h, n = hashlib.sha256(), 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
            n += len(chunk)
    return h.hexdigest(), n


def _json_bytes(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


# ---------------------------------------------------------------------------------------------- inputs


def _resource(package: str, resource: str) -> Path | None:
    try:
        res = importlib.resources.files(package).joinpath(resource)
    except ModuleNotFoundError:
        return None
    p = Path(str(res))
    return p if p.is_file() else None


def _source_path(source: str | None) -> Path | None:
    """The file of a loaded configuration's ``source``: a path, or ``embedded:<package>/<resource>``."""
    if not source:
        return None
    if source.startswith("embedded:"):
        package, _, resource = source.removeprefix("embedded:").partition("/")
        return _resource(package, resource)
    p = Path(source)
    return p if p.is_file() else None


def run_inputs(scenarios: Iterable, bench, rules, roulette_x=None) -> list[Path]:
    """Every file a run read: each scenario YAML and the Rules Submission it names, the run's Rules
    Submissions (Crazy Time, Roulette X), the bench TOML (or the embedded bench's resource) and the
    register maps and VISA instrument files its devices and instruments name (shipped defaults
    included). Sorted, each once."""
    from hil.bench import MAP_DEVICE, _relative
    from hil.runner import scenario_rules
    from hil.wire.registers import _MAP_FILES

    found: list[Path | None] = []
    for s in scenarios:
        found.append(_source_path(s.path))
        try:
            own = scenario_rules(s)
        except Exception:  # noqa: BLE001 — refused at load already; nothing to add
            own = None
        if own is not None:
            found.append(_source_path(own.source))
    for loaded in (rules, roulette_x):
        if loaded is not None:
            found.append(_source_path(loaded.source))
    if bench is not None:
        found.append(_source_path(bench.source))
        for role, dev in bench.config.devices.items():
            if getattr(dev, "kind", None) != "modbus" or role not in MAP_DEVICE:
                continue
            if dev.register_map == "default":
                if (shipped := _MAP_FILES.get(MAP_DEVICE[role])) is not None:
                    found.append(_resource("hil.wire", f"maps/{shipped}"))
            else:
                p = _relative(dev.register_map, bench.source)
                found.append(p if p.is_file() else None)
        for inst in bench.config.instruments.values():
            backend = getattr(inst, "backend", "") or ""
            if backend.endswith("@sim") and len(backend) > 4:  # pyvisa-sim opens it as given (hil.transport.visa)
                p = Path(backend.removesuffix("@sim"))
                found.append(p if p.is_file() else None)
    seen, out = set(), []
    for p in found:
        if p is not None and (key := p.resolve()) not in seen:
            seen.add(key)
            out.append(p)
    return sorted(out, key=lambda p: str(p.resolve()))


def _sanitised(part: str) -> str:
    keep = "".join(c if c.isalnum() or c in "._-+" else "_" for c in part)
    return keep.strip(".") or "_"


def input_name(path: Path, taken: set[str]) -> str:
    """The input's path inside the pack (``inputs/<name>``): relative to the repository, or to the
    working folder; any other file under ``external/`` by its base name. Never an absolute path
    of this machine."""
    resolved = path.resolve()
    rel = None
    for root in (_REPO, Path.cwd().resolve()):
        try:
            rel = PurePosixPath(resolved.relative_to(root).as_posix())
            break
        except ValueError:
            continue
    if rel is None or not rel.parts or ".." in rel.parts:
        rel = PurePosixPath("external", _sanitised(path.name))
    rel = PurePosixPath(*[_sanitised(p) for p in rel.parts])
    name, n = f"{INPUTS_DIR}/{rel}", 1
    while name in taken:
        n += 1
        name = f"{INPUTS_DIR}/{rel.parent}/{n}-{rel.name}" if str(rel.parent) != "." else f"{INPUTS_DIR}/{n}-{rel.name}"
    taken.add(name)
    return name


# -------------------------------------------------------------------------------------------- manifest


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(_REPO), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _version() -> str | None:
    try:
        return importlib.metadata.version("croupier")
    except importlib.metadata.PackageNotFoundError:
        return None


def _chain(path: Path) -> dict[str, Any]:
    """The trace's chain head and whether its chain holds (``hil.trace``'s chain API, one pass)."""
    import hil.trace as trace

    status_fn = getattr(trace, "chain_status", None)
    head_fn, verify_fn = getattr(trace, "chain_head", None), getattr(trace, "verify_chain", None)
    if status_fn is None and (head_fn is None or verify_fn is None):
        return {"chain_head": None, "chain": "unavailable: this version of hil.trace keeps no hash chain"}
    try:
        if status_fn is not None:
            status = status_fn(path)
            breaks, head, closed = status.breaks, status.head, getattr(status, "closed", True)
        else:
            breaks, head, closed = verify_fn(path), head_fn(path), True
    except Exception as exc:  # noqa: BLE001 — a file no trace reader can open: said, never a crash
        return {"chain_head": None, "chain": f"unreadable: {type(exc).__name__}: {exc}"}
    if breaks:
        return {"chain_head": head, "chain": "broken: " + "; ".join(f"round {b.round}: {b.message}" for b in breaks[:5])}
    return {"chain_head": head, "chain": "intact" if closed else "intact, but never closed by its writer"}


def _recorded_head(path: Path) -> dict[str, Any]:
    """The chain head the trace's writer recorded when it closed it (``hil.trace.CHAIN_META``: the
    value ``chain_head`` returns for a closed trace), read without re-verifying the chain — which
    costs a decompression and a hash of every round (~0.1 s a 300-round trace): ``verify`` does it.
    A trace with no recorded head (never closed, or a trace format without one) is verified now."""
    import hil.trace as trace

    key = getattr(trace, "CHAIN_META", None)
    if key is not None:
        try:
            with trace.TraceReader(path) as reader:
                head = reader.meta().get(key)
        except Exception:  # noqa: BLE001 — no trace: said by _chain below
            head = None
        if isinstance(head, dict) and isinstance(head.get("head"), str):
            return {"chain_head": head["head"], "chain": "head recorded by its writer at close",
                    "chain_commits": head.get("commits"), "chain_last_round": head.get("round")}
    return _chain(path)


def write_manifest(out_dir: Path, inputs: list[Path]) -> str:
    """Write ``out_dir/manifest.json`` and return its SHA-256 (hex): every trace under
    ``out_dir/traces`` (SHA-256, size, chain head) and every input file (copied into
    ``out_dir/inputs/`` under its repository-relative or sanitised name; SHA-256 and size of the
    bytes copied), the tool's version and the git commit. Call it once the traces are closed."""
    out_dir = Path(out_dir)
    traces = []
    tdir = out_dir / TRACES_DIR
    if tdir.is_dir():
        for p in sorted(tdir.rglob("*")):
            if p.is_file():
                sha, size = _file_sha256(p)
                traces.append({"path": p.relative_to(out_dir).as_posix(), "sha256": sha, "bytes": size,
                               **_recorded_head(p)})
    idir = out_dir / INPUTS_DIR
    if idir.exists():  # a resumed run's copies are written afresh from the files it read
        shutil.rmtree(idir)
    taken: set[str] = set()
    entries = []
    for src in inputs:
        src = Path(src)
        name = input_name(src, taken)
        data = src.read_bytes()
        dest = out_dir / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
        entries.append({"path": name, "source": name.removeprefix(f"{INPUTS_DIR}/"), "sha256": _sha256(data),
                        "bytes": len(data)})
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    manifest = {
        "manifest_schema": MANIFEST_SCHEMA,
        "tool": {"name": "croupier", "version": _version()},
        "git": {"commit": _git("rev-parse", "HEAD"), "dirty": bool(dirty) if dirty is not None else None},
        "written_utc": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "traces": traces,
        "inputs": sorted(entries, key=lambda e: e["path"]),
    }
    data = _json_bytes(manifest)
    (out_dir / MANIFEST_NAME).write_bytes(data)
    return _sha256(data)


# --------------------------------------------------------------------------------------- the archive


def _octal(value: int, width: int) -> bytes:
    return f"{value:0{width - 1}o}".encode() + b"\0"


def _split_name(name: str) -> tuple[bytes, bytes]:
    raw = name.encode()
    if len(raw) <= 100:
        return raw, b""
    for i in range(len(raw) - 1, 0, -1):  # ustar: prefix (<= 155) "/" name (<= 100)
        if raw[i:i + 1] == b"/" and len(raw) - i - 1 <= 100 and i <= 155:
            return raw[i + 1:], raw[:i]
    raise PackError(f"{name}: a path too long for a ustar archive (at most 255 bytes, split at a '/')")


#: a ustar size or mtime field holds 11 octal digits
MAX_OCTAL_11 = 8 ** 11


def tar_header(name: str, size: int, mtime: int) -> bytes:
    """The canonical ustar header of a pack member."""
    if not (0 <= size < MAX_OCTAL_11 and 0 <= mtime < MAX_OCTAL_11):
        raise PackError(f"{name}: {size} bytes (or mtime {mtime}) past what a ustar header holds")
    base, prefix = _split_name(name)
    h = bytearray(BLOCK)
    h[0:len(base)] = base
    h[100:108] = _octal(0o644, 8)
    h[108:116] = _octal(0, 8)
    h[116:124] = _octal(0, 8)
    h[124:136] = _octal(size, 12)
    h[136:148] = _octal(mtime, 12)
    h[148:156] = b" " * 8
    h[156:157] = b"0"
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[329:337] = _octal(0, 8)
    h[337:345] = _octal(0, 8)
    h[345:345 + len(prefix)] = prefix
    h[148:156] = f"{sum(h):06o}".encode() + b"\0 "
    return bytes(h)


def _padding(size: int) -> int:
    return -size % BLOCK


def build_archive(members: list[tuple[str, bytes]], mtime: int) -> bytes:
    """A deterministic ustar archive of ``members`` (name, content) in the order given."""
    parts = []
    for name, data in members:
        parts += [tar_header(name, len(data), mtime), data, bytes(_padding(len(data)))]
    parts.append(ZERO_BLOCK * 2)
    return b"".join(parts)


def _seal_doc(members: list[tuple[str, bytes]], mtime: int, manifest_sha: str | None) -> dict[str, Any]:
    doc = {"pack_schema": PACK_SCHEMA, "mtime": mtime, "manifest_sha256": manifest_sha,
           "members": [{"name": n, "bytes": len(d), "sha256": _sha256(d)} for n, d in members]}
    doc["seal_sha256"] = _sha256(_seal_text(doc))
    return doc


def _seal_text(doc: dict[str, Any]) -> bytes:
    """The seal's canonical bytes (ASCII JSON, sorted keys) without its ``seal_sha256``."""
    return json.dumps({k: v for k, v in doc.items() if k != "seal_sha256"}, sort_keys=True, indent=1,
                      ensure_ascii=True).encode() + b"\n"


def _seal_bytes(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=True).encode() + b"\n"


def seal_and_build(members: list[tuple[str, bytes]], mtime: int) -> bytes:
    """The pack of ``members`` (seal first): what ``write_pack`` writes, from contents in memory."""
    manifest = dict(members).get(MANIFEST_NAME)
    seal = _seal_bytes(_seal_doc(members, mtime, _sha256(manifest) if manifest is not None else None))
    return build_archive([(SEAL_NAME, seal), *members], mtime)


@dataclass(frozen=True)
class PackInfo:
    path: Path
    sha256: str
    bytes: int
    members: int
    traces: int
    inputs: int


def pack_members(out_dir: Path) -> tuple[list[tuple[str, bytes]], int]:
    """The members of the run folder's pack (in pack order, seal excluded) and their mtime, each
    checked against the manifest and the report's manifest hash. PackError when the folder cannot
    be packed as it is (a file missing, changed since its manifest, or never in it)."""
    out_dir = Path(out_dir)
    members: list[tuple[str, bytes]] = []
    for name, required in REPORT_MEMBERS:
        p = out_dir / name
        if not p.is_file():
            if required:
                raise PackError(f"{p}: missing (a run folder written by `croupier run` holds it)")
            continue
        members.append((name, p.read_bytes()))
    docs = dict(members)
    manifest_sha = _sha256(docs[MANIFEST_NAME])
    try:
        manifest = orjson.loads(docs[MANIFEST_NAME])
        report = orjson.loads(docs["report.json"])
    except orjson.JSONDecodeError as exc:
        raise PackError(f"{out_dir}: report.json or manifest.json is not JSON ({exc})") from None
    named = (report.get("manifest") or {}).get("sha256") if isinstance(report, dict) else None
    if named != manifest_sha:
        raise PackError(f"{out_dir / 'report.json'}: names manifest hash {named}, but manifest.json hashes to "
                        f"{manifest_sha} (the run folder changed since the run)")
    for kind in ("traces", "inputs"):
        for entry in manifest.get(kind, []):
            p = out_dir / entry["path"]
            if not p.is_file():
                raise PackError(f"{p}: in the manifest, missing from the run folder")
            data = p.read_bytes()
            if _sha256(data) != entry["sha256"]:
                raise PackError(f"{p}: changed since the run (sha256 {_sha256(data)}, the manifest has "
                                f"{entry['sha256']})")
            members.append((entry["path"], data))
    for r in report.get("scenarios", []):
        if r.get("trace") and r["trace"] not in dict(members):
            raise PackError(f"{out_dir}: report.json names trace {r['trace']}, which is not in the manifest")
    try:
        mtime = int(dt.datetime.fromisoformat(manifest["written_utc"]).timestamp())
    except (KeyError, TypeError, ValueError):
        mtime = 0
    return members, max(mtime, 0)


def write_pack(out_dir: Path, output: Path | None = None) -> PackInfo:
    """Write the run folder's evidence pack (default ``out_dir/evidence-pack.tar``)."""
    members, mtime = pack_members(out_dir)
    for name, _ in members:
        _split_name(name)
    data = seal_and_build(members, mtime)
    output = Path(output) if output is not None else Path(out_dir) / DEFAULT_PACK_NAME
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(output.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(output)
    return PackInfo(output, _sha256(data), len(data), len(members) + 1,
                    sum(n.startswith(f"{TRACES_DIR}/") for n, _ in members),
                    sum(n.startswith(f"{INPUTS_DIR}/") for n, _ in members))


# ------------------------------------------------------------------------------------------ verifying


@dataclass(frozen=True)
class Problem:
    """One thing ``verify`` found wrong: the member (None: the archive as a whole), the trace round
    when it is one, and what."""

    member: str | None
    message: str
    round: int | None = None

    def __str__(self) -> str:
        where = self.member or "(archive)"
        if self.round is not None:
            where += f", round {self.round}"
        return f"{where}: {self.message}"


@dataclass
class Verification:
    problems: list[Problem] = field(default_factory=list)
    members: int = 0
    traces: int = 0
    inputs: int = 0
    scenarios_rechecked: int = 0
    checks_rechecked: int = 0
    sha256: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if not self.ok:
            return f"FAILED: {len(self.problems)} problem(s)"
        return (f"verified: {self.members} members as sealed (sha256 {self.sha256}); {self.traces} trace(s), "
                f"every hash chain intact and matching the manifest; {self.inputs} input file(s) matching the "
                f"provenance; {self.scenarios_rechecked} scenario(s) re-checked from their traces, "
                f"{self.checks_rechecked} check result(s) as report.json states them")


@dataclass(frozen=True)
class _Header:
    offset: int
    name: str
    size: int
    checksum_ok: bool
    regular: bool


def _parse_header(block: bytes, offset: int) -> _Header | None:
    """A header as it reads (lenient: a bad checksum is noted, not refused); None when its size
    field is no number (no member can be located after it)."""
    def text(a: int, n: int) -> str:
        return block[a:a + n].split(b"\0", 1)[0].decode("latin-1")

    try:
        size = int(text(124, 12).strip() or "x", 8)
        stored = int(text(148, 8).strip() or "x", 8)
    except ValueError:
        return None
    if size < 0:
        return None
    computed = sum(block[:148]) + 8 * 32 + sum(block[156:])
    prefix, name = text(345, 155), text(0, 100)
    full = f"{prefix}/{name}" if prefix and block[257:262] == b"ustar" else name
    return _Header(offset, full, size, stored == computed, block[156:157] in (b"0", b"\0"))


def _walk(data: bytes) -> tuple[list[_Header], str | None]:
    """The members as the archive's own headers lay them out, and why the walk stopped early (None
    when every header's checksum holds and the archive ends with its end marker exactly)."""
    off, out = 0, []
    while True:
        block = data[off:off + BLOCK]
        if len(block) < BLOCK:
            return out, f"the archive ends at byte {len(data)} without its end-of-archive marker"
        if block == ZERO_BLOCK:
            if data[off + BLOCK:off + 2 * BLOCK] == ZERO_BLOCK and len(data) == off + 2 * BLOCK:
                return out, None
            return out, f"bytes after the end-of-archive marker at byte {off}, or the marker altered"
        h = _parse_header(block, off)
        if h is None:
            return out, f"no readable archive header at byte {off}"
        out.append(h)
        if not h.checksum_ok:
            return out, f"the archive header at byte {off} fails its checksum"
        off += BLOCK + h.size + _padding(h.size)


def _read_seal(data: bytes) -> tuple[dict[str, Any] | None, bytes, str | None]:
    """The seal (its document, its bytes, and why it is unusable), read from byte 512 whatever
    the first header says (a damaged header must not hide the seal)."""
    try:
        text = data[BLOCK:BLOCK + (1 << 24)].decode("latin-1")
        doc, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, IndexError) as exc:
        return None, b"", f"not readable ({exc})"
    raw = data[BLOCK:BLOCK + end + 1]  # the canonical seal ends with one newline
    if not isinstance(doc, dict) or not isinstance(doc.get("members"), list):
        return None, raw, "not a seal document"
    if type(doc.get("pack_schema")) is not int or doc["pack_schema"] != PACK_SCHEMA:
        return None, raw, f"pack_schema {doc.get('pack_schema')!r}: this Croupier reads pack_schema {PACK_SCHEMA}"
    ok = type(doc.get("mtime")) is int and all(
        isinstance(m, dict) and isinstance(m.get("name"), str) and type(m.get("bytes")) is int
        and isinstance(m.get("sha256"), str) for m in doc["members"])
    if not ok:
        return None, raw, "its member list or mtime is unreadable"
    members = [(m["name"], m["bytes"], m["sha256"]) for m in doc["members"]]
    if doc.get("seal_sha256") != _sha256(_seal_text(doc)):
        return None, raw, "altered: its content does not hash to the seal_sha256 it carries"
    if raw != _seal_bytes(doc):
        return None, raw, "altered: its bytes are not the canonical form of its content"
    if not members or len({m[0] for m in members}) != len(members):
        return None, raw, "its member list is empty or names a member twice"
    if not 0 <= int(doc["mtime"]) < MAX_OCTAL_11 or any(not 0 <= m[1] < MAX_OCTAL_11 for m in members):
        return None, raw, "a size or its mtime out of a ustar header's range"
    try:
        for m in members:
            _split_name(m[0])
    except PackError as exc:
        return None, raw, str(exc)
    return doc, raw, None


def _layout(seal: dict[str, Any], seal_size: int) -> list[tuple[str, int, int, str | None]]:
    """(name, size, header offset, sha256) of every member as the seal lays them out."""
    out, off = [], 0
    for name, size, sha in [(SEAL_NAME, seal_size, None)] + [(m["name"], int(m["bytes"]), m["sha256"])
                                                             for m in seal["members"]]:
        out.append((name, size, off, sha))
        off += BLOCK + size + _padding(size)
    return out


def _header_diff(actual: bytes, canonical: bytes) -> str:
    fields = [f for f, a, n in HEADER_FIELDS if actual[a:a + n] != canonical[a:a + n]]
    first = next(i for i in range(BLOCK) if actual[i] != canonical[i])
    return f"its archive header is altered (field(s) {', '.join(fields)}; byte {first} of the header)"


def _not_a_pack(data: bytes) -> str:
    if data[:2] == b"\x1f\x8b":
        return "not a Croupier pack: a gzip file (a pack is an uncompressed tar archive)"
    if data[:4] == b"PK\x03\x04":
        return "not a Croupier pack: a zip file (a pack is an uncompressed tar archive)"
    if len(data) >= BLOCK and data[:BLOCK] == ZERO_BLOCK:
        return "not a Croupier pack: an empty tar archive, or zero bytes (no seal.json)"
    h = _parse_header(data[:BLOCK], 0) if len(data) >= BLOCK else None
    if h is not None and h.checksum_ok:
        return f"not a Croupier pack: a tar archive whose first member is {h.name!r}, not its {SEAL_NAME}"
    return "not a Croupier pack: not a tar archive"


def _container(data: bytes, seal: dict[str, Any], seal_raw: bytes,
               problems: list[Problem]) -> dict[str, bytes]:
    """Check the archive's structure against the seal; return the members' contents where they
    can be located (name -> bytes)."""
    layout = _layout(seal, len(seal_raw))
    expected_len = layout[-1][2] + BLOCK + layout[-1][1] + _padding(layout[-1][1]) + 2 * BLOCK
    mtime = int(seal["mtime"])
    walk, stopped = _walk(data)
    contents: dict[str, bytes] = {}
    seal_names = [m[0] for m in layout]
    walk_names = [h.name for h in walk]
    if stopped is None and walk_names != seal_names:  # a well-formed archive of other members
        for name in [n for n in walk_names if n not in seal_names]:
            problems.append(Problem(name, "an extra member the seal does not list"))
        for name in [n for n in seal_names if n not in walk_names]:
            problems.append(Problem(name, "missing: the seal lists it, the archive does not hold it"))
        if sorted(walk_names) == sorted(seal_names):
            problems.append(Problem(None, "the members are not in the order the seal lists them"))
        for h in walk:
            contents.setdefault(h.name, data[h.offset + BLOCK:h.offset + BLOCK + h.size])
        return contents
    if stopped is None and [h.size for h in walk] != [m[1] for m in layout]:  # members re-written
        for h, (name, size, _, _) in zip(walk, layout):
            if h.size != size:
                problems.append(Problem(name, f"holds {h.size} bytes, the seal {size}"))
            contents[name] = data[h.offset + BLOCK:h.offset + BLOCK + h.size]
        return contents
    if len(data) < expected_len:  # cut short
        cut = next((m for m in layout if m[2] + BLOCK + m[1] + _padding(m[1]) > len(data)), None)
        if cut is not None:
            problems.append(Problem(cut[0], f"truncated: the pack ends at byte {len(data)}, inside this member "
                                            f"(the seal describes {expected_len} bytes)"))
            after = [m[0] for m in layout if m[2] >= len(data)]
            if after:
                problems.append(Problem(None, f"truncated: {len(after)} member(s) missing after the cut: "
                                              + ", ".join(after[:10]) + (" …" if len(after) > 10 else "")))
        else:
            problems.append(Problem(None, f"truncated: the end-of-archive marker is cut (the pack ends at byte "
                                          f"{len(data)} of {expected_len})"))
    for name, size, off, _ in layout:
        header = data[off:off + BLOCK]
        if len(header) < BLOCK:
            break
        canonical = tar_header(name, size, mtime)
        if header != canonical:
            problems.append(Problem(name, _header_diff(header, canonical)))
        body = data[off + BLOCK:off + BLOCK + size]
        if len(body) == size:
            contents[name] = body
        pad = data[off + BLOCK + size:off + BLOCK + size + _padding(size)]
        if pad.strip(b"\0"):
            problems.append(Problem(name, "the padding after its content is altered (it must be zero bytes)"))
    end = layout[-1][2] + BLOCK + layout[-1][1] + _padding(layout[-1][1])
    if len(data) >= expected_len and data[end:] != ZERO_BLOCK * 2:
        named = [h.name for h in _walk(data[end:])[0] if h.checksum_ok]  # members written after the last one
        for name in named:
            problems.append(Problem(name, "an extra member the seal does not list"))
        if not named and data[end:expected_len] != ZERO_BLOCK * 2:
            problems.append(Problem(None, f"the end-of-archive marker (bytes {end}-{expected_len - 1}, after "
                                          f"{layout[-1][0]}) is altered"))
        elif not named:
            problems.append(Problem(None, f"{len(data) - expected_len} byte(s) after the end-of-archive marker"))
    return contents


def _trace_problems(name: str, data: bytes, why: str, tmp: Path) -> list[Problem]:
    """A trace whose bytes are not as sealed: where its hash chain breaks (the round)."""
    import hil.trace as trace

    verify_fn = getattr(trace, "verify_chain", None)
    if verify_fn is None:
        return [Problem(name, why + " (this version of hil.trace keeps no hash chain to name the round)")]
    p = tmp / "damaged.sqlite"
    p.write_bytes(data)
    try:
        breaks = verify_fn(p)
    except Exception as exc:  # noqa: BLE001 — any damage: unreadable as a trace, named
        return [Problem(name, f"{why}; unreadable as a trace ({type(exc).__name__}: {exc})")]
    finally:
        for q in tmp.glob("damaged.sqlite*"):
            q.unlink()
    if not breaks:
        return [Problem(name, f"{why}; its hash chain still holds: the altered byte lies outside the rounds' "
                              "recorded content (SQLite page structure, an index, or free space)")]
    return _break_problems(name, f"{why}; hash chain broken", breaks)


#: chain breaks named per trace (the rest counted): one damaged dictionary record can break hundreds
MAX_BREAKS = 5


def _break_problems(name: str, prefix: str, breaks: list) -> list[Problem]:
    out = [Problem(name, f"{prefix}: {b.message}", b.round) for b in breaks[:MAX_BREAKS]]
    if len(breaks) > MAX_BREAKS:
        rounds = sorted({b.round for b in breaks[MAX_BREAKS:]})
        out.append(Problem(name, f"and {len(breaks) - MAX_BREAKS} more chain break(s), in round(s) "
                                 f"{rounds[0]}..{rounds[-1]}"))
    return out


def _load_json(name: str, data: bytes, problems: list[Problem]) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        problems.append(Problem(name, f"not JSON ({exc})"))
        return None


def verify_pack(pack: Path | bytes, *, recheck: bool = True) -> Verification:
    """Verify a pack (a file, or its bytes): see the module's docstring. Never raises for a bad
    pack: every problem is a ``Problem`` (OSError only for a file that cannot be read). Fails fast:
    the meaning is checked (and the checks re-run) only when every byte is as sealed."""
    data = pack if isinstance(pack, bytes) else Path(pack).read_bytes()
    v = Verification(sha256=_sha256(data))
    try:
        return _verify(data, v, recheck)
    except Exception as exc:  # noqa: BLE001 — the last guard: a pack nothing above foresaw fails, said so
        v.problems.append(Problem(None, f"cannot be verified ({type(exc).__name__}: {exc})"))
        return v


def _verify(data: bytes, v: Verification, recheck: bool) -> Verification:
    seal, seal_raw, seal_why = _read_seal(data)
    if seal is None:
        if data.startswith(SEAL_NAME.encode() + b"\0") and data[257:263] == b"ustar\0":
            v.problems.append(Problem(SEAL_NAME, seal_why or "unreadable"))
        else:
            v.problems.append(Problem(None, _not_a_pack(data)))
        return v
    problems = v.problems
    contents = _container(data, seal, seal_raw, problems)
    sealed = {m["name"]: m["sha256"] for m in seal["members"]}
    v.members = len(sealed) + 1
    with tempfile.TemporaryDirectory(prefix="croupier-verify-") as tmpdir:
        tmp = Path(tmpdir)
        for name, sha in sealed.items():
            if name not in contents:
                continue
            actual = _sha256(contents[name])
            if actual != sha:
                why = f"its content is not as sealed (sha256 {actual[:16]}…, sealed {sha[:16]}…)"
                if name.startswith(f"{TRACES_DIR}/"):
                    problems.extend(_trace_problems(name, contents[name], why, tmp))
                else:
                    problems.append(Problem(name, why))
        if problems:
            return v
        try:
            _meaning(v, contents, seal, tmp, recheck)
        except Exception as exc:  # noqa: BLE001 — a sealed pack of hostile JSON: a finding, never a traceback
            problems.append(Problem(None, f"cannot be verified: its report or manifest is not what croupier "
                                          f"writes ({type(exc).__name__}: {exc})"))
    return v


def _meaning(v: Verification, contents: dict[str, bytes], seal: dict[str, Any], tmp: Path, recheck: bool) -> None:
    """Every byte is as sealed: now whether it holds together."""
    problems = v.problems
    for name, required in REPORT_MEMBERS:
        if required and name not in contents:
            problems.append(Problem(name, "missing: a pack holds it"))
    if problems:
        return
    manifest = _load_json(MANIFEST_NAME, contents[MANIFEST_NAME], problems)
    report = _load_json("report.json", contents["report.json"], problems)
    if not isinstance(manifest, dict) or not isinstance(report, dict):
        if not problems:
            problems.append(Problem(None, "report.json or manifest.json is no JSON object"))
        return
    manifest_sha = _sha256(contents[MANIFEST_NAME])
    named = (report.get("manifest") or {}).get("sha256") if isinstance(report.get("manifest"), dict) else None
    if named != manifest_sha:
        problems.append(Problem("report.json", f"names manifest hash {named}, but manifest.json hashes to {manifest_sha}"))
    if seal.get("manifest_sha256") != manifest_sha:
        problems.append(Problem(SEAL_NAME, f"names manifest hash {seal.get('manifest_sha256')}, but manifest.json "
                                           f"hashes to {manifest_sha}"))
    listed: dict[str, dict[str, Any]] = {}
    for kind in ("traces", "inputs"):
        for entry in manifest.get(kind) or []:
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                problems.append(Problem(MANIFEST_NAME, f"an unreadable {kind} entry: {entry!r}"))
                continue
            listed[entry["path"]] = entry
            if entry["path"] not in contents:
                problems.append(Problem(entry["path"], "in the manifest, missing from the pack"))
            elif _sha256(contents[entry["path"]]) != entry.get("sha256"):
                problems.append(Problem(entry["path"], f"its content does not hash to the manifest's {entry.get('sha256')}"))
    for name in contents:
        if name.startswith((f"{TRACES_DIR}/", f"{INPUTS_DIR}/")) and name not in listed:
            problems.append(Problem(name, "in the pack, not in the manifest"))
    traces = [n for n in contents if n.startswith(f"{TRACES_DIR}/")]
    inputs = [n for n in contents if n.startswith(f"{INPUTS_DIR}/")]
    v.traces, v.inputs = len(traces), len(inputs)
    input_hashes = {_sha256(contents[n]) for n in inputs}
    _provenance(report, input_hashes, problems)
    import hil.trace as trace

    paths: dict[str, Path] = {}
    for i, name in enumerate(traces):
        p = tmp / f"trace-{i}.sqlite"
        p.write_bytes(contents[name])
        paths[name] = p
        entry = listed.get(name, {})
        chain = _chain(p)
        if chain["chain"].startswith("unavailable"):
            problems.append(Problem(name, "cannot verify its hash chain: " + chain["chain"]))
            continue
        if chain["chain"] != "intact":
            breaks = trace.verify_chain(p) if chain["chain"].startswith("broken") else []
            problems.extend(_break_problems(name, "hash chain broken", breaks))
            if not chain["chain"].startswith("broken"):
                problems.append(Problem(name, chain["chain"]))
            continue
        if entry.get("chain_head") is not None and entry["chain_head"] != chain["chain_head"]:
            problems.append(Problem(name, f"its chain head {chain['chain_head']} is not the manifest's {entry['chain_head']}"))
        _trace_meta(name, p, input_hashes, problems)
    if problems or not recheck:
        return
    _recheck(v, report, paths)
    if "junit.xml" in contents:
        from hil.report import write_junit

        write_junit(report, tmp / "junit.xml")
        if (tmp / "junit.xml").read_bytes() != contents["junit.xml"]:
            problems.append(Problem("junit.xml", "is not the JUnit report report.json gives (hil.report.write_junit)"))


def _provenance(report: dict[str, Any], input_hashes: set[str], problems: list[Problem]) -> None:
    """Every file hash report.json's provenance names is an input in the pack."""
    prov = report.get("provenance") or {}
    named: list[tuple[str, Any]] = []
    for key in ("bench", "rules", "roulette_x_rules"):
        if isinstance(prov.get(key), dict):
            named.append((f"provenance {key} ({prov[key].get('source')})", prov[key].get("sha256")))
    for sname, s in (prov.get("scenarios") or {}).items():
        if isinstance(s, dict):
            named.append((f"provenance scenario {sname}", s.get("sha256")))
    for r in report.get("scenarios") or []:
        if isinstance(r, dict) and r.get("sha256"):
            named.append((f"scenario {r.get('name')}", r["sha256"]))
    for what, sha in named:
        if sha is not None and sha not in input_hashes:
            problems.append(Problem("report.json", f"{what} names file hash {sha}: no input in the pack has it"))


def _trace_meta(name: str, path: Path, input_hashes: set[str], problems: list[Problem]) -> None:
    from hil.trace import TraceReader

    try:
        with TraceReader(path) as r:
            meta = r.meta()
    except (sqlite3.DatabaseError, OSError, ValueError) as exc:
        problems.append(Problem(name, f"unreadable as a trace ({exc})"))
        return
    for key in ("scenario_sha256", "rules_sha256"):
        sha = meta.get(key)
        if sha is not None and sha not in input_hashes:
            problems.append(Problem(name, f"its metadata's {key} {sha} is the hash of no input in the pack"))


def _recheck(v: Verification, report: dict[str, Any], paths: dict[str, Path]) -> None:
    """Re-run the checks on every trace report.json names and compare with what it states."""
    from hil.checks import CheckConfig, run_checks
    from hil.runner import judge
    from hil.trace import TraceReader

    accepted = set(inspect.signature(judge).parameters)
    problems = v.problems
    met = 0
    for r in report.get("scenarios") or []:
        if not isinstance(r, dict):
            problems.append(Problem("report.json", f"a scenario entry that is no object: {r!r}"))
            continue
        if r.get("expectation_met") is True:
            met += 1
        tname = r.get("trace")
        if not tname:
            continue
        if tname not in paths:
            problems.append(Problem("report.json", f"scenario {r.get('name')} names trace {tname}, not in the pack"))
            continue
        try:
            with TraceReader(paths[tname]) as reader:
                meta = reader.meta()
            config = CheckConfig.from_json(meta.get("check_config"))
            results = [c.to_json() for c in run_checks(paths[tname], config)]
        except Exception as exc:  # noqa: BLE001 — a trace the checks cannot read is a finding
            problems.append(Problem(tname, f"the checks cannot be re-run on it ({type(exc).__name__}: {exc})"))
            continue
        results = orjson.loads(orjson.dumps(results, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS))
        v.scenarios_rechecked += 1
        reported = {c.get("id"): c for c in r.get("checks") or [] if isinstance(c, dict)}
        again = {c["id"]: c for c in results}
        for cid in sorted(set(reported) | set(again)):
            if cid not in again:
                problems.append(Problem("report.json", f"scenario {r.get('name')}: check {cid} is reported, but the "
                                                       f"checks re-run on {tname} give none"))
                continue
            if cid not in reported:
                problems.append(Problem("report.json", f"scenario {r.get('name')}: check {cid} is missing from the report"))
                continue
            v.checks_rechecked += 1
            for key, value in again[cid].items():
                if reported[cid].get(key) != value:
                    problems.append(Problem("report.json", f"scenario {r.get('name')}: check {cid}'s {key} is reported as "
                                                           f"{_short(reported[cid].get(key))}, the checks re-run on "
                                                           f"{tname} give {_short(value)}"))
                    break
        expect = meta.get("expect") or {}
        kwargs = {k: v_ for k, v_ in (("expected_pass", expect.get("pass", ())),
                                      ("cut_from_rounds", expect.get("cut_from_rounds"))) if k in accepted}
        try:
            verdict = judge(results, expect.get("fail", []), r.get("error"), **kwargs)
        except Exception as exc:  # noqa: BLE001
            problems.append(Problem(tname, f"its expectation cannot be judged ({type(exc).__name__}: {exc})"))
            continue
        for key in ("outcome", "expectation_met", "unexpected_failures", "missed_failures"):
            if key in verdict and key in r and verdict[key] != r[key]:
                problems.append(Problem("report.json", f"scenario {r.get('name')}: {key} is reported as "
                                                       f"{_short(r[key])}, the re-run checks give {_short(verdict[key])}"))
    summary = report.get("summary") or {}
    if "expectations_met" in summary and summary["expectations_met"] != met:
        problems.append(Problem("report.json", f"its summary counts {summary['expectations_met']} expectation(s) met, "
                                               f"its scenarios {met}"))


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 120 else text[:117] + "…"


def manifest_for_run(out_dir: Path, scenarios, bench, rules, roulette_x=None) -> dict[str, str]:
    """What ``croupier run`` does once the traces are closed: write the manifest of the run's traces
    and inputs; returns ``report["manifest"]``."""
    sha = write_manifest(Path(out_dir), run_inputs(scenarios, bench, rules, roulette_x))
    return {"path": MANIFEST_NAME, "sha256": sha}
