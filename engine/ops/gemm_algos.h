// The CPU implementations of a floating-point matrix product (aten.mm, addmm, bmm, and the
// products matmul and linear lower to). By default Kiln picks one by rule (gemm() in
// linalg_ops.cpp: the few-row kernel where it pays, else OpenBLAS). mode="max-autotune" times
// every implementation that can run a product on inputs of its shapes and pins the fastest to
// that product's step of the compiled graph (driver/autotune.h), as Inductor's max-autotune
// chooses among its GEMM templates and ATen's.
#pragma once

#include <string>
#include <vector>

namespace kiln::ops {

struct GemmAlgo {
  const char* name;         // as the wrapper and the studio show it
  const char* description;  // one line: what it is and where it applies
};

// Every implementation, in the order max-autotune tries them.
const std::vector<GemmAlgo>& gemmAlgos();
bool isGemmAlgo(const std::string& name);

// Pins implementation `name` for every product this thread runs while the scope lives; "" keeps
// the default rule. A pinned implementation that cannot run a product (the few-row kernel on a
// 512-row product, a layout it does not read) leaves it to the default rule.
class GemmAlgoScope {
 public:
  explicit GemmAlgoScope(std::string name);
  ~GemmAlgoScope();
  GemmAlgoScope(const GemmAlgoScope&) = delete;
  GemmAlgoScope& operator=(const GemmAlgoScope&) = delete;

 private:
  std::string previous_;
};

// The pinned implementation of this thread ("" when none).
const std::string& pinnedGemmAlgo();
// The implementation that ran this thread's last float32/float64 product (max-autotune asks, to
// tell a candidate that does not apply from one that ran); "" before any.
const std::string& lastGemmAlgo();
void noteGemmAlgo(const char* name);

}  // namespace kiln::ops
