"""Boundary search for the wagering device's lock-out latency.

Each round the rig presses a seat button ``presses`` times around the dealer's lock-out
command. The presses before the boundary are accepted, those after it are locked out; the
latency of that round lies between the last accepted and the first rejected press. The window
of the next round is centred on what was found so far and narrowed to the resolution
``step_s``; a window that missed the boundary (all accepted, or all rejected) is moved and
widened. A fixed random phase per round (within one spacing) keeps the presses from sitting
on the same grid, so over rounds the bracket narrows below the spacing as well.

The croupier adds one sentinel press at the budget itself, so every round shows whether the
lock-out took effect within the budget even when the window missed. This decides only *where
to press*. The verdict is ``CT-lockout``'s, from the trace alone.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass
class BoundarySearch:
    step_s: float  # the finest spacing between presses (the resolution)
    presses: int  # presses per round
    center_s: float  # current estimate of the boundary, after the command
    width_s: float  # current window width
    max_width_s: float  # never search wider than this
    recent: list[float] = field(default_factory=list)  # midpoints of the latest brackets
    window: tuple[float, float] = (0.0, float("inf"))  # the span of the last offsets handed out

    #: brackets remembered to place the window (their spread sets its width: the latency jitters)
    MEMORY = 20

    @classmethod
    def for_budget(cls, budget_s: float, step_s: float, presses: int) -> BoundarySearch:
        """Start with a window of twice the budget, from the command on."""
        width = max(2 * budget_s, step_s * presses)
        return cls(step_s, presses, width / 2, width, max_width_s=max(width, 16 * budget_s))

    def offsets(self, phase: float) -> list[float]:
        """This round's press offsets from the command (s); ``phase`` in [0, 1)."""
        spacing = self.width_s / self.presses
        start = max(0.0, self.center_s - self.width_s / 2)  # the actuator presses after the command
        offsets = [start + (i + phase) * spacing for i in range(self.presses)]
        self.window = (offsets[0], offsets[-1])
        return offsets

    def update(self, answers: list[tuple[float, bool]]) -> tuple[float, float] | None:
        """Learn from this round's ``(offset_s, accepted)`` probe answers; returns the bracket
        found, if any. Presses outside the window handed out (e.g. the croupier's sentinel at
        the budget) are not the search's: a bracket reaching out to them is a missed window."""
        lo_w, hi_w = self.window
        after = sorted(a for a in answers if a[0] >= 0 and lo_w - 1e-12 <= a[0] <= hi_w + 1e-12)
        if not after:
            return None
        accepted = [o for o, ok in after if ok]
        lo = max(accepted, default=0.0)
        hi = next((o for o, ok in after if not ok and o > lo), None)
        if hi is not None and accepted:
            self.recent = (self.recent + [(lo + hi) / 2])[-self.MEMORY:]
            spread = max(self.recent) - min(self.recent)
            self.center_s = statistics.median(self.recent)
            self.width_s = min(max(self.step_s * self.presses, 2.0 * spread, self.width_s / 2), self.max_width_s)
            return lo, hi
        if hi is None:  # everything accepted: the boundary is later than the window
            self.center_s = after[-1][0] + self.width_s
            self.width_s = min(2 * self.width_s, self.max_width_s)
        else:  # nothing accepted: the boundary is before the first press
            first = after[0][0]
            self.center_s, self.width_s = first / 2, max(first, self.step_s * self.presses)
        return None
