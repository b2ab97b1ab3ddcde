from abc import ABC, ABCMeta, abstractmethod
import collections.abc as cabc
import numbers


class Shape(ABC):
    @abstractmethod
    def area(self):
        ...

    def describe(self):
        return type(self).__name__ + " with area " + str(self.area())


class Square(Shape):
    def __init__(self, s):
        self.s = s

    def area(self):
        return self.s * self.s


sq = Square(3)
print(sq.describe(), isinstance(sq, Shape), issubclass(Square, ABC), Shape.area.__isabstractmethod__)


class Registry(cabc.Mapping):
    def __init__(self, **kw):
        self._d = dict(kw)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


r = Registry(a=1, b=2)
print(r["a"], r.get("z", 0), "b" in r, "z" in r, list(r.keys()), list(r.items()), list(r.values()), len(r))
print(r == {"a": 1, "b": 2}, isinstance(r, cabc.Mapping), isinstance(r, cabc.Iterable), isinstance(r, cabc.Sized))


class Stack(cabc.MutableSequence):
    def __init__(self):
        self._items = []

    def __getitem__(self, i):
        return self._items[i]

    def __setitem__(self, i, v):
        self._items[i] = v

    def __delitem__(self, i):
        self._items.pop(i)

    def __len__(self):
        return len(self._items)

    def insert(self, i, v):
        self._items.insert(i, v)


s = Stack()
s.append(1)
s.extend([2, 3])
s.append(4)
print(list(s), s.pop(), s.index(2), s.count(1), 3 in s, list(reversed(s)), len(s))
s.remove(2)
s.reverse()
print(list(s))


class Bag(cabc.Set):
    def __init__(self, items=()):
        self._items = []
        for x in items:
            if x not in self._items:
                self._items.append(x)

    def __contains__(self, x):
        return x in self._items

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


b1, b2 = Bag([1, 2, 3]), Bag([2, 3, 4])
print(sorted(b1 & b2), sorted(b1 | b2), sorted(b1 - b2), b1.isdisjoint(Bag([9])), Bag([1]) <= b1)

try:
    Shape()
except TypeError as e:
    print("TypeError", e)


class Half(Shape):
    pass


try:
    Half()
except TypeError as e:
    print("TypeError", e)
print(isinstance([], cabc.Sequence), isinstance({}, cabc.Mapping), isinstance((x for x in []), cabc.Iterator))
print(isinstance(len, cabc.Callable), isinstance(5, cabc.Hashable), issubclass(list, cabc.MutableSequence), isinstance("s", cabc.Iterable))
print(isinstance(3, numbers.Integral), isinstance(2.5, numbers.Real), isinstance(True, numbers.Number), isinstance(2.5, numbers.Integral))


class Plugin(metaclass=ABCMeta):
    @abstractmethod
    def run(self):
        pass


@Plugin.register
class External:
    def run(self):
        return "ran"


print(isinstance(External(), Plugin), issubclass(External, Plugin), External().run())
