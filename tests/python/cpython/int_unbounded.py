# Python ints are unbounded: results beyond 64 bits are exact, conversions and formatting too.
m = -9223372036854775807 - 1
print(m // -1, m % -1, abs(m), -m)
print(int(1e300))
print(2**100, 2**64 - 1, 3**-1)
print(10**20 // 7, 10**20 % 7, -(10**20) // 7, divmod(10**20, -7))
print(1 << 100, (1 << 100) >> 99, -(1 << 100) >> 200, (2**70) & 0xff, (-2**70) | 1, ~(2**70))
print(int("123456789012345678901234567890"), int("0x_ff", 0), int(" -1_000 "), int("ff", 16))
print(2**64 == 2.0**64, 2**53 + 1 == 2.0**53, 2**53 + 1 > 2.0**53, float(2**53 + 1), float(2**1000)/2**999)
d = {2**64: "a", 2**53: "b"}
print(d[2**64], d.get(2.0**53), (2**53 + 1) in d)
print(hash(2**100), hash(-2**100), hash(2**61 - 1), hash(2**61))
print(f"{2**70:,}", f"{2**70:x}", f"{2**70:>30}", "%d" % 2**70, str(2**70), repr(-2**70))
print(12345678901234567890123 * 98765432109876543210, pow(3, 200), pow(2, 100, 10**9 + 7))
print(bool(2**100), 2**100 < 2**101, max(2**70, 3), sorted([2**70, -2**70, 0]))
x = 9223372036854775807
x += 1
print(x, type(x), isinstance(x, int))
try:
    float(10**400)
except OverflowError as e:
    print("OverflowError", e)
try:
    str(10**5000)
except ValueError as e:
    print("ValueError", str(e)[:40])
print(1 ** (10**30), (-1) ** (10**30 + 1), 0 ** (10**30))
print(round(2**70), int(2**70), (2**70).bit_length(), round(-2**70 - 50, -2), round(150, -2), round(250, -2))
print(f"{2**60 + 1:d}", f"{-2**70:+,}", f"{255:08b}", f"{2**64:X}", f"{7:o}", f"{1.5:.60f}"[:40], f"{-0.0:+}")
print("%d %i" % (2**70, 1e20), "%d" % 3.99)
for bad in [lambda: pow(2, 10, 0), lambda: 0 ** -1, lambda: 1 << -1, lambda: int("12_"), lambda: int("0x10"), lambda: int("9" * 5000),
            lambda: int(float("inf")), lambda: int(float("nan")), lambda: f"{1:.2d}", lambda: f"{1.5:d}"]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, str(e)[:60])
print(int("0x10", 0), int("0b101", 0), int("0o17", 0), int("z", 36), int("-0"), int("  +7  "))
