// py::as<T> (engine/python/cast.h): the checked downcast returns the object for its own kind,
// null for null, and throws BadObjCast naming both types and the calling line for another kind
// (where static_cast was undefined behaviour).
#include "engine/python/objects.h"

#include <gtest/gtest.h>

namespace kiln::py {
namespace {

TEST(ObjCast, ReturnsTheObjectOfItsKind) {
  Value t = makeTuple({makeInt(1), makeStr("a")});
  TupleObj* tp = as<TupleObj>(t);
  ASSERT_EQ(tp, t.get());
  EXPECT_EQ(tp->items.size(), 2u);
  EXPECT_EQ(as<IntObj>(tp->items[0])->small(), 1);
  EXPECT_EQ(as<StrObj>(tp->items[1].get())->v, "a");
  const Obj* c = t.get();
  const TupleObj* ctp = as<TupleObj>(c);
  EXPECT_EQ(ctp, tp);
}

TEST(ObjCast, NullStaysNull) {
  Value none;
  EXPECT_EQ(as<DictObj>(none), nullptr);
  EXPECT_EQ(as<DictObj>(static_cast<Obj*>(nullptr)), nullptr);
  EXPECT_EQ(asShared<DictObj>(none), nullptr);
}

TEST(ObjCast, WrongKindThrowsNamingBothTypesAndTheLine) {
  Value i = makeInt(3);
  try {
    as<TupleObj>(i);
    FAIL() << "no throw";
  } catch (const BadObjCast& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("expected a TupleObj, got a IntObj"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cast_test.cpp:"), std::string::npos) << msg;
  }
  EXPECT_THROW(as<FloatObj>(makeBool(true)), BadObjCast);  // a bool is not a float object
  EXPECT_THROW(as<InstanceObj>(None()), BadObjCast);
  EXPECT_THROW(asShared<ClassObj>(makeList({})), BadObjCast);
}

TEST(ObjCast, SharedFormKeepsOwnership) {
  Value d = std::make_shared<DictObj>();
  std::shared_ptr<DictObj> sd = asShared<DictObj>(d);
  EXPECT_EQ(sd.get(), d.get());
  EXPECT_EQ(d.use_count(), 2);
}

}  // namespace
}  // namespace kiln::py
