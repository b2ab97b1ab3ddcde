# repr() of a builtin subclass goes through its own __repr__; str() through __str__;
# every builtin warning category (EncodingWarning too) is a Warning that warnings.warn accepts.
import warnings


class F(float):
    def __repr__(self):
        return "F(" + repr(float(self)) + ")"


class I(int):
    def __repr__(self):
        return "I<" + repr(int(self)) + ">"

    def __str__(self):
        return "i" + repr(int(self))


print(repr(F(1.5)), [F(2.0)], (F(0.25),), {"k": F(3.0)})
print(repr(I(7)), str(I(7)), [I(1), I(2)], f"{I(3)}")
print(F(1.5) + 1, type(F(1.5) + 1).__name__)
for cat in (UserWarning, DeprecationWarning, RuntimeWarning, FutureWarning, ResourceWarning, EncodingWarning,
            BytesWarning, SyntaxWarning, ImportWarning, UnicodeWarning, PendingDeprecationWarning):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        warnings.warn("w-" + cat.__name__, cat)
    print(cat.__name__, issubclass(cat, Warning), len(got), got[0].category is cat, str(got[0].message))
