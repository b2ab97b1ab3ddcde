// The dict's hash index (engine/python/objects.h, DictItems; issue 13): lookups through it find
// what a scan finds, with Python's key semantics (1 == 1.0 == True share an entry, big ints equal
// to floats, tuples by their items, instances through __hash__/__eq__), insertion order is kept
// through deletes and re-inserts, and unhashable keys raise CPython's TypeError.
#include "engine/python/interpreter.h"
#include "engine/python/objects.h"
#include "engine/python/parser.h"
#include "engine/torch/install.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kiln::py {
namespace {

std::string run(const std::string& src) {
  std::ostringstream out;
  Interpreter in(out);
  kiln::torchapi::install(in);
  Module m = parseModule(src, "t.py");
  in.runModule(m);
  return out.str();
}

TEST(DictIndex, LookupsMatchAScan) {
  DictObj d;
  for (int64_t i = 0; i < 1000; ++i) d.set(makeInt(i * 3), makeInt(i));
  ASSERT_EQ(d.items.size(), 1000u);
  for (int64_t i = 0; i < 1000; ++i) {
    Value v = d.get(makeInt(i * 3));
    ASSERT_TRUE(v) << i;
    EXPECT_EQ(as<IntObj>(v)->small(), i);
    EXPECT_FALSE(d.get(makeInt(i * 3 + 1)));
  }
  // Equal numbers are one key: 3.0 and 3 (and True with 1) find the same entry.
  EXPECT_TRUE(d.get(makeFloat(3.0)));
  EXPECT_FALSE(d.get(makeFloat(3.5)));
  d.set(makeFloat(6.0), makeInt(-1));
  EXPECT_EQ(d.items.size(), 1000u);
  EXPECT_EQ(as<IntObj>(d.get(makeInt(6)))->small(), -1);
  // Deleting keeps the order of the rest; a re-inserted key goes last.
  EXPECT_TRUE(d.erase(makeInt(0)));
  EXPECT_FALSE(d.get(makeInt(0)));
  EXPECT_EQ(as<IntObj>(d.items.front().first)->small(), 3);
  d.set(makeInt(0), makeInt(7));
  EXPECT_EQ(as<IntObj>(d.items.back().first)->small(), 0);
  EXPECT_EQ(d.items.size(), 1000u);
  // Entries added through the items themselves are found too.
  d.items.emplace_back(makeStr("late"), makeInt(1));
  EXPECT_TRUE(d.getStr("late"));
  EXPECT_TRUE(d.get(makeStr("late")));
  d.items.clear();
  EXPECT_FALSE(d.get(makeInt(3)));
}

TEST(DictIndex, PythonKeySemantics) {
  const std::string src = R"(
d = {i: i for i in range(100)}
d[1.0] = 'one'
d[True] = 'true'
print(len(d), d[1], 50.0 in d, d.get(2**70), (1, 2) in {(1, 2.0): 3})
big = {i: i for i in range(20)}
big[2**70] = 'big'
big[2.0**70] = 'float'
print(len(big), big[2**70], 2**70 + 1 in big)
t = {(i, str(i)): i for i in range(50)}
print(t[(7, '7')], (7.0, '7') in t, (7, 7) in t)
class K:
    def __init__(self, v): self.v = v
    def __hash__(self): return hash(self.v)
    def __eq__(self, o): return isinstance(o, K) and o.v == self.v
ks = {K(i): i for i in range(20)}
print(ks[K(7)], K(30) in ks, len(ks))
o = {i: i for i in range(30)}
for i in range(0, 30, 2):
    del o[i]
o[0] = 'again'
print(list(o)[:3], list(o)[-1], len(o), 2 in o, 3 in o)
s = set(range(100))
s.discard(50)
print(len(s), 50 in s, 51 in s, 49.0 in s)
)";
  EXPECT_EQ(run(src),
            "100 true True None True\n"
            "21 float False\n"
            "7 True False\n"
            "7 False 20\n"
            "[1, 3, 5] 0 16 False True\n"
            "99 False True True\n");
}

TEST(DictIndex, UnhashableKeysRaiseTypeError) {
  const std::string src = R"(
def tryit(f):
    try:
        f()
    except TypeError as e:
        print('TypeError:', e)
d = {i: i for i in range(20)}
def setit():
    d[[1]] = 2
tryit(setit)
tryit(lambda: [1] in d)
tryit(lambda: {[1, 2]})
tryit(lambda: {{}: 1})
tryit(lambda: dict.fromkeys([[1]]))
tryit(lambda: {1: 2}.get([1]))
tryit(lambda: {(1, [2]): 3})
tryit(lambda: {set(): 1})
class E:
    def __eq__(self, o): return True
tryit(lambda: {E(): 1})
print(len(d))
)";
  EXPECT_EQ(run(src),
            "TypeError: unhashable type: 'list'\n"
            "TypeError: unhashable type: 'list'\n"
            "TypeError: unhashable type: 'list'\n"
            "TypeError: unhashable type: 'dict'\n"
            "TypeError: unhashable type: 'list'\n"
            "TypeError: unhashable type: 'list'\n"
            "TypeError: unhashable type: 'list'\n"
            "TypeError: unhashable type: 'set'\n"
            "TypeError: unhashable type: 'E'\n"
            "20\n");
}

}  // namespace
}  // namespace kiln::py
