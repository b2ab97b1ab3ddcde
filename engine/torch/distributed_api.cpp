// The native half of torch.distributed: one process group per process on Gloo or NCCL
// (engine/runtime/process_group.h). The Python half (engine/torch/prelude/torch.distributed.py)
// reads the rendezvous environment, words PyTorch's errors and wraps the Work handles; these
// `_kiln_*` functions only join the group and issue collectives.
#include "engine/runtime/process_group.h"
#include "engine/torch/bindings.h"
#include "engine/torch/collective_log.h"
#include "engine/torch/tensor_protocol.h"

#include <cctype>
#include <cstdlib>
#include <functional>
#include <map>

extern char** environ;

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;
namespace dist = runtime::dist;

namespace {

std::shared_ptr<dist::ProcessGroup>& defaultGroup() {
  static std::shared_ptr<dist::ProcessGroup> pg;
  return pg;
}

void def(const std::shared_ptr<py::ModuleObj>& m, const std::string& name, py::NativeFn fn) {
  m->scope->vars[name] = py::makeBuiltin(m->name + "." + name, std::move(fn));
  py::as<py::BuiltinObj>(m->scope->vars[name])->isMethod = false;
}

int64_t intArg(py::Interpreter& in, const Value& v, const char* what) {
  if (!v || v->kind != VK::Int) in.raise("TypeError", std::string(what) + " must be an int");
  return py::as<py::IntObj>(v)->small();
}

dist::ProcessGroup& group(py::Interpreter& in) {
  if (!defaultGroup())
    in.raise("ValueError", "Default process group has not been initialized, please make sure to call init_process_group.");
  return *defaultGroup();
}

tensor::Tensor tensorArg(py::Interpreter& in, const Value& v, const std::string& what) {
  if (!v || v->kind != VK::Tensor)
    in.raise("TypeError", what + "(): argument 'tensor' must be Tensor, not " + (v ? py::typeName(v) : "None"));
  auto* t = py::as<py::TensorObj>(v);
  // Dynamo traces collectives as functional collectives; Kiln does not capture them yet.
  if (t->fake) notSupported(in, "torch.distributed." + what + " inside torch.compile'd code");
  return t->t;
}

// (wait, is_completed): the Python Work class wraps these two natives. `recorded` is the
// collective's entry in the session's record (collective_log.h; null when not recording).
Value workHandle(py::Interpreter&, std::shared_ptr<dist::Work> w, std::shared_ptr<collectives::Pending> recorded) {
  Value wait = py::makeBuiltin("Work.wait", [w, recorded](py::Interpreter& in, CallArgs&) {
    try {
      w->wait();
    } catch (const tensor::TorchError& e) { rethrow(in, e); }
    collectives::waited(recorded);
    return py::makeBool(true);
  });
  Value done = py::makeBuiltin("Work.is_completed", [w](py::Interpreter&, CallArgs&) { return py::makeBool(w->isCompleted()); });
  return py::makeTuple({wait, done});
}

dist::ReduceOp reduceOp(py::Interpreter& in, const Value& v) {
  static const std::map<std::string, dist::ReduceOp> ops = {{"SUM", dist::ReduceOp::Sum},
                                                            {"PRODUCT", dist::ReduceOp::Product},
                                                            {"MIN", dist::ReduceOp::Min},
                                                            {"MAX", dist::ReduceOp::Max},
                                                            {"AVG", dist::ReduceOp::Avg}};
  std::string name = v && v->kind == VK::Str ? py::as<py::StrObj>(v)->v : "";
  auto it = ops.find(name);
  if (it == ops.end()) notSupported(in, "torch.distributed.ReduceOp." + name + " in Kiln's gloo and nccl backends");
  return it->second;
}

// The optional last argument of the collectives: who issued it (DDP: "bucket 0"), or None.
std::string labelArg(py::Interpreter& in, const CallArgs& a, size_t at) {
  if (a.args.size() <= at || a.args[at]->kind == VK::None) return "";
  if (a.args[at]->kind != VK::Str) in.raise("TypeError", "a collective's label must be a str");
  return py::as<py::StrObj>(a.args[at])->v;
}

// The session's record of a collective about to be issued (its seq and duration come later).
session::CollectiveEvent collectiveEvent(dist::ProcessGroup& g, const std::string& op, const tensor::Tensor* t, std::string label) {
  session::CollectiveEvent e;
  e.op = op;
  e.backend = g.backendName();
  e.rank = g.rank();
  e.worldSize = g.size();
  e.label = std::move(label);
  if (t) {
    e.bytes = t->numel() * int64_t(ir::itemSize(t->dtype()));
    std::string_view name = ir::torchName(t->dtype());
    e.dtype = std::string(name.substr(name.rfind('.') + 1));  // "float32", as PyTorch prints dtypes without "torch."
    e.shape.assign(t->sizes().begin(), t->sizes().end());
  }
  e.issuedAtMs = collectives::nowMs();
  return e;
}

// Issues a collective and records it when the run is being recorded.
Value issue(py::Interpreter& in, session::CollectiveEvent e, const std::function<std::shared_ptr<dist::Work>()>& run) {
  try {
    std::shared_ptr<dist::Work> w = run();
    auto recorded = collectives::issued(std::move(e), w);
    return workHandle(in, std::move(w), std::move(recorded));
  } catch (const tensor::TorchError& err) { rethrow(in, err); }
}

std::string lowerName(const Value& v) {
  std::string s = v && v->kind == VK::Str ? py::as<py::StrObj>(v)->v : "";
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void installDistributed(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& d) {
  (void)in;
  // _kiln_init(rank, world_size, store_dir, prefix, timeout_seconds, backend)
  def(d, "_kiln_init", [](py::Interpreter& in, CallArgs& a) {
    if (a.args.size() != 6 || a.args[5]->kind != VK::Str) in.raise("TypeError", "_kiln_init() takes 6 arguments");
    int rank = int(intArg(in, a.args[0], "rank")), size = int(intArg(in, a.args[1], "world_size"));
    if (a.args[2]->kind != VK::Str || a.args[3]->kind != VK::Str) in.raise("TypeError", "store_dir and prefix must be str");
    double timeout = a.args[4]->kind == VK::Int ? double(py::as<py::IntObj>(a.args[4])->small()) : py::as<py::FloatObj>(a.args[4])->v;
    try {
      const std::string& storeDir = py::as<py::StrObj>(a.args[2])->v;
      const std::string& prefix = py::as<py::StrObj>(a.args[3])->v;
      const auto ms = std::chrono::milliseconds(int64_t(timeout * 1000));
      defaultGroup() = py::as<py::StrObj>(a.args[5])->v == "nccl" ? dist::createNcclGroup(rank, size, storeDir, prefix, ms)
                                                                  : dist::createGlooGroup(rank, size, storeDir, prefix, ms);
      collectives::groupCreated();
    } catch (const tensor::TorchError& e) { rethrow(in, e); }
    return py::None();
  });
  def(d, "_kiln_destroy", [](py::Interpreter&, CallArgs&) {
    defaultGroup().reset();  // drains the group's work, so what was issued has its duration now
    collectives::groupDestroyed();
    return py::None();
  });
  def(d, "_kiln_is_initialized", [](py::Interpreter&, CallArgs&) { return py::makeBool(defaultGroup() != nullptr); });
  def(d, "_kiln_rank", [](py::Interpreter& in, CallArgs&) { return py::makeInt(group(in).rank()); });
  def(d, "_kiln_world_size", [](py::Interpreter& in, CallArgs&) { return py::makeInt(group(in).size()); });
  def(d, "_kiln_backend", [](py::Interpreter& in, CallArgs&) { return py::makeStr(group(in).backendName()); });
  // _kiln_all_reduce(tensor, op_name[, label]) -> (wait, is_completed); the label (DDP's
  // "bucket 0") only names the collective in the session's record.
  def(d, "_kiln_all_reduce", [](py::Interpreter& in, CallArgs& a) {
    tensor::Tensor t = tensorArg(in, a.args.empty() ? nullptr : a.args[0], "all_reduce");
    dist::ReduceOp op = reduceOp(in, a.args.size() > 1 ? a.args[1] : nullptr);
    dist::ProcessGroup& g = group(in);
    session::CollectiveEvent e = collectiveEvent(g, "all_reduce", &t, labelArg(in, a, 2));
    e.reduceOp = lowerName(a.args[1]);
    return issue(in, std::move(e), [&] { return g.allReduce(t, op); });
  });
  // _kiln_broadcast(tensor, src[, label])
  def(d, "_kiln_broadcast", [](py::Interpreter& in, CallArgs& a) {
    tensor::Tensor t = tensorArg(in, a.args.empty() ? nullptr : a.args[0], "broadcast");
    int src = int(intArg(in, a.args.size() > 1 ? a.args[1] : nullptr, "src"));
    dist::ProcessGroup& g = group(in);
    session::CollectiveEvent e = collectiveEvent(g, "broadcast", &t, labelArg(in, a, 2));
    e.root = src;
    return issue(in, std::move(e), [&] { return g.broadcast(t, src); });
  });
  // _kiln_barrier([label])
  def(d, "_kiln_barrier", [](py::Interpreter& in, CallArgs& a) {
    dist::ProcessGroup& g = group(in);
    return issue(in, collectiveEvent(g, "barrier", nullptr, labelArg(in, a, 0)), [&] { return g.barrier(); });
  });
}

// os: only what scripts read: os.environ (a dict copied from the process environment when
// the script starts; writing to it changes the script's copy, never Kiln's environment),
// os.getenv, os.sep, os.name. Everything else in os stays sandboxed (AttributeError).
void installOs(py::Interpreter& in) {
  auto os = std::make_shared<py::ModuleObj>("os");
  os->scope->vars["__name__"] = py::makeStr("os");
  in.registerModule(os);
  auto env = std::make_shared<py::DictObj>();
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    env->setStr(kv.substr(0, eq), py::makeStr(kv.substr(eq + 1)));
  }
  Value envValue = env;
  os->scope->vars["environ"] = envValue;
  os->scope->vars["sep"] = py::makeStr("/");
  os->scope->vars["name"] = py::makeStr("posix");
  def(os, "getenv", [envValue](py::Interpreter& in, CallArgs& a) -> Value {
    if (a.args.empty() || a.args[0]->kind != VK::Str)
      in.raise("TypeError", "str expected, not " + (a.args.empty() ? std::string("nothing") : py::typeName(a.args[0])));
    Value v = py::as<py::DictObj>(envValue)->getStr(py::as<py::StrObj>(a.args[0])->v);
    if (v) return v;
    return a.args.size() > 1 ? a.args[1] : (a.kwarg("default") ? a.kwarg("default") : py::None());
  });
}

}  // namespace kiln::torchapi
