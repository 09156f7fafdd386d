"""The evidence pack (hil/pack.py, docs/pack.md): a tiny real run packed, verified, and tampered with
one byte at a time — every member's header, content and padding, the end marker, a seeded random
sample — plus members added, dropped or renamed, files that are no pack, and a report edited to
change a verdict (its manifest recomputed, sealed again)."""

from __future__ import annotations

import gzip
import io
import json
import random
import shutil
import tarfile
import zipfile
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from hil.cli import app
from hil.pack import (BLOCK, MANIFEST_NAME, SEAL_NAME, build_archive, seal_and_build, verify_pack, write_manifest,
                      write_pack)
from hil.trace import TraceReader

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = [REPO / "scenarios" / "crazy_time" / "bonus_coin_flip.yaml",
             REPO / "scenarios" / "roulette" / "roulette_normal_play.yaml"]


def _small_html(report: dict, out_dir: Path) -> Path:
    """report.html without its plots (tests/hil/test_hil_html_report.py tests the real one): the
    pack needs a file there, not matplotlib's few seconds."""
    path = out_dir / "report.html"
    path.write_text(f"<!doctype html><title>run</title><p>manifest {report['manifest']['sha256']}</p>\n")
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """Two scenarios, three rounds each, run in-process by `croupier run` (the manifest's caller)."""
    out = tmp_path_factory.mktemp("pack") / "out"
    with pytest.MonkeyPatch.context() as mp:
        import hil.cli

        mp.setattr(hil.cli, "_write_html", _small_html, raising=False)  # no matplotlib import either
        res = CliRunner().invoke(app, ["run", *map(str, SCENARIOS), "--max-rounds", "3", "--jobs", "1",
                                       "--out", str(out)])
    assert res.exit_code in (0, 1, 3), res.output
    assert (out / MANIFEST_NAME).is_file() and (out / "report.json").is_file()
    return out


@pytest.fixture(scope="module")
def pack_bytes(run_dir, tmp_path_factory) -> bytes:
    return write_pack(run_dir, tmp_path_factory.mktemp("p") / "pack.tar").path.read_bytes()


def members(data: bytes) -> list[tuple[str, bytes]]:
    """The pack's members in order (the standard library's reader: a pack is a plain tar)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tf:
        return [(m.name, tf.extractfile(m).read()) for m in tf.getmembers()]


def layout(data: bytes) -> list[tuple[str, int, int]]:
    """(name, header offset, size) of each member, from the archive as written."""
    out, off = [], 0
    for name, body in members(data):
        out.append((name, off, len(body)))
        off += BLOCK + len(body) + (-len(body) % BLOCK)
    return out


def owner(lay: list[tuple[str, int, int]], offset: int) -> str | None:
    """The member whose header, content or padding holds ``offset`` (None: the end marker)."""
    for name, off, size in lay:
        if off <= offset < off + BLOCK + size + (-size % BLOCK):
            return name
    return None


def flipped(data: bytes, offset: int, xor: int = 0xFF) -> bytes:
    b = bytearray(data)
    b[offset] ^= xor
    return bytes(b)


def test_manifest_covers_traces_and_inputs(run_dir):
    manifest = orjson.loads((run_dir / MANIFEST_NAME).read_bytes())
    report = orjson.loads((run_dir / "report.json").read_bytes())
    assert report["manifest"]["path"] == MANIFEST_NAME
    assert report["manifest"]["sha256"] == __import__("hashlib").sha256((run_dir / MANIFEST_NAME).read_bytes()).hexdigest()
    assert {t["path"] for t in manifest["traces"]} == {r["trace"] for r in report["scenarios"]}
    from hil.trace import chain_head, verify_chain

    for t in manifest["traces"]:
        assert t["chain_head"] == chain_head(run_dir / t["path"]) and verify_chain(run_dir / t["path"]) == [], t
    sources = {i["source"] for i in manifest["inputs"]}
    # each scenario YAML, the bench's embedded resource, the run's two Rules Submissions
    assert {"scenarios/crazy_time/bonus_coin_flip.yaml", "scenarios/roulette/roulette_normal_play.yaml"} <= sources
    assert any(s.endswith("default_bench.toml") for s in sources)
    assert sum(s.startswith("rules/") for s in sources) >= 2
    assert manifest["tool"]["name"] == "croupier" and "commit" in manifest["git"]
    for entry in manifest["inputs"]:
        assert not Path(entry["path"]).is_absolute() and ".." not in Path(entry["path"]).parts
        assert (run_dir / entry["path"]).is_file()


def test_an_input_outside_the_repository_gets_a_sanitised_name(tmp_path):
    outside = tmp_path / "lab files" / "my bench.toml"
    outside.parent.mkdir()
    outside.write_text("schema = 1\n")
    (tmp_path / "out").mkdir()
    write_manifest(tmp_path / "out", [outside])
    entry = orjson.loads((tmp_path / "out" / MANIFEST_NAME).read_bytes())["inputs"][0]
    assert entry["path"] == "inputs/external/my_bench.toml" and str(tmp_path) not in json.dumps(entry)


def test_verify_passes_and_pack_is_deterministic(run_dir, pack_bytes, tmp_path):
    result = verify_pack(pack_bytes)
    assert result.ok, [str(p) for p in result.problems]
    assert result.traces == 2 and result.scenarios_rechecked == 2 and result.checks_rechecked > 10
    again = write_pack(run_dir, tmp_path / "again.tar").path.read_bytes()
    assert again == pack_bytes  # the same run gives the same bytes
    names = [n for n, _ in members(pack_bytes)]
    html = ["report.html"] if (run_dir / "report.html").exists() else []
    assert names[:4 + len(html)] == [SEAL_NAME, "report.json", *html, "junit.xml", MANIFEST_NAME]
    assert all(not n.startswith("/") and ".." not in n.split("/") for n in names)
    with tarfile.open(fileobj=io.BytesIO(pack_bytes)) as tf:
        assert {(m.mode, m.uid, m.gid, m.uname, m.gname) for m in tf.getmembers()} == {(0o644, 0, 0, "", "")}
        assert len({m.mtime for m in tf.getmembers()}) == 1
    res = CliRunner().invoke(app, ["verify", str(tmp_path / "again.tar")])
    assert res.exit_code == 0 and "verified" in res.output, res.output
    res = CliRunner().invoke(app, ["verify", str(tmp_path / "again.tar"), "--expect-sha256", "ab" * 32])
    assert res.exit_code == 1 and "not the" in res.output, res.output


def test_a_long_member_name_is_split_as_ustar_says():
    name = "inputs/" + "/".join(["d" * 40] * 3) + "/" + "f" * 60 + ".yaml"
    with tarfile.open(fileobj=io.BytesIO(build_archive([(name, b"x: 1\n")], 0))) as tf:
        assert tf.getnames() == [name] and tf.extractfile(name).read() == b"x: 1\n"


def _expect_fail(data: bytes, offset: int, expected: str | None) -> None:
    result = verify_pack(data)
    assert not result.ok, f"a byte flipped at {offset} passed"
    where = [p.member for p in result.problems]
    if expected is None:
        assert any(p.member is None and "end-of-archive" in p.message for p in result.problems), \
            (offset, [str(p) for p in result.problems])
    else:
        assert expected in where, (offset, expected, [str(p) for p in result.problems])


def test_one_byte_flipped_anywhere_fails_naming_the_member(pack_bytes):
    lay = layout(pack_bytes)
    offsets = set()
    for _name, off, size in lay:
        # header: name, mode, size, mtime, checksum, typeflag, magic, uname, prefix, last byte
        offsets |= {off + k for k in (0, 5, 100, 124, 130, 136, 148, 156, 257, 265, 345, 511)}
        body = off + BLOCK
        offsets |= {body, body + size // 2, body + size - 1}
        if size % BLOCK:
            offsets |= {body + size, body + size + (-size % BLOCK) - 1}  # padding
    end = lay[-1][1] + BLOCK + lay[-1][2] + (-lay[-1][2] % BLOCK)
    offsets |= {end, end + 700, len(pack_bytes) - 1}
    rng = random.Random(14)
    offsets |= set(rng.sample(range(len(pack_bytes)), 150))
    for offset in sorted(offsets):
        _expect_fail(flipped(pack_bytes, offset, rng.randrange(1, 256)), offset, owner(lay, offset))


def _events(path: Path) -> tuple[list[tuple], bool]:
    """The events (with their round) the standard reader reads, up to the first it cannot (then True)."""
    got: list[tuple] = []
    try:
        with TraceReader(path) as r:
            for e in r.events():
                got.append((e.round, e.seq, e.sim_time, e.wall_ns, e.device, e.kind, e.payload))
    except Exception:  # noqa: BLE001 — a damaged record: the oracle is the event it stops at
        return got, True
    return got, False


def _oracle_round(original: bytes, before: list[tuple], k: int, scratch: Path) -> int | None:
    """The round whose events the standard reader reads differently (or stops at) once byte ``k`` is
    flipped, when it is the only one affected; None otherwise."""
    scratch.write_bytes(flipped(original, k, 0x01))
    after, damaged = _events(scratch)
    diff = [i for i, (a, b) in enumerate(zip(after, before)) if a != b]
    if damaged and not diff and 0 < len(after) < len(before):
        return before[len(after)][0]
    if not damaged and len(after) == len(before) and diff and len({before[i][0] for i in diff}) == 1:
        return before[diff[0]][0]
    return None


def test_a_flip_in_a_rounds_content_names_the_round(pack_bytes, tmp_path):
    """Oracle, independent of the chain: the round of the first event the standard reader reads
    differently (or stops at) once the byte is flipped — the same round for the bytes 48 before and
    48 after it, so the byte lies well inside that round's stored content (not in a row's few bytes
    of bookkeeping, whose flip may name another round)."""
    lay = layout(pack_bytes)
    name, off, size = next(m for m in lay if m[0].startswith("traces/") and "roulette" in m[0])
    original = pack_bytes[off + BLOCK:off + BLOCK + size]
    scratch = tmp_path / "t.sqlite"
    scratch.write_bytes(original)
    before, damaged = _events(scratch)
    assert not damaged and len({e[0] for e in before}) >= 3
    found: dict[int, int] = {}
    for k in range(148, size - 48, 97):  # past the database header, through the pages
        rnd = _oracle_round(original, before, k, scratch)
        if rnd is None or rnd in found.values() or any(_oracle_round(original, before, k + d, scratch) != rnd
                                                       for d in (-48, 48)):
            continue
        found[k] = rnd
        if len(found) >= 4:
            break
    assert len(found) >= 2, "no byte of a round's stored content found in the trace"
    for k, rnd in found.items():
        result = verify_pack(flipped(pack_bytes, off + BLOCK + k, 0x01))
        assert any(p.member == name and p.round == rnd for p in result.problems), \
            (k, rnd, [str(p) for p in result.problems])


def _seal_of(data: bytes) -> bytes:
    return members(data)[0][1]


def test_extra_missing_and_renamed_members(pack_bytes, tmp_path):
    ms = members(pack_bytes)
    mtime = json.loads(ms[0][1])["mtime"]
    cases = {
        "extra": (ms + [("inputs/extra.toml", b"x = 1\n")], {"inputs/extra.toml"}),
        "missing": ([m for m in ms if not m[0].endswith("bonus_coin_flip.yaml")],
                    {"inputs/scenarios/crazy_time/bonus_coin_flip.yaml"}),
        "renamed": ([(n.replace("roulette_normal_play", "renamed"), d) for n, d in ms],
                    {"inputs/scenarios/roulette/roulette_normal_play.yaml", "inputs/scenarios/roulette/renamed.yaml"}),
    }
    for case, (new, named) in cases.items():
        result = verify_pack(build_archive(new, mtime))  # the old seal kept
        assert not result.ok and named <= {p.member for p in result.problems}, (case, [str(p) for p in result.problems])
    # an extra member appended by the standard library's tar writer
    (tmp_path / "p.tar").write_bytes(pack_bytes)
    with tarfile.open(tmp_path / "p.tar", "a") as tf:
        info = tarfile.TarInfo("notes.txt")
        info.size = 3
        tf.addfile(info, io.BytesIO(b"hi\n"))
    res = CliRunner().invoke(app, ["verify", str(tmp_path / "p.tar")])
    assert res.exit_code == 1 and "notes.txt" in res.output and "Traceback" not in res.output, res.output
    # sealed again with the extra member: the manifest does not list it
    result = verify_pack(seal_and_build(ms[1:] + [("inputs/extra.toml", b"x = 1\n")], mtime))
    assert not result.ok and "inputs/extra.toml" in {p.member for p in result.problems}


def test_files_that_are_no_pack_get_a_clear_error(pack_bytes, tmp_path):
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("report.json", "{}")
    other = io.BytesIO()
    with tarfile.open(fileobj=other, mode="w") as tf:
        info = tarfile.TarInfo("report.json")
        info.size = 2
        tf.addfile(info, io.BytesIO(b"{}"))
    cases = {
        "empty": b"", "text": b"hello\n" * 100, "random": random.Random(1).randbytes(4096),
        "gzip": gzip.compress(pack_bytes, mtime=0), "zip": zbuf.getvalue(), "other tar": other.getvalue(),
        "cut in half": pack_bytes[:len(pack_bytes) // 2], "cut by one byte": pack_bytes[:-1],
        "end marker cut": pack_bytes[:-BLOCK], "seal only": pack_bytes[:BLOCK + 100],
        "trailing bytes": pack_bytes + b"\0" * BLOCK,
    }
    runner = CliRunner()
    for case, data in cases.items():
        result = verify_pack(data)
        assert not result.ok and result.problems, case
        (tmp_path / "x.tar").write_bytes(data)
        res = runner.invoke(app, ["verify", str(tmp_path / "x.tar")])
        assert res.exit_code == 1 and "FAIL" in res.output and "Traceback" not in res.output, (case, res.output)
        assert res.exception is None or isinstance(res.exception, SystemExit), (case, res.exception)
    assert "not a tar archive" in str(verify_pack(cases["random"]).problems[0])
    assert "gzip" in str(verify_pack(cases["gzip"]).problems[0])
    assert "truncated" in " ".join(str(p) for p in verify_pack(cases["cut in half"]).problems)
    res = runner.invoke(app, ["verify", str(tmp_path / "nothing.tar")])
    assert res.exit_code == 2 and "no such file" in res.output


def test_a_report_edited_to_change_a_verdict_is_caught(pack_bytes):
    """The seal catches the edit; sealed again (the manifest recomputed too), the re-run checks do."""
    ms = dict(members(pack_bytes))
    report = orjson.loads(ms["report.json"])
    scenario = report["scenarios"][0]
    check = next(c for c in scenario["checks"] if c["verdict"] == "pass")
    check["verdict"] = "fail"
    manifest = orjson.loads(ms[MANIFEST_NAME])
    manifest["written_utc"] = "2026-01-01T00:00:00+00:00"  # recomputed
    ms[MANIFEST_NAME] = orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    report["manifest"]["sha256"] = __import__("hashlib").sha256(ms[MANIFEST_NAME]).hexdigest()
    ms["report.json"] = orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    order = [n for n, _ in members(pack_bytes)]
    mtime = json.loads(ms[SEAL_NAME])["mtime"]
    old_seal = build_archive([(n, ms[n]) for n in order], mtime)
    result = verify_pack(old_seal)
    assert not result.ok and {"report.json", MANIFEST_NAME} <= {p.member for p in result.problems}
    resealed = seal_and_build([(n, ms[n]) for n in order[1:]], mtime)
    result = verify_pack(resealed)
    assert not result.ok, "a verdict edited in report.json passed"
    assert any(p.member == "report.json" and check["id"] in p.message and "verdict" in p.message
               for p in result.problems), [str(p) for p in result.problems]


def test_a_resealed_pack_of_other_json_or_junit_is_a_finding(pack_bytes):
    ms = dict(members(pack_bytes))
    order = [n for n, _ in members(pack_bytes)][1:]
    mtime = json.loads(ms[SEAL_NAME])["mtime"]
    junit = ms["junit.xml"].replace(b'name="', b'name="x', 1)
    for name, data in (("junit.xml", junit), ("report.json", b'{"manifest": {"sha256": 5}, "scenarios": 7}'),
                       ("report.json", b"[1, 2]"), (MANIFEST_NAME, b'{"traces": {"a": 1}}')):
        result = verify_pack(seal_and_build([(n, data if n == name else ms[n]) for n in order], mtime))
        assert not result.ok and result.problems, name


def test_a_hostile_seal_with_a_valid_self_hash_is_a_finding(pack_bytes):
    """A seal re-hashed after its values were replaced by others of any type: never a traceback."""
    from hil.pack import _seal_bytes, _seal_text

    ms = members(pack_bytes)
    mtime = json.loads(ms[0][1])["mtime"]
    rng = random.Random(5)
    values = [None, -1, 0, 2**70, 1.5, "x", "", [], {}, True, "a" * 300, "../../etc/passwd"]
    for _ in range(60):
        doc = json.loads(ms[0][1])
        target = rng.choice([doc] + doc["members"])
        target[rng.choice(sorted(k for k in target if k != "seal_sha256"))] = rng.choice(values)
        doc["seal_sha256"] = __import__("hashlib").sha256(_seal_text(doc)).hexdigest()
        result = verify_pack(build_archive([(SEAL_NAME, _seal_bytes(doc)), *ms[1:]], mtime))
        assert not result.ok and result.problems


def test_pack_refuses_a_run_folder_changed_since_its_manifest(run_dir, tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("*.tar"))
    trace = next((copy / "traces").iterdir())
    trace.write_bytes(trace.read_bytes() + b"\0")
    res = CliRunner().invoke(app, ["pack", str(copy)])
    assert res.exit_code == 2 and "changed since the run" in res.output and trace.name in res.output, res.output
    res = CliRunner().invoke(app, ["pack", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "report.json" in res.output


def test_run_inputs_include_the_benchs_register_maps_and_visa_file(tmp_path):
    """A bench's vendor register map (relative to the bench file), the shipped map of another Modbus
    device, and a VISA simulation file: every file the bench makes the run read."""
    from hil.bench import load_bench
    from hil.pack import run_inputs
    from hil.runner import load_rules

    shutil.copy(REPO / "hil" / "wire" / "maps" / "wagering.toml", tmp_path / "vendor.toml")
    shutil.copy(REPO / "hil" / "data" / "visa" / "counter.yaml", tmp_path / "counter.yaml")
    (tmp_path / "bench.toml").write_text(
        'schema = 1\nname = "lab"\n'
        '[devices.wagering]\nkind = "modbus"\nurl = "tcp://127.0.0.1:5020"\nregister_map = "vendor.toml"\n'
        '[devices.wheel]\nkind = "modbus"\nurl = "tcp://127.0.0.1:5021"\n'
        f'[instruments.lockout_counter]\nresource = "GPIB0::3::INSTR"\nbackend = "{tmp_path / "counter.yaml"}@sim"\n')
    found = {p.resolve() for p in run_inputs([], load_bench(tmp_path / "bench.toml"), load_rules())}
    assert {(tmp_path / n).resolve() for n in ("bench.toml", "vendor.toml", "counter.yaml")} <= found
    assert (REPO / "hil" / "wire" / "maps" / "money_wheel.toml").resolve() in found
    assert any(p.parent.name == "data" and p.parent.parent.name == "rules" for p in found)
