#include "engine/torch/install.h"

#include "engine/python/interpreter.h"
#include "engine/python/tensor_hooks.h"
#include "engine/runtime/thread_pool.h"
#include "engine/torch/autograd_methods.h"
#include "engine/torch/prelude.h"
#include "engine/torch/tensor_protocol.h"

namespace kiln::torchapi {

namespace {

// The interpreter's view of Tensor values: tensor_protocol.h and autograd_methods.h.
class TensorProtocol final : public py::TensorHooks {
 public:
  py::Value binary(py::Interpreter& in, const std::string& op, const py::Value& a, const py::Value& b) override {
    return tensorBinary(in, op, a, b);
  }
  py::Value unary(py::Interpreter& in, const std::string& op, const py::Value& a) override { return tensorUnary(in, op, a); }
  py::Value getAttr(py::Interpreter& in, const py::Value& t, const std::string& name) override { return tensorGetAttr(in, t, name); }
  bool setAutogradAttr(py::Interpreter& in, const py::Value& t, const std::string& name, const py::Value& v) override {
    return autogradSetAttr(in, t, name, v);
  }
  py::Value subscript(py::Interpreter& in, const py::Value& t, const py::Value& index) override { return tensorSubscript(in, t, index); }
  void setSubscript(py::Interpreter& in, const py::Value& t, const py::Value& index, const py::Value& v) override {
    tensorSetSubscript(in, t, index, v);
  }
  bool truthy(py::Interpreter& in, const py::Value& t) override { return tensorTruthy(in, t); }
  std::string repr(py::Interpreter& in, const py::Value& t) override { return tensorRepr(in, t); }
  std::vector<py::Value> iterate(py::Interpreter& in, const py::Value& t) override { return tensorIterate(in, t); }
};

}  // namespace

void install(py::Interpreter& in) {
  static TensorProtocol protocol;  // holds nothing of one interpreter: shared by all
  in.tensors = &protocol;
  runtime::ThreadPool::installForEagerKernels();  // big eager loops split over the pool
  installModules(in);
  runPrelude(in);
}

}  // namespace kiln::torchapi
