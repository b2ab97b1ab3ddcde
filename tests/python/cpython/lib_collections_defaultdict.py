from collections import defaultdict

d = defaultdict(list)
for k, v in [("a", 1), ("b", 2), ("a", 3)]:
    d[k].append(v)
print(d["a"], d["b"], len(d), sorted(d.items()), "a" in d, "z" in d)
print(d)
counts = defaultdict(int)
for w in "the cat and the hat and the bat".split():
    counts[w] += 1
print(sorted(counts.items()), counts["zzz"], len(counts))
print(d.default_factory, counts.default_factory)
nested = defaultdict(lambda: defaultdict(int))
nested["x"]["y"] += 2
nested["x"]["z"] += 1
print(nested["x"]["y"], nested["x"]["z"], sorted(nested["x"].keys()))
n = defaultdict(None, {"k": 1})
print(n["k"], n.get("missing"), n)
try:
    n["missing"]
except KeyError as e:
    print("KeyError", e)
s = defaultdict(set)
s["a"].add(1)
s["a"].add(1)
print(len(s["a"]))
c = counts.copy()
c["new"] = 5
print(c["new"], counts.get("new"), type(c).__name__)
print(d.get("q"), d.setdefault("q", [9]), d.pop("q"), "q" in d)
print(list(d), list(d.keys()), list(d.values()))
del d["b"]
print(d, dict(d))
try:
    defaultdict(5)
except TypeError as e:
    print("TypeError", e)
print(isinstance(d, dict), d == {"a": [1, 3]})
d.update({"c": [0]}, e=[7])
print(sorted(d))
