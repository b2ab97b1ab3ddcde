from collections import Counter

c = Counter("abracadabra")
print(c)
print(c["a"], c["z"], len(c), c.most_common(2), c.most_common()[-1])
print(sorted(c.elements()))
c.update("aaz")
print(c["a"], c["z"])
c.update({"b": 10})
print(c["b"], c.total())
c.subtract("aaaa")
print(c["a"])
d = Counter(a=3, b=1)
e = Counter(a=1, b=2, c=1)
print(d + e, d - e, d | e, d & e)
print(+Counter(a=2, b=-1, c=0), -Counter(a=2, b=-1))
words = "to be or not to be that is the question".split()
wc = Counter(words)
print(wc.most_common(3))
print(Counter(), Counter([]), Counter({"x": 2}))
print(Counter(a=1) == Counter(a=1, b=0), Counter(a=1) == Counter(a=2))
f = Counter(cats=4, dogs=8)
del f["cats"]
del f["nope"]
print(f, list(f.items()))
g = Counter(a=1, b=2)
g += Counter(a=2, b=-5)
print(g)
print(sum(Counter("hello").values()), sorted(Counter("hello").keys()))
try:
    Counter.fromkeys("abc")
except NotImplementedError as err:
    print("NotImplementedError", err)
print(isinstance(c, dict), Counter("aab") <= Counter("aabb"), Counter("abc") < Counter("ab"))
