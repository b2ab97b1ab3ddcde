// The engine's one float repr (ir::pyFloat) against what CPython 3.11's repr() prints, and the
// one dtype-name table (engine/ir/types.cpp): every name of every dtype, and that the names read
// back to the dtype.
#include "engine/ir/text.h"
#include "engine/ir/types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kiln::ir;

TEST(PyFloat, MatchesCPythonRepr) {
  // repr(x) in CPython 3.11 for each x.
  const std::pair<double, const char*> cases[] = {
      {1.0, "1.0"},
      {0.1, "0.1"},
      {-0.0, "-0.0"},
      {1.0 / 3, "0.3333333333333333"},
      {0.0001, "0.0001"},
      {0.007151831521436534, "0.007151831521436534"},  // 18 decimals: beyond %.17f
      {0.0, "0.0"},
      {1e-05, "1e-05"},
      {2.5e-07, "2.5e-07"},
      {1e15, "1000000000000000.0"},  // %g would write 1e+15
      {9999999999999998.0, "9999999999999998.0"},
      {1e16, "1e+16"},
      {12345678901234567.0, "1.2345678901234568e+16"},
      {1.5e300, "1.5e+300"},
      {5e-324, "5e-324"},
      {std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
      {123456789.123, "123456789.123"},
      {-2.0, "-2.0"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
      {std::nan(""), "nan"},
  };
  for (const auto& [v, text] : cases) EXPECT_EQ(pyFloat(v), text) << text;
}

TEST(DTypeNames, OneRowPerDTypeInEnumOrder) {
  const auto& all = allDTypes();
  ASSERT_EQ(all.size(), 10u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(static_cast<size_t>(all[i]), i);
}

TEST(DTypeNames, EveryNameOfADType) {
  struct Row {
    DType d;
    const char *shortName, *torchName, *alias, *method, *scalarType, *typeMeta;
  };
  // PyTorch 2.11: torch.float is torch.float32 ...; x.char() is int8, x.byte() uint8; c10's
  // ScalarType and TypeMeta names as its error messages print them.
  const Row rows[] = {
      {DType::Float32, "f32", "torch.float32", "float", "float", "Float", "float"},
      {DType::Float64, "f64", "torch.float64", "double", "double", "Double", "double"},
      {DType::Int64, "i64", "torch.int64", "long", "long", "Long", "long int"},
      {DType::Int32, "i32", "torch.int32", "int", "int", "Int", "int"},
      {DType::Bool, "b8", "torch.bool", "", "bool", "Bool", "bool"},
      {DType::Float16, "f16", "torch.float16", "half", "half", "Half", "c10::Half"},
      {DType::BFloat16, "bf16", "torch.bfloat16", "", "bfloat16", "BFloat16", "c10::BFloat16"},
      {DType::Int16, "i16", "torch.int16", "short", "short", "Short", "short int"},
      {DType::Int8, "i8", "torch.int8", "", "char", "Char", "signed char"},
      {DType::UInt8, "u8", "torch.uint8", "", "byte", "Byte", "unsigned char"},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(shortName(r.d), r.shortName);
    EXPECT_EQ(torchName(r.d), r.torchName);
    EXPECT_EQ(torchAlias(r.d), r.alias);
    EXPECT_EQ(tensorMethodName(r.d), r.method);
    EXPECT_STREQ(scalarTypeName(r.d), r.scalarType);
    EXPECT_STREQ(typeMetaName(r.d), r.typeMeta);
    EXPECT_EQ(dtypeFromShort(r.shortName), r.d);
    EXPECT_EQ(dtypeFromTorch(r.torchName), r.d);
    EXPECT_EQ(dtypeFromTorch(std::string(r.torchName).substr(6)), r.d);
  }
  EXPECT_EQ(dtypeFromShort("f128"), std::nullopt);
  EXPECT_EQ(dtypeFromTorch("torch.complex64"), std::nullopt);
}
