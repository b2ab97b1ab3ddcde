import copy

a = [1, [2, 3], {"k": [4]}]
s = copy.copy(a)
d = copy.deepcopy(a)
a[1].append(99)
a[2]["k"].append(5)
print(s, d, s is a, s[1] is a[1], d[1] is a[1])
t = (1, [2])
print(copy.copy(t) is t, copy.deepcopy(t) is t, copy.deepcopy(t), copy.deepcopy((1, 2)) is not None)
print(copy.copy(5), copy.deepcopy("s"), copy.deepcopy(None), copy.copy(3.5))
dd = {"a": [1], "b": {"c": 2}}
dd2 = copy.deepcopy(dd)
dd2["b"]["c"] = 3
print(dd, dd2)
sh = [1, 2]
pair = [sh, sh]
pc = copy.deepcopy(pair)
print(pc, pc[0] is pc[1], pc[0] is sh)
cyc = [1]
cyc.append(cyc)
cc = copy.deepcopy(cyc)
print(cc[0], cc[1] is cc, cc is cyc)


class Point:
    def __init__(self, x, y):
        print("init called")
        self.x = x
        self.y = y
        self.tags = ["t"]

    def __repr__(self):
        return "Point(%r, %r, %r)" % (self.x, self.y, self.tags)


p = Point(1, 2)
p2 = copy.copy(p)
p3 = copy.deepcopy(p)
p.tags.append("u")
print(p2, p3, p2.tags is p.tags, p3.tags is p.tags, type(p3).__name__)


class Custom:
    def __init__(self, v):
        self.v = v

    def __copy__(self):
        print("custom __copy__")
        return Custom(self.v)

    def __deepcopy__(self, memo):
        print("custom __deepcopy__")
        return Custom(copy.deepcopy(self.v, memo))


c = Custom([1])
print(copy.copy(c).v, copy.deepcopy(c).v is c.v)


class Node:
    def __init__(self, name):
        self.name = name
        self.children = []
        self.parent = None


root = Node("root")
kid = Node("kid")
kid.parent = root
root.children.append(kid)
r2 = copy.deepcopy(root)
print(r2.name, r2.children[0].name, r2.children[0].parent is r2, r2.children[0] is kid)


class WithState:
    def __init__(self):
        self.a = 1
        self.cache = "big"

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["cache"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.cache = "rebuilt"


w = copy.deepcopy(WithState())
print(w.a, w.cache)
memo = {}
x = [1, 2]
y1 = copy.deepcopy([x, x], memo)
print(y1[0] is y1[1], id(x) in memo)
print(copy.deepcopy({1: (2, [3])}), sorted(copy.deepcopy(set([1, 2]))))


def f():
    return 1


print(copy.deepcopy(f) is f, copy.copy(len) is len, copy.deepcopy(Point) is Point)
nested = {"layers": [{"w": [1.0, 2.0]}, {"w": [3.0]}]}
n2 = copy.deepcopy(nested)
n2["layers"][0]["w"][0] = 9.0
print(nested["layers"][0]["w"], n2["layers"][0]["w"])
