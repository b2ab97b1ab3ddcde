from collections import namedtuple

Point = namedtuple("Point", ["x", "y"])
p = Point(1, 2)
print(p, p.x, p.y, p[0], p[1], p[-1], len(p))
print(Point._fields, Point.__name__, type(p).__name__)
x, y = p
print(x, y, list(p), tuple(p))
print(p == (1, 2), p == Point(1, 2), p != Point(2, 1))
print(p._asdict())
q = p._replace(y=5)
print(q, p)
print(Point._make([7, 8]), Point._make(range(2)))
print(Point(y=4, x=3), Point(1, y=9))
print(p[0:1], p + (3,), 2 in p, p.count(1), p.index(2))

P3 = namedtuple("P3", "a b c", defaults=[0, 10])
print(P3(1), P3(1, 2), P3(1, 2, 3), P3._field_defaults)
Pair = namedtuple("Pair", "first, second")
print(Pair("a", "b"), Pair._fields)
R = namedtuple("R", ["abc", "def", "abc", "_x"], rename=True)
print(R._fields)

for bad in [lambda: Point(1), lambda: Point(1, 2, 3), lambda: Point(1, 2, z=3), lambda: Point(1, x=2),
            lambda: P3(), lambda: namedtuple("T", "a b c")()]:
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)
for args in [("Bad", "x _y"), ("Bad", "x x"), ("Bad", "x class"), ("1Bad", "x"), ("Bad", "x-y")]:
    try:
        namedtuple(*args)
    except ValueError as e:
        print("ValueError:", e)
try:
    p._replace(z=1)
except ValueError as e:
    print("ValueError:", e)
try:
    Point._make([1])
except TypeError as e:
    print("TypeError:", e)


class Vec(namedtuple("Vec", "x y")):
    def norm2(self):
        return self.x * self.x + self.y * self.y

    def __repr__(self):
        return "<Vec %d,%d>" % (self.x, self.y)


v = Vec(3, 4)
print(v, v.norm2(), v.x, v[1], isinstance(v, Vec), Vec._fields)
points = [Point(3, 1), Point(1, 2), Point(2, 0)]
print(max(points, key=lambda t: t.y))
print([pt.x for pt in points], {pt.x: pt.y for pt in points})
print(Point.__doc__)
Empty = namedtuple("Empty", [])
print(Empty(), len(Empty()), Empty._fields)
print(p < Point(1, 3), sorted(points))
