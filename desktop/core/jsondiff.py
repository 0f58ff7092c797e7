"""Where two JSON values differ, field by field (dotted paths such as ``metadata.build``).

Strict on types (``true`` is not ``1``, ``"1"`` is not ``1``); an integer and a float
with the same value are equal (JSON does not tell them apart).
"""

from __future__ import annotations

import math
from typing import Any


class _Absent:
    """A field one side does not have."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "absent"


ABSENT: Any = _Absent()


def differences(
    expected: Any, actual: Any, path: str = "", *, limit: int = 50
) -> list[tuple[str, Any, Any]]:
    """Up to ``limit`` fields where the two values differ, in field order: (path,
    expected value, actual value), :data:`ABSENT` for a field one side lacks. A list of
    another length differs as a whole."""
    found: list[tuple[str, Any, Any]] = []
    stack: list[tuple[str, Any, Any]] = [(path, expected, actual)]
    while stack and len(found) < limit:
        where, exp, act = stack.pop()
        if isinstance(exp, dict) and isinstance(act, dict):
            keys = sorted(set(exp) | set(act), reverse=True)
            for key in keys:
                sub = f"{where}.{key}" if where else str(key)
                stack.append((sub, exp.get(key, ABSENT), act.get(key, ABSENT)))
            continue
        if isinstance(exp, list) and isinstance(act, list):
            if len(exp) != len(act):
                found.append((where or "(frontmatter)", exp, act))
                continue
            for i in range(len(exp) - 1, -1, -1):
                stack.append((f"{where}[{i}]", exp[i], act[i]))
            continue
        if not scalar_equal(exp, act):
            found.append((where or "(frontmatter)", exp, act))
    return found


def scalar_equal(a: Any, b: Any) -> bool:
    if a is ABSENT or b is ABSENT:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict | list):
        return False  # a container against a scalar was handled above
    return bool(a == b)
