import enum
from enum import Enum, IntEnum, Flag, IntFlag, auto, unique


class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    CRIMSON = 1

    def describe(self):
        return self.name.lower() + "=" + str(self.value)

    @classmethod
    def default(cls):
        return cls.GREEN


print(Color.RED, repr(Color.RED), Color.RED.name, Color.RED.value, type(Color.RED).__name__)
print(list(Color), len(Color), [c.name for c in Color], list(Color.__members__))
print(Color(2), Color["BLUE"], Color(1) is Color.RED, Color.CRIMSON is Color.RED, Color.RED is Color.RED)
print(Color.RED == Color.RED, Color.RED != Color.GREEN, Color.RED == 1, isinstance(Color.GREEN, Color))
print(Color.GREEN.describe(), Color.default(), f"{Color.BLUE}", "%s" % Color.RED, repr(Color))
print(Color.RED in Color, {Color.RED: "r"}[Color.CRIMSON], sorted(Color, key=lambda c: -c.value))
try:
    Color(7)
except ValueError as e:
    print("ValueError", e)
try:
    Color["PINK"]
except KeyError as e:
    print("KeyError", e)
try:
    Color.RED = 5
except AttributeError as e:
    print("AttributeError", e)


class Shape(Enum):
    SQUARE = auto()
    CIRCLE = auto()
    TRIANGLE = 10
    LINE = auto()


print([(s.name, s.value) for s in Shape])


class Num(IntEnum):
    ONE = 1
    TWO = 2


print(Num.ONE, repr(Num.TWO), Num.ONE + 1, Num.TWO * 3, Num.ONE == 1, Num(2), Num.TWO > Num.ONE, sorted([Num.TWO, Num.ONE]))
print(isinstance(Num.ONE, int), int(Num.TWO), [1, 2, 3][Num.ONE], f"{Num.TWO}")


class Perm(Flag):
    R = 4
    W = 2
    X = 1


rw = Perm.R | Perm.W
print(repr(rw), str(rw), Perm.R in rw, Perm.X in rw, repr(Perm.R & Perm.X), bool(Perm.R & Perm.X))
print(list(rw), repr(~Perm.R), repr(Perm(7)), Perm(6) is rw, repr(Perm.R ^ Perm.R))


class Bits(IntFlag):
    A = auto()
    B = auto()
    C = auto()


print(Bits.A.value, Bits.B.value, Bits.C.value, int(Bits.A | Bits.C), Bits.B == 2)


class Planet(Enum):
    MERCURY = (3.303e+23, 2.4397e6)
    EARTH = (5.976e+24, 6.37814e6)

    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius

    @property
    def gravity(self):
        return 6.673e-11 * self.mass / (self.radius * self.radius)


print(Planet.EARTH.value, Planet.EARTH.mass, round(Planet.EARTH.gravity, 2), Planet((3.303e+23, 2.4397e6)).name)
try:
    @unique
    class Dup(Enum):
        A = 1
        B = 1
except ValueError as e:
    print("ValueError", e)


@unique
class Fine(Enum):
    A = 1
    B = 2


print(list(Fine), Fine.A.value)
Animal = Enum("Animal", "ANT BEE CAT")
print(list(Animal), Animal.BEE.value, Animal(3))


class Status(str, Enum):
    OK = "ok"
    FAIL = "fail"


print(Status.OK.value, Status("fail"), Status.OK == "ok", repr(Status.OK))
mode = Color.GREEN
if mode is Color.GREEN:
    print("green branch")
print(hash(Color.RED) == hash(Color.CRIMSON), Color.RED.__class__ is Color, enum.Enum is Enum)
