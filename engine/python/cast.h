// Checked downcasts from a Python value to its object type: `as<TupleObj>(v)` instead of
// `static_cast<TupleObj*>(v.get())`. Each object type has one value kind (Obj::kind); a cast to
// the wrong type was undefined behaviour (a wrong answer or a crash far away), it now throws
// BadObjCast naming both types and the C++ line, which `kiln run` reports as an internal error.
// The check is one compare on a field the caller has usually just read, so it stays on in
// release builds. A null pointer casts to null, as static_cast does.
#pragma once

#include "engine/python/objects.h"

#include <memory>
#include <stdexcept>

namespace kiln::py {

// The value kind of each object type; a type without an entry cannot be cast to.
template <class T>
struct ObjKind;
template <>
struct ObjKind<IntObj> {
  static constexpr VK kind = VK::Int;
};
template <>
struct ObjKind<BoolObj> {
  static constexpr VK kind = VK::Bool;
};
template <>
struct ObjKind<FloatObj> {
  static constexpr VK kind = VK::Float;
};
template <>
struct ObjKind<StrObj> {
  static constexpr VK kind = VK::Str;
};
template <>
struct ObjKind<TupleObj> {
  static constexpr VK kind = VK::Tuple;
};
template <>
struct ObjKind<ListObj> {
  static constexpr VK kind = VK::List;
};
template <>
struct ObjKind<DictObj> {
  static constexpr VK kind = VK::Dict;
};
template <>
struct ObjKind<DTypeObj> {
  static constexpr VK kind = VK::DType;
};
template <>
struct ObjKind<SliceObj> {
  static constexpr VK kind = VK::Slice;
};
template <>
struct ObjKind<ModuleObj> {
  static constexpr VK kind = VK::Module;
};
template <>
struct ObjKind<FunctionObj> {
  static constexpr VK kind = VK::Function;
};
template <>
struct ObjKind<BuiltinObj> {
  static constexpr VK kind = VK::Builtin;
};
template <>
struct ObjKind<ClassObj> {
  static constexpr VK kind = VK::Class;
};
template <>
struct ObjKind<InstanceObj> {
  static constexpr VK kind = VK::Instance;
};
template <>
struct ObjKind<BoundMethodObj> {
  static constexpr VK kind = VK::BoundMethod;
};
template <>
struct ObjKind<TensorObj> {
  static constexpr VK kind = VK::Tensor;
};
template <>
struct ObjKind<IteratorObj> {
  static constexpr VK kind = VK::Iterator;
};
template <>
struct ObjKind<GeneratorObj> {
  static constexpr VK kind = VK::Generator;
};

// A cast to the wrong object type: a bug in Kiln, never in the script.
class BadObjCast : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The C++ name of a kind's object type ("TupleObj"; "None" and "Ellipsis" have none).
const char* objTypeName(VK k);
// `file` and `line` are the caller's (__builtin_FILE/__builtin_LINE: gcc and clang 14 alike; clang 14
// cannot compile libstdc++'s std::source_location).
[[noreturn]] void throwBadObjCast(VK want, VK got, const char* file, int line);

template <class T>
T* as(Obj* o, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (o && o->kind != ObjKind<T>::kind) [[unlikely]]
    throwBadObjCast(ObjKind<T>::kind, o->kind, file, line);
  return static_cast<T*>(o);
}
template <class T>
const T* as(const Obj* o, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (o && o->kind != ObjKind<T>::kind) [[unlikely]]
    throwBadObjCast(ObjKind<T>::kind, o->kind, file, line);
  return static_cast<const T*>(o);
}
// From a Value (or a shared_ptr to an object type) without touching its reference count.
template <class T, class U>
auto as(const std::shared_ptr<U>& p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return as<T>(p.get(), file, line);
}

// The shared_ptr form (std::static_pointer_cast, checked).
template <class T, class U>
std::shared_ptr<T> asShared(std::shared_ptr<U> p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  as<T>(p.get(), file, line);
  return std::static_pointer_cast<T>(std::move(p));
}

}  // namespace kiln::py
