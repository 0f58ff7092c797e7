"""Helpers shared by the test areas (start real servers, build skill folders)."""
