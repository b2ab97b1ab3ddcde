# Issue 13's reproductions of wrong Python: format fields that index and take attributes,
# type() with three arguments, widths past any buffer, and INT64_MIN arithmetic.
print("{0[0]}".format([5]), "{0.__class__}".format(1), "{0[1][0]}".format([0, "ab"]), "{a[k]}".format(a={"k": 3}))
print("{[1]}".format((7, 8)), "{x.__class__.__name__}".format(x=2.5))
X = type("X", (), {"v": 1, "f": lambda self: self.v + 1})
print(X.__name__, X.v, X().f(), type(X()).__name__, isinstance(X(), X))
Y = type("Y", (X,), {})
print(Y.__name__, Y().f(), issubclass(Y, X))
print(type(3), type("s"), type([]) is list)
for bad in [lambda: f"{1:99999999999}", lambda: "{:99999999999}".format(1), lambda: f"{1.5:.99999999999f}",
            lambda: "{0[0]}".format(5), lambda: "{0.nope}".format(1), lambda: type("Z", 1, {}), lambda: type("Z", (), 1), lambda: type(1, (), {}),
            lambda: pow(2, 10, 0), lambda: 0 ** -1, lambda: 0.0 ** -1]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
m = -9223372036854775807 - 1
print(m // -1, m % -1, abs(m), -m, divmod(m, -1), int(1e300) == 10**300, int(1e300) > 10**299)
print(f"{1:20}|", "{:>12}|".format("ab"))
