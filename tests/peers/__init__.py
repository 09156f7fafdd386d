"""Peers the project did not write: devices implemented from the documentation alone."""
