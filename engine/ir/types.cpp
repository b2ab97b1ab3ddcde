#include "engine/ir/types.h"

namespace kiln::ir {

namespace {
struct DTypeInfo {
  DType d;
  std::string_view shortName, torchName;
  size_t size;
  bool floating;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::Float32, "f32", "torch.float32", 4, true},
    {DType::Float64, "f64", "torch.float64", 8, true},
    {DType::Int64, "i64", "torch.int64", 8, false},
    {DType::Int32, "i32", "torch.int32", 4, false},
    {DType::Bool, "b8", "torch.bool", 1, false},
    {DType::Float16, "f16", "torch.float16", 2, true},
    {DType::BFloat16, "bf16", "torch.bfloat16", 2, true},
    {DType::Int16, "i16", "torch.int16", 2, false},
    {DType::Int8, "i8", "torch.int8", 1, false},
    {DType::UInt8, "u8", "torch.uint8", 1, false},
};
DType gDefaultFloat = DType::Float32;
const DTypeInfo& info(DType d) { return kDTypes[static_cast<int>(d)]; }
}  // namespace

std::string_view shortName(DType d) { return info(d).shortName; }
std::string_view torchName(DType d) { return info(d).torchName; }
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

const char* typeMetaName(DType d) {
  switch (d) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Int64: return "long int";
    case DType::Int32: return "int";
    case DType::Bool: return "bool";
    case DType::Float16: return "c10::Half";
    case DType::BFloat16: return "c10::BFloat16";
    case DType::Int16: return "short int";
    case DType::Int8: return "signed char";
    case DType::UInt8: return "unsigned char";
  }
  return "?";
}

const char* scalarTypeName(DType d) {
  switch (d) {
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::Int64: return "Long";
    case DType::Int32: return "Int";
    case DType::Bool: return "Bool";
    case DType::Float16: return "Half";
    case DType::BFloat16: return "BFloat16";
    case DType::Int16: return "Short";
    case DType::Int8: return "Char";
    case DType::UInt8: return "Byte";
  }
  return "?";
}

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
