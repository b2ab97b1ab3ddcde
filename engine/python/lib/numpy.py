"""A small part of NumPy (Kiln's numpy module, written from NumPy's documentation).

Scripts about torch.compile import numpy for a few statistics over timing lists
(`np.mean(times)`, `np.std`, `np.median`, `np.percentile`); that part is here and gives NumPy's
values and result types (`np.float64`, printed `np.float64(1.5)` by repr as NumPy 2 does).
Kiln has no ndarray: anything else NumPy has raises NotImplementedError naming it (through the
module's `__getattr__`), so a script never gets a value NumPy would not give.
"""

import math

# The builtins, kept before this module's own min/max/sum shadow them.
_bmin = min
_bmax = max

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan


class float64(float):
    # Arithmetic keeps the type as NumPy's scalars do (repr shows it).
    def __repr__(self):
        return "np.float64(" + repr(float(self)) + ")"

    def __str__(self):
        return repr(float(self))

    def __add__(self, o):
        return _wrap(float(self) + o)

    def __radd__(self, o):
        return _wrap(o + float(self))

    def __sub__(self, o):
        return _wrap(float(self) - o)

    def __rsub__(self, o):
        return _wrap(o - float(self))

    def __mul__(self, o):
        return _wrap(float(self) * o)

    def __rmul__(self, o):
        return _wrap(o * float(self))

    def __truediv__(self, o):
        return _wrap(float(self) / o)

    def __rtruediv__(self, o):
        return _wrap(o / float(self))

    def __neg__(self):
        return float64(-float(self))

    def __pow__(self, o):
        return _wrap(float(self) ** o)


class int64(int):
    def __repr__(self):
        return "np.int64(" + repr(int(self)) + ")"

    def __str__(self):
        return repr(int(self))


def _wrap(v):
    return float64(v) if isinstance(v, (int, float)) else v


def _values(a, what):
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return [a]
    if not isinstance(a, (list, tuple)):
        raise NotImplementedError("numpy." + what + " of a " + type(a).__name__ +
                                  " is not supported by Kiln (only flat lists and tuples of numbers)")
    for v in a:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise NotImplementedError("numpy." + what + " of a list holding " + type(v).__name__ +
                                      " is not supported by Kiln (only flat lists and tuples of numbers)")
    return list(a)


def _check_axis(axis, what):
    if axis is not None:
        raise NotImplementedError("numpy." + what + " with axis= is not supported by Kiln")


def _empty(what):
    import warnings
    warnings.warn(what, RuntimeWarning)
    return float64(nan)


def _fsum(vals):
    # Left to right. NumPy sums float arrays pairwise in blocks of 8, so for lists longer than 8
    # the last bit of a sum or mean may differ (well inside float64 tolerance).
    s = 0.0
    for v in vals:
        s += float(v)
    return s


def mean(a, axis=None):
    _check_axis(axis, "mean")
    vals = _values(a, "mean")
    if not vals:
        return _empty("Mean of empty slice.")
    return float64(_fsum(vals) / len(vals))


def var(a, axis=None, ddof=0):
    _check_axis(axis, "var")
    vals = _values(a, "var")
    if len(vals) - ddof <= 0:
        return _empty("Degrees of freedom <= 0 for slice")
    m = _fsum(vals) / len(vals)
    return float64(_fsum([(float(v) - m) ** 2 for v in vals]) / (len(vals) - ddof))


def std(a, axis=None, ddof=0):
    v = var(a, axis=axis, ddof=ddof)
    return float64(math.sqrt(v)) if v == v else v


def median(a, axis=None):
    _check_axis(axis, "median")
    vals = sorted(_values(a, "median"))
    n = len(vals)
    if n == 0:
        return _empty("Mean of empty slice.")
    if n % 2:
        return float64(vals[n // 2])
    return float64((float(vals[n // 2 - 1]) + float(vals[n // 2])) / 2)


def percentile(a, q, axis=None):
    _check_axis(axis, "percentile")
    vals = sorted(_values(a, "percentile"))
    if not vals:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    if isinstance(q, (list, tuple)):
        raise NotImplementedError("numpy.percentile of several q is not supported by Kiln (it returns an ndarray)")
    if q < 0 or q > 100:
        raise ValueError("Percentiles must be in the range [0, 100]")
    # NumPy's default "linear" method, in its order of operations: q / 100 first, then the
    # virtual index, then a lerp that works from the nearer end.
    pos = (q / 100) * (len(vals) - 1)
    lo = int(math.floor(pos))
    hi = _bmin(lo + 1, len(vals) - 1)
    t = pos - lo
    a = float(vals[lo])
    b = float(vals[hi])
    if t >= 0.5:
        return float64(b - (b - a) * (1 - t))
    return float64(a + (b - a) * t)


def _extreme(a, what, pick):
    vals = _values(a, what)
    if not vals:
        raise ValueError("zero-size array to reduction operation " + what + " which has no identity")
    r = pick(vals)
    return float64(r) if any(isinstance(v, float) for v in vals) else int64(r)


def min(a, axis=None):
    _check_axis(axis, "min")
    return _extreme(a, "minimum", _bmin)


def max(a, axis=None):
    _check_axis(axis, "max")
    return _extreme(a, "maximum", _bmax)


def sum(a, axis=None):
    _check_axis(axis, "sum")
    vals = _values(a, "sum")
    if any(isinstance(v, float) for v in vals):
        return float64(_fsum(vals))
    s = 0
    for v in vals:
        s += v
    return int64(s)


def sqrt(x):
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        raise NotImplementedError("numpy.sqrt of a " + type(x).__name__ + " is not supported by Kiln (scalars only)")
    if x < 0:
        import warnings
        warnings.warn("invalid value encountered in sqrt", RuntimeWarning)
        return float64(nan)
    return float64(math.sqrt(x))


def __getattr__(name):
    raise NotImplementedError("numpy." + name + " is not supported by Kiln: its numpy holds only mean, "
                              "median, std, var, percentile, min, max, sum, sqrt, pi, e, inf, nan "
                              "over lists of numbers (no ndarray)")
