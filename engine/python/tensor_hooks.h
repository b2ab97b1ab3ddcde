// How the interpreter treats Tensor values: operators, attributes (the autograd ones included),
// subscripts, truthiness, printing and iteration. The interpreter knows only this interface;
// engine/torch implements it on top of the torch-level op bindings (so operators on fake
// tensors are captured like any other torch call) and installs it in `Interpreter::tensors`
// with the torch modules and the prelude (torchapi::install, called by whoever makes the
// interpreter: the driver, the tests). Tensor values exist only once it is installed.
#pragma once

#include "engine/python/objects.h"

#include <string>
#include <vector>

namespace kiln::py {

class Interpreter;

class TensorHooks {
 public:
  virtual ~TensorHooks() = default;
  // Operators: null when the operator does not apply (so the interpreter raises its TypeError).
  // `op` is the operator's text ("+", "+=" in place, "<", "-" / "~" unary).
  virtual Value binary(Interpreter& in, const std::string& op, const Value& a, const Value& b) = 0;
  virtual Value unary(Interpreter& in, const std::string& op, const Value& a) = 0;
  // t.name: null when the tensor has no such attribute.
  virtual Value getAttr(Interpreter& in, const Value& t, const std::string& name) = 0;
  // t.name = v for the autograd attributes (.grad, .requires_grad, .data); false for any other
  // name, which the interpreter stores as the program's own attribute.
  virtual bool setAutogradAttr(Interpreter& in, const Value& t, const std::string& name, const Value& v) = 0;
  virtual Value subscript(Interpreter& in, const Value& t, const Value& index) = 0;
  virtual void setSubscript(Interpreter& in, const Value& t, const Value& index, const Value& v) = 0;
  virtual bool truthy(Interpreter& in, const Value& t) = 0;
  virtual std::string repr(Interpreter& in, const Value& t) = 0;
  virtual std::vector<Value> iterate(Interpreter& in, const Value& t) = 0;
};

}  // namespace kiln::py
