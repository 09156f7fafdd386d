from __future__ import annotations

import pytest


class TraceSink:
    """Telemetry sink for device tests: records (sim time, device, kind, payload)."""

    def __init__(self, env):
        self.env, self.events = env, []

    def __call__(self, device, kind, payload):
        self.events.append((self.env.now, device, kind, payload))

    def of(self, kind):
        return [e for e in self.events if e[2] == kind]


@pytest.fixture
def sink_factory():
    return TraceSink
