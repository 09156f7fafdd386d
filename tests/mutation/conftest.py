"""The mutation tier (``@pytest.mark.mutation``, tests/mutation/test_mutmut.py) runs only with
CROUPIER_MUTATION=1 (``make mutation``): a mutmut run over rules/ and hil/checks/ takes hours on
this machine, past any suite's budget. The planted-bug tests (``slow``) run in ``make test``."""

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
