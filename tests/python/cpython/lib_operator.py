import operator
from operator import itemgetter, attrgetter, methodcaller

print(operator.add(2, 3), operator.sub(5, 7), operator.mul(4, 2.5), operator.truediv(7, 2))
print(operator.floordiv(-7, 2), operator.mod(-7, 3), operator.pow(2, 8), operator.neg(4), operator.pos(-2))
print(operator.abs(-3.5), operator.index(7), operator.index(True))
print(operator.eq(1, 1.0), operator.ne(1, 2), operator.lt(1, 2), operator.le(2, 2), operator.gt(1, 2), operator.ge(3, 2))
print(operator.not_([]), operator.truth([0]), operator.is_(None, None), operator.is_not(1, None))
print(operator.and_(12, 10), operator.or_(12, 10), operator.xor(12, 10), operator.lshift(1, 4), operator.rshift(32, 2), operator.invert(5))
print(operator.concat([1], [2]), operator.concat("ab", "cd"), operator.contains([1, 2], 2), operator.contains("abc", "z"))
print(operator.countOf([1, 2, 1, 1], 1), operator.indexOf("hello", "l"))
d = {"a": 1}
operator.setitem(d, "b", 2)
print(d, operator.getitem(d, "b"))
operator.delitem(d, "a")
print(d)
lst = [10, 20, 30, 40]
print(operator.getitem(lst, 1), operator.getitem(lst, -1))
operator.setitem(lst, 0, 5)
operator.delitem(lst, 3)
print(lst)
x = [1]
y = operator.iadd(x, [2])
print(x, y, x is y)
print(operator.iadd(3, 4), operator.isub(3, 4), operator.imul(3, 4), operator.itruediv(3, 4), operator.ifloordiv(9, 4), operator.imod(9, 4), operator.ipow(2, 5))
print(operator.iand(6, 3), operator.ior(6, 3), operator.ixor(6, 3))
print(operator.length_hint([1, 2, 3]), operator.length_hint(iter([]), 5) >= 0)

g = itemgetter(1)
print(g([5, 6, 7]), g("xyz"), g({1: "one"}))
g2 = itemgetter(0, 2)
print(g2("abc"), g2([1, 2, 3]))
print(repr(itemgetter(1)), repr(itemgetter("a", "b")))
rows = [("b", 2), ("a", 3), ("c", 1)]
print(sorted(rows, key=itemgetter(1)), sorted(rows, key=itemgetter(0)))
print(list(map(itemgetter(0), rows)))


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y
        self.child = None

    def scaled(self, k, offset=0):
        return Point(self.x * k + offset, self.y * k + offset)

    def __repr__(self):
        return "Point(%d, %d)" % (self.x, self.y)


p = Point(1, 2)
p.child = Point(3, 4)
print(attrgetter("x")(p), attrgetter("x", "y")(p), attrgetter("child.y")(p), attrgetter("child.x", "y")(p))
print(repr(attrgetter("x")), repr(attrgetter("a.b", "c")))
pts = [Point(3, 1), Point(1, 5), Point(2, 0)]
print(sorted(pts, key=attrgetter("x")), max(pts, key=attrgetter("y")))
try:
    attrgetter("z")(p)
except AttributeError as e:
    print("AttributeError")
m = methodcaller("scaled", 2, offset=1)
print(m(p), repr(methodcaller("upper")), repr(methodcaller("f", 1, k=2)))
print(methodcaller("upper")("abc"), methodcaller("split", ",")("a,b"))
print(list(map(operator.mul, [1, 2, 3], [4, 5, 6])))
print(operator.call(max, 1, 5, 3) if hasattr(operator, "call") else 5)
