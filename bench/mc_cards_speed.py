"""Card side wagers' Monte Carlo kernels (rules.mc.cards): hands per CPU second per wager, next to
numpy's PCG64 ``integers`` throughput measured in the same run (the RNG limit). This machine is
shared: read the ratios.

A "hand" is one deal settled under every paytable the options select: 21+3 deals three cards
(player's two, dealer's up card) and settles all eleven paytables; Royal Match and King's Bounty
four (the hole card too); Blazing 7's three; Trips seven; Play the Board five; Bad Beat nine
(board, player, dealer: two 7-card hands evaluated, both readings settled); Ultimate Pairs two
(paytable F four). The blackjack wagers at 6 decks, one chunk of 2**20 hands per call, the best of
``--repeat``. The RNG limit: ``Generator(PCG64).integers(0, 52, 2**24)`` as int64 (numpy's
default) and as uint16 (what the kernels draw). The last line is JSON.

    .venv/bin/python bench/mc_cards_speed.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.mc import cards  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mc_speed import cpu_rate  # noqa: E402  (one timing rule for both benches)

#: (label, game, options keywords)
RUNS = (
    ("21+3, 11 paytables, 6 decks", "twenty-one-plus-three", {}),
    ("Royal Match, 6 decks", "royal-match", {}),
    ("King's Bounty B, 6 decks", "kings-bounty", {}),
    ("Blazing 7's, 6 decks", "blazing-sevens", {}),
    ("Blazing 7's multi A+B, 6 decks", "blazing-sevens-multi", {}),
    ("UTH Trips E", "uth-trips", {}),
    ("UTH Bad Beat C, both readings", "uth-bad-beat", {}),
    ("Play the Board A", "play-the-board", {"paytable": "A"}),
    ("Ultimate Pairs A", "ultimate-pairs", {"paytable": "A"}),
    ("Ultimate Pairs F (dealer's two)", "ultimate-pairs", {"paytable": "F"}),
    ("Criss-Cross Ultimate Pairs A", "criss-cross-ultimate-pairs", {"paytable": "A"}),
)
CHUNK = 1 << 20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.Generator(np.random.PCG64(1))
    size = 1 << 24
    limit = cpu_rate(lambda: rng.integers(0, 52, size), size, min_s=0.3, repeat=args.repeat)
    limit16 = cpu_rate(lambda: rng.integers(0, 52, size, dtype=np.uint16), size, min_s=0.3, repeat=args.repeat)
    out: dict = {"rng_ints_per_s": limit, "rng_uint16_per_s": limit16, "hands_per_s": {}}
    print(f"numpy PCG64 integers: {limit / 1e6:.0f} M/s int64, {limit16 / 1e6:.0f} M/s uint16 (per core)")
    print(f"{'wager':34} {'M hands/s':>10} {'/ int64 limit':>14} {'goal 1 M/s':>11}")
    for label, name, kw in RUNS:
        game = cards.GAMES[name]
        options = game.options(**kw)
        game.kernel(rng, 1024, options)  # warm the paytables' caches
        rate = cpu_rate(lambda: game.kernel(rng, CHUNK, options), CHUNK, min_s=0.3, repeat=args.repeat)
        out["hands_per_s"][label] = rate
        print(f"{label:34} {rate / 1e6:10.2f} {rate / limit:14.4f} {rate / 1e6:10.1f}x")
    out["cards_hands_per_s"] = min(out["hands_per_s"].values())
    out["cards_rng_ratio"] = out["cards_hands_per_s"] / limit
    print(json.dumps(out))


if __name__ == "__main__":
    main()
