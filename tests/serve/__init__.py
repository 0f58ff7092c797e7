"""Tests of `skill-catalog serve`."""
