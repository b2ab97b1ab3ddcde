#include "engine/capture/guards.h"

namespace kiln::capture {

std::string Guard::check(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals) const {
  const std::string name = source.display();
  py::Value v = source.fetch(in, locals, globals);
  if (!v) return name + " is missing";
  switch (kind) {
    case Kind::TensorMatch: {
      if (v->kind != py::VK::Tensor)
        return "expected type of '" + name + "' to be <class 'torch.Tensor'>, but found <class '" + py::typeName(v) + "'>";
      ir::TensorType actual = static_cast<py::TensorObj*>(v.get())->tensorType();
      std::string t = "tensor '" + name + "' ";
      if (actual.dtype != type.dtype) return t + "dtype mismatch. expected " + std::string(ir::scalarTypeName(type.dtype)) + ", actual " + ir::scalarTypeName(actual.dtype);
      if (actual.requiresGrad != type.requiresGrad) return t + "requires_grad mismatch. expected requires_grad=" + (type.requiresGrad ? "1" : "0");
      if (actual.sizes.size() != type.sizes.size())
        return t + "rank mismatch. expected " + std::to_string(type.sizes.size()) + ", actual " + std::to_string(actual.sizes.size());
      for (size_t i = 0; i < type.sizes.size(); ++i)
        if (!type.sizes[i].symbolic() && actual.sizes[i].value != type.sizes[i].value)
          return t + "size mismatch at index " + std::to_string(i) + ". expected " + type.sizes[i].str() + ", actual " + actual.sizes[i].str();
      for (size_t i = 0; i < type.strides.size() && i < actual.strides.size(); ++i)
        if (!type.strides[i].symbolic() && actual.strides[i].value != type.strides[i].value)
          return t + "stride mismatch at index " + std::to_string(i) + ". expected " + type.strides[i].str() + ", actual " + actual.strides[i].str();
      return "";
    }
    case Kind::SequenceLength: {
      bool ok = (v->kind == py::VK::List && static_cast<py::ListObj*>(v.get())->items.size() == static_cast<size_t>(length)) ||
                (v->kind == py::VK::Tuple && static_cast<py::TupleObj*>(v.get())->items.size() == static_cast<size_t>(length));
      return ok ? "" : "len(" + name + ") == " + std::to_string(length);
    }
    case Kind::DuplicateInput: {
      py::Value o = other.fetch(in, locals, globals);
      return o.get() == v.get() ? "" : name + " is " + other.display();
    }
    case Kind::ConstantMatch:
      if (py::isNone(constant)) return py::isNone(v) ? "" : name + " is None";
      if (py::typeName(v) != py::typeName(constant) || !in.equals(v, constant)) return name + " == " + in.repr(constant);
      return "";
  }
  return "";
}

std::string Guard::verboseReason(const std::string& compileId, const std::string& failure) const {
  std::string head = compileId + ": " + failure;
  if (kind != Kind::ConstantMatch || where.line <= 0) return head;
  std::string guardText = failure;
  if (guardText.size() < 56) guardText += std::string(56 - guardText.size(), ' ');
  std::string out = compileId + ": " + guardText + " # " + where.code + "  # " + where.file + ":" + std::to_string(where.line) +
                    " in " + where.function;
  if (moduleIntAttr)
    out += " (HINT: torch.compile considers integer attributes of the nn.Module to be static. If you are observing "
           "recompilation, you might want to make this integer dynamic using "
           "torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer into a tensor.)";
  out += "\nUser stack trace:\n  File \"" + where.file + "\", line " + std::to_string(where.line) + ", in " + where.function +
         "\n    " + where.code;
  return out;
}

session::Guard Guard::record(py::Interpreter& in) const {
  session::Guard g;
  g.source = source.text();
  g.line = line;
  switch (kind) {
    case Kind::TensorMatch: {
      g.kind = "TENSOR_MATCH";
      std::string sizes, strides;
      for (size_t i = 0; i < type.sizes.size(); ++i) sizes += (i ? ", " : "") + (type.sizes[i].symbolic() ? "None" : type.sizes[i].str());
      for (size_t i = 0; i < type.strides.size(); ++i) strides += (i ? ", " : "") + (type.strides[i].symbolic() ? "None" : type.strides[i].str());
      g.text = "check_tensor(" + source.text() + ", Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), " +
               std::string(ir::torchName(type.dtype)) + ", device=None, requires_grad=" + (type.requiresGrad ? "True" : "False") +
               ", size=[" + sizes + "], stride=[" + strides + "])";
      break;
    }
    case Kind::SequenceLength:
      g.kind = "SEQUENCE_LENGTH";
      g.text = "len(" + source.text() + ") == " + std::to_string(length);
      break;
    case Kind::DuplicateInput:
      g.kind = "DUPLICATE_INPUT";
      g.text = source.text() + " is " + other.text();
      break;
    case Kind::ConstantMatch:
      g.kind = "CONSTANT_MATCH";
      g.text = source.text() + " == " + in.repr(constant);
      break;
  }
  return g;
}

}  // namespace kiln::capture
