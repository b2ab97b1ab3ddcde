from collections import ChainMap

defaults = {"color": "red", "user": "guest"}
overrides = {"user": "admin"}
cm = ChainMap(overrides, defaults)
print(cm["user"], cm["color"], len(cm), sorted(cm), "color" in cm, "x" in cm)
print(cm, cm.get("x", 0), cm.get("color"))
cm["new"] = 1
print(overrides, defaults)
child = cm.new_child()
child["user"] = "child"
print(child["user"], cm["user"], len(child.maps), child.parents["user"])
print(list(ChainMap({"a": 1, "b": 2}, {"b": 3, "c": 4})))
print(dict(ChainMap({"a": 1}, {"a": 2, "b": 3}).items()))
try:
    del cm["color"]
except KeyError as e:
    print("KeyError", e)
del cm["new"]
print(cm.maps)
try:
    ChainMap({}, {"k": 1})["missing"]
except KeyError as e:
    print("KeyError", e)
e = ChainMap()
print(e, bool(e), len(e))
c2 = cm.new_child({"z": 26})
print(c2["z"], c2.maps[0], sorted(c2.keys()), sorted(c2.values(), key=str))
print(cm.pop("user"), cm["user"])
