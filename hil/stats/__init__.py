"""Statistics of outcomes (issue 15): the data contract (``hil.stats.data``), the battery of
tests a lab runs on outcome logs (``hil.stats.battery``), the sample-size planner
(``hil.stats.plan``), biased synthetic data (``hil.stats.synth``) and the sequential monitor
(``hil.stats.sequential``). docs/analyze.md and docs/plan.md describe them."""

from hil.stats.data import ABSENT, Alphabet, OutcomeData

__all__ = ["ABSENT", "Alphabet", "OutcomeData"]
