import functools
from functools import lru_cache, cache

calls = []


@lru_cache(maxsize=2)
def sq(x):
    calls.append(x)
    return x * x


print(sq(2), sq(3), sq(2), sq(4), sq(3))
print(calls)
print(sq.cache_info())
info = sq.cache_info()
print(info.hits, info.misses, info.maxsize, info.currsize, info[0], tuple(info))
sq.cache_clear()
print(sq.cache_info())


@lru_cache
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(30), fib.cache_info())


@cache
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


print(fact(10), fact(5), fact.cache_info())


@lru_cache(maxsize=None)
def kw(a, b=1, *, c=0):
    calls.append((a, b, c))
    return a + b + c


calls.clear()
print(kw(1), kw(1), kw(1, 2), kw(1, b=2), kw(1, c=3), kw(1, c=3))
print(len(calls), kw.cache_info().hits, kw.cache_info().misses)
print(kw.__name__, kw.__wrapped__(5))


@lru_cache(maxsize=0)
def nocache(x):
    return x


nocache(1)
nocache(1)
print(nocache.cache_info())


@lru_cache(typed=True)
def typed(x):
    calls.append(x)
    return x


calls.clear()
typed(1)
typed(1.0)
typed(1)
print(calls, typed.cache_info().currsize)


class Model:
    def __init__(self, k):
        self.k = k
        self.computed = 0

    @functools.cached_property
    def expensive(self):
        self.computed += 1
        return self.k * 100

    @lru_cache(maxsize=4)
    def scaled(self, x):
        return self.k * x


m = Model(3)
print(m.expensive, m.expensive, m.computed)
del m.expensive
print(m.expensive, m.computed)
m2 = Model(4)
print(m2.expensive, m2.computed, m.expensive)
print(m.scaled(2), m.scaled(2), Model.scaled.cache_info().hits)
try:
    lru_cache(maxsize="big")
except TypeError as e:
    print("TypeError", e)
print(sq.cache_parameters(), fact.cache_parameters())
