"""Ordering exactly as the Dart VM's ``List.sort`` and ``double.compareTo`` do.

The product sorts scored lists with ``List.sort``, which is not stable: up to 33
items it is an insertion sort (stable), beyond that a dual-pivot quicksort whose
placement of equal items depends on the whole list. Which of two equally scored
facts lands tenth (and so is shown) is decided here, so we run the same algorithm
(the SDK's ``sdk/lib/internal/sort.dart``, re-expressed in Python).
"""

from __future__ import annotations

import math
from typing import Callable, TypeVar

__all__ = ["dart_compare_doubles", "dart_sort"]

_T = TypeVar("_T")


def dart_compare_doubles(a: float, b: float) -> int:
    """Dart's ``double.compareTo``: -0.0 sorts before 0.0, NaN after everything."""
    if a < b:
        return -1
    if a > b:
        return 1
    if a == b:
        if a == 0.0:
            a_neg, b_neg = math.copysign(1.0, a) < 0, math.copysign(1.0, b) < 0
            return 0 if a_neg == b_neg else (-1 if a_neg else 1)
        return 0
    a_nan, b_nan = a != a, b != b
    return 0 if a_nan and b_nan else (1 if a_nan else -1)


def dart_sort(items: list[_T], compare: Callable[[_T, _T], int]) -> None:
    """Sort ``items`` in place exactly as the Dart VM's ``List.sort`` orders them."""
    _sort_range(items, 0, len(items) - 1, compare)


def _sort_range(a: list[_T], left: int, right: int, cmp: Callable[[_T, _T], int]) -> None:
    if right - left <= 32:
        for i in range(left + 1, right + 1):
            el, j = a[i], i
            while j > left and cmp(a[j - 1], el) > 0:
                a[j] = a[j - 1]
                j -= 1
            a[j] = el
    else:
        _dual_pivot(a, left, right, cmp)


def _dual_pivot(a: list[_T], left: int, right: int, cmp: Callable[[_T, _T], int]) -> None:
    sixth = (right - left + 1) // 6
    mid = (left + right) // 2
    idx = (left + sixth, mid - sixth, mid, mid + sixth, right - sixth)
    el = [a[i] for i in idx]
    for x, y in ((0, 1), (3, 4), (0, 2), (1, 2), (0, 3), (2, 3), (1, 4), (1, 2), (3, 4)):
        if cmp(el[x], el[y]) > 0:
            el[x], el[y] = el[y], el[x]
    p1, p2 = el[1], el[3]
    a[idx[0]], a[idx[2]], a[idx[4]] = el[0], el[2], el[4]
    a[idx[1]], a[idx[3]] = a[left], a[right]
    less, great = left + 1, right - 1
    same = cmp(p1, p2) == 0

    def take_from_great(k: int, ak: _T) -> None:
        # Move a[great] to k (via ``less`` when it belongs left of pivot 1), ak to great.
        nonlocal less, great
        if cmp(a[great], p1) < 0:
            a[k] = a[less]
            a[less] = a[great]
            less += 1
        else:
            a[k] = a[great]
        a[great] = ak
        great -= 1

    k = less
    while k <= great:
        ak = a[k]
        if same:
            c = cmp(ak, p1)
            if c < 0:
                if k != less:
                    a[k], a[less] = a[less], ak
                less += 1
            elif c > 0:
                while cmp(a[great], p1) > 0:
                    great -= 1
                take_from_great(k, ak)
        elif cmp(ak, p1) < 0:
            if k != less:
                a[k], a[less] = a[less], ak
            less += 1
        elif cmp(ak, p2) > 0:
            while cmp(a[great], p2) > 0:
                great -= 1
                if great < k:
                    break
            else:
                take_from_great(k, ak)
        k += 1

    a[left], a[less - 1] = a[less - 1], p1
    a[right], a[great + 1] = a[great + 1], p2
    _sort_range(a, left, less - 2, cmp)
    _sort_range(a, great + 2, right, cmp)
    if same:
        return
    if less < idx[0] and great > idx[4]:
        while cmp(a[less], p1) == 0:
            less += 1
        while cmp(a[great], p2) == 0:
            great -= 1
        k = less
        while k <= great:
            ak = a[k]
            if cmp(ak, p1) == 0:
                if k != less:
                    a[k], a[less] = a[less], ak
                less += 1
            elif cmp(ak, p2) == 0:
                while cmp(a[great], p2) == 0:
                    great -= 1
                    if great < k:
                        break
                else:
                    take_from_great(k, ak)
            k += 1
    _sort_range(a, less, great, cmp)
