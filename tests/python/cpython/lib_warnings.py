import warnings

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    warnings.warn("first")
    warnings.warn("deprecated thing", DeprecationWarning)
    warnings.warn(RuntimeWarning("as instance"))
    print(len(w), [str(x.message) for x in w], [x.category.__name__ for x in w])
    print(isinstance(w[0].message, UserWarning), issubclass(w[1].category, DeprecationWarning), issubclass(DeprecationWarning, Warning))

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("ignore")
    warnings.warn("hidden")
    print(len(w))

with warnings.catch_warnings():
    warnings.simplefilter("error")
    try:
        warnings.warn("boom", UserWarning)
    except UserWarning as e:
        print("raised", type(e).__name__, e)
    try:
        warnings.warn("dep", FutureWarning)
    except FutureWarning as e:
        print("raised", type(e).__name__, e)

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message="skip")
    warnings.warn("skip me")
    warnings.warn("keep me")
    warnings.filterwarnings("error", category=RuntimeWarning)
    try:
        warnings.warn("rt", RuntimeWarning)
    except RuntimeWarning:
        print("runtime error raised")
    print([str(x.message) for x in w])

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("once")
    for i in range(3):
        warnings.warn("repeated")
    print(len(w))


def old_api(x):
    warnings.warn("old_api is deprecated; use new_api", DeprecationWarning, stacklevel=2)
    return x * 2


with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(old_api(21), len(w), w[0].category.__name__, str(w[0].message))
try:
    warnings.simplefilter("bogus")
except AssertionError as e:
    print("AssertionError", e)
print(warnings.formatwarning("msg", UserWarning, "file.py", 10).strip())
warnings.warn("outside any catch")
print("done")
