"""Property: no scenario YAML, bench TOML or Rules Submission TOML, however mangled, gets past the
loaders as a traceback; every rejection is a ConfigError naming the file, the line and the field
(issue 13, "Bad input"). Inputs are the bundled files mutated: lines deleted, duplicated, swapped,
re-indented; values replaced by a wrong type, a huge, negative or non-finite number, deep nesting;
unknown and misspelt keys; truncation; random bytes and bad unicode.

They go through the loaders ``croupier run`` calls, in its order (``hil.cli.load_run_inputs``:
``load_scenario`` and ``check_scenario`` against the embedded bench; ``load_bench`` and
``check_scenario`` of normal play on it; ``load_rules`` / ``load_roulette_x_rules``), in-process, from a file on disk (so
the bytes are decoded as the CLI decodes them). Default suite: 1,000 inputs of each kind; the slow
one: ``CROUPIER_FUZZ_N`` (default 10,000). The counts are printed (``-s``) and, with
``CROUPIER_FUZZ_REPORT=FILE``, written to FILE as JSON.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hil.bench import load_bench
from hil.cli import check_scenario
from hil.config import ConfigError
from hil.runner import load_roulette_x_rules, load_rules
from hil.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*/*.yaml"))
RULES = [ROOT / "rules/data/crazy_time_reference.toml", ROOT / "rules/data/crazy_time_rescue_before_top_slot.toml",
         ROOT / "rules/data/roulette_x_reference.toml"]
DEFAULT_BENCH = (ROOT / "hil/data/default_bench.toml").read_text(encoding="utf-8")
#: the bundled bench and the kinds of device a lab's bench names (docs/wire): a real device over
#: Modbus and serial, the actuator, a VISA counter
BENCHES = [DEFAULT_BENCH, DEFAULT_BENCH + '\n[devices.actuator]\nkind = "sim"\npulse_s = 0.05\n'
           'contact_delay_s = 0.002\nmatch_window_s = 0.01\n',
           'schema = 1\nname = "lab"\ntime_scale = 1.0\nmax_clock_drift_ppm = 100\n[devices.wheel]\nkind = "modbus"\n'
           'url = "tcp://127.0.0.1:5020"\nunit = 1\ntimeout_s = 0.5\npoll_period_s = 0.002\n'
           'control = "tcp://127.0.0.1:5021?token=00112233445566778899aabbccddeeff"\n[devices.top_slot]\n'
           'kind = "serial"\nurl = "loop://"\n[devices.wagering]\nkind = "sim"\n[devices.wagering.params]\nseats = 7\n'
           'lockout_latency_mean_s = 0.005\n[instruments.lockout_counter]\nresource = "TCPIP0::10.0.0.4::inst0::INSTR"\n'
           'timeout_s = 2.0\nresolution_s = 1e-10\n']
EMBEDDED = load_bench()
TEXTS = {"scenario": [p.read_text(encoding="utf-8") for p in SCENARIOS], "bench": BENCHES,
         "rules": [p.read_text(encoding="utf-8") for p in RULES]}

YAML_VALUES = ["[1, 2]", "{a: 1}", "'text'", "true", "null", "", "-1", "0", "-0.5", ".inf", "-.inf", ".nan", "1.0e+30",
               "1.0e+400", str(2**63), str(2**64), str(10**30), str(-(2**63) - 1), "9" * 400, "0x7fffffffffffffffff",
               "2026-13-45", "!!binary AAAA", "!!python/object:os.system x", "&a 1", "*a", "|", "'unterminated",
               "[" * 40 + "]" * 40, "[" * 2000 + "]" * 2000, "{x: " * 500 + "1" + "}" * 500, "é\u0301", "\ufeff", "\x07"]
TOML_VALUES = ["[1, 2]", "{a = 1}", '"text"', "true", "", "-1", "0", "-0.5", "inf", "-inf", "nan", "+nan", "1e30", "1e400",
               str(2**63), str(2**64), str(10**30), str(-(2**63) - 1), "9" * 400, "0x7fffffffffffffffff", "1979-05-27T07:32",
               "2026-13-45", '"unterminated', "'''", "[" * 40 + "]" * 40, "[" * 2000 + "]" * 2000,
               "{x = " * 500 + "1" + "}" * 500, '"\\ud800"', '"\\u0000"', "\x07"]
NAMES = ["bogus", "seed", "count", "kind", "params", "schema", "name", "devices", "limits", "seats", "probe"]
BAD_BYTES = [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf", b"\xf4\x90\x80\x80", b"\r", b"\t"]

COUNTS: dict[str, Counter] = {kind: Counter() for kind in TEXTS}


def mutate(text: str, rnd: random.Random, toml: bool) -> bytes:
    """1-3 mutations of ``text`` (the bundled file), as the bytes a file would hold."""
    lines = text.splitlines()
    tail: list[bytes] = []
    for _ in range(rnd.randint(1, 3)):
        op = rnd.randrange(12)
        i = rnd.randrange(len(lines)) if lines else 0
        if not lines:
            lines = [""]
        if op == 0:  # delete a line
            del lines[i]
        elif op == 1:  # duplicate a line (a key given twice)
            lines.insert(i, lines[i])
        elif op == 2:  # swap two lines
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op in (3, 4, 5):  # a value of the wrong kind or magnitude
            sep = " = " if toml else ": "
            candidates = [k for k, ln in enumerate(lines) if sep in ln and not ln.lstrip().startswith("#")]
            if candidates:
                k = rnd.choice(candidates)
                key = lines[k].split(sep, 1)[0]
                lines[k] = key + sep + rnd.choice(TOML_VALUES if toml else YAML_VALUES)
        elif op == 6:  # a number in a line scaled, negated or made huge
            nums = [(k, m) for k, ln in enumerate(lines) for m in re.finditer(r"\d+(\.\d+)?", ln)]
            if nums:
                k, m = rnd.choice(nums)
                new = rnd.choice(["-" + m[0], m[0] + "000000000000", "1e308" if toml else "1.0e+308", "0", "." + m[0]])
                lines[k] = lines[k][:m.start()] + new + lines[k][m.end():]
        elif op == 7:  # an unknown or misspelt key
            name = rnd.choice(NAMES)
            if rnd.random() < 0.5 and len(name) > 2:
                cut = rnd.randrange(len(name))
                name = name[:cut] + name[cut + 1:]
            indent = re.match(r"\s*", lines[i])[0]
            lines.insert(i, f"{indent}{name} = 1" if toml else f"{indent}{name}: 1")
        elif op == 8:  # re-indented
            lines[i] = rnd.choice(["", "  ", "    ", "\t", " "]) + lines[i].lstrip()
        elif op == 9:  # truncated
            cut = rnd.randrange(len(text) + 1)
            lines = text[:cut].splitlines()
        elif op == 10:  # random bytes
            tail.append(bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 16))))
        else:  # bad unicode at a random place of a line
            b = rnd.choice(BAD_BYTES)
            ln = lines[i].encode("utf-8", "surrogateescape")
            cut = rnd.randrange(len(ln) + 1)
            lines[i] = (ln[:cut] + b + ln[cut:]).decode("utf-8", "surrogateescape")
    body = "\n".join(lines) + ("\n" if rnd.random() < 0.9 else "")
    return body.encode("utf-8", "surrogateescape") + b"".join(tail)


def load(kind: str, path: Path, base: int) -> None:
    """What ``croupier run`` loads of this kind (``hil.cli.load_run_inputs``), the other inputs the defaults."""
    if kind == "scenario":
        check_scenario(load_scenario(path), EMBEDDED)
    elif kind == "bench":
        check_scenario(NORMAL_PLAY, load_bench(path))
    elif RULES[base].name.startswith("roulette_x"):
        load_roulette_x_rules(path)
    else:
        load_rules(path)


NORMAL_PLAY = load_scenario(ROOT / "scenarios/crazy_time/normal_play.yaml")
FILE_LEVEL = ("YAML syntax", "TOML syntax", "YAML:", "TOML:", "not UTF-8", "a scenario is a YAML mapping", "cannot read")


def check_one(kind: str, base: int, rnd: random.Random, tmp: Path) -> None:
    data = mutate(TEXTS[kind][base], rnd, toml=kind != "scenario")
    path = tmp / ("mutant.yaml" if kind == "scenario" else "mutant.toml")
    path.write_bytes(data)
    c = COUNTS[kind]
    c["inputs"] += 1
    try:
        load(kind, path, base)
    except ConfigError as exc:
        # the file named (a scenario's own Rules Submission would name that file: none is mutated
        # here); a bench with fewer seats than normal play's players is named in the scenario's error
        assert exc.source == str(path) or (kind == "bench" and str(path) in exc.message), (str(exc), data[:2000])
        assert exc.field or exc.message.startswith(FILE_LEVEL), ("no field", str(exc), data[:2000])
        if exc.line is None:
            # only a field the file lacks has no line to name
            assert "Field required" in exc.message, ("no line", str(exc), data[:2000])
            c["rejected_missing_field_no_line"] += 1
        else:
            # (YAML also breaks lines at \r, NEL, LS and PS: str.splitlines counts those and more)
            most = len(data.decode("utf-8", "replace").splitlines()) + 1
            assert 1 <= exc.line <= most, ("line past the file", str(exc), data[:2000])
            c["rejected_with_line"] += 1
        c["rejected"] += 1
        if "did you mean" in exc.message:
            c["rejected_with_suggestion"] += 1
        return
    c["accepted"] += 1  # any other exception propagates: a traceback fails the property


def run_property(kind: str, n: int, tmp_path: Path) -> None:
    # Hypothesis draws the file and a seed of the mutations (a failing input is reproduced by its
    # seed: ``check_one(kind, base, random.Random(seed), tmp)``); drawing each mutation from
    # Hypothesis costs about as much as loading the file.
    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(base=st.integers(0, len(TEXTS[kind]) - 1), seed=st.integers(0, 2**64 - 1))
    def prop(base: int, seed: int) -> None:
        check_one(kind, base, random.Random(seed), tmp_path)

    before = COUNTS[kind]["inputs"]
    prop()
    c = COUNTS[kind]
    assert c["inputs"] - before >= n * 0.9, c  # hypothesis ran (about) the inputs asked for
    assert c["rejected"] > 0.5 * c["inputs"], c  # the mutants are mostly bad: a loader that accepts them all is broken
    report = {k: dict(v) | {"tracebacks": 0} for k, v in COUNTS.items() if v}
    print(json.dumps({"bad_input_property": report}))
    if out := os.environ.get("CROUPIER_FUZZ_REPORT"):
        Path(out).write_text(json.dumps(report, indent=2), encoding="utf-8")


#: inputs of each kind: the default suite's, and the slow one's (``CROUPIER_FUZZ_N``)
QUICK_N = 1_000
SLOW_N = int(os.environ.get("CROUPIER_FUZZ_N", "10000"))


@pytest.mark.parametrize("kind", ["scenario", "bench", "rules"])
def test_mutated_inputs_are_refused_cleanly(kind, tmp_path):
    run_property(kind, QUICK_N, tmp_path)


@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.timeout(900)  # 10^4 inputs: ~25-40 s of CPU each kind; a loaded machine gives it less
@pytest.mark.parametrize("kind", ["scenario", "bench", "rules"])
def test_mutated_inputs_are_refused_cleanly_at_scale(kind, tmp_path):
    run_property(kind, SLOW_N, tmp_path)


def test_a_mutant_of_each_kind_is_refused_by_the_command_line(tmp_path):
    """The same loaders behind ``croupier run``: exit 2, file and line on stderr, nothing run."""
    from typer.testing import CliRunner

    from hil.cli import app

    sc, bench, rules = tmp_path / "s.yaml", tmp_path / "b.toml", tmp_path / "r.toml"
    sc.write_text(TEXTS["scenario"][0] + "seed: 1\n", encoding="utf-8")
    bench.write_text(DEFAULT_BENCH.replace("seats = 7", "seats = inf"), encoding="utf-8")
    rules.write_text(TEXTS["rules"][0] + "[limits\n", encoding="utf-8")
    for args, where in ((["run", str(sc)], f"{sc}:"), (["run", "--bench", str(bench)], f"{bench}:"),
                        (["run", "--rules", str(rules)], f"{rules}:")):
        res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "out")])
        assert res.exit_code == 2 and where in res.output and "Traceback" not in res.output, res.output
        assert re.search(re.escape(where) + r"\d+: ", res.output), res.output
    assert not (tmp_path / "out").exists()
