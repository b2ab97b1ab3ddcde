#include "engine/ir/types.h"

#include <iterator>

namespace kiln::ir {

namespace {
// Every name of every dtype, one row each, in enum order: the one dtype-name table.
struct DTypeInfo {
  DType d;
  std::string_view shortName, torchName;
  std::string_view torchAlias;  // torch.float, torch.half ... ("" when PyTorch has none)
  std::string_view methodName;  // Tensor.float(), Tensor.byte() ...
  const char* scalarTypeName;   // c10::ScalarType
  const char* typeMetaName;     // c10::TypeMeta
  size_t size;
  bool floating;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::Float32, "f32", "torch.float32", "float", "float", "Float", "float", 4, true},
    {DType::Float64, "f64", "torch.float64", "double", "double", "Double", "double", 8, true},
    {DType::Int64, "i64", "torch.int64", "long", "long", "Long", "long int", 8, false},
    {DType::Int32, "i32", "torch.int32", "int", "int", "Int", "int", 4, false},
    {DType::Bool, "b8", "torch.bool", "", "bool", "Bool", "bool", 1, false},
    {DType::Float16, "f16", "torch.float16", "half", "half", "Half", "c10::Half", 2, true},
    {DType::BFloat16, "bf16", "torch.bfloat16", "", "bfloat16", "BFloat16", "c10::BFloat16", 2, true},
    {DType::Int16, "i16", "torch.int16", "short", "short", "Short", "short int", 2, false},
    {DType::Int8, "i8", "torch.int8", "", "char", "Char", "signed char", 1, false},
    {DType::UInt8, "u8", "torch.uint8", "", "byte", "Byte", "unsigned char", 1, false},
};
constexpr bool rowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kDTypes); ++i)
    if (static_cast<size_t>(kDTypes[i].d) != i) return false;
  return true;
}
static_assert(rowsInEnumOrder(), "kDTypes is indexed by DType");
DType gDefaultFloat = DType::Float32;
const DTypeInfo& info(DType d) { return kDTypes[static_cast<int>(d)]; }
}  // namespace

std::string_view shortName(DType d) { return info(d).shortName; }
std::string_view torchName(DType d) { return info(d).torchName; }
std::string_view torchAlias(DType d) { return info(d).torchAlias; }
std::string_view tensorMethodName(DType d) { return info(d).methodName; }
const char* scalarTypeName(DType d) { return info(d).scalarTypeName; }
const char* typeMetaName(DType d) { return info(d).typeMetaName; }
const std::vector<DType>& allDTypes() {
  static const std::vector<DType> all = [] {
    std::vector<DType> v;
    for (const auto& i : kDTypes) v.push_back(i.d);
    return v;
  }();
  return all;
}
size_t itemSize(DType d) { return info(d).size; }
bool isFloating(DType d) { return info(d).floating; }
bool isReducedFloat(DType d) { return d == DType::Float16 || d == DType::BFloat16; }

DType promoteTypes(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (isFloating(a) != isFloating(b)) return isFloating(a) ? a : b;
  if (isFloating(a)) {
    // Neither 16-bit float holds the other's values: they meet in float32.
    if (isReducedFloat(a) && isReducedFloat(b)) return DType::Float32;
    return itemSize(a) >= itemSize(b) ? a : b;
  }
  // uint8 with a signed type: the signed type wide enough for both (int8 gives int16).
  if (a == DType::UInt8 || b == DType::UInt8) {
    DType s = a == DType::UInt8 ? b : a;
    return s == DType::Int8 ? DType::Int16 : s;
  }
  return itemSize(a) >= itemSize(b) ? a : b;
}

DType defaultFloatDType() { return gDefaultFloat; }
void setDefaultFloatDType(DType d) { gDefaultFloat = d; }

std::optional<DType> dtypeFromShort(std::string_view s) {
  for (const auto& i : kDTypes)
    if (i.shortName == s) return i.d;
  return std::nullopt;
}

std::optional<DType> dtypeFromTorch(std::string_view s) {
  if (s.starts_with("torch.")) s.remove_prefix(6);
  for (const auto& i : kDTypes)
    if (i.torchName.substr(6) == s) return i.d;
  return std::nullopt;
}

std::string TensorType::str() const {
  std::string out(shortName(dtype));
  out += '[';
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ", ";
    out += sizes[i].str();
  }
  out += ']';
  return out;
}

int64_t TensorType::numel() const {
  int64_t n = 1;
  for (const auto& d : sizes) {
    if (d.symbolic()) return -1;
    n *= d.value;
  }
  return n;
}

}  // namespace kiln::ir
