// The 8/16-bit dtypes: bfloat16 and float16 storage (round to nearest even on store, exact
// widening), c10's type promotion table, and scripts whose expected output is what PyTorch
// prints: promotion through ops, rounding, printing, torch.autocast's op choice and
// torch.set_default_dtype.
#include "engine/ir/types.h"
#include "engine/ops/autocast.h"
#include "engine/python/interpreter.h"
#include "engine/python/parser.h"
#include "engine/tensor/half.h"
#include "engine/tensor/tensor.h"
#include "engine/torch/install.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace kiln {
namespace {

using ir::DType;

TEST(Dtypes, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(tensor::floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(tensor::floatToBf16(1.00390625f), 0x3F80);                        // 1 + 2^-8: a tie, to even (down)
  EXPECT_EQ(tensor::floatToBf16(1.01171875f), 0x3F82);                        // 1 + 3 * 2^-8: a tie, to even (up)
  EXPECT_EQ(tensor::floatToBf16(std::nextafter(1.00390625f, 2.0f)), 0x3F81);  // just above the tie: up
  EXPECT_EQ(tensor::floatToBf16(-2.25f), 0xC010);
  EXPECT_EQ(tensor::floatToBf16(INFINITY), 0x7F80);
  EXPECT_EQ(tensor::floatToBf16(NAN), 0x7FC0);
  EXPECT_EQ(tensor::floatToBf16(3.4028235e38f), 0x7F80);  // float max rounds past bf16 max
  for (uint32_t h = 0; h < 0x10000; ++h) {                // every finite bf16 survives the round trip
    float f = tensor::bf16ToFloat(static_cast<uint16_t>(h));
    if (!std::isnan(f)) { EXPECT_EQ(tensor::floatToBf16(f), h); }
  }
}

TEST(Dtypes, Float16RoundsToNearestEven) {
  EXPECT_EQ(tensor::floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(tensor::floatToF16(1.00048828125f), 0x3C00);  // 1 + 2^-11: tie, down to even
  EXPECT_EQ(tensor::floatToF16(1.00146484375f), 0x3C02);  // 1 + 3 * 2^-11: tie, up to even
  EXPECT_EQ(tensor::floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(tensor::floatToF16(65519.0f), 0x7BFF);
  EXPECT_EQ(tensor::floatToF16(65520.0f), 0x7C00);  // rounds to infinity
  EXPECT_EQ(tensor::floatToF16(-70000.0f), 0xFC00);
  EXPECT_EQ(tensor::floatToF16(1e-7f), 0x0002);           // subnormal: 1.68 units of 2^-24
  EXPECT_EQ(tensor::floatToF16(2.9802322e-08f), 0x0000);  // exactly half a unit: to even (0)
  EXPECT_EQ(tensor::floatToF16(8.940697e-08f), 0x0002);   // 1.5 units: to even (2)
  EXPECT_EQ(tensor::floatToF16(6.097555e-05f), 0x03FF);   // largest subnormal
  EXPECT_TRUE(std::isnan(tensor::f16ToFloat(tensor::floatToF16(NAN))));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = tensor::f16ToFloat(static_cast<uint16_t>(h));
    if (!std::isnan(f)) { EXPECT_EQ(tensor::floatToF16(f), h) << h; }
  }
}

TEST(Dtypes, PromotionTable) {
  EXPECT_EQ(ir::promoteTypes(DType::UInt8, DType::Int8), DType::Int16);
  EXPECT_EQ(ir::promoteTypes(DType::UInt8, DType::Bool), DType::UInt8);
  EXPECT_EQ(ir::promoteTypes(DType::UInt8, DType::Int32), DType::Int32);
  EXPECT_EQ(ir::promoteTypes(DType::Int16, DType::Int8), DType::Int16);
  EXPECT_EQ(ir::promoteTypes(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(ir::promoteTypes(DType::BFloat16, DType::Int64), DType::BFloat16);
  EXPECT_EQ(ir::promoteTypes(DType::Float16, DType::Float64), DType::Float64);
  EXPECT_EQ(ir::promoteTypes(DType::Bool, DType::Float16), DType::Float16);
}

TEST(Dtypes, StoresWrapAndRound) {
  tensor::Tensor t = tensor::Tensor::empty({1}, DType::UInt8);
  t.storeAt(0, 300.0);
  EXPECT_EQ(t.loadAt(0), 44.0);  // through int64, wrapped (PyTorch's CPU cast)
  t.storeAt(0, -1.0);
  EXPECT_EQ(t.loadAt(0), 255.0);
  tensor::Tensor b = tensor::Tensor::empty({1}, DType::BFloat16);
  b.storeAt(0, 0.1);
  EXPECT_EQ(b.loadAt(0), 0.10009765625);
}

TEST(Dtypes, AutocastPolicies) {
  using ops::autocast::Policy;
  EXPECT_EQ(ops::autocast::cpuPolicy("aten.mm.default"), Policy::LowerPrecision);
  EXPECT_EQ(ops::autocast::cpuPolicy("aten.convolution.default"), Policy::LowerPrecision);
  EXPECT_EQ(ops::autocast::cpuPolicy("aten.nll_loss_forward.default"), Policy::Float32);
  EXPECT_EQ(ops::autocast::cpuPolicy("aten.cat.default"), Policy::Promote);
  EXPECT_EQ(ops::autocast::cpuPolicy("aten.add.Tensor"), Policy::None);
}

std::string run(const std::string& src) {
  std::ostringstream out;
  py::Interpreter in(out);
  kiln::torchapi::install(in);
  py::Module m = py::parseModule(src, "t.py");
  try {
    in.runModule(m);
  } catch (const py::PyError& e) { return out.str() + py::formatTraceback(e, src); }
  return out.str();
}

TEST(DtypeScripts, Promotion) {
  const char* src = R"PY(import torch
a = torch.tensor([1, 2], dtype=torch.uint8)
b = torch.tensor([1, 2], dtype=torch.int8)
print((a + b).dtype, (a + True).dtype, (a * 2).dtype, (a * 2.5).dtype)
h = torch.tensor([1.0], dtype=torch.float16)
bf = torch.tensor([1.0], dtype=torch.bfloat16)
print((h + bf).dtype, (h + 1).dtype, (bf * 2.0).dtype, (torch.tensor([1]) + bf).dtype)
print(torch.tensor([250], dtype=torch.uint8) + 10)
print(torch.iinfo(torch.int8).min, torch.iinfo(torch.uint8).max, torch.iinfo(torch.int16).bits)
)PY";
  const char* want = R"OUT(torch.int16 torch.uint8 torch.uint8 torch.float32
torch.float32 torch.float16 torch.bfloat16 torch.bfloat16
tensor([4], dtype=torch.uint8)
-128 255 16
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(DtypeScripts, RoundingAndPrinting) {
  const char* src = R"PY(import torch
x = torch.tensor([1.0, 1.00390625, 1.01171875])
print(x.to(torch.bfloat16).float().tolist())
h = torch.tensor([1.0, 1.00146484375, 70000.0, 65519.0, 65520.0, 1e-7]).half()
print(h.tolist())
print(torch.tensor([1.5, -2.25], dtype=torch.bfloat16))
print(torch.tensor([1, -2], dtype=torch.int8))
print((torch.tensor([1.0], dtype=torch.bfloat16) * 0.1).item())
)PY";
  const char* want = R"OUT([1.0, 1.0, 1.015625]
[1.0, 1.001953125, inf, 65504.0, inf, 1.1920928955078125e-07]
tensor([ 1.5000, -2.2500], dtype=torch.bfloat16)
tensor([ 1, -2], dtype=torch.int8)
0.10009765625
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(DtypeScripts, Reductions) {
  // 16-bit floats reduce in float32 and round once; narrow integers sum exactly into int64.
  const char* src = R"PY(import torch
b = torch.tensor([1.5, 2.25, -0.5], dtype=torch.bfloat16)
print(b.sum(), b.amax(), b.mean())
i = torch.tensor([100, 100, -3], dtype=torch.int8)
print(i.sum(), i.max(), i.sum().dtype)
u = torch.tensor([200, 100], dtype=torch.uint8)
print(u.sum(), u.float().mean())
)PY";
  const char* want = R"OUT(tensor(3.2500, dtype=torch.bfloat16) tensor(2.2500, dtype=torch.bfloat16) tensor(1.0859, dtype=torch.bfloat16)
tensor(197) tensor(100, dtype=torch.int8) torch.int64
tensor(300) tensor(150.)
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(DtypeScripts, AutocastChoosesOps) {
  const char* src = R"PY(import torch
import torch.nn.functional as F
a = torch.ones(2, 2)
b = torch.ones(2, 2)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print(torch.mm(a, b).dtype, (a + b).dtype, torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    print(torch.mm(a.double(), b.double()).dtype)
    # composites are cast before they decompose: a vector matmul (mv) and prod
    print(torch.matmul(a, torch.ones(2)).dtype, torch.prod(torch.ones(2, dtype=torch.bfloat16)).dtype)
    print(F.cross_entropy(torch.mm(a, b), torch.tensor([0, 1])).dtype)
print(torch.mm(a, b).dtype, torch.is_autocast_enabled("cpu"))

@torch.autocast(device_type="cpu", dtype=torch.float16)
def f(x):
    return x @ x

print(f(a).dtype, torch.is_autocast_enabled("cpu"))
)PY";
  const char* want = R"OUT(torch.bfloat16 torch.float32 True torch.bfloat16
torch.float64
torch.bfloat16 torch.float32
torch.float32
torch.float32 False
torch.float16 False
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(DtypeScripts, DefaultDtype) {
  const char* src = R"PY(import torch
torch.set_default_dtype(torch.float64)
print(torch.get_default_dtype(), torch.ones(2).dtype, torch.tensor([1.5]).dtype, (torch.arange(3) * 0.5).dtype)
print(torch.tensor([1.5]))
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.5], dtype=torch.float64), torch.get_default_dtype())
)PY";
  const char* want = R"OUT(torch.float64 torch.float64 torch.float64 torch.float64
tensor([1.5000])
tensor([1.5000], dtype=torch.float64) torch.float32
)OUT";
  EXPECT_EQ(run(src), want);
}

}  // namespace
}  // namespace kiln
