"""The mutation tier (``@pytest.mark.mutation``, tests/mutation/test_mutmut.py) runs only with
CROUPIER_MUTATION=1 (``make mutation``): a mutmut run over rules/ and hil/checks/ takes hours on
this machine, past any suite's budget. The planted-bug runs (each bug applied to a copy of the repo and its
catchers run there in a pytest subprocess: ~2 CPU-minutes) are in this tier too: in `make test` they starved
the timing-sensitive PTY conformance tests running beside them. `make test` keeps the catalogue's own checks
(each patch applies once and compiles, each catcher exists) and the catchers themselves."""

from __future__ import annotations

import os

import pytest

MUTATION = os.environ.get("CROUPIER_MUTATION") == "1"


def pytest_collection_modifyitems(config, items):
    if MUTATION:
        return
    skip = pytest.mark.skip(reason="the mutation tier (hours): make mutation, or CROUPIER_MUTATION=1")
    for item in items:
        if item.get_closest_marker("mutation"):
            item.add_marker(skip)
