// The JSON a parent and its `kiln cuda-views` child exchange (kernel_views_child.h). Every field
// is written and read back, so the child's views equal those made in-process: kernels as kernel
// IR text (kir::print / kir::parseKernel, Kiln's one text form) plus the hints the text leaves
// out (where a size expression stands, the text has only the expression and parseKernel sets the
// hint to 0; the hints follow as "hints", in kir::withoutHints' order), so a kernel read back is
// operator== to the one sent; launches field by field (the views show CudaLaunch::str()).
#include "engine/driver/kernel_views.h"
#include "engine/driver/kernel_views_child.h"

#include <nlohmann/json.hpp>

#include <istream>
#include <iterator>
#include <ostream>
#include <stdexcept>

namespace kiln::driver {

namespace {

using json = nlohmann::json;
namespace cuda = codegen::cuda;

// Replaces bytes that are not UTF-8 (a path in a note) rather than throwing.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// `read(j)` over `text` parsed, any JSON error (not JSON, a key missing, a wrong type) thrown as
// one runtime_error naming what was read.
template <class F>
auto readJson(const std::string& text, const char* what, F read) {
  try {
    return read(json::parse(text));
  } catch (const json::exception& e) {
    std::string head = text.substr(0, 200);
    throw std::runtime_error(std::string("not ") + what + " (" + e.what() + "): " + (head.empty() ? "nothing" : "'" + head + "'"));
  }
}

// Calls `f` on every hint of `k` that stands beside a size expression (the ones the text drops),
// in one fixed order: loop extents, buffer dims, then per instruction its constant and index terms.
template <class K, class F>
void forEachHint(K& k, F f) {
  for (auto& l : k.loops)
    if (!l.extentSym.empty()) f(l.extent);
  for (auto& b : k.buffers)
    for (size_t d = 0; d < b.shapeSym.size() && d < b.shape.size(); ++d)
      if (!b.shapeSym[d].empty()) f(b.shape[d]);
  for (auto& i : k.body) {
    if (!i.constSym.empty()) f(i.constant);
    for (auto& t : i.index.terms)
      if (!t.coeffSym.empty()) f(t.coeff);
  }
}

json kernelJson(const kir::Kernel& k) {
  json hints = json::array();
  forEachHint(k, [&](const auto& h) { hints.push_back(h); });
  return {{"ir", kir::print(k)}, {"hints", hints}};
}

kir::Kernel kernelOf(const json& j) {
  kir::Kernel k = kir::parseKernel(j.at("ir").get<std::string>());
  const json& hints = j.at("hints");
  size_t n = 0;
  forEachHint(k, [&](auto& h) {
    if (n >= hints.size()) throw std::runtime_error("kernel " + k.name + ": fewer hints than size expressions");
    hints.at(n++).get_to(h);
  });
  if (n != hints.size()) throw std::runtime_error("kernel " + k.name + ": more hints than size expressions");
  return k;
}

cuda::CudaSchedule scheduleOf(const std::string& name) {
  for (auto s : {cuda::CudaSchedule::Thread, cuda::CudaSchedule::Block, cuda::CudaSchedule::Split})
    if (name == cuda::scheduleName(s)) return s;
  throw std::runtime_error("unknown CUDA schedule '" + name + "'");
}

json launchJson(const cuda::CudaLaunch& l) {
  return {{"schedule", cuda::scheduleName(l.schedule)},
          {"vector", l.vector},
          {"points", l.points},
          {"grid_x", l.gridX},
          {"grid_y", l.gridY},
          {"block", l.block},
          {"scratch_slots", l.scratchSlots},
          {"counters", l.counters},
          {"row_steps", l.rowSteps}};
}

cuda::CudaLaunch launchOf(const json& j) {
  cuda::CudaLaunch l;
  l.schedule = scheduleOf(j.at("schedule").get<std::string>());
  j.at("vector").get_to(l.vector);
  j.at("points").get_to(l.points);
  j.at("grid_x").get_to(l.gridX);
  j.at("grid_y").get_to(l.gridY);
  j.at("block").get_to(l.block);
  j.at("scratch_slots").get_to(l.scratchSlots);
  j.at("counters").get_to(l.counters);
  j.at("row_steps").get_to(l.rowSteps);
  return l;
}

json gpuJson(const session::KernelGpuInfo& g) {
  return {{"arch", g.arch},
          {"ptx", g.ptx},
          {"sass", g.sass},
          {"launch", g.launch},
          {"registers", g.registers},
          {"shared_bytes", g.sharedBytes},
          {"stack_bytes", g.stackBytes},
          {"spill_stores", g.spillStores},
          {"spill_loads", g.spillLoads},
          {"notes", g.notes}};
}

session::KernelGpuInfo gpuOf(const json& j) {
  session::KernelGpuInfo g;
  j.at("arch").get_to(g.arch);
  j.at("ptx").get_to(g.ptx);
  j.at("sass").get_to(g.sass);
  j.at("launch").get_to(g.launch);
  j.at("registers").get_to(g.registers);
  j.at("shared_bytes").get_to(g.sharedBytes);
  j.at("stack_bytes").get_to(g.stackBytes);
  j.at("spill_stores").get_to(g.spillStores);
  j.at("spill_loads").get_to(g.spillLoads);
  j.at("notes").get_to(g.notes);
  return g;
}

}  // namespace

cuda::CudaViewOptions KernelViewsRequest::options() const {
  return cuda::CudaViewOptions{arch, smCount, hasLaunches ? &launches : nullptr};
}

std::string requestToJson(const KernelViewsRequest& r) {
  json j{{"compile_id", r.compileId}, {"arch", r.arch}, {"sm_count", r.smCount}, {"kernels", json::array()}};
  for (const auto& k : r.kernels) j["kernels"].push_back(kernelJson(k));
  if (r.hasLaunches) {
    j["launches"] = json::array();
    for (const auto& l : r.launches) j["launches"].push_back(launchJson(l));
  }
  return dump(j);
}

KernelViewsRequest requestFromJson(const std::string& text) {
  return readJson(text, "a kernel views request", [](const json& j) {
    KernelViewsRequest r;
    j.at("compile_id").get_to(r.compileId);
    j.at("arch").get_to(r.arch);
    j.at("sm_count").get_to(r.smCount);
    for (const auto& k : j.at("kernels")) r.kernels.push_back(kernelOf(k));
    r.hasLaunches = j.contains("launches");
    if (r.hasLaunches)
      for (const auto& l : j.at("launches")) r.launches.push_back(launchOf(l));
    return r;
  });
}

std::string viewsEventToJson(const session::KernelViewsEvent& e) {
  json j{{"compile_id", e.compileId}, {"kernels", json::array()}};
  for (const auto& k : e.kernels) j["kernels"].push_back({{"name", k.name}, {"source", k.source}, {"gpu", gpuJson(k.gpu)}});
  return dump(j);
}

session::KernelViewsEvent viewsEventFromJson(const std::string& text) {
  return readJson(text, "kernel views", [](const json& j) {
    session::KernelViewsEvent e;
    j.at("compile_id").get_to(e.compileId);
    for (const auto& k : j.at("kernels"))
      e.kernels.push_back({k.at("name").get<std::string>(), k.at("source").get<std::string>(), gpuOf(k.at("gpu"))});
    return e;
  });
}

void serveKernelViews(std::istream& in, std::ostream& out) {
  const KernelViewsRequest r = requestFromJson(std::string(std::istreambuf_iterator<char>(in), {}));
  out << viewsEventToJson(cudaKernelViews(r.compileId, r.kernels, r.options())) << "\n";
  out.flush();
  if (!out) throw std::runtime_error("could not write the views to standard output");
}

}  // namespace kiln::driver
