"""Enumerations (Kiln's enum module, written from the documentation).

class Color(Enum): RED = 1 makes Color.RED a Color instance with .name 'RED' and .value 1;
iterating Color gives its members in definition order, Color(1) and Color['RED'] look them up,
and members compare by identity. IntEnum/IntFlag members are also ints, StrEnum members strs;
Flag members combine with | & ^ ~.

This needs a metaclass (EnumType). Where the interpreter has none, Enum falls back to a class
whose members are set up by __init_subclass__ from the class __dict__ (when the interpreter has
those); otherwise enum attributes keep their plain values.
"""

__all__ = ["EnumType", "EnumMeta", "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum",
           "auto", "unique", "property", "verify", "member", "nonmember", "FlagBoundary", "STRICT",
           "CONFORM", "EJECT", "KEEP", "global_flag_repr", "global_enum_repr", "global_str",
           "global_enum", "EnumCheck", "CONTINUOUS", "NAMED_FLAGS", "UNIQUE", "pickle_by_global_name",
           "pickle_by_enum_name"]

_builtin_property = property


class _AutoNull:
    def __repr__(self):
        return "_auto_null"


_auto_null = _AutoNull()


class auto:
    """auto(): the member's value is chosen by _generate_next_value_ (1, 2, 3 ... for Enum;
    powers of two for Flag; the lower-cased name for StrEnum)."""

    def __init__(self, value=_auto_null):
        self.value = value

    def __repr__(self):
        return "auto(" + repr(self.value) + ")"


class member:
    """Force a value to be a member."""

    def __init__(self, value):
        self.value = value


class nonmember:
    """Keep a value out of the members."""

    def __init__(self, value):
        self.value = value


property = _builtin_property


def _is_dunder(name):
    return len(name) > 4 and name[:2] == "__" and name[-2:] == "__" and name[2] != "_" and name[-3] != "_"


def _is_sunder(name):
    return len(name) > 2 and name[0] == "_" and name[-1] == "_" and name[1:2] != "_" and name[-2:-1] != "_"


def _is_private(cls_name, name):
    pattern = "_" + cls_name.lstrip("_") + "__"
    return name.startswith(pattern) and not name.endswith("__")


def _is_descriptor(obj):
    if isinstance(obj, (_builtin_property, classmethod, staticmethod)):
        return True
    tn = type(obj).__name__
    if tn in ("function", "builtin_function_or_method", "method", "type"):
        return True
    return hasattr(obj, "__get__") or hasattr(obj, "__set__") or hasattr(obj, "__delete__")


def _is_member_candidate(cls_name, name, value, ignore):
    if name in ignore:
        return False
    if isinstance(value, member):
        return True
    if isinstance(value, nonmember):
        return False
    if _is_dunder(name) or _is_sunder(name) or _is_private(cls_name, name):
        return False
    if isinstance(value, auto):
        return True
    return not _is_descriptor(value)


def _is_class(x):
    try:
        return isinstance(x, type)
    except TypeError:
        return type(x).__name__ == "type"


def _new_blank(cls):
    """An instance of cls created without running its __init__."""
    try:
        return object.__new__(cls)
    except (AttributeError, TypeError):
        pass
    saved = getattr(cls, "__init__")

    def _no_init(self, *a, **k):
        pass
    cls.__init__ = _no_init
    try:
        return cls()
    finally:
        cls.__init__ = saved


def _data_type(enum_class):
    """The mixed-in data type (int for IntEnum, str for StrEnum ...) or object."""
    mro = getattr(enum_class, "__mro__", None)
    if mro is None:
        return object
    for base in mro:
        if base is object:
            continue
        if base in (int, str, float):
            return base
    return object


def _high_bit(value):
    n = -1
    while value:
        value = value >> 1
        n += 1
    return n


def _setup_members(enum_class, items, member_type):
    """Turn the candidate (name, value) pairs of a class body into members of enum_class."""
    enum_class._member_names_ = []
    enum_class._member_map_ = {}
    enum_class._value2member_map_ = {}
    enum_class._unhashable_values_ = []
    cls_name = enum_class.__name__
    ignore = []
    for name, value in items:
        if name == "_ignore_":
            ignore = value.replace(",", " ").split() if isinstance(value, str) else list(value)
    last_values = []
    count = 0
    gen = getattr(enum_class, "_generate_next_value_")
    custom_new = getattr(enum_class, "_new_member_", None)
    init = getattr(enum_class, "__init__", None)
    user_init = init is not None and getattr(init, "__enum_default_init__", False) is False and \
        init is not getattr(object, "__init__", None) and type(init).__name__ == "function"
    for name, value in items:
        if not _is_member_candidate(cls_name, name, value, ignore):
            continue
        if isinstance(value, member):
            value = value.value
        if isinstance(value, auto):
            if value.value is _auto_null:
                value.value = gen(name, 1, count, list(last_values))
            value = value.value
        count += 1
        args = value if isinstance(value, tuple) else (value,)
        if custom_new is not None:
            m = custom_new(enum_class, *args)
            if not hasattr(m, "_value_"):
                m._value_ = value if member_type is object else member_type(*args)
        elif member_type is object:
            m = _new_blank(enum_class)
            m._value_ = value
        else:
            m = member_type.__new__(enum_class, *args)
            m._value_ = member_type(*args)
        real_value = m._value_
        m._name_ = name
        m.__objclass__ = enum_class
        m._sort_order_ = len(enum_class._member_names_)
        if user_init:
            init(m, *args)
        # An alias: a second name for an existing value.
        existing = None
        for other_name in enum_class._member_names_:
            other = enum_class._member_map_[other_name]
            if other._value_ is real_value or other._value_ == real_value:
                existing = other
                break
        if existing is not None:
            m = existing
        else:
            enum_class._member_names_.append(name)
            try:
                enum_class._value2member_map_[real_value] = m
            except TypeError:
                enum_class._unhashable_values_.append(real_value)
        enum_class._member_map_[name] = m
        type.__setattr__(enum_class, name, m) if _HAVE_METACLASSES else setattr(enum_class, name, m)
        last_values.append(real_value)
    if issubclass(enum_class, Flag) if Flag is not None else False:
        all_bits = 0
        for n in enum_class._member_names_:
            v = enum_class._member_map_[n]._value_
            all_bits |= v
        enum_class._flag_mask_ = all_bits
        enum_class._all_bits_ = (1 << (_high_bit(all_bits) + 1)) - 1 if all_bits else 0


def _lookup(cls, value):
    """The member of cls whose value is value (Color(1)), through _missing_ if none."""
    if isinstance(value, cls):
        return value
    try:
        return cls._value2member_map_[value]
    except (KeyError, TypeError):
        pass
    for name in cls._member_names_:
        m = cls._member_map_[name]
        if m._value_ == value:
            return m
    result = cls._missing_(value)
    if result is not None and isinstance(result, cls):
        return result
    raise ValueError(repr(value) + " is not a valid " + cls.__qualname__)


Flag = None
_HAVE_METACLASSES = False

try:
    class EnumType(type):
        """The metaclass of enumerations: builds the members from the class body and makes the
        class iterable, subscriptable by name and callable by value."""

        def __new__(metacls, cls, bases, classdict, **kwds):
            items = list(classdict.items())
            ns = {}
            candidates = []
            ignore = classdict.get("_ignore_", [])
            if isinstance(ignore, str):
                ignore = ignore.replace(",", " ").split()
            for k, v in items:
                if _is_member_candidate(cls, k, v, ignore) and k != "_ignore_":
                    candidates.append((k, v))
                elif k != "_ignore_":
                    ns[k] = v
            if "__new__" in ns:
                ns["_new_member_"] = ns.pop("__new__")
            enum_class = super().__new__(metacls, cls, bases, ns, **kwds)
            member_type = _data_type(enum_class)
            if member_type is not object:
                # repr/str/format come from the enum, not the mixed-in type (int.__repr__ ...)
                first_enum = None
                for b in reversed(bases):
                    if isinstance(b, EnumType):
                        first_enum = b
                        break
                if first_enum is not None:
                    for name in ("__repr__", "__str__", "__format__", "__reduce_ex__"):
                        if name in classdict:
                            continue
                        found = getattr(enum_class, name)
                        if found is getattr(member_type, name) or found is getattr(object, name):
                            type.__setattr__(enum_class, name, getattr(first_enum, name))
            _setup_members(enum_class, candidates, member_type)
            return enum_class

        def __call__(cls, value, names=None, *, module=None, qualname=None, type=None, start=1, boundary=None):
            if names is None:
                return _lookup(cls, value)
            return _functional_api(cls, value, names, module, qualname, type, start)

        def __getitem__(cls, name):
            return cls._member_map_[name]

        def __iter__(cls):
            return iter([cls._member_map_[name] for name in cls._member_names_])

        def __reversed__(cls):
            return iter([cls._member_map_[name] for name in reversed(cls._member_names_)])

        def __len__(cls):
            return len(cls._member_names_)

        def __contains__(cls, value):
            if isinstance(value, cls):
                return True
            if not isinstance(value, Enum):
                raise TypeError("unsupported operand type(s) for 'in': '" + type(value).__qualname__ +
                                "' and '" + cls.__class__.__qualname__ + "'")
            return False

        def __bool__(cls):
            return True

        def __repr__(cls):
            if Flag is not None and issubclass(cls, Flag):
                return "<flag " + repr(cls.__name__) + ">"
            return "<enum " + repr(cls.__name__) + ">"

        @_builtin_property
        def __members__(cls):
            return dict(cls._member_map_)

        def __setattr__(cls, name, value):
            member_map = cls.__dict__.get("_member_map_", {})
            if name in member_map:
                raise AttributeError("cannot reassign member " + repr(name))
            super().__setattr__(name, value)

        def __delattr__(cls, attr):
            if attr in cls._member_map_:
                raise AttributeError(repr(cls.__name__) + " cannot delete member " + repr(attr))
            super().__delattr__(attr)

    _HAVE_METACLASSES = True
except TypeError:
    EnumType = None

EnumMeta = EnumType


def _functional_api(cls, class_name, names, module, qualname, type_, start):
    """Enum('Animal', 'ANT BEE') / Enum('Animal', [('ANT', 1)]) / Enum('Animal', {'ANT': 1})."""
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    items = []
    if isinstance(names, dict):
        items = list(names.items())
    else:
        names = list(names)
        i = 0
        for item in names:
            if isinstance(item, str):
                items.append((item, start + i if not (Flag is not None and issubclass(cls, Flag)) else 1 << (start + i - 1)))
            else:
                items.append((item[0], item[1]))
            i += 1
    bases = (cls,) if type_ is None else (type_, cls)
    ns = {}
    for k, v in items:
        ns[k] = v
    enum_class = EnumType(class_name, bases, ns)
    if qualname is not None:
        enum_class.__qualname__ = qualname
    return enum_class


def _enum_class_body(cls):
    """(name, value) pairs of the class's own body, in order (needs a class __dict__)."""
    d = getattr(cls, "__dict__", None)
    if d is None:
        return None
    try:
        return list(d.items())
    except AttributeError:
        return None


class _EnumBase:
    """Instance behaviour shared by every enum member."""

    def __repr__(self):
        v_repr = self.__class__._value_repr_ if hasattr(self.__class__, "_value_repr_") else repr
        return "<" + self.__class__.__name__ + "." + self._name_ + ": " + v_repr(self._value_) + ">"

    def __str__(self):
        return self.__class__.__name__ + "." + self._name_

    def __format__(self, format_spec):
        return format(str(self), format_spec)

    def __hash__(self):
        return hash(self._name_)

    def __reduce_ex__(self, proto):
        return self.__class__, (self._value_,)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    @_builtin_property
    def name(self):
        """The member's name."""
        return self._name_

    @_builtin_property
    def value(self):
        """The member's value."""
        return self._value_

    @classmethod
    def _missing_(cls, value):
        return None

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        if not last_values:
            return start
        for v in reversed(last_values):
            try:
                return v + 1
            except TypeError:
                pass
        return start


if _HAVE_METACLASSES:
    class Enum(_EnumBase, metaclass=EnumType):
        """Base class of enumerations."""
else:
    class Enum(_EnumBase):
        """Base class of enumerations (interpreter without metaclasses: members are built by
        __init_subclass__ when the class __dict__ is available)."""

        def __init_subclass__(cls, **kwds):
            body = _enum_class_body(cls)
            if body is not None:
                _setup_members(cls, body, _data_type(cls))

        @classmethod
        def __class_iter__(cls):
            return iter([cls._member_map_[name] for name in getattr(cls, "_member_names_", [])])

        @classmethod
        def __class_getitem__(cls, name):
            return cls._member_map_[name]


class ReprEnum(Enum):
    """An enum whose str() and format() are those of its mixed-in type."""


def _mixin_str(self):
    t = _data_type(type(self))
    if t is object:
        return _EnumBase.__str__(self)
    return t.__repr__(self) if t is int else t.__str__(self)


def _mixin_format(self, format_spec):
    t = _data_type(type(self))
    if t is object:
        return format(str(self), format_spec)
    return t.__format__(self._value_, format_spec)


ReprEnum.__str__ = _mixin_str
ReprEnum.__format__ = _mixin_format

try:
    class IntEnum(int, ReprEnum):
        """Enum whose members are also ints (and compare equal to them)."""
except TypeError:
    class IntEnum(ReprEnum):
        """Enum whose members are also ints (interpreter without int subclassing)."""


def _str_generate_next_value_(name, start, count, last_values):
    return name.lower()


try:
    class StrEnum(str, ReprEnum):
        """Enum whose members are also strs; auto() gives the lower-cased name."""
except TypeError:
    class StrEnum(ReprEnum):
        """Enum whose members are also strs."""
StrEnum._generate_next_value_ = staticmethod(_str_generate_next_value_)


class FlagBoundary:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "<FlagBoundary." + self.name + ": " + repr(self.name.lower()) + ">"


STRICT = FlagBoundary("STRICT")
CONFORM = FlagBoundary("CONFORM")
EJECT = FlagBoundary("EJECT")
KEEP = FlagBoundary("KEEP")


class _FlagMixin:
    pass


def _flag_generate_next_value_(name, start, count, last_values):
    if not count:
        return start if start is not None else 1
    high = 0
    for v in last_values:
        b = _high_bit(v)
        if b > high:
            high = b
    return 1 << (high + 1)


class Flag(Enum):
    """Enum whose members combine with | & ^ ~ into flag values; iterating a flag value gives
    the members it contains."""

    def _members_in(self):
        result = []
        for name in self.__class__._member_names_:
            m = self.__class__._member_map_[name]
            v = m._value_
            if v and (self._value_ & v) == v and _high_bit(v) >= 0 and (v & (v - 1)) == 0:
                result.append(m)
        return result

    def __iter__(self):
        return iter(self._members_in())

    def __len__(self):
        n = 0
        v = self._value_
        while v:
            n += v & 1
            v = v >> 1
        return n

    def __contains__(self, other):
        if not isinstance(other, self.__class__):
            raise TypeError("unsupported operand type(s) for 'in': '" + type(other).__qualname__ +
                            "' and '" + self.__class__.__qualname__ + "'")
        return other._value_ & self._value_ == other._value_

    def __bool__(self):
        return bool(self._value_)

    def __repr__(self):
        cls_name = self.__class__.__name__
        if self._name_ is None:
            return "<" + cls_name + ": " + repr(self._value_) + ">"
        return "<" + cls_name + "." + self._name_ + ": " + repr(self._value_) + ">"

    def __str__(self):
        cls_name = self.__class__.__name__
        if self._name_ is None:
            return cls_name + "(" + repr(self._value_) + ")"
        return cls_name + "." + self._name_

    def _get_value(self, flag):
        if isinstance(flag, self.__class__):
            return flag._value_
        return NotImplemented

    def __or__(self, other):
        v = self._get_value(other)
        if v is NotImplemented:
            return NotImplemented
        return self.__class__(self._value_ | v)

    def __and__(self, other):
        v = self._get_value(other)
        if v is NotImplemented:
            return NotImplemented
        return self.__class__(self._value_ & v)

    def __xor__(self, other):
        v = self._get_value(other)
        if v is NotImplemented:
            return NotImplemented
        return self.__class__(self._value_ ^ v)

    def __invert__(self):
        return self.__class__(self.__class__._flag_mask_ & ~self._value_)

    @classmethod
    def _missing_(cls, value):
        if not isinstance(value, int):
            raise ValueError(repr(value) + " is not a valid " + cls.__qualname__)
        mask = getattr(cls, "_flag_mask_", 0)
        if value & ~mask:
            if issubclass(cls, int):
                pass
            else:
                raise ValueError(repr(value) + " is not a valid " + cls.__qualname__)
        # A pseudo-member for a combination of flags (or zero).
        pseudo = cls._value2member_map_.get(value) if hasattr(cls, "_value2member_map_") else None
        if pseudo is not None:
            return pseudo
        if issubclass(cls, int):
            pseudo = int.__new__(cls, value)
        else:
            pseudo = _new_blank(cls)
        pseudo._value_ = value
        names = []
        for name in cls._member_names_:
            v = cls._member_map_[name]._value_
            if v and value & v == v and (v & (v - 1)) == 0:
                names.append(name)
        extra = value & ~mask
        pseudo._name_ = "|".join(names) if names and not extra else (None if not names else "|".join(names))
        if value == 0:
            pseudo._name_ = None
        try:
            cls._value2member_map_[value] = pseudo
        except TypeError:
            pass
        return pseudo


Flag._generate_next_value_ = staticmethod(_flag_generate_next_value_)

try:
    class IntFlag(int, ReprEnum, Flag):
        """Flag whose members are also ints."""
except TypeError:
    class IntFlag(Flag):
        """Flag whose members are also ints."""


def _intflag_or(self, other):
    if isinstance(other, self.__class__):
        other = other._value_
    elif isinstance(other, int):
        pass
    else:
        return NotImplemented
    return self.__class__(self._value_ | other)


def _intflag_and(self, other):
    if isinstance(other, self.__class__):
        other = other._value_
    elif not isinstance(other, int):
        return NotImplemented
    return self.__class__(self._value_ & other)


def _intflag_xor(self, other):
    if isinstance(other, self.__class__):
        other = other._value_
    elif not isinstance(other, int):
        return NotImplemented
    return self.__class__(self._value_ ^ other)


IntFlag.__or__ = _intflag_or
IntFlag.__ror__ = _intflag_or
IntFlag.__and__ = _intflag_and
IntFlag.__rand__ = _intflag_and
IntFlag.__xor__ = _intflag_xor
IntFlag.__rxor__ = _intflag_xor
IntFlag.__str__ = _mixin_str
IntFlag.__format__ = _mixin_format
IntFlag._flag_generate = staticmethod(_flag_generate_next_value_)


def unique(enumeration):
    """Class decorator: ValueError if any value has more than one name."""
    duplicates = []
    for name in list(enumeration.__members__):
        m = enumeration.__members__[name]
        if name != m.name:
            duplicates.append((name, m.name))
    if duplicates:
        alias_details = ", ".join([alias + " -> " + name for alias, name in duplicates])
        raise ValueError("duplicate values found in " + repr(enumeration) + ": " + alias_details)
    return enumeration


class EnumCheck:
    def __init__(self, name):
        self.name = name


CONTINUOUS = EnumCheck("CONTINUOUS")
NAMED_FLAGS = EnumCheck("NAMED_FLAGS")
UNIQUE = EnumCheck("UNIQUE")


class verify:
    """Class decorator checking constraints on an enumeration (UNIQUE is checked)."""

    def __init__(self, *checks):
        self.checks = checks

    def __call__(self, enumeration):
        for check in self.checks:
            if check is UNIQUE:
                unique(enumeration)
        return enumeration


def global_enum_repr(self):
    return self.__class__.__module__ + "." + self._name_


def global_flag_repr(self):
    return self.__class__.__module__ + "." + str(self._name_)


def global_str(self):
    return self._name_


def global_enum(cls, update_str=False):
    return cls


def pickle_by_global_name(self, proto):
    return self.name


def pickle_by_enum_name(self, proto):
    return getattr, (self.__class__, self._name_)
