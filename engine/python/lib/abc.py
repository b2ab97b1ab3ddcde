"""Abstract base classes (Kiln's abc module, written from the documentation and PEP 3119).

ABCMeta needs metaclasses. Where the interpreter has none (defining a subclass of `type` fails),
ABCMeta and ABC are stand-ins: classes still derive from ABC and abstractmethod marks methods,
but instantiating an abstract class is not refused and isinstance() sees only real subclasses.
"""

__all__ = ["ABC", "ABCMeta", "abstractmethod", "abstractclassmethod", "abstractstaticmethod",
           "abstractproperty", "get_cache_token", "update_abstractmethods"]


def abstractmethod(funcobj):
    """Mark a method abstract: a class whose metaclass is ABCMeta cannot be instantiated
    while any of its abstract methods is not overridden."""
    funcobj.__isabstractmethod__ = True
    return funcobj


def abstractclassmethod(callable):
    callable.__isabstractmethod__ = True
    return classmethod(callable)


def abstractstaticmethod(callable):
    callable.__isabstractmethod__ = True
    return staticmethod(callable)


def abstractproperty(fget=None, fset=None, fdel=None, doc=None):
    if fget is not None:
        fget.__isabstractmethod__ = True
    return property(fget)


_abc_invalidation_counter = 0


def get_cache_token():
    return _abc_invalidation_counter


def _is_abstract(value):
    if getattr(value, "__isabstractmethod__", False):
        return True
    # classmethod/staticmethod/property wrapping an abstract function
    for attr in ("__func__", "fget"):
        inner = getattr(value, attr, None)
        if inner is not None and getattr(inner, "__isabstractmethod__", False):
            return True
    return False


def _abstract_names(cls, namespace_items, bases):
    names = []
    for name, value in namespace_items:
        if _is_abstract(value) and name not in names:
            names.append(name)
    for base in bases:
        for name in getattr(base, "__abstractmethods__", ()):
            value = getattr(cls, name, None)
            if _is_abstract(value) and name not in names:
                names.append(name)
    return frozenset(names)


def update_abstractmethods(cls):
    """Recompute an ABC's abstract methods (after methods were added to it by a decorator)."""
    if not hasattr(cls, "__abstractmethods__"):
        return cls
    names = []
    for base in getattr(cls, "__bases__", ()):
        for name in getattr(base, "__abstractmethods__", ()):
            if _is_abstract(getattr(cls, name, None)) and name not in names:
                names.append(name)
    ns = getattr(cls, "__dict__", {})
    for name in list(ns):
        if _is_abstract(ns[name]) and name not in names:
            names.append(name)
    cls.__abstractmethods__ = frozenset(names)
    return cls


def _cant_instantiate(cls):
    names = sorted(cls.__abstractmethods__)
    return TypeError("Can't instantiate abstract class " + cls.__name__ + " with abstract method" +
                     ("s " if len(names) > 1 else " ") + ", ".join(names))


try:
    class ABCMeta(type):
        """Metaclass for abstract base classes: tracks abstract methods, refuses to instantiate
        a class that has some, and lets classes be registered as virtual subclasses."""

        def __new__(mcls, name, bases, namespace, **kwargs):
            cls = super().__new__(mcls, name, bases, namespace, **kwargs)
            cls.__abstractmethods__ = _abstract_names(cls, list(namespace.items()), bases)
            cls._abc_registry = []
            cls._abc_subclasses = []
            for base in bases:
                subs = getattr(base, "_abc_subclasses", None)
                if subs is not None:
                    subs.append(cls)
            return cls

        def __call__(cls, *args, **kwargs):
            if getattr(cls, "__abstractmethods__", None):
                raise _cant_instantiate(cls)
            return super().__call__(*args, **kwargs)

        def register(cls, subclass):
            """Register a virtual subclass of this ABC; returns the subclass (usable as a decorator)."""
            global _abc_invalidation_counter
            if not isinstance(subclass, type):
                raise TypeError("Can only register classes")
            if issubclass(subclass, cls):
                return subclass
            if issubclass(cls, subclass):
                raise RuntimeError("Refusing to create an inheritance cycle")
            cls._abc_registry.append(subclass)
            _abc_invalidation_counter += 1
            return subclass

        def __instancecheck__(cls, instance):
            subclass = instance.__class__
            if cls.__subclasscheck__(subclass):
                return True
            subtype = type(instance)
            if subtype is not subclass:
                return cls.__subclasscheck__(subtype)
            return False

        def __subclasscheck__(cls, subclass):
            if not isinstance(subclass, type):
                raise TypeError("issubclass() arg 1 must be a class")
            hook = getattr(cls, "__subclasshook__", None)
            ok = hook(subclass) if hook is not None else NotImplemented
            if ok is not NotImplemented:
                return bool(ok)
            if cls in getattr(subclass, "__mro__", ()):
                return True
            for rcls in cls._abc_registry:
                if issubclass(subclass, rcls):
                    return True
            for scls in cls._abc_subclasses:
                if issubclass(subclass, scls):
                    return True
            return False

        def _dump_registry(cls, file=None):
            print("Class: " + cls.__name__)

    _HAVE_METACLASSES = True
except TypeError:
    # Kiln's interpreter has no metaclasses yet: a stand-in that classes may name.
    class ABCMeta:
        def register(cls, subclass):
            return subclass

    _HAVE_METACLASSES = False


if _HAVE_METACLASSES:
    class ABC(metaclass=ABCMeta):
        """Helper class: derive from ABC to get ABCMeta as the metaclass."""
        __slots__ = ()
else:
    class ABC:
        """Helper class: derive from ABC to get ABCMeta as the metaclass."""
        __slots__ = ()

        @classmethod
        def register(cls, subclass):
            return subclass

        @classmethod
        def __subclasshook__(cls, subclass):
            return NotImplemented
