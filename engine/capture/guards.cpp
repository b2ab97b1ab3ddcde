#include "engine/capture/guards.h"
#include "engine/ir/text.h"
#include "engine/ops/device_dispatch.h"
#include "engine/python/pyformat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace kiln::capture {

namespace {
// The dispatch keys of a dense tensor on `device` ("cpu", "cuda:0"), as TENSOR_MATCH prints them.
std::string dispatchKeys(const std::string& device) {
  return device.rfind("cuda", 0) == 0 ? "DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA)"
                                      : "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)";
}
// A device's index as c10 prints it: -1 for the CPU's.
std::string deviceIndex(const std::string& device) {
  auto colon = device.find(':');
  return colon == std::string::npos ? (device == "cpu" ? "-1" : "0") : device.substr(colon + 1);
}
}  // namespace

std::optional<py::Value> normalizedRangeIter(const py::Value& v) {
  auto* it = v && v->kind == py::VK::Iterator ? py::as<py::IteratorObj>(v) : nullptr;
  if (!it || !it->isRange || it->typeName != "range_iterator") return std::nullopt;
  const int64_t step = it->rStep, cur = it->rCur;
  int64_t left = 0;  // as CPython counts what a range iterator has left (its len)
  if (step > 0 && cur < it->rStop) left = static_cast<int64_t>((static_cast<__int128>(it->rStop) - cur + step - 1) / step);
  if (step < 0 && cur > it->rStop)
    left = static_cast<int64_t>((static_cast<__int128>(cur) - it->rStop - step - 1) / -static_cast<__int128>(step));
  const int64_t stop = static_cast<int64_t>(cur + static_cast<__int128>(left) * step);
  return py::makeTuple({py::makeInt(cur), py::makeInt(stop), py::makeInt(step)});
}

namespace {

std::string address(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lu", static_cast<unsigned long>(reinterpret_cast<uintptr_t>(p)));
  return buf;
}

std::string hexAddress(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(reinterpret_cast<uintptr_t>(p)));
  return buf;
}

// A class as `repr(cls)` prints it without running user code: <class 'list'>,
// <class 'torch.Size'>, <class '__main__.Plain'>, <class 'contextlib.nullcontext'>.
std::string classRepr(py::Interpreter& in, const py::Value& cls) {
  if (!cls) return "<class 'NoneType'>";
  if (cls->kind == py::VK::Class) return in.defaultRepr(cls);
  return "<class '" + in.str(cls) + "'>";
}

const py::FunctionObj* asFunction(const py::Value& v) {
  if (v && v->kind == py::VK::Function) return py::as<py::FunctionObj>(v);
  return nullptr;
}

// The code object of a Python function (its def or lambda): what `fn.__code__` is.
const void* codeOf(const py::FunctionObj* f) {
  if (!f) return nullptr;
  return f->def ? static_cast<const void*>(f->def.get()) : static_cast<const void*>(f->lambda.get());
}

// `repr(fn.__code__)` as CPython prints it: <code object act at 0x7fc48a3d5f20, file
// "prog.py", line 17>. The name is the def's (co_name, whatever __name__ became since), the
// line the first decorator's or the def's (co_firstlineno), the file the script's base name
// as Kiln names files everywhere else.
std::string codeRepr(const py::FunctionObj* f) {
  if (!f) return "<code object>";
  std::string name = f->def ? f->def->name : "<lambda>";
  int line = 0;
  if (f->def) line = f->def->decorators.empty() ? f->def->span.line : f->def->decorators.front()->span.line;
  else if (f->lambda) line = f->lambda->span.line;
  std::string file = f->module ? f->module->file : "";
  file = file.substr(file.find_last_of('/') + 1);
  if (file.empty() && f->module) file = f->module->name + ".py";
  return "<code object " + name + " at " + hexAddress(codeOf(f)) + ", file \"" + file + "\", line " + std::to_string(line) + ">";
}

// What Dynamo prints after `type=` for an ID_MATCH: repr() of the guarded object. A function
// of the torch namespace (torch.sin) is a builtin method of a type object in PyTorch; a class
// prints without running a metaclass __repr__.
std::string objectRepr(py::Interpreter& in, const py::Value& v) {
  if (v->kind == py::VK::Class) return classRepr(in, v);
  if (v->kind == py::VK::Builtin) {
    const std::string& n = py::as<py::BuiltinObj>(v)->name;
    if (n.rfind("torch.", 0) == 0 && n.find('.', 6) == std::string::npos)
      return "<built-in method " + n.substr(6) + " of type object at " + hexAddress(&in) + ">";
  }
  return in.repr(v);
}

// Functions Kiln implements as builtins that PyTorch 2.11 defines in Python (torch.nn.functional
// .silu is a `def` in torch/nn/functional.py): Dynamo guards their code object, and prints it
// with PyTorch's file and the def's line (co_firstlineno in 2.11). Only functions whose 2.11 line
// is known are listed; any other builtin keeps its builtin repr.
struct PythonCode {
  const char* file;
  int line;
};
const PythonCode* torchPythonCode(const py::Value& v) {
  static const std::map<std::string, PythonCode> kCode = {
      {"torch.nn.functional.adaptive_avg_pool2d", {"torch/nn/functional.py", 1386}},
      {"torch.nn.functional.relu", {"torch/nn/functional.py", 1712}},
      {"torch.nn.functional.leaky_relu", {"torch/nn/functional.py", 1901}},
      {"torch.nn.functional.softmax", {"torch/nn/functional.py", 2122}},
      {"torch.nn.functional.log_softmax", {"torch/nn/functional.py", 2239}},
      {"torch.nn.functional.silu", {"torch/nn/functional.py", 2375}},
      {"torch.nn.functional.mish", {"torch/nn/functional.py", 2400}},
      {"torch.nn.functional.embedding", {"torch/nn/functional.py", 2455}},
      {"torch.nn.functional.batch_norm", {"torch/nn/functional.py", 2811}},
      {"torch.nn.functional.layer_norm", {"torch/nn/functional.py", 2914}},
      {"torch.nn.functional.rms_norm", {"torch/nn/functional.py", 2940}},
      {"torch.nn.functional.nll_loss", {"torch/nn/functional.py", 3122}},
      {"torch.nn.functional.cross_entropy", {"torch/nn/functional.py", 3421}},
      {"torch.einsum", {"torch/functional.py", 176}},
  };
  if (!v || v->kind != py::VK::Builtin) return nullptr;
  auto it = kCode.find(py::as<py::BuiltinObj>(v)->name);
  return it == kCode.end() ? nullptr : &it->second;
}

// An ID_MATCH as Dynamo prints it: on the object, or on its code for a PyTorch Python function.
std::string idMatchText(py::Interpreter& in, const std::string& name, const py::Value& c) {
  if (const PythonCode* code = torchPythonCode(c)) {
    const std::string& full = py::as<py::BuiltinObj>(c)->name;
    return "___check_obj_id(" + name + ".__code__, " + address(c.get()) + "), type=<code object " + full.substr(full.rfind('.') + 1) +
           " at " + hexAddress(c.get()) + ", file \"" + code->file + "\", line " + std::to_string(code->line) + ">";
  }
  return "___check_obj_id(" + name + ", " + address(c.get()) + "), type=" + objectRepr(in, c);
}

// TENSOR_MATCH's check on a real tensor without building its ir::TensorType (two vectors and a
// device string per guard per call): true when everything the guard recorded holds.
bool tensorMatches(const ir::TensorType& want, const tensor::Tensor& t) {
  if (t.dtype() != want.dtype || t.requiresGrad() != want.requiresGrad) return false;
  if (t.sizes().size() != want.sizes.size()) return false;
  for (size_t i = 0; i < want.sizes.size(); ++i)
    if (!want.sizes[i].symbolic() && t.sizes()[i] != want.sizes[i].value) return false;
  for (size_t i = 0; i < want.strides.size() && i < t.strides().size(); ++i)
    if (!want.strides[i].symbolic() && t.strides()[i] != want.strides[i].value) return false;
  // The recorded device is "cpu" or "cuda:N" (Tensor::type's spelling).
  const tensor::Device d = t.device();
  if (d.isCpu()) return want.device == "cpu";
  return want.device.rfind("cuda:", 0) == 0 && ops::parseDeviceString(want.device) == d;
}

}  // namespace

py::Value typeKey(py::Interpreter& in, const py::Value& v) {
  if (v->kind == py::VK::Instance) return py::as<py::InstanceObj>(v)->cls;
  if (py::isTorchSize(v)) return in.classOf(v);  // torch.Size, not tuple
  if (auto c = in.builtinClass(py::typeName(v))) return c;
  return py::makeStr(py::typeName(v));
}

std::string Guard::check(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals,
                         FetchCache* cache) const {
  const std::string& name = displayed();
  if (kind == Kind::NoAliasing) {
    // Dynamo's recompilation_reason_for_no_tensor_aliasing_guard: the sources of each tensor
    // reached more than once, grouped by tensor in the guard's order.
    // The fetched values are held until the end: a value made by the fetch (p.grad's tensor)
    // would otherwise free its address for the next one, which would then look the same.
    // Every call passes this guard: the values are compared by address first, and the failure
    // text (each source spelt out) is only made when two are the same.
    std::vector<py::Value> held;
    held.reserve(sources.size());
    for (const auto& s : sources) held.push_back(s.fetch(in, locals, globals, cache));
    std::vector<const py::Obj*> seen;
    seen.reserve(held.size());
    for (const auto& v : held)
      if (v) seen.push_back(v.get());
    std::sort(seen.begin(), seen.end());
    if (std::adjacent_find(seen.begin(), seen.end()) == seen.end()) return "";
    std::vector<std::pair<py::Value, std::vector<std::string>>> groups;
    for (size_t i = 0; i < sources.size(); ++i) {
      const Source& s = sources[i];
      const py::Value& v = held[i];
      if (!v) continue;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first.get() == v.get(); });
      if (it == groups.end()) groups.push_back({v, {s.display()}});
      else it->second.push_back(s.display());
    }
    std::string found;
    for (const auto& [obj, names] : groups) {
      if (names.size() < 2) continue;
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "\"" : ", \"") + n + "\"";
      found += (found.empty() ? "[" : ", [") + list + "]";
    }
    return found.empty() ? "" : "Duplicate tensors found: " + found;
  }
  if (kind == Kind::Shape) {
    std::vector<int64_t> values;
    for (const auto& [src, dim] : sizeSources) {
      py::Value v = src.fetch(in, locals, globals, cache);
      if (v && v->kind == py::VK::Tensor) {
        auto sizes = py::as<py::TensorObj>(v)->tensorType().sizes;
        if (dim < 0 || static_cast<size_t>(dim) >= sizes.size()) return shapeText(true);
        values.push_back(sizes[static_cast<size_t>(dim)].value);
      } else if (v && v->kind == py::VK::Int && dim < 0 && !py::as<py::IntObj>(v)->big) {
        values.push_back(py::as<py::IntObj>(v)->small());
      } else {
        return shapeText(true);
      }
    }
    if (range) {
      bool ok = !values.empty() && values[0] >= lower && (!upper || values[0] <= *upper);
      return ok ? "" : shapeText(true);
    }
    auto r = symEval(expr, [&](int i) { return values.at(static_cast<size_t>(i)); });
    return r && r->i != 0 ? "" : shapeText(true);
  }
  py::Value v = source.fetch(in, locals, globals, cache);
  if (kind == Kind::HasAttr) {
    bool has = v && in.getAttrOrNull(v, this->name) != nullptr;
    if (has == expected) return "";
    return std::string(expected ? "" : "not ") + "hasattr(" + name + ", '" + this->name + "')";
  }
  if (!v) {
    // A class attribute deleted since: Dynamo's dict lookup fails.
    if (source.steps.back().kind == Source::Step::Kind::ClassDictItem) return "KeyError on " + name;
    return name + " is missing";
  }
  switch (kind) {
    case Kind::TensorMatch: {
      if (v->kind != py::VK::Tensor)
        return "expected type of '" + name + "' to be a tensor type, ' but found " + classRepr(in, typeKey(in, v));
      // The tensor's Python type is checked first: an nn.Parameter where a plain tensor was (or
      // the other way round) is another type.
      if (py::as<py::TensorObj>(v)->parameter != parameter)
        return "expected type of '" + name + "' to be a tensor type, ' but found " +
               (parameter ? "<class 'torch.Tensor'>" : "<class 'torch.nn.parameter.Parameter'>");
      if (!py::as<py::TensorObj>(v)->fake && tensorMatches(type, py::as<py::TensorObj>(v)->t)) return "";
      // A mismatch (or a fake tensor): the full comparison, which says what differs.
      ir::TensorType actual = py::as<py::TensorObj>(v)->tensorType();
      std::string t = "tensor '" + name + "' ";
      // Dynamo's TensorCheck order: the dispatch keys (the device type) first, then the dtype,
      // then the device index.
      const std::string wantType = type.device.substr(0, type.device.find(':')),
                        haveType = actual.device.substr(0, actual.device.find(':'));
      if (wantType != haveType)
        return t + "dispatch key set mismatch. expected " + dispatchKeys(type.device) + ", actual " + dispatchKeys(actual.device);
      if (actual.dtype != type.dtype)
        return t + "dtype mismatch. expected " + std::string(ir::scalarTypeName(type.dtype)) + ", actual " +
               ir::scalarTypeName(actual.dtype);
      if (actual.device != type.device)
        return t + "Tensor device index mismatch. Expected device index to be " + deviceIndex(type.device) + ", actual " +
               deviceIndex(actual.device);
      if (actual.requiresGrad != type.requiresGrad)
        return t + "requires_grad mismatch. expected requires_grad=" + (type.requiresGrad ? "1" : "0");
      if (actual.sizes.size() != type.sizes.size())
        return t + "rank mismatch. expected " + std::to_string(type.sizes.size()) + ", actual " + std::to_string(actual.sizes.size());
      for (size_t i = 0; i < type.sizes.size(); ++i)
        if (!type.sizes[i].symbolic() && actual.sizes[i].value != type.sizes[i].value)
          return t + "size mismatch at index " + std::to_string(i) + ". expected " + type.sizes[i].str() + ", actual " +
                 actual.sizes[i].str() +
                 (parameter ? ". Guard failed on a parameter, consider using torch._dynamo.config.force_parameter_static_shapes = False "
                              "to allow dynamism on parameters."
                            : "");
      for (size_t i = 0; i < type.strides.size() && i < actual.strides.size(); ++i)
        if (!type.strides[i].symbolic() && actual.strides[i].value != type.strides[i].value)
          return t + "stride mismatch at index " + std::to_string(i) + ". expected " + type.strides[i].str() + ", actual " +
                 actual.strides[i].str();
      return "";
    }
    case Kind::ConstantMatch:
      if (py::isNone(constant)) return py::isNone(v) ? "" : name + " is None";
      // NaN never equals itself: Dynamo's EQUALS_MATCH checks it is a float NaN instead.
      if (constant->kind == py::VK::Float && std::isnan(py::as<py::FloatObj>(constant)->v))
        return v->kind == py::VK::Float && std::isnan(py::as<py::FloatObj>(v)->v)
                   ? ""
                   : "(type(" + name + ") is float and __math_isnan(" + name + "))";
      if (py::typeName(v) != py::typeName(constant) || !in.equals(v, constant)) return name + " == " + in.repr(constant);
      return "";
    case Kind::FloatValue: {
      const double d = v->kind == py::VK::Float ? py::as<py::FloatObj>(v)->v
                       : v->kind == py::VK::Int ? static_cast<double>(py::as<py::IntObj>(v)->small())
                                                : std::nan("");
      if (this->name == "self") return d == d ? "" : floatValueText(name);
      const double c = py::as<py::FloatObj>(constant)->v;
      const std::string& op = this->name;
      bool ok = op == "==" ? d == c : op == "!=" ? d != c : op == "<" ? d < c : op == "<=" ? d <= c : op == ">" ? d > c : d >= c;
      return ok ? "" : floatValueText(name);
    }
    case Kind::DuplicateInput: {
      py::Value o = other.fetch(in, locals, globals, cache);
      return o.get() == v.get() ? "" : other.display() + " is " + name;
    }
    case Kind::SequenceLength: {
      // The container's type first: a tuple where a list was (or a torch.Size where a tuple was)
      // fails the TYPE_MATCH Dynamo installs with the length guard.
      if (constant) {
        py::Value t = typeKey(in, v);
        bool same = t.get() == constant.get() || (t->kind == py::VK::Str && constant->kind == py::VK::Str && in.str(t) == in.str(constant));
        if (!same) return "___check_type_id(" + name + ", " + address(constant.get()) + "), type=" + classRepr(in, constant);
      }
      bool ok = (v->kind == py::VK::List && py::as<py::ListObj>(v)->items.size() == static_cast<size_t>(length)) ||
                (v->kind == py::VK::Tuple && py::as<py::TupleObj>(v)->items.size() == static_cast<size_t>(length)) ||
                (v->kind == py::VK::Dict && py::as<py::DictObj>(v)->items.size() == static_cast<size_t>(length));
      return ok ? "" : lengthText(name);
    }
    case Kind::TypeMatch: {
      py::Value t = typeKey(in, v);
      bool same = t.get() == constant.get() || (t->kind == py::VK::Str && constant->kind == py::VK::Str && in.str(t) == in.str(constant));
      return same ? "" : "___check_type_id(" + name + ", " + address(constant.get()) + "), type=" + classRepr(in, constant);
    }
    case Kind::IdMatch: return v.get() == constant.get() ? "" : idMatchText(in, name, constant);
    case Kind::FunctionMatch: {
      const py::FunctionObj* a = asFunction(v);
      const py::FunctionObj* b = asFunction(constant);
      bool same = a && b && a->def == b->def && a->lambda == b->lambda;
      return same ? "" : "___check_obj_id(" + name + ".__code__, " + address(codeOf(b)) + "), type=" + codeRepr(b);
    }
    case Kind::Contains: {
      bool has = false;
      if (v->kind == py::VK::Dict) has = py::as<py::DictObj>(v)->get(constant) != nullptr;
      else has = in.truthy(in.compare("in", constant, v));
      if (has == expected) return "";
      std::string call = v->kind == py::VK::Dict ? "___dict_contains(" + in.repr(constant) + ", " + name + ")"
                                                 : "set.__contains__(" + name + ", " + in.repr(constant) + ")";
      // Dynamo's SET_CONTAINS prints its code without `not` whichever answer it holds.
      if (v->kind != py::VK::Dict) return call;
      return (expected ? "" : "not ") + call;
    }
    case Kind::TupleIteratorLen: {
      auto* it = v->kind == py::VK::Iterator ? py::as<py::IteratorObj>(v) : nullptr;
      bool ok = it && it->seq && it->seq->kind == py::VK::Tuple &&
                py::as<py::TupleObj>(it->seq)->items.size() - it->pos == static_cast<size_t>(length);
      return ok ? "" : "___tuple_iterator_len(" + name + ") == " + std::to_string(length);
    }
    case Kind::RangeIteratorMatch: {
      std::string want = in.repr(constant);
      if (auto now = normalizedRangeIter(v)) {
        if (in.repr(*now) == want) return "";
      }
      return "___normalize_range_iter(" + name + ") == " + want;
    }
    case Kind::DictKeys: {
      // Dynamo's DictGuardManager: its size first ("len(d) != 2"), then each key in order
      // ("list(dict.keys(d))[1] == 'b'").
      if (v->kind != py::VK::Dict) return "list(dict.keys(" + name + ")) == " + in.repr(constant);
      const auto& items = py::as<py::DictObj>(v)->items;
      std::vector<py::Value> want = in.iterate(constant);
      if (items.size() != want.size()) return "len(" + name + ") != " + std::to_string(want.size());
      for (size_t i = 0; i < want.size(); ++i)
        if (py::typeName(items[i].first) != py::typeName(want[i]) || !in.equals(items[i].first, want[i]))
          return "list(dict.keys(" + name + "))[" + std::to_string(i) + "] == " + in.repr(want[i]);
      return "";
    }
    case Kind::DynamicIndices: {
      py::Value marks = v->kind == py::VK::Tensor && py::as<py::TensorObj>(v)->attrs
                            ? py::as<py::TensorObj>(v)->attrs->getStr("_dynamo_dynamic_indices")
                            : nullptr;
      bool ok = true;
      if (marks && marked.empty()) ok = false;
      if (marks && !marked.empty())
        for (const auto& d : in.iterate(marks))
          if (d->kind != py::VK::Int || std::find(marked.begin(), marked.end(), py::as<py::IntObj>(d)->small()) == marked.end()) ok = false;
      if (ok) return "";
      if (marked.empty()) return "hasattr(" + name + ", '_dynamo_dynamic_indices') == False";
      std::string set;
      for (int64_t d : marked) set += (set.empty() ? "" : ", ") + std::to_string(d);
      return "((" + name + "._dynamo_dynamic_indices.issubset({" + set + "})) if hasattr(" + name +
             ", '_dynamo_dynamic_indices') else True)";
    }
    case Kind::HasAttr:
    case Kind::Shape:
    case Kind::NoAliasing: break;
  }
  return "";
}

std::string Guard::floatValueText(const std::string& src) const {
  if (name == "self") return src + " == ___as_tensor(" + src + ").item()";
  return "___as_tensor(" + src + ").item() " + name + " " + ir::pyFloat(py::as<py::FloatObj>(constant)->v);
}

std::string Guard::shapeText(bool display) const {
  auto name = [&](int i) {
    const auto& [src, dim] = sizeSources.at(static_cast<size_t>(i));
    std::string s = display ? src.display() : src.text();
    return dim < 0 ? s : s + ".size()[" + std::to_string(dim) + "]";
  };
  if (range) {
    std::string s = lower == std::numeric_limits<int64_t>::min() ? "" : std::to_string(lower) + " <= ";
    s += name(0);
    if (upper) s += " <= " + std::to_string(*upper);
    return s;
  }
  return symPrint(expr, name);
}

std::string Guard::lengthText(const std::string& name) const {
  // Dynamo's LENGTH_CHECK / DICT_LENGTH: a container that was empty reads `not x`.
  return length == 0 ? "not " + name : "len(" + name + ") == " + std::to_string(length);
}

std::string Guard::verboseReason(const std::string& compileId, const std::string& failure) const {
  std::string head = compileId + ": " + failure;
  // A shape guard's reason is its verbose code part, one line: "0/0: x.size()[2] != 2  # if ...".
  if (kind == Kind::Shape || shapePhase) {
    if (!comment.empty()) return head + "  # " + comment;
    if (where.line <= 0) return head;
    return head + "  # " + where.code + "  # " + where.file + ":" + std::to_string(where.line) + " in " + where.function;
  }
  if (kind == Kind::TensorMatch || kind == Kind::NoAliasing || kind == Kind::DuplicateInput || where.line <= 0) return head;
  std::string guardText = failure;
  if (guardText.size() < 56) guardText += std::string(56 - guardText.size(), ' ');
  std::string out =
      compileId + ": " + guardText + " # " + where.code + "  # " + where.file + ":" + std::to_string(where.line) + " in " + where.function;
  if (moduleIntAttr)
    out +=
        " (HINT: torch.compile considers integer attributes of the nn.Module to be static. If you are observing "
        "recompilation, you might want to make this integer dynamic using "
        "torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer into a tensor.)";
  out += "\nUser stack trace:\n  File \"" + where.file + "\", line " + std::to_string(where.line) + ", in " + where.function + "\n    " +
         where.code;
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
      for (size_t i = 0; i < type.strides.size(); ++i)
        strides += (i ? ", " : "") + (type.strides[i].symbolic() ? "None" : type.strides[i].str());
      g.text = "check_tensor(" + source.text() + ", Tensor, " + dispatchKeys(type.device) + ", " + std::string(ir::torchName(type.dtype)) +
               ", device=" + (type.device == "cpu" ? "None" : deviceIndex(type.device)) +
               ", requires_grad=" + (type.requiresGrad ? "True" : "False") + ", size=[" + sizes + "], stride=[" + strides + "])";
      break;
    }
    case Kind::ConstantMatch:
      g.kind = "CONSTANT_MATCH";
      g.text = source.text() + (py::isNone(constant) ? " is None" : " == " + in.repr(constant));
      break;
    case Kind::DuplicateInput:
      g.kind = "DUPLICATE_INPUT";
      g.text = other.text() + " is " + source.text();
      break;
    case Kind::NoAliasing: {
      g.kind = "NO_TENSOR_ALIASING";
      std::string names;
      for (const auto& s : sources) names += (names.empty() ? "" : ", ") + s.text();
      g.text = "___check_tensors_no_aliasing(" + names + ")";
      g.source = sources.empty() ? "" : sources.front().text();
      break;
    }
    case Kind::SequenceLength:
      g.kind = "SEQUENCE_LENGTH";
      g.text = lengthText(source.text());
      break;
    case Kind::TypeMatch:
      g.kind = "TYPE_MATCH";
      g.text = "___check_type_id(" + source.text() + ", " + address(constant.get()) + "), type=" + classRepr(in, constant);
      break;
    case Kind::IdMatch:
      g.kind = "ID_MATCH";
      g.text = idMatchText(in, source.text(), constant);
      break;
    case Kind::FunctionMatch:
      g.kind = "FUNCTION_MATCH";
      g.text = "___check_obj_id(" + source.text() + ".__code__, " + address(codeOf(asFunction(constant))) +
               "), type=" + codeRepr(asFunction(constant));
      break;
    case Kind::HasAttr:
      g.kind = "HASATTR";
      g.text = std::string(expected ? "" : "not ") + "hasattr(" + source.text() + ", '" + name + "')";
      break;
    case Kind::Contains:
      g.kind = "DICT_CONTAINS";
      g.text = std::string(expected ? "" : "not ") + "___dict_contains(" + in.repr(constant) + ", " + source.text() + ")";
      break;
    case Kind::Shape:
      g.kind = "SHAPE_ENV";
      g.text = shapeText(false);
      g.source = sizeSources.empty() ? "" : sizeSources.front().first.text();
      break;
    case Kind::DynamicIndices: {
      g.kind = "DYNAMIC_INDICES";
      std::string set;
      for (int64_t d : marked) set += (set.empty() ? "" : ", ") + std::to_string(d);
      g.text = marked.empty() ? "hasattr(" + source.text() + ", '_dynamo_dynamic_indices') == False"
                              : "((" + source.text() + "._dynamo_dynamic_indices.issubset({" + set + "})) if hasattr(" + source.text() +
                                    ", '_dynamo_dynamic_indices') else True)";
      break;
    }
    case Kind::FloatValue:
      g.kind = "SHAPE_ENV";
      g.text = floatValueText(source.text());
      break;
    case Kind::TupleIteratorLen:
      g.kind = "TUPLE_ITERATOR_LEN";
      g.text = "___tuple_iterator_len(" + source.text() + ") == " + std::to_string(length);
      break;
    case Kind::RangeIteratorMatch:
      g.kind = "RANGE_ITERATOR_MATCH";
      g.text = "___normalize_range_iter(" + source.text() + ") == " + in.repr(constant);
      break;
    case Kind::DictKeys:
      g.kind = "DICT_KEYS_MATCH";
      g.text = "list(dict.keys(" + source.text() + ")) == " + in.repr(py::makeList(in.iterate(constant)));
      break;
  }
  return g;
}

}  // namespace kiln::capture
