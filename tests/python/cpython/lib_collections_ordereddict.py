from collections import OrderedDict

od = OrderedDict()
od["b"] = 1
od["a"] = 2
od["c"] = 3
print(od, list(od), list(od.keys()), list(od.values()), list(od.items()))
od.move_to_end("b")
print(list(od))
od.move_to_end("c", last=False)
print(list(od))
print(od.popitem(), od.popitem(last=False), od)
o2 = OrderedDict([("x", 1), ("y", 2)])
print(o2, o2["x"], len(o2), "y" in o2)
o3 = OrderedDict(x=1, y=2)
print(o2 == o3, OrderedDict([("y", 2), ("x", 1)]) == o2, dict(o2) == {"y": 2, "x": 1})
print(OrderedDict(), repr(OrderedDict([(1, "a")])))
try:
    od.move_to_end("zz")
except KeyError as e:
    print("KeyError", e)
e = OrderedDict()
try:
    e.popitem()
except KeyError as err:
    print("KeyError", err)
c = o2.copy()
c["z"] = 3
print(c, o2)
print(isinstance(o2, dict), list(reversed(o2)))
o2.update({"w": 0})
print(o2, o2.pop("x"), o2.get("nope", -1), o2.setdefault("v", 5), o2)
