// Types shared by every graph stage: dtypes, (possibly symbolic) dims, tensor types,
// source locations and provenance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::ir {

// New dtypes go at the end: the numbering is stored (sessions, kernel cache keys).
enum class DType : uint8_t { Float32, Float64, Int64, Int32, Bool, Float16, BFloat16, Int16, Int8, UInt8 };

// FX's short spelling ("f32", "i64", "b8", ...), used in every text form.
std::string_view shortName(DType d);
// PyTorch's spelling ("torch.float32").
std::string_view torchName(DType d);
// PyTorch's second name in the torch module ("float" for float32, "half" for float16; "" if none).
std::string_view torchAlias(DType d);
// The Tensor method converting to it (float, double, long, int, bool, half, bfloat16, short, char, byte).
std::string_view tensorMethodName(DType d);
// Every dtype, in enum order (engine/ir/types.cpp holds all their names in one table).
const std::vector<DType>& allDTypes();
std::optional<DType> dtypeFromShort(std::string_view s);
// c10's ScalarType name ("Float", "Double", "Long"), as PyTorch's error messages spell dtypes.
const char* scalarTypeName(DType d);
// c10's TypeMeta name ("float", "double", "long int"), as some ATen messages print dtypes.
const char* typeMetaName(DType d);
std::optional<DType> dtypeFromTorch(std::string_view s);  // "float32" or "torch.float32"
size_t itemSize(DType d);
bool isFloating(DType d);
// f16 and bf16: stored in 16 bits, computed in float32 (PyTorch's CPU kernels do the same).
bool isReducedFloat(DType d);
// torch.promote_types: c10's table (u8 with i8 gives i16, f16 with bf16 gives f32, bool
// yields to anything).
DType promoteTypes(DType a, DType b);
// torch.get_default_dtype / set_default_dtype: the dtype of Python floats in tensor math and of
// float tensors made without a dtype. Process-wide, as in PyTorch.
DType defaultFloatDType();
void setDefaultFloatDType(DType d);

// One dimension: a concrete size or a symbol ("s0"). Symbols arrive with dynamic shapes.
struct Dim {
  int64_t value = 0;
  std::string symbol;
  Dim() = default;
  Dim(int64_t v) : value(v) {}  // NOLINT: sizes read naturally as integers
  static Dim sym(std::string name) {
    Dim d;
    d.symbol = std::move(name);
    return d;
  }
  bool symbolic() const { return !symbol.empty(); }
  std::string str() const { return symbolic() ? symbol : std::to_string(value); }
  bool operator==(const Dim&) const = default;
};

struct TensorType {
  DType dtype = DType::Float32;
  std::vector<Dim> sizes;
  std::vector<Dim> strides{};  // empty means contiguous ({}: TensorType{dtype, sizes} is complete)
  std::string device = "cpu";
  bool requiresGrad = false;

  // FX readable form: f32[16, 16]
  std::string str() const;
  int64_t numel() const;  // -1 when symbolic
  bool operator==(const TensorType&) const = default;
};

struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;
  int endLine = 0;
  int endCol = 0;
  std::string function;
  std::string code;  // the source line, stripped
  bool valid() const { return line > 0; }
};

// Where a node came from: the user's source, the nn.Module path, and the ids of the nodes of
// the previous stage it was derived from. This is what links a source line to every stage.
struct Provenance {
  SourceLoc loc;
  std::string modulePath;
  std::vector<int> from;
  std::vector<SourceLoc> userStack;
  // Recorded inside torch.utils.checkpoint region k of its captured graph (PyTorch's
  // node.meta["ac_graph_id"]; -1 outside any): the partitioner recomputes such nodes in the
  // backward instead of saving them. Kept in the provenance so that lowering, decompositions and
  // the joint graph's replay, which copy a node's provenance to what it becomes, carry it along.
  int checkpointRegion = -1;
};

}  // namespace kiln::ir
