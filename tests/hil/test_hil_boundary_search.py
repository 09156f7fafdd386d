"""The lock-out boundary search converges on the boundary and recovers from a miss."""

from hil.lockout import BoundarySearch


def answers(offsets, boundary):
    return [(o, o < boundary) for o in offsets]


def test_converges_to_the_resolution():
    bs = BoundarySearch.for_budget(budget_s=0.010, step_s=0.0005, presses=8)
    bracket = None
    for i in range(6):
        bracket = bs.update(answers(bs.offsets(phase=(i * 0.37) % 1), boundary=0.0043))
    assert bracket is not None and bracket[0] < 0.0043 <= bracket[1]
    assert bracket[1] - bracket[0] <= 0.0005 + 1e-12
    assert abs(bs.center_s - 0.0043) < 0.001


def test_window_that_missed_moves_and_widens():
    bs = BoundarySearch.for_budget(budget_s=0.010, step_s=0.0005, presses=8)
    width = bs.width_s
    assert bs.update(answers(bs.offsets(0.5), boundary=1.0)) is None  # everything accepted
    assert bs.width_s == min(2 * width, bs.max_width_s) and bs.center_s > width / 2
    for _ in range(10):
        if bs.update(answers(bs.offsets(0.5), boundary=0.120)):
            break
    assert bs.offsets(0.0)[0] < 0.120 < bs.offsets(0.0)[-1] + bs.width_s
