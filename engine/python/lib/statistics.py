"""Basic statistics (Kiln's statistics module, written from the documentation): mean, fmean,
geometric_mean, harmonic_mean, median (low/high/grouped), mode, multimode, quantiles,
variance, pvariance, stdev, pstdev.

Results are rounded once from the exact value where the documentation promises it: float sums
are kept exactly as several non-overlapping floats (Shewchuk's method) and divisions and square
roots are corrected with the rounding error (Kiln has no arbitrary-precision integers for
fractions). All-integer data is computed exactly and stays int when the result is whole.
"""

import math

__all__ = ["NormalDist", "StatisticsError", "fmean", "geometric_mean", "harmonic_mean", "mean", "median",
           "median_grouped", "median_high", "median_low", "mode", "multimode", "pstdev", "pvariance",
           "quantiles", "stdev", "variance", "correlation", "covariance", "linear_regression"]


class StatisticsError(ValueError):
    pass


# ---------------------------------------------------------------- exact float arithmetic

def _two_sum(a, b):
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, err


_SPLITTER = 134217729.0  # 2**27 + 1


def _split(a):
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, err


def _partials_add(partials, x):
    """The exact sum of partials and x, as a new list of non-overlapping partials (increasing
    magnitude)."""
    out = []
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo:
            out.append(lo)
        x = hi
    out.append(x)
    return out


def _collapse(partials):
    """(hi, lo): hi a float near the exact sum of partials, lo the exact remainder's float."""
    hi = 0.0
    for p in reversed(partials):
        hi += p
    rem = _partials_add(partials, -hi)
    lo = 0.0
    for p in reversed(rem):
        lo += p
    return hi, lo


def _exact_sum(values):
    """The exact sum of values as (hi, lo)."""
    partials = []
    for v in values:
        partials = _partials_add(partials, float(v))
    return _collapse(partials)


def _div(hi, lo, d):
    """(hi + lo) / d rounded once (d a float or int)."""
    d = float(d)
    q = hi / d
    p, perr = _two_prod(q, d)
    r = ((hi - p) - perr) + lo
    return q + r / d


def _sqrt_dd(hi, lo):
    """sqrt(hi + lo), corrected for the rounding of hi + lo."""
    if hi <= 0:
        return math.sqrt(hi + lo) if hi + lo > 0 else 0.0
    s = math.sqrt(hi)
    p, perr = _two_prod(s, s)
    return s + (((hi - p) - perr) + lo) / (2.0 * s)


def _all_int(data):
    for x in data:
        if not isinstance(x, int):
            return False
    return True


def _int_result(num, den):
    """num/den as an int when whole, else a float."""
    if num % den == 0:
        return num // den
    return num / den


# ---------------------------------------------------------------- averages

def mean(data):
    """The arithmetic mean (an int for integer data whose mean is whole)."""
    data = list(data)
    n = len(data)
    if n < 1:
        raise StatisticsError("mean requires at least one data point")
    if _all_int(data):
        return _int_result(sum(data), n)
    hi, lo = _exact_sum(data)
    return _div(hi, lo, n)


def fmean(data, weights=None):
    """The mean as a float."""
    data = list(data)
    if weights is None:
        n = len(data)
        if n == 0:
            raise StatisticsError("fmean requires at least one data point")
        hi, lo = _exact_sum(data)
        return (hi + lo) / n
    weights = list(weights)
    if len(weights) != len(data):
        raise StatisticsError("data and weights must be the same length")
    num_hi, num_lo = _exact_sum([x * w for x, w in zip(data, weights)])
    den_hi, den_lo = _exact_sum(weights)
    if den_hi == 0:
        raise StatisticsError("sum of weights must be non-zero")
    return (num_hi + num_lo) / (den_hi + den_lo)


def geometric_mean(data):
    """The geometric mean: exp(fmean(log(x)))."""
    data = list(data)
    if not data:
        raise StatisticsError("geometric mean requires a non-empty dataset containing positive numbers")
    for x in data:
        if x <= 0:
            raise StatisticsError("geometric mean requires a non-empty dataset containing positive numbers")
    return math.exp(fmean([math.log(x) for x in data]))


def harmonic_mean(data, weights=None):
    """The harmonic mean: n / sum(1/x)."""
    data = list(data)
    n = len(data)
    if n < 1:
        raise StatisticsError("harmonic_mean requires at least one data point")
    if weights is None:
        weights = [1] * n
    else:
        weights = list(weights)
    for x in data:
        if x < 0:
            raise StatisticsError("harmonic mean does not support negative values")
    if n == 1 and weights[0] == 1:
        return data[0]
    for x in data:
        if x == 0:
            return 0
    total_w = sum(weights)
    partials = []
    for x, w in zip(data, weights):
        partials = _partials_add(partials, w / x if w else 0.0)
    hi, lo = _collapse(partials)
    if hi + lo <= 0:
        raise StatisticsError("Weighted sum must be positive")
    total_w = float(total_w)
    q = total_w / hi
    p, perr = _two_prod(q, hi)
    r = ((total_w - p) - perr) - q * lo
    return q + r / hi


def _gcd(a, b):
    a = abs(a)
    b = abs(b)
    while b:
        a, b = b, a % b
    return a if a else 1


def median(data):
    """The middle value (the mean of the two middle values for an even count)."""
    data = sorted(data)
    n = len(data)
    if n == 0:
        raise StatisticsError("no median for empty data")
    if n % 2 == 1:
        return data[n // 2]
    i = n // 2
    return (data[i - 1] + data[i]) / 2


def median_low(data):
    """The smaller of the two middle values for an even count."""
    data = sorted(data)
    n = len(data)
    if n == 0:
        raise StatisticsError("no median for empty data")
    if n % 2 == 1:
        return data[n // 2]
    return data[n // 2 - 1]


def median_high(data):
    """The larger of the two middle values for an even count."""
    data = sorted(data)
    n = len(data)
    if n == 0:
        raise StatisticsError("no median for empty data")
    return data[n // 2]


def median_grouped(data, interval=1):
    """The 50th percentile of grouped continuous data (interpolated)."""
    data = sorted(data)
    n = len(data)
    if n == 0:
        raise StatisticsError("no median for empty data")
    if n == 1:
        return data[0]
    x = data[n // 2]
    i = 0
    while i < n and data[i] < x:
        i += 1
    j = i
    while j < n and data[j] == x:
        j += 1
    L = float(x) - float(interval) / 2
    cf = i
    f = j - i
    return L + interval * (n / 2 - cf) / f


def mode(data):
    """The most common value (the first one met, when several are equally common)."""
    data = list(data)
    if not data:
        raise StatisticsError("no mode for empty data")
    return multimode(data)[0]


def multimode(data):
    """All the most common values, in the order first met."""
    counts = {}
    order = []
    for x in data:
        if x in counts:
            counts[x] += 1
        else:
            counts[x] = 1
            order.append(x)
    if not order:
        return []
    best = max(counts.values())
    return [x for x in order if counts[x] == best]


def quantiles(data, *, n=4, method="exclusive"):
    """The n-1 cut points dividing data into n intervals of equal probability."""
    if n < 1:
        raise StatisticsError("n must be at least 1")
    data = sorted(data)
    ld = len(data)
    if ld < 2:
        if ld == 1:
            return [data[0]] * (n - 1)
        raise StatisticsError("must have at least one data point")
    result = []
    if method == "inclusive":
        m = ld - 1
        for i in range(1, n):
            j = i * m // n
            delta = i * m - j * n
            result.append((data[j] * (n - delta) + data[j + 1] * delta) / n)
        return result
    if method == "exclusive":
        m = ld + 1
        for i in range(1, n):
            j = i * m // n
            if j < 1:
                j = 1
            elif j > ld - 1:
                j = ld - 1
            delta = i * m - j * n
            result.append((data[j - 1] * (n - delta) + data[j] * delta) / n)
        return result
    raise ValueError("Unknown method: " + repr(method))


# ---------------------------------------------------------------- spread

def _ss_exact_int(data):
    """For integer data: (n*sum(x*x) - sum(x)**2), exactly."""
    n = len(data)
    s = sum(data)
    s2 = 0
    for x in data:
        s2 += x * x
    return n * s2 - s * s


def _ss_float(data, c=None):
    """Sum of squared deviations from the mean, as (hi, lo)."""
    n = len(data)
    if c is None:
        hi, lo = _exact_sum(data)
        c = _div(hi, lo, n)
    partials = []
    dev_partials = []
    for x in data:
        d, derr = _two_sum(float(x), -c)
        dev_partials = _partials_add(dev_partials, d)
        dev_partials = _partials_add(dev_partials, derr)
        p, perr = _two_prod(d, d)
        partials = _partials_add(partials, p)
        partials = _partials_add(partials, perr)
        partials = _partials_add(partials, 2.0 * d * derr)
    # The mean c is rounded: subtract (sum of deviations)**2 / n.
    sdev, sdev_lo = _collapse(dev_partials)
    partials = _partials_add(partials, -(sdev * sdev) / n)
    return _collapse(partials)


def variance(data, xbar=None):
    """The sample variance (divides by n - 1)."""
    data = list(data)
    n = len(data)
    if n < 2:
        raise StatisticsError("variance requires at least two data points")
    if xbar is None and _all_int(data):
        return _int_result(_ss_exact_int(data), n * (n - 1))
    hi, lo = _ss_float(data, None if xbar is None else float(xbar))
    return _div(hi, lo, n - 1)


def pvariance(data, mu=None):
    """The population variance (divides by n)."""
    data = list(data)
    n = len(data)
    if n < 1:
        raise StatisticsError("pvariance requires at least one data point")
    if mu is None and _all_int(data):
        return _int_result(_ss_exact_int(data), n * n)
    hi, lo = _ss_float(data, None if mu is None else float(mu))
    return _div(hi, lo, n)


def _sqrt_ratio(num, den):
    """sqrt(num / den) for integers, rounded once."""
    q = num / den
    p, perr = _two_prod(q, float(den))
    lo = ((float(num) - p) - perr) / den
    return _sqrt_dd(q, lo)


def stdev(data, xbar=None):
    """The sample standard deviation: the square root of the sample variance."""
    data = list(data)
    n = len(data)
    if n < 2:
        raise StatisticsError("stdev requires at least two data points")
    if xbar is None and _all_int(data):
        return _sqrt_ratio(_ss_exact_int(data), n * (n - 1))
    hi, lo = _ss_float(data, None if xbar is None else float(xbar))
    q = _div(hi, lo, n - 1)
    p, perr = _two_prod(q, float(n - 1))
    qlo = ((hi - p) - perr + lo) / (n - 1)
    return _sqrt_dd(q, qlo)


def pstdev(data, mu=None):
    """The population standard deviation."""
    data = list(data)
    n = len(data)
    if n < 1:
        raise StatisticsError("pstdev requires at least one data point")
    if mu is None and _all_int(data):
        return _sqrt_ratio(_ss_exact_int(data), n * n)
    hi, lo = _ss_float(data, None if mu is None else float(mu))
    q = _div(hi, lo, n)
    p, perr = _two_prod(q, float(n))
    qlo = ((hi - p) - perr + lo) / n
    return _sqrt_dd(q, qlo)


def covariance(x, y, /):
    """The sample covariance of two inputs."""
    n = len(x)
    if len(y) != n:
        raise StatisticsError("covariance requires that both inputs have same number of data points")
    if n < 2:
        raise StatisticsError("covariance requires at least two data points")
    xbar = fmean(x)
    ybar = fmean(y)
    hi, lo = _exact_sum([(xi - xbar) * (yi - ybar) for xi, yi in zip(x, y)])
    return _div(hi, lo, n - 1)


def correlation(x, y, /):
    """Pearson's correlation coefficient of two inputs."""
    n = len(x)
    if len(y) != n:
        raise StatisticsError("correlation requires that both inputs have same number of data points")
    if n < 2:
        raise StatisticsError("correlation requires at least two data points")
    xbar = fmean(x)
    ybar = fmean(y)
    sxy = sum(_exact_sum([(xi - xbar) * (yi - ybar) for xi, yi in zip(x, y)]))
    sxx = sum(_exact_sum([(xi - xbar) ** 2 for xi in x]))
    syy = sum(_exact_sum([(yi - ybar) ** 2 for yi in y]))
    if sxx == 0 or syy == 0:
        raise StatisticsError("at least one of the inputs is constant")
    return sxy / math.sqrt(sxx * syy)


class LinearRegression:
    def __init__(self, slope, intercept):
        self.slope = slope
        self.intercept = intercept

    def __iter__(self):
        return iter((self.slope, self.intercept))

    def __repr__(self):
        return "LinearRegression(slope=" + repr(self.slope) + ", intercept=" + repr(self.intercept) + ")"


def linear_regression(x, y, /, *, proportional=False):
    """Slope and intercept of the ordinary least squares line through (x, y)."""
    n = len(x)
    if len(y) != n:
        raise StatisticsError("linear regression requires that both inputs have same number of data points")
    if n < 2:
        raise StatisticsError("linear regression requires at least two data points")
    if proportional:
        sxy = sum([xi * yi for xi, yi in zip(x, y)])
        sxx = sum([xi * xi for xi in x])
        if sxx == 0:
            raise StatisticsError("x is constant")
        return LinearRegression(sxy / sxx, 0.0)
    xbar = fmean(x)
    ybar = fmean(y)
    sxy = sum([(xi - xbar) * (yi - ybar) for xi, yi in zip(x, y)])
    sxx = sum([(xi - xbar) ** 2 for xi in x])
    if sxx == 0:
        raise StatisticsError("x is constant")
    slope = sxy / sxx
    return LinearRegression(slope, ybar - slope * xbar)


class NormalDist:
    """A normal distribution with mean mu and standard deviation sigma."""

    def __init__(self, mu=0.0, sigma=1.0):
        if sigma < 0.0:
            raise StatisticsError("sigma must be non-negative")
        self._mu = float(mu)
        self._sigma = float(sigma)

    @classmethod
    def from_samples(cls, data):
        data = list(data)
        return cls(fmean(data), stdev(data))

    @property
    def mean(self):
        return self._mu

    @property
    def median(self):
        return self._mu

    @property
    def mode(self):
        return self._mu

    @property
    def stdev(self):
        return self._sigma

    @property
    def variance(self):
        return self._sigma * self._sigma

    def pdf(self, x):
        variance = self._sigma * self._sigma
        if not variance:
            raise StatisticsError("pdf() not defined when sigma is zero")
        diff = x - self._mu
        return math.exp(diff * diff / (-2.0 * variance)) / math.sqrt(2.0 * math.pi * variance)

    def cdf(self, x):
        if not self._sigma:
            raise StatisticsError("cdf() not defined when sigma is zero")
        return 0.5 * (1.0 + math.erf((x - self._mu) / (self._sigma * math.sqrt(2.0))))

    def zscore(self, x):
        if not self._sigma:
            raise StatisticsError("zscore() not defined when sigma is zero")
        return (x - self._mu) / self._sigma

    def __repr__(self):
        return "NormalDist(mu=" + repr(self._mu) + ", sigma=" + repr(self._sigma) + ")"
