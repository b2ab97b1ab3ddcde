#include "engine/schedule/symbolic_shapes.h"

#include "engine/ir/sym.h"
#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/op_table.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace kiln::schedule {

namespace {

using ir::Dim;
using ir::TensorType;
using Dims = std::vector<Dim>;

struct NoRule {
  std::string why;
};

// A size symbol that meets a concrete size where the two must be equal (broadcasting s2 against
// a [64] weight, the inner dims of a matmul): Dynamo guards s2 == 64 and specializes it; the
// analysis restarts with s2 replaced by 64.
struct Specialize {
  int symbol;
  int64_t value;
};

bool anySymbolic(const Dims& ds) {
  return std::any_of(ds.begin(), ds.end(), [](const Dim& d) { return d.symbolic(); });
}

Dims stridesOf(const TensorType& t) { return t.strides.empty() ? ir::contiguousStrides(t.sizes) : t.strides; }

int64_t normDim(int64_t d, size_t rank) { return d < 0 ? d + static_cast<int64_t>(rank) : d; }

class Symbolizer {
 public:
  explicit Symbolizer(const ir::Graph& g) : g_(g) {}

  std::map<int, TensorType> run() {
    for (;;) {
      try {
        return pass();
      } catch (const Specialize& s) {
        if (fixed_.count(s.symbol)) throw NoRule{"size symbol s" + std::to_string(s.symbol) + " specialized twice"};
        fixed_[s.symbol] = s.value;
      }
    }
  }

 private:
  std::map<int, TensorType> pass() {
    types_.clear();
    symHint_.clear();
    hintSym_.clear();
    for (const auto& n : g_.nodes) {
      if (n.kind == ir::NodeKind::Placeholder) {
        if (n.types.size() != 1) continue;
        TensorType t = n.types[0];
        for (auto& d : t.sizes)
          if (auto p = d.symbolic() ? ir::parseSym(d.symbol) : std::nullopt; p && p->syms.size() == 1 && fixed_.count(p->syms[0]))
            d = Dim(p->coeff * fixed_.at(p->syms[0]));
        types_[n.id] = t;
        for (const auto& d : t.sizes)
          if (d.symbolic()) {
            if (auto p = ir::parseSym(d.symbol); p && p->coeff == 1 && p->syms.size() == 1) {
              symHint_[p->syms[0]] = d.value;
              hintSym_.emplace(d.value, p->syms[0]);
            }
          }
        continue;
      }
      if (!n.isCall() || n.types.empty()) continue;
      if (n.types.size() != 1) {
        if (readsSymbolic(n)) throw NoRule{n.name + " has several results"};
        continue;
      }
      types_[n.id] = typeOf(n);
    }
    return types_;
  }

  // Two sizes that must be equal: a lone symbol against a concrete size is specialized to it.
  static void unify(const Dim& a, const Dim& b) {
    if (a.symbolic() == b.symbolic()) return;
    const Dim& s = a.symbolic() ? a : b;
    const Dim& c = a.symbolic() ? b : a;
    if (c.value == 1 || s.value != c.value) return;  // broadcasting, or an error eager reports
    auto p = ir::parseSym(s.symbol);
    if (p && p->coeff == 1 && p->syms.size() == 1) throw Specialize{p->syms[0], c.value};
    throw NoRule{"size " + s.symbol + " must equal " + std::to_string(c.value)};
  }

  const TensorType& in(const ir::Node& n, size_t i) const {
    if (i >= n.args.size() || !n.args[i].isNode()) throw NoRule{n.name + ": argument " + std::to_string(i) + " is not a tensor"};
    auto it = types_.find(n.args[i].node);
    if (it == types_.end()) throw NoRule{n.name + ": an argument has no type"};
    return it->second;
  }

  bool readsSymbolic(const ir::Node& n) const {
    bool sym = false;
    ir::forEachNodeArg(n, [&](int a) {
      auto it = types_.find(a);
      if (it != types_.end()) sym = sym || anySymbolic(it->second.sizes) || anySymbolic(it->second.strides);
    });
    return sym;
  }

  // A size taken from a Python int (torch.arange(x.shape[0]) is captured as arange(7): Kiln's
  // graphs hold no SymInts) that equals a symbol's value is taken to be that symbol. A wrong
  // guess costs no correctness: this shape's code is right either way, and another shape reuses
  // the code only when its own capture gives the same kernels (a literal 7 stays 7 there).
  Dim guess(int64_t v) const {
    auto it = hintSym_.find(v);
    return v > 1 && it != hintSym_.end() ? ir::dimOf(v, "s" + std::to_string(it->second)) : Dim(v);
  }

  // Sizes of a node that reads no symbolic tensor: a creation op's from its int arguments
  // (guessed), a slice's cut dim likewise (a static mask sliced to [:T, :T]); anything else's
  // are its static inputs' and stay concrete.
  TensorType staticInputs(const ir::Node& n, TensorType t) const {
    bool tensorArg = false;
    ir::forEachNodeArg(n, [&](int) { tensorArg = true; });
    if (!tensorArg) {
      for (auto& d : t.sizes) d = guess(d.value);
    } else if (n.target == "aten.slice.Tensor") {
      const TensorType& x = in(n, 0);
      for (size_t d = 0; d < t.sizes.size() && d < x.sizes.size(); ++d)
        if (t.sizes[d].value != x.sizes[d].value) t.sizes[d] = guess(t.sizes[d].value);
    }
    return t;
  }

  TensorType typeOf(const ir::Node& n) {
    TensorType t = n.types[0];
    if (!readsSymbolic(n)) return staticInputs(n, t);
    const ops::OpDef* op = ops::findOp(n.target);
    if (!op) throw NoRule{n.name + ": unknown op " + n.target};
    Dims sizes, strides;
    bool view = op->kind == ops::OpKind::View;
    if (op->pointwise) sizes = broadcast(n);
    else if (op->reduction) sizes = reduced(n, *op);
    else if (view) viewRule(n, sizes, strides);
    else sizes = externRule(n);
    if (sizes.size() != t.sizes.size()) throw NoRule{n.name + ": its rule gives another rank"};
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d].value != t.sizes[d].value)
        throw NoRule{n.name + ": its rule disagrees with the captured size of dim " + std::to_string(d)};
    t.sizes = sizes;
    if (!view) {
      if (!t.strides.empty()) throw NoRule{n.name + ": a non-view result with strides"};
      return t;
    }
    // A view keeps explicit strides when they are not the contiguous ones (symbolically).
    if (!t.strides.empty()) {
      for (size_t d = 0; d < strides.size(); ++d)
        if (t.sizes[d].value > 1 && strides[d].value != t.strides[d].value)
          throw NoRule{n.name + ": its rule disagrees with the captured stride of dim " + std::to_string(d)};
    }
    t.strides = strides == ir::contiguousStrides(sizes) ? Dims{} : strides;
    return t;
  }

  Dims broadcast(const ir::Node& n) const {
    const TensorType& out = n.types[0];
    Dims r(out.sizes.size());
    std::vector<bool> seen(r.size(), false);
    for (size_t k = 0; k < r.size(); ++k) {
      size_t d = r.size() - 1 - k;
      r[d] = Dim(out.sizes[d].value);
      if (out.sizes[d].value == 1) continue;
      for (const auto& a : n.args) {
        if (!a.isNode()) continue;
        const TensorType& t = types_.at(a.node);
        if (k >= t.sizes.size()) continue;
        const Dim& x = t.sizes[t.sizes.size() - 1 - k];
        if (x.value != out.sizes[d].value) continue;
        if (seen[d]) unify(x, r[d]);
        seen[d] = true;
        if (x.symbolic()) r[d] = x;
      }
    }
    return r;
  }

  Dims reduced(const ir::Node& n, const ops::OpDef& op) const {
    std::vector<ops::Val> args;
    for (const auto& a : n.args) args.push_back(ops::GraphDispatcher::fromArg(g_, a));
    ops::ReductionSpec spec = op.reduction(args);
    const Dims& x = in(n, 0).sizes;
    Dims r;
    for (size_t d = 0; d < x.size(); ++d) {
      bool red = std::find(spec.dims.begin(), spec.dims.end(), static_cast<int64_t>(d)) != spec.dims.end();
      if (!red) r.push_back(x[d]);
      else if (spec.keepdim) r.push_back(Dim(1));
    }
    return r;
  }

  Dims externRule(const ir::Node& n) const {
    const std::string& op = n.target;
    if (op == "aten.mm.default") {
      unify(in(n, 0).sizes.at(1), in(n, 1).sizes.at(0));
      return {in(n, 0).sizes.at(0), in(n, 1).sizes.at(1)};
    }
    if (op == "aten.addmm.default") {
      unify(in(n, 1).sizes.at(1), in(n, 2).sizes.at(0));
      return {in(n, 1).sizes.at(0), in(n, 2).sizes.at(1)};
    }
    if (op == "aten.bmm.default") {
      unify(in(n, 0).sizes.at(0), in(n, 1).sizes.at(0));
      unify(in(n, 0).sizes.at(2), in(n, 1).sizes.at(1));
      return {in(n, 0).sizes.at(0), in(n, 0).sizes.at(1), in(n, 1).sizes.at(2)};
    }
    // Convolutions and pooling over NC<spatial>: the batch dim (and a pool's channels) carry
    // over; spatial sizes are floor divisions of the input's, which no size expression here
    // represents, so they must be static.
    static const std::set<std::string> kWindowed = {"aten.convolution.default", "aten.max_pool2d.default", "aten.avg_pool2d.default",
                                                    "aten._adaptive_avg_pool2d.default"};
    if (kWindowed.count(op)) {
      const Dims& x = in(n, 0).sizes;
      for (size_t d = 2; d < x.size(); ++d)
        if (x[d].symbolic()) throw NoRule{n.name + ": " + op + " over symbolic spatial size " + x[d].str()};
      if (op == "aten.convolution.default") unify(x.at(1), in(n, 1).sizes.at(1));
      Dims r;
      for (const auto& d : n.types[0].sizes) r.push_back(Dim(d.value));
      r.at(0) = x.at(0);
      if (op != "aten.convolution.default") r.at(1) = x.at(1);
      return r;
    }
    if (op == "aten.embedding.default") {  // (weight, indices): indices' sizes + the embedding dim
      Dims r = in(n, 1).sizes;
      r.push_back(in(n, 0).sizes.at(1));
      return r;
    }
    if (op == "aten.clone.default" || op == "aten.contiguous.default" || op == "aten._to_copy.default" || op == "aten.copy.default")
      return in(n, 0).sizes;
    throw NoRule{n.name + ": no size rule for " + op + " over symbolic sizes"};
  }

  void viewRule(const ir::Node& n, Dims& sizes, Dims& strides) const {
    const TensorType& x = in(n, 0);
    const Dims xs = stridesOf(x);
    const std::string& op = n.target;
    const size_t rank = x.sizes.size();
    auto intArg = [&](size_t i) -> int64_t {
      if (i >= n.args.size() || n.args[i].kind != ir::Arg::Kind::Int)
        throw NoRule{n.name + ": argument " + std::to_string(i) + " is not an int"};
      return n.args[i].i;
    };
    auto intList = [&](size_t i) {
      std::vector<int64_t> v;
      if (i >= n.args.size() || n.args[i].kind != ir::Arg::Kind::List)
        throw NoRule{n.name + ": argument " + std::to_string(i) + " is not a list"};
      for (const auto& a : n.args[i].list) {
        if (a.kind != ir::Arg::Kind::Int) throw NoRule{n.name + ": a size is not an int"};
        v.push_back(a.i);
      }
      return v;
    };
    if (op == "aten.alias.default") {
      sizes = x.sizes, strides = xs;
    } else if (op == "aten.permute.default" || op == "aten.transpose.int" || op == "aten.t.default") {
      std::vector<int64_t> perm(rank);
      for (size_t d = 0; d < rank; ++d) perm[d] = static_cast<int64_t>(d);
      if (op == "aten.permute.default") perm = intList(1);
      else if (op == "aten.transpose.int")
        std::swap(perm.at(static_cast<size_t>(normDim(intArg(1), rank))), perm.at(static_cast<size_t>(normDim(intArg(2), rank))));
      else if (rank == 2) std::swap(perm[0], perm[1]);
      for (int64_t p : perm) {
        size_t d = static_cast<size_t>(normDim(p, rank));
        sizes.push_back(x.sizes.at(d));
        strides.push_back(xs.at(d));
      }
    } else if (op == "aten.unsqueeze.default") {
      size_t d = static_cast<size_t>(normDim(intArg(1), rank + 1));
      sizes = x.sizes, strides = xs;
      Dim st = d < rank ? ir::dimMul(xs[d], x.sizes[d]) : Dim(1);
      sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(d), Dim(1));
      strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d), st);
    } else if (op == "aten.squeeze.dim" || op == "aten.squeeze.dims" || op == "aten.squeeze.default") {
      std::set<size_t> drop;
      if (op == "aten.squeeze.dim") drop.insert(static_cast<size_t>(normDim(intArg(1), rank)));
      else if (op == "aten.squeeze.dims")
        for (int64_t d : intList(1)) drop.insert(static_cast<size_t>(normDim(d, rank)));
      else
        for (size_t d = 0; d < rank; ++d) drop.insert(d);
      for (size_t d = 0; d < rank; ++d)
        if (!(drop.count(d) && !x.sizes[d].symbolic() && x.sizes[d].value == 1)) sizes.push_back(x.sizes[d]), strides.push_back(xs[d]);
    } else if (op == "aten.select.int") {
      size_t dim = static_cast<size_t>(normDim(intArg(1), rank));
      for (size_t d = 0; d < rank; ++d)
        if (d != dim) sizes.push_back(x.sizes[d]), strides.push_back(xs[d]);
    } else if (op == "aten.slice.Tensor") {
      size_t dim = static_cast<size_t>(normDim(n.args.size() > 1 ? intArg(1) : 0, rank));
      int64_t start = n.args.size() > 2 && n.args[2].kind == ir::Arg::Kind::Int ? n.args[2].i : 0;
      int64_t end = n.args.size() > 3 && n.args[3].kind == ir::Arg::Kind::Int ? n.args[3].i : INT64_MAX;
      int64_t step = n.args.size() > 4 && n.args[4].kind == ir::Arg::Kind::Int ? n.args[4].i : 1;
      sizes = x.sizes, strides = xs;
      const int64_t hint = x.sizes.at(dim).value;
      if (start == 0 && step == 1 && end >= hint) return;  // the whole dim
      if (x.sizes[dim].symbolic()) throw NoRule{n.name + ": a slice of symbolic dim " + x.sizes[dim].str()};
      sizes[dim] = Dim(n.types[0].sizes.at(dim).value);
      strides[dim] = ir::dimMul(xs[dim], Dim(step));
    } else if (op == "aten.expand.default") {
      std::vector<int64_t> want = intList(1);
      size_t lead = want.size() - rank;
      for (size_t d = 0; d < want.size(); ++d) {
        const int64_t out = n.types[0].sizes.at(d).value;
        if (d >= lead && (want[d] == -1 || x.sizes[d - lead].value == out) && !(x.sizes[d - lead].value == 1 && out != 1)) {
          sizes.push_back(x.sizes[d - lead]);
          strides.push_back(xs[d - lead]);
        } else {
          sizes.push_back(guess(out));  // expanded to a Python int
          strides.push_back(Dim(0));
        }
      }
    } else if (op == "aten.view.default" || op == "aten._unsafe_view.default") {
      if (!x.strides.empty() && x.strides != ir::contiguousStrides(x.sizes)) throw NoRule{n.name + ": a view of a non-contiguous view"};
      std::vector<int64_t> out;
      for (const auto& d : n.types[0].sizes) out.push_back(d.value);
      sizes = reshape(n, x.sizes, out);
      strides = ir::contiguousStrides(sizes);
    } else {
      throw NoRule{n.name + ": no size rule for " + op + " over symbolic sizes"};
    }
  }

  // Output dims of a reshape from `from` to the hints `to`: dims are grouped where the running
  // products meet; a group with a symbolic product gives each output dim the input symbol of
  // the same hint, and the group's product must come out the same.
  Dims reshape(const ir::Node& n, const Dims& from, const std::vector<int64_t>& to) const {
    for (const auto& d : from)
      if (d.value == 0) throw NoRule{n.name + ": a reshape of an empty tensor"};
    Dims r;
    size_t i = 0, j = 0;
    while (i < from.size() || j < to.size()) {
      if (j < to.size() && to[j] == 1) {
        r.push_back(Dim(1));
        ++j;
        continue;
      }
      if (i < from.size() && !from[i].symbolic() && from[i].value == 1) {
        ++i;
        continue;
      }
      if (i >= from.size() || j >= to.size()) throw NoRule{n.name + ": reshape groups do not meet"};
      Dims group{from[i++]};
      int64_t pin = group[0].value, pout = to[j];
      size_t j0 = j++;
      while (pin != pout) {
        if (pin < pout) {
          if (i >= from.size()) throw NoRule{n.name + ": reshape groups do not meet"};
          group.push_back(from[i]);
          pin *= from[i++].value;
        } else {
          if (j >= to.size()) throw NoRule{n.name + ": reshape groups do not meet"};
          pout *= to[j++];
        }
      }
      Dim product(1);
      for (const auto& d : group) product = ir::dimMul(product, d);
      if (!product.symbolic()) {
        for (size_t k = j0; k < j; ++k) r.push_back(Dim(to[k]));
        continue;
      }
      if (j - j0 == 1) {
        r.push_back(product);
        continue;
      }
      // The group's symbols, each with its hint (s0*s1 from a flatten splits back into s0, s1).
      Dims factors;
      for (const auto& d : group) {
        if (!d.symbolic()) continue;
        auto p = ir::parseSym(d.symbol);
        for (int sy : p->syms) {
          auto h = symHint_.find(sy);
          if (h != symHint_.end()) factors.push_back(ir::dimOf(h->second, "s" + std::to_string(sy)));
        }
      }
      std::vector<bool> used(factors.size(), false);
      Dim check(1);
      for (size_t k = j0; k < j; ++k) {
        Dim d(to[k]);
        for (size_t q = 0; q < factors.size(); ++q)
          if (!used[q] && factors[q].value == to[k]) {
            d = factors[q];
            used[q] = true;
            break;
          }
        r.push_back(d);
        check = ir::dimMul(check, d);
      }
      if (check != product) throw NoRule{n.name + ": cannot split " + product.str() + " into the reshape's sizes"};
    }
    return r;
  }

  const ir::Graph& g_;
  std::map<int, TensorType> types_;
  std::map<int, int64_t> symHint_;  // symbol number -> its value
  std::map<int, int64_t> fixed_;    // symbols specialized to a value
  std::map<int64_t, int> hintSym_;  // a value -> the (first) symbol with it
};

}  // namespace

std::string symbolizeShapes(ir::Graph& g) {
  std::map<int, TensorType> types;
  try {
    types = Symbolizer(g).run();
  } catch (const NoRule& e) { return e.why; } catch (const std::exception& e) {
    return e.what();
  }
  for (auto& n : g.nodes)
    if (auto it = types.find(n.id); it != types.end()) n.types[0] = it->second;
  return "";
}

std::vector<int64_t> symbolValues(const ir::Graph& g) {
  std::vector<int64_t> values;
  std::vector<bool> bound;
  for (const ir::Node* p : g.placeholders())
    for (const auto& t : p->types)
      for (const auto& d : t.sizes) {
        if (!d.symbolic()) continue;
        auto prod = ir::parseSym(d.symbol);
        if (!prod || prod->syms.size() != 1 || prod->coeff != 1) continue;  // a placeholder dim is one symbol
        size_t s = static_cast<size_t>(prod->syms[0]);
        if (s >= values.size()) values.resize(s + 1, 0), bound.resize(s + 1, false);
        if (bound[s] && values[s] != d.value)
          throw std::runtime_error("size symbol " + d.symbol + " is " + std::to_string(values[s]) + " and " + std::to_string(d.value));
        values[s] = d.value;
        bound[s] = true;
      }
  return values;
}

}  // namespace kiln::schedule
