"""Shallow and deep copy operations (Kiln's copy module, written from the documentation).

copy(x) builds a new compound object holding the same children; deepcopy(x) copies the children
recursively, keeping a memo so shared and cyclic references are copied once. Classes customize
this with __copy__(self) and __deepcopy__(self, memo), or __getstate__/__setstate__ and
__reduce_ex__/__reduce__. Tensors are deep-copied with clone() (requires_grad is kept).
"""

__all__ = ["Error", "copy", "deepcopy", "replace"]


class Error(Exception):
    pass


error = Error

# Types whose instances are immutable (or not copyable) and are returned as they are.
_ATOMIC_TYPE_NAMES = ("NoneType", "int", "float", "bool", "complex", "str", "bytes", "type", "range",
                      "function", "builtin_function_or_method", "module", "ellipsis",
                      "NotImplementedType", "code", "property", "weakref", "dtype", "device",
                      "frozenset", "slice", "method_descriptor", "wrapper_descriptor")


def _is_atomic(x):
    if x is None or x is True or x is False:
        return True
    if isinstance(x, (int, float, str)):
        return True
    return type(x).__name__ in _ATOMIC_TYPE_NAMES


def _is_tensor(x):
    return type(x).__name__ in ("Tensor", "Parameter") and hasattr(x, "clone") and hasattr(x, "requires_grad")


def _new_instance(cls, args=()):
    """An instance of cls whose __init__ did not run (what copyreg.__newobj__ makes)."""
    new = getattr(cls, "__new__", None)
    if new is not None:
        try:
            return new(cls, *args)
        except TypeError:
            if args:
                raise
    try:
        return object.__new__(cls)
    except (AttributeError, TypeError):
        pass
    # Kiln's interpreter has no object.__new__ yet: instantiate with __init__ disabled.
    saved = getattr(cls, "__init__")

    def _no_init(self, *a, **k):
        pass
    cls.__init__ = _no_init
    try:
        return cls()
    finally:
        cls.__init__ = saved


def _get_state(x):
    getstate = getattr(x, "__getstate__", None)
    if getstate is not None:
        try:
            return getstate()
        except TypeError:
            pass
    return getattr(x, "__dict__", None)


def _set_state(y, state, deep, memo):
    if state is None:
        return
    if deep:
        state = deepcopy(state, memo)
    setstate = getattr(y, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slotstate = state
    if state:
        d = y.__dict__
        for k in state:
            d[k] = state[k]
    if slotstate:
        for k in slotstate:
            setattr(y, k, slotstate[k])


def _reduce(x):
    """x.__reduce_ex__(4) (or x.__reduce__()), or None where the object has neither (Kiln's
    plain instances, which are then copied through their __dict__)."""
    cls = type(x)
    if getattr(cls, "__reduce_ex__", None) is not object.__reduce_ex__:
        return x.__reduce_ex__(4)
    if getattr(cls, "__reduce__", None) is not object.__reduce__:
        return x.__reduce__()
    return None


def _reconstruct(x, memo, func, args, state=None, listiter=None, dictiter=None, *_):
    deep = memo is not None
    if deep and args:
        args = deepcopy(args, memo)
    y = func(*args)
    if deep:
        memo[id(x)] = y
    _set_state(y, state, deep, memo)
    if listiter is not None:
        for item in listiter:
            if deep:
                item = deepcopy(item, memo)
            y.append(item)
    if dictiter is not None:
        for key, value in dictiter:
            if deep:
                key = deepcopy(key, memo)
                value = deepcopy(value, memo)
            y[key] = value
    return y


def copy(x):
    """Shallow copy: a new container holding the same elements (atomic values are returned)."""
    if _is_atomic(x):
        return x
    cls = type(x)
    if cls is list:
        return list(x)
    if cls is dict:
        return dict(x)
    if cls is tuple:
        return x
    if cls is set:
        return set(x)
    copier = getattr(cls, "__copy__", None)
    if copier is not None:
        return copier(x)
    if _is_tensor(x):
        return x
    rv = _reduce(x)
    if rv is not None:
        if isinstance(rv, str):
            return x
        return _reconstruct(x, None, *rv)
    y = _new_instance(cls)
    _set_state(y, _get_state(x), False, None)
    return y


def deepcopy(x, memo=None, _nil=[]):
    """Deep copy: containers and instances are copied recursively; shared sub-objects stay
    shared in the copy and cycles are reproduced (memo maps id(original) to its copy)."""
    if memo is None:
        memo = {}
    d = id(x)
    y = memo.get(d, _nil)
    if y is not _nil:
        return y
    if _is_atomic(x):
        return x
    cls = type(x)
    copier = None
    if cls is not list and cls is not dict and cls is not tuple:
        copier = getattr(x, "__deepcopy__", None)
    if copier is not None:
        y = copier(memo)
    elif cls is list:
        y = []
        memo[d] = y
        for a in x:
            y.append(deepcopy(a, memo))
    elif cls is tuple:
        items = [deepcopy(a, memo) for a in x]
        # A tuple that contains itself via a list was copied already.
        if d in memo:
            return memo[d]
        same = True
        for i in range(len(items)):
            if items[i] is not x[i]:
                same = False
                break
        y = x if same else tuple(items)
    elif cls is dict:
        y = {}
        memo[d] = y
        for key, value in x.items():
            y[deepcopy(key, memo)] = deepcopy(value, memo)
    elif cls is set:
        y = set([deepcopy(a, memo) for a in x])
    elif _is_tensor(x):
        y = x.detach().clone()
        if x.requires_grad:
            y.requires_grad_(True)
    elif type(x).__name__ == "method" and hasattr(x, "__self__") and hasattr(x, "__func__"):
        y = getattr(deepcopy(x.__self__, memo), x.__func__.__name__)
    else:
        rv = _reduce(x)
        if rv is not None:
            if isinstance(rv, str):
                y = x
            else:
                y = _reconstruct(x, memo, *rv)
        else:
            y = _new_instance(cls)
            memo[d] = y
            _set_state(y, _get_state(x), True, memo)
    # Keep the original alive while the memo refers to its id.
    if y is not x:
        memo[d] = y
        keep = memo.get(id(memo))
        if keep is None:
            memo[id(memo)] = [x]
        else:
            keep.append(x)
    return y


def replace(obj, /, **changes):
    """Return a new object replacing specified fields with new values (types with __replace__)."""
    cls = obj.__class__
    func = getattr(cls, "__replace__", None)
    if func is None:
        raise TypeError("replace() does not support " + cls.__name__ + " objects")
    return func(obj, **changes)
