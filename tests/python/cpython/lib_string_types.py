import string
import types

print(string.ascii_lowercase, string.ascii_uppercase, string.digits, string.hexdigits, string.octdigits)
print(len(string.ascii_letters), string.ascii_letters[:3], string.punctuation, repr(string.whitespace), len(string.printable))
print(string.capwords("hello   big world"), string.capwords("a-b-c", "-"), string.capwords(""))
t = string.Template("$who likes ${what}; cost $$5")
print(t.substitute(who="tim", what="pie"), t.substitute({"who": "ann", "what": "tea"}), t.safe_substitute(who="x"))
try:
    t.substitute(who="y")
except KeyError as e:
    print("KeyError", e)
print(t.get_identifiers(), "3" in string.digits, all(c in string.hexdigits for c in "beef42"))

ns = types.SimpleNamespace(a=1, b="two")
ns.c = [3]
print(ns, ns.a, ns.c, types.SimpleNamespace(), ns == types.SimpleNamespace(a=1, b="two", c=[3]))
del ns.a
print(ns, hasattr(ns, "a"), sorted(vars(ns)) if False else sorted(ns.__dict__))
cfg = types.SimpleNamespace(**{"lr": 0.1, "epochs": 3})
cfg.lr *= 2
print(cfg.lr, cfg.epochs, cfg != ns)


def f():
    return 1


class K:
    def m(self):
        return "m of " + self.name

    def __init__(self):
        self.name = "k"


def g():
    yield 1


print(isinstance(f, types.FunctionType), isinstance(lambda: 0, types.LambdaType), isinstance(len, types.BuiltinFunctionType))
print(isinstance(K().m, types.MethodType), isinstance(g(), types.GeneratorType), isinstance(f, types.MethodType), isinstance(types, types.ModuleType))
k = K()
bound = types.MethodType(lambda self, x: self.name + x, k)
print(bound("!"), bound.__self__ is k)
mp = types.MappingProxyType({"x": 1})
print(mp["x"], len(mp), "x" in mp, list(mp.keys()))
try:
    mp["y"] = 2
except TypeError as e:
    print("TypeError", e)
print(type(None) is types.NoneType)
