"""Bisection algorithms (Kiln's bisect, written from the documentation): find insertion points
in a sorted list and insert while keeping it sorted."""

__all__ = ["bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right"]


def _bounds(a, lo, hi):
    if lo < 0:
        raise ValueError("lo must be non-negative")
    if hi is None:
        hi = len(a)
    return lo, hi


def bisect_right(a, x, lo=0, hi=None, *, key=None):
    """The index where x would be inserted after any equal items (all a[:i] <= x < a[i:])."""
    lo, hi = _bounds(a, lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        v = a[mid] if key is None else key(a[mid])
        if x < v:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bisect_left(a, x, lo=0, hi=None, *, key=None):
    """The index where x would be inserted before any equal items (all a[:i] < x <= a[i:])."""
    lo, hi = _bounds(a, lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        v = a[mid] if key is None else key(a[mid])
        if v < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def insort_right(a, x, lo=0, hi=None, *, key=None):
    """Insert x into the sorted list a, after any equal items."""
    k = x if key is None else key(x)
    lo = bisect_right(a, k, lo, hi, key=key)
    a.insert(lo, x)


def insort_left(a, x, lo=0, hi=None, *, key=None):
    """Insert x into the sorted list a, before any equal items."""
    k = x if key is None else key(x)
    lo = bisect_left(a, k, lo, hi, key=key)
    a.insert(lo, x)


bisect = bisect_right
insort = insort_right
