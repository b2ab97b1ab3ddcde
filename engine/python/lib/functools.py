"""Higher-order functions and operations on callables (Kiln's functools, written from the
documentation): partial, reduce, wraps/update_wrapper, lru_cache/cache, cached_property,
total_ordering, cmp_to_key, singledispatch, partialmethod.
"""

__all__ = ["update_wrapper", "wraps", "WRAPPER_ASSIGNMENTS", "WRAPPER_UPDATES", "total_ordering",
           "cache", "cmp_to_key", "lru_cache", "reduce", "partial", "partialmethod",
           "singledispatch", "singledispatchmethod", "cached_property"]

WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__", "__annotations__")
WRAPPER_UPDATES = ("__dict__",)

_initial_missing = object()


def update_wrapper(wrapper, wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    """Make wrapper look like wrapped: copy its name, docstring ... and set __wrapped__."""
    for attr in assigned:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            pass
        else:
            try:
                setattr(wrapper, attr, value)
            except (AttributeError, TypeError):
                pass
    for attr in updated:
        try:
            source = getattr(wrapped, attr)
            target = getattr(wrapper, attr)
        except AttributeError:
            continue
        for k in list(source):
            target[k] = source[k]
    wrapper.__wrapped__ = wrapped
    return wrapper


def wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    """Decorator form of update_wrapper: @wraps(f) on the wrapper function."""
    def decorating(wrapper):
        return update_wrapper(wrapper, wrapped, assigned, updated)
    return decorating


def reduce(function, iterable, initial=_initial_missing):
    """Apply function of two arguments cumulatively to the items of iterable, left to right."""
    it = iter(iterable)
    if initial is _initial_missing:
        try:
            value = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value")
    else:
        value = initial
    for element in it:
        value = function(value, element)
    return value


# ---------------------------------------------------------------- partial

class partial:
    """partial(func, *args, **keywords): a callable that calls func with args prepended and
    keywords merged into the call's own."""

    def __init__(self, func, /, *args, **keywords):
        if not callable(func):
            raise TypeError("the first argument must be callable")
        if isinstance(func, partial):
            args = func.args + args
            merged = dict(func.keywords)
            merged.update(keywords)
            keywords = merged
            func = func.func
        self.func = func
        self.args = tuple(args)
        self.keywords = keywords

    def __call__(self, /, *args, **keywords):
        merged = dict(self.keywords)
        merged.update(keywords)
        return self.func(*self.args, *args, **merged)

    def __repr__(self):
        parts = [repr(self.func)]
        for a in self.args:
            parts.append(repr(a))
        for k, v in self.keywords.items():
            parts.append(k + "=" + repr(v))
        name = type(self).__qualname__
        if type(self) is partial:
            name = "functools.partial"
        return name + "(" + ", ".join(parts) + ")"


class partialmethod:
    """Like partial, for methods: the instance is passed first, then the stored arguments."""

    def __init__(self, func, /, *args, **keywords):
        if isinstance(func, partialmethod):
            self.func = func.func
            self.args = func.args + args
            merged = dict(func.keywords)
            merged.update(keywords)
            self.keywords = merged
        else:
            self.func = func
            self.args = args
            self.keywords = keywords

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return partial(self.func, obj, *self.args, **self.keywords)

    def __repr__(self):
        parts = [repr(self.func)]
        for a in self.args:
            parts.append(repr(a))
        for k, v in self.keywords.items():
            parts.append(k + "=" + repr(v))
        return "functools.partialmethod(" + ", ".join(parts) + ")"


# ---------------------------------------------------------------- caches

class _CacheInfo:
    """The named tuple (hits, misses, maxsize, currsize) that cache_info() returns."""

    def __init__(self, hits, misses, maxsize, currsize):
        self.hits = hits
        self.misses = misses
        self.maxsize = maxsize
        self.currsize = currsize
        self._tuple = (hits, misses, maxsize, currsize)

    def __getitem__(self, i):
        return self._tuple[i]

    def __iter__(self):
        return iter(self._tuple)

    def __len__(self):
        return 4

    def __eq__(self, other):
        if isinstance(other, _CacheInfo):
            other = other._tuple
        return self._tuple == other

    def __hash__(self):
        return hash(self._tuple)

    def _asdict(self):
        return {"hits": self.hits, "misses": self.misses, "maxsize": self.maxsize, "currsize": self.currsize}

    def __repr__(self):
        return ("CacheInfo(hits=" + repr(self.hits) + ", misses=" + repr(self.misses) + ", maxsize=" +
                repr(self.maxsize) + ", currsize=" + repr(self.currsize) + ")")


def _make_cache_info():
    try:
        from collections import namedtuple
        return namedtuple("CacheInfo", ["hits", "misses", "maxsize", "currsize"])
    except Exception:
        return _CacheInfo


_CacheInfoType = None


class _KwdMark:
    def __repr__(self):
        return "<kwd_mark>"


_kwd_mark = (_KwdMark(),)


def _make_key(args, kwds, typed):
    key = args
    if kwds:
        key = key + _kwd_mark
        for item in kwds.items():
            key = key + item
    if typed:
        key = key + tuple([type(v) for v in args])
        if kwds:
            key = key + tuple([type(v) for v in kwds.values()])
    elif len(key) == 1 and type(key[0]) in (int, str):
        return key[0]
    return key


def _lru_cache_wrapper(user_function, maxsize, typed):
    global _CacheInfoType
    if _CacheInfoType is None:
        _CacheInfoType = _make_cache_info()
    cache = {}
    stats = [0, 0]  # hits, misses

    if maxsize == 0:
        def wrapper(*args, **kwds):
            stats[1] += 1
            return user_function(*args, **kwds)
    elif maxsize is None:
        def wrapper(*args, **kwds):
            key = _make_key(args, kwds, typed)
            if key in cache:
                stats[0] += 1
                return cache[key]
            stats[1] += 1
            result = user_function(*args, **kwds)
            cache[key] = result
            return result
    else:
        def wrapper(*args, **kwds):
            key = _make_key(args, kwds, typed)
            if key in cache:
                stats[0] += 1
                result = cache[key]
                # most recently used goes last
                del cache[key]
                cache[key] = result
                return result
            stats[1] += 1
            result = user_function(*args, **kwds)
            if key in cache:
                # the call itself cached this key (recursion): keep that entry
                return result
            if len(cache) >= maxsize:
                oldest = next(iter(cache))
                del cache[oldest]
            cache[key] = result
            return result

    def cache_info():
        """Report cache statistics: hits, misses, maxsize, currsize."""
        return _CacheInfoType(stats[0], stats[1], maxsize, len(cache))

    def cache_clear():
        """Clear the cache and its statistics."""
        for k in list(cache):
            del cache[k]
        stats[0] = 0
        stats[1] = 0

    def cache_parameters():
        return {"maxsize": maxsize, "typed": typed}

    wrapper.cache_info = cache_info
    wrapper.cache_clear = cache_clear
    wrapper.cache_parameters = cache_parameters
    return update_wrapper(wrapper, user_function)


def lru_cache(maxsize=128, typed=False):
    """Memoize a function's results for the most recent maxsize distinct arguments
    (maxsize=None: unbounded). The wrapper has cache_info() and cache_clear()."""
    if isinstance(maxsize, int) and not isinstance(maxsize, bool):
        if maxsize < 0:
            maxsize = 0
    elif callable(maxsize) and isinstance(typed, bool):
        # @lru_cache without parentheses
        user_function = maxsize
        return _lru_cache_wrapper(user_function, 128, typed)
    elif maxsize is not None:
        raise TypeError("Expected first argument to be an integer, a callable, or None")

    def decorating_function(user_function):
        return _lru_cache_wrapper(user_function, maxsize, typed)
    return decorating_function


def cache(user_function, /):
    """Simple unbounded cache: lru_cache(maxsize=None)."""
    return lru_cache(maxsize=None)(user_function)


_NOT_FOUND = object()


class cached_property:
    """A property computed once per instance, then stored in the instance's __dict__ (where
    later reads find it; deleting the attribute recomputes it)."""

    def __init__(self, func):
        self.func = func
        self.attrname = None
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name):
        if self.attrname is None:
            self.attrname = name
        elif name != self.attrname:
            raise TypeError("Cannot assign the same cached_property to two different names (" +
                            repr(self.attrname) + " and " + repr(name) + ").")

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if self.attrname is None:
            raise TypeError("Cannot use cached_property instance without calling __set_name__ on it.")
        cache = instance.__dict__
        val = cache.get(self.attrname, _NOT_FOUND)
        if val is _NOT_FOUND:
            val = self.func(instance)
            cache[self.attrname] = val
        return val


def _probe_descriptors():
    try:
        class _D:
            def __set_name__(self, owner, name):
                self.name = name

            def __get__(self, instance, owner=None):
                return self.name

        class _C:
            attr = _D()
        return _C().attr == "attr"
    except Exception:
        return False


if not _probe_descriptors():
    # Kiln's interpreter has no descriptor protocol yet: a cached_property is a property
    # whose getter keeps the value in the instance's __dict__ under the function's name.
    _cached_property_class = cached_property

    def cached_property(func):
        name = func.__name__

        def getter(instance):
            d = instance.__dict__
            if name in d:
                return d[name]
            val = func(instance)
            d[name] = val
            return val
        return property(getter)


# ---------------------------------------------------------------- ordering

def _lt_from_gt(self, other):
    op_result = type(self).__gt__(self, other)
    if op_result is NotImplemented:
        return op_result
    return not op_result and self != other


def _le_from_gt(self, other):
    op_result = type(self).__gt__(self, other)
    if op_result is NotImplemented:
        return op_result
    return not op_result


def _ge_from_gt(self, other):
    op_result = type(self).__gt__(self, other)
    if op_result is NotImplemented:
        return op_result
    return op_result or self == other


def _gt_from_lt(self, other):
    op_result = type(self).__lt__(self, other)
    if op_result is NotImplemented:
        return op_result
    return not op_result and self != other


def _le_from_lt(self, other):
    op_result = type(self).__lt__(self, other)
    if op_result is NotImplemented:
        return op_result
    return op_result or self == other


def _ge_from_lt(self, other):
    op_result = type(self).__lt__(self, other)
    if op_result is NotImplemented:
        return op_result
    return not op_result


def _gt_from_le(self, other):
    op_result = type(self).__le__(self, other)
    if op_result is NotImplemented:
        return op_result
    return not op_result


def _lt_from_le(self, other):
    op_result = type(self).__le__(self, other)
    if op_result is NotImplemented:
        return op_result
    return op_result and self != other


def _ge_from_le(self, other):
    op_result = type(self).__le__(self, other)
    if op_result is NotImplemented:
        return op_result
    return not op_result or self == other


def _lt_from_ge(self, other):
    op_result = type(self).__ge__(self, other)
    if op_result is NotImplemented:
        return op_result
    return not op_result


def _gt_from_ge(self, other):
    op_result = type(self).__ge__(self, other)
    if op_result is NotImplemented:
        return op_result
    return op_result and self != other


def _le_from_ge(self, other):
    op_result = type(self).__ge__(self, other)
    if op_result is NotImplemented:
        return op_result
    return not op_result or self == other


_convert = {
    "__lt__": [("__gt__", _gt_from_lt), ("__le__", _le_from_lt), ("__ge__", _ge_from_lt)],
    "__le__": [("__ge__", _ge_from_le), ("__lt__", _lt_from_le), ("__gt__", _gt_from_le)],
    "__gt__": [("__lt__", _lt_from_gt), ("__ge__", _ge_from_gt), ("__le__", _le_from_gt)],
    "__ge__": [("__le__", _le_from_ge), ("__gt__", _gt_from_ge), ("__lt__", _lt_from_ge)],
}


def total_ordering(cls):
    """Class decorator: given __eq__ and one of __lt__, __le__, __gt__, __ge__, define the rest."""
    roots = []
    for op in ("__lt__", "__le__", "__gt__", "__ge__"):
        if getattr(cls, op, None) is not getattr(object, op, None):
            roots.append(op)
    if not roots:
        raise ValueError("must define at least one ordering operation: < > <= >=")
    # CPython picks the "max" root name: __lt__ < __le__ < __gt__ < __ge__ alphabetically
    root = roots[0]
    for r in roots:
        if r > root:
            root = r
    for opname, opfunc in _convert[root]:
        if opname not in roots:
            opfunc.__name__ = opname
            setattr(cls, opname, opfunc)
    return cls


def cmp_to_key(mycmp):
    """Convert an old-style cmp function (negative/zero/positive) into a key function."""
    class K:
        __slots__ = ["obj"]

        def __init__(self, obj):
            self.obj = obj

        def __lt__(self, other):
            return mycmp(self.obj, other.obj) < 0

        def __gt__(self, other):
            return mycmp(self.obj, other.obj) > 0

        def __eq__(self, other):
            return mycmp(self.obj, other.obj) == 0

        def __le__(self, other):
            return mycmp(self.obj, other.obj) <= 0

        def __ge__(self, other):
            return mycmp(self.obj, other.obj) >= 0

        __hash__ = None
    return K


# ---------------------------------------------------------------- singledispatch

def _find_impl(cls, registry):
    """The registered implementation for the most specific class in cls's MRO."""
    mro = getattr(cls, "__mro__", None)
    if mro is not None:
        for c in mro:
            if c in registry:
                return registry[c]
        return registry.get(object)
    # Interpreters without __mro__: the registered class that is the most derived base of cls.
    if cls in registry:
        return registry[cls]
    best = None
    for c in registry:
        if c is object:
            continue
        try:
            if issubclass(cls, c) and (best is None or issubclass(c, best)):
                best = c
        except TypeError:
            pass
    if best is not None:
        return registry[best]
    return registry.get(object)


def _isclass(x):
    try:
        return isinstance(x, type)
    except TypeError:
        # Kiln's interpreter: `type` is not yet a class isinstance() accepts
        return type(x).__name__ == "type"


def singledispatch(func):
    """Single-dispatch generic function: the implementation is chosen by the type of the first
    argument among those added with .register(cls)."""
    registry = {}
    registry[object] = func

    def dispatch(cls):
        return _find_impl(cls, registry)

    def register(cls, func=None):
        if func is None:
            if _isclass(cls):
                return lambda f: register(cls, f)
            # @register with an annotated first parameter
            ann = getattr(cls, "__annotations__", {})
            if not ann:
                raise TypeError("Invalid first argument to `register()`: " + repr(cls) +
                                ". Use either `@register(some_class)` or plain `@register` on an annotated function.")
            func = cls
            argname = None
            for k in ann:
                if k != "return":
                    argname = k
                    break
            cls = ann[argname]
            if not _isclass(cls):
                raise TypeError("Invalid annotation for " + repr(argname) + ". " + repr(cls) + " is not a class.")
        registry[cls] = func
        return func

    def wrapper(*args, **kw):
        if not args:
            raise TypeError(funcname + " requires at least 1 positional argument")
        return dispatch(type(args[0]))(*args, **kw)

    funcname = getattr(func, "__name__", "singledispatch function")
    wrapper.register = register
    wrapper.dispatch = dispatch
    wrapper.registry = registry
    update_wrapper(wrapper, func)
    return wrapper


class singledispatchmethod:
    """singledispatch for methods: dispatches on the first argument after self."""

    def __init__(self, func):
        self.dispatcher = singledispatch(func)
        self.func = func

    def register(self, cls, method=None):
        return self.dispatcher.register(cls, func=method)

    def __get__(self, obj, cls=None):
        dispatcher = self.dispatcher

        def _method(*args, **kwargs):
            method = dispatcher.dispatch(type(args[0]))
            return method.__get__(obj, cls)(*args, **kwargs)
        _method.register = self.register
        update_wrapper(_method, self.func)
        return _method
