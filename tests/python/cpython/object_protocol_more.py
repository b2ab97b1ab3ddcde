# __defaults__ / __kwdefaults__ assignment, __class__ assignment, a descriptor with only __set__,
# nested function qualnames, dict view equality, exceptions raised in finally, bool operators,
# __bool__ / __len__ results.


def f(a, b=1, *, c=2):
    return a, b, c


f.__defaults__ = (10,)
f.__kwdefaults__ = {"c": 20}
print(f(0), f.__defaults__, f.__kwdefaults__)
f.__defaults__ = None
try:
    f(0)
except TypeError as e:
    print("TypeError:", e)
try:
    f.__defaults__ = [1]
except TypeError as e:
    print("TypeError:", e)


class A:
    def who(self):
        return "A"


class B(A):
    def who(self):
        return "B"


obj = A()
obj.__class__ = B
print(obj.who(), isinstance(obj, B), type(obj).__name__)
try:
    obj.__class__ = 3
except TypeError as e:
    print("TypeError:", e)


class Doubler:
    def __set__(self, inst, value):
        inst.__dict__["field"] = inst.__dict__.get("field", 0) + 2 * value


class Holder:
    field = Doubler()


h = Holder()
h.field = 3
h.field = 1
print(h.field)


def outer():
    def inner():
        return 1

    lam = lambda: 2
    return inner.__qualname__, lam.__qualname__


class K:
    def method(self):
        def local():
            pass

        return local.__qualname__


print(outer(), K().method(), K.method.__qualname__)

d = {"w": 1}
keys = d.keys()
d["b"] = 2
print(keys == {"w", "b"}, {"b": 0, "w": 1}.keys() == keys, d.items() == {("w", 1), ("b", 2)}, keys == ["w", "b"])


def finally_raises():
    try:
        try:
            raise KeyError("inner")
        finally:
            raise IndexError("outer")
    except Exception as e:
        return type(e).__name__, type(e.__context__).__name__


def handler_then_finally():
    try:
        try:
            raise KeyError("a")
        except KeyError:
            raise ValueError("b")
        finally:
            raise IndexError("c")
    except Exception as e:
        return type(e).__name__, type(e.__context__).__name__, type(e.__context__.__context__).__name__


print(finally_raises(), handler_then_finally())
print(True | False, True & False, True ^ True, type(True | 0).__name__, (3 > 1) | (2 <= 1))


class BadBool:
    def __bool__(self):
        return 1.25


class BadLen:
    def __len__(self):
        return -1


for bad in (BadBool(), BadLen()):
    try:
        print(bool(bad))
    except (TypeError, ValueError) as e:
        print(type(e).__name__ + ":", e)
