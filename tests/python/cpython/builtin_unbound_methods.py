# Unbound methods of builtin types, tuple.index bounds, zero-argument super() in wrapped methods.
from collections import namedtuple


t = (5, 3, 7, 3, 9)
print(t.index(3), t.index(3, 2), t.index(3, -3), t.index(9, 1, 5))
try:
    t.index(5, 1)
except ValueError as e:
    print("ValueError:", e)
print(tuple.__getitem__(t, 1), tuple.__getitem__(t, slice(1, 3)), tuple.__len__(t))
print(list.__getitem__([1, 2, 3], -1), list.__len__([1, 2]), dict.__getitem__({"a": 1}, "a"))
try:
    dict.__getitem__({}, "k")
except KeyError as e:
    print("KeyError:", e)
try:
    tuple.__getitem__([1], 0)
except TypeError as e:
    print("TypeError:", e)

P = namedtuple("P", "x y")


class Q(P):
    def __getitem__(self, i):
        return "own"


q = Q(1, 2)
print(q[0], tuple.__getitem__(q, 0), q.x, q.y, tuple.__len__(q))


class Meta(type):
    pass


class Base(metaclass=Meta):
    coeff = 4

    @classmethod
    def make(cls, x):
        return ("base", cls.__name__, x)

    @property
    def name(self):
        return "base"


class Child(Base):
    @classmethod
    def make(cls, x):
        return super().make(x + 1), super().coeff

    @property
    def name(self):
        return "child of " + super().name


class Plain:
    @classmethod
    def make(cls):
        return "plain"


class PlainChild(Plain):
    @classmethod
    def make(cls):
        return super().make() + "+child"


print(Child.make(1), Child().make(2), Child().name, PlainChild.make())
