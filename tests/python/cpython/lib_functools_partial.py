import functools
from functools import partial, reduce


def power(base, exp, mod=None):
    r = base ** exp
    return r % mod if mod else r


square = partial(power, exp=2)
cube_mod = partial(power, exp=3, mod=5)
two_to = partial(power, 2)
print(square(5), cube_mod(4), two_to(10), two_to(exp=3))
print(square.func is power, square.args, square.keywords, two_to.args, two_to.keywords)
print(repr(partial(max, 1, 2)), repr(partial(max, key=abs)))
nested = partial(partial(power, 3), mod=7)
print(nested.func is power, nested.args, nested.keywords, nested(4))
override = partial(power, 2, 5, mod=3)
print(override(), override(mod=10))
basetwo = partial(int, "1011")
print(basetwo())
print(callable(square), list(map(partial(power, exp=2), [1, 2, 3])))
try:
    partial(5)
except TypeError as e:
    print("TypeError", e)

print(reduce(lambda a, b: a + b, [1, 2, 3, 4]), reduce(lambda a, b: a * b, range(1, 6), 1))
print(reduce(lambda a, b: a + b, [], 0), reduce(max, [3, 9, 2]), reduce(lambda acc, x: acc + [x * 2], [1, 2], []))
try:
    reduce(lambda a, b: a, [])
except TypeError as e:
    print("TypeError", e)
print(reduce(lambda a, b: a + b, ["x"]), reduce(lambda a, b: a + b, iter(["a", "b", "c"])))


def deco(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        """wrapper doc"""
        return fn(*args, **kwargs) * 10
    return wrapper


@deco
def add(a, b):
    """Add two numbers."""
    return a + b


print(add(1, 2), add.__name__, add.__doc__, add.__wrapped__(1, 2))


def plain(x):
    "plain doc"
    return x


def w(*a):
    return plain(*a)


functools.update_wrapper(w, plain)
print(w.__name__, w.__doc__, w.__wrapped__ is plain, w(4))
print(functools.WRAPPER_ASSIGNMENTS, functools.WRAPPER_UPDATES)


class Adder:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        return x + self.n


p = partial(Adder(10))
print(p(5))
