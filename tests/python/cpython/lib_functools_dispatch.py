import functools
from functools import singledispatch, total_ordering, cmp_to_key


@singledispatch
def describe(x):
    return "object:" + str(x)


@describe.register(int)
def _(x):
    return "int:" + str(x)


@describe.register(list)
def _(x):
    return "list of " + str(len(x))


def describe_str(x):
    return "str:" + x


describe.register(str, describe_str)


class Animal:
    pass


class Dog(Animal):
    pass


@describe.register(Animal)
def _(x):
    return "animal:" + type(x).__name__


print(describe(3), describe("hi"), describe([1, 2]), describe(2.5), describe(None))
print(describe(True), describe(Dog()), describe(Animal()))
print(describe.dispatch(int) is describe.dispatch(bool), describe.dispatch(float) is describe.dispatch(object))
print(describe.registry[str] is describe_str, len(describe.registry))



@total_ordering
class Version:
    def __init__(self, major, minor):
        self.major = major
        self.minor = minor

    def __eq__(self, other):
        return (self.major, self.minor) == (other.major, other.minor)

    def __lt__(self, other):
        return (self.major, self.minor) < (other.major, other.minor)

    def __repr__(self):
        return "v%d.%d" % (self.major, self.minor)


a, b, c = Version(1, 2), Version(1, 3), Version(1, 2)
print(a < b, a <= c, a > b, b >= a, a >= c, a == c, a != b)
print(Version.__gt__.__name__, Version.__le__.__name__)


@total_ordering
class Weight:
    def __init__(self, w):
        self.w = w

    def __eq__(self, other):
        return self.w == other.w

    def __ge__(self, other):
        return self.w >= other.w


print(Weight(1) < Weight(2), Weight(3) <= Weight(3), Weight(3) > Weight(2))
try:
    @total_ordering
    class Nothing:
        pass
except ValueError as e:
    print("ValueError", e)


def compare(x, y):
    return (x % 10) - (y % 10)


print(sorted([21, 13, 5, 40], key=cmp_to_key(compare)))
print(sorted(["bb", "a", "ccc"], key=cmp_to_key(lambda s, t: len(t) - len(s))))
print(sorted([a, b, Version(0, 9)]), max(a, b), min([b, a]))


@describe.register
def _(x: float):
    return "float:%.1f" % x


print(describe(2.5))
