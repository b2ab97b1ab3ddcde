#include "engine/passes/lower_to_aten.h"

#include "engine/ops/autocast.h"
#include "engine/ops/graph_dispatcher.h"
#include "engine/passes/torch_level.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace kiln::passes {

namespace {

using ops::Val;

// The ATen graph being built, with what functionalization needs to know about aliasing.
class Lowering {
 public:
  explicit Lowering(const ir::Graph& captured) : captured_(captured), d_(out_.graph) { out_.graph.name = captured.name; }

  Lowered run() {
    for (const auto& n : captured_.nodes) {
      if (n.kind == ir::NodeKind::Placeholder) placeholder(n);
      else if (n.kind == ir::NodeKind::Output) output(n);
      else call(n);
    }
    for (const auto& [c, v] : env_)
      if (v.kind == Val::Kind::Sym && v.node >= 0) out_.resultOf[c] = v.node;
    for (const auto& [c, same] : sameAs_)
      if (auto it = out_.resultOf.find(canonical(c)); it != out_.resultOf.end()) out_.resultOf[c] = it->second;
    return std::move(out_);
  }

 private:
  const ir::Graph& captured_;
  Lowered out_;
  ops::GraphDispatcher d_;
  // A captured autocast block (_enter_autocast / _exit_autocast) has no ATen op: its state is
  // set while the nodes inside it lower, which makes the dispatcher record autocast's casts.
  ops::autocast::GraphRegions autocast_;
  std::map<int, Val> env_;                       // captured node id -> its ATen value (canonical ids only)
  std::map<int, int> sameAs_;                    // in-place op node -> the node it updated (same tensor)
  std::map<int, int> inputOf_;                   // ATen placeholder id -> input index
  std::map<int, int> viewBase_;                  // ATen view node -> the ATen node it views
  std::vector<std::pair<int, int>> dtypeViews_;  // aten.view.dtype nodes and the node each views
  std::map<int, int> versionOf_;                 // ATen node holding a later value of an input -> input index
  std::vector<std::pair<int, int>> mutated_;     // (input index, ATen node with its latest value)
  size_t scanned_ = 0;                           // ATen nodes already checked for being views
  size_t seenMutations_ = 0;                     // decomposition mutations already applied

  int canonical(int c) const {
    for (auto it = sameAs_.find(c); it != sameAs_.end(); it = sameAs_.find(c)) c = it->second;
    return c;
  }

  Val mapArg(const ir::Arg& a) {
    if (a.kind == ir::Arg::Kind::Node) {
      auto it = env_.find(canonical(a.node));
      if (it == env_.end()) throw std::logic_error("lowering: use of an undefined value");
      return it->second;
    }
    if (a.kind == ir::Arg::Kind::List) {
      std::vector<Val> items;
      for (const auto& x : a.list) items.push_back(mapArg(x));
      return Val::listOf(std::move(items));
    }
    return ops::GraphDispatcher::fromArg(captured_, a);
  }

  void placeholder(const ir::Node& n) {
    ir::Node p;
    p.kind = ir::NodeKind::Placeholder;
    p.name = p.target = "arg" + std::to_string(inputOf_.size()) + "_1";
    p.types = n.types;
    p.prov.from = {n.id};
    int id = out_.graph.add(std::move(p)).id;
    inputOf_[id] = static_cast<int>(inputOf_.size());
    env_[n.id] = Val::sym(n.types.at(0), id);
    scanned_ = out_.graph.nodes.size();
  }

  // Remembers which new ATen nodes are views (they alias their first argument).
  void noteViews() {
    for (; scanned_ < out_.graph.nodes.size(); ++scanned_) {
      const ir::Node& an = out_.graph.nodes[scanned_];
      if (an.kind != ir::NodeKind::CallFunction || an.args.empty() || !an.args[0].isNode()) continue;
      const ops::OpDef* od = ops::findOp(an.target);
      if (od && od->kind == ops::OpKind::View) viewBase_[an.id] = an.args[0].node;
      if (an.target == "aten.view.dtype") dtypeViews_.emplace_back(an.id, an.args[0].node);
    }
  }

  // The ATen nodes from `node` up to its base: chain (innermost last) and the root.
  int rootOf(int node, std::vector<int>* chain = nullptr) const {
    std::vector<int> up;
    for (auto it = viewBase_.find(node); it != viewBase_.end(); it = viewBase_.find(node)) {
      up.push_back(node);
      node = it->second;
    }
    if (chain) chain->assign(up.rbegin(), up.rend());
    return node;
  }

  // The input whose storage ATen node `node` is (the placeholder or a later value), or -1.
  int inputIndexOf(int node) const {
    if (auto in = inputOf_.find(node); in != inputOf_.end()) return in->second;
    if (auto v = versionOf_.find(node); v != versionOf_.end()) return v->second;
    return -1;
  }

  // The input that `node` or a node it views is (a view of), or -1; `chain` gets the view
  // nodes from there down to `node` (outermost first). A later value of an input has the
  // input's shape, so the chain replays on the real input whatever its layout.
  int inputAlong(int node, std::vector<int>* chain = nullptr) const {
    std::vector<int> up;
    for (;;) {
      if (int input = inputIndexOf(node); input >= 0) {
        if (chain) chain->assign(up.rbegin(), up.rend());
        return input;
      }
      auto it = viewBase_.find(node);
      if (it == viewBase_.end()) return -1;
      up.push_back(node);
      node = it->second;
    }
  }

  // Applies the view ops of `chain` (ATen node ids, outermost first) to `base`.
  Val replay(Val base, const std::vector<int>& chain) {
    for (int id : chain) {
      const ir::Node* vn = out_.graph.find(id);
      std::string op = vn->target;
      std::vector<ir::Arg> rest(vn->args.begin() + 1, vn->args.end());
      std::vector<Val> args{base};
      for (const auto& a : rest) args.push_back(ops::GraphDispatcher::fromArg(out_.graph, a));
      base = d_.call(op, args);
    }
    noteViews();
    return base;
  }

  std::vector<Val> sizesOf(const Val& v) const {
    std::vector<Val> s;
    for (const auto& dim : v.tensorType().sizes) s.push_back(Val::integer(dim.value));
    return s;
  }

  Val flat(const Val& v) {
    Val c = v.tensorType().strides.empty() ? v : d_.call("aten.clone.default", {v});
    return d_.call("aten.view.default", {c, Val::listOf({Val::integer(-1)})});
  }

  // The base's new value after its view (reached through `chain`) took `value`: the view's
  // positions come from replaying the chain on an iota of the base's shape.
  Val scatterIntoBase(const Val& base, const std::vector<int>& chain, const Val& value) {
    for (const auto& dim : base.tensorType().sizes)
      if (dim.symbolic()) throw std::runtime_error("lowering: an in-place update of a view with symbolic sizes");
    for (int id : chain)
      if (out_.graph.find(id)->target == "aten.as_strided.default" && !base.tensorType().strides.empty())
        throw std::runtime_error("lowering: an in-place update through as_strided of a non-contiguous tensor");
    int64_t numel = 1;
    for (const auto& dim : base.tensorType().sizes) numel *= dim.value;
    Val iota = d_.call("aten.arange.start_step", {Val::integer(0), Val::integer(numel), Val::integer(1), Val::dtypeVal(ir::DType::Int64)});
    iota = d_.call("aten.view.default", {iota, Val::listOf(sizesOf(base))});
    noteViews();
    Val index = flat(replay(iota, chain));
    Val updated = d_.call("aten.index_put.default", {flat(base), Val::listOf({index}), flat(value), Val::boolean(false)});
    Val r = d_.call("aten.view.default", {updated, Val::listOf(sizesOf(base))});
    noteViews();
    return r;
  }

  // The tensor `target` (an ATen node, possibly a view) now holds `value`: computes its base's
  // new value and rebinds every captured value that aliases that base.
  void update(int target, const Val& value) {
    std::vector<int> chain;
    const int root = rootOf(target, &chain);
    // view(dtype) is no view functionalization can replay (it changes the dtype): an update of
    // one, or of what one views, cannot be carried over, so the graph is not compiled.
    for (const auto& [view, base] : dtypeViews_)
      if (view == root || rootOf(base) == root)
        throw std::runtime_error("lowering: an in-place update of a tensor Tensor.view(dtype) aliases");
    Val newRoot = value;
    if (!chain.empty()) {
      const ir::Node* rn = out_.graph.find(root);
      newRoot = scatterIntoBase(Val::sym(rn->types.at(0), root), chain, value);
    }
    auto rebind = [&](Val& v) {
      if (v.kind != Val::Kind::Sym || v.node < 0) return;
      std::vector<int> vc;
      if (rootOf(v.node, &vc) != root) return;
      v = vc.empty() ? newRoot : replay(newRoot, vc);
    };
    for (auto& [c, v] : env_) {
      rebind(v);
      for (auto& item : v.list) rebind(item);  // the results of a multi-result call (split, unbind)
    }
    // The new root is the input's storage from now on: a view of it that the graph returns is
    // a view of the input in the program, rebuilt on the real input after the copy-back.
    if (int input = inputAlong(target); input >= 0 && newRoot.kind == Val::Kind::Sym && newRoot.node >= 0) versionOf_[newRoot.node] = input;
    if (auto in = inputOf_.find(root); in != inputOf_.end()) {
      auto m = std::find_if(mutated_.begin(), mutated_.end(), [&](const auto& p) { return p.first == in->second; });
      if (m == mutated_.end()) mutated_.emplace_back(in->second, newRoot.node);
      else m->second = newRoot.node;
    } else {
      // A later update of an input: its current value is `root` or a view of it (the reshape
      // an earlier scatter ended with), so it is that value replayed on the new root.
      for (auto& m : mutated_) {
        std::vector<int> mc;
        if (rootOf(m.second, &mc) != root) continue;
        m.second = mc.empty() ? newRoot.node : replay(newRoot, mc).node;
      }
    }
  }

  void call(const ir::Node& n) {
    // A grad-mode change (torch._C._set_grad_enabled) has no ATen op: the nodes after it carry
    // the mode (noGrad), which is what the backward and requires_grad read.
    if (n.target == "torch._C._set_grad_enabled") return;
    if (autocast_.apply(n)) return;
    d_.noGrad = n.noGrad;
    // A torch.autograd.Function's forward ops are the graph's own; the call hands back its
    // outputs (its backward is the user's, run when the graph is differentiated eagerly).
    if (n.target == kAutogradFunctionApply && n.args.size() == 3) {
      env_[n.id] = mapArg(n.args[1]);
      return;
    }
    // getitem of a multi-result call picks the element (it is not an indexing op).
    if (n.target == "_operator.getitem" && n.args.size() == 2 && n.args[0].isNode() && n.args[1].kind == ir::Arg::Kind::Int) {
      auto src = env_.find(canonical(n.args[0].node));
      if (src != env_.end() && src->second.kind == Val::Kind::List) {
        env_[n.id] = src->second.list.at(static_cast<size_t>(n.args[1].i));
        return;
      }
    }
    const TorchLevel& torch = torchLevel();
    if (!torch.defined(n)) throw std::runtime_error("lowering: no ATen lowering for captured op '" + n.target + "'");
    std::vector<Val> args;
    std::vector<std::pair<std::string, Val>> kwargs;
    for (const auto& a : n.args) args.push_back(mapArg(a));
    for (const auto& [k, a] : n.kwargs) kwargs.emplace_back(k, mapArg(a));
    d_.provenance = n.prov;
    d_.provenance.from = {n.id};
    const size_t nodesBefore = out_.graph.nodes.size();
    Val r = torch.call(n, d_, std::move(args), std::move(kwargs));
    if (r.kind != Val::Kind::Sym && r.kind != Val::Kind::List)
      throw std::runtime_error("lowering: '" + n.target + "' did not produce a tensor");
    noteViews();
    // An input updated inside an op's decomposition (training batch_norm's running stats).
    for (; seenMutations_ < d_.mutations.size(); ++seenMutations_) {
      auto [target, value] = d_.mutations[seenMutations_];
      update(target, Val::sym(out_.graph.find(value)->types.at(0), value));
    }
    const bool inplace = torch.isInplace(n);
    if (!inplace) {
      env_[n.id] = r;
      return;
    }
    // `x.add_(1)` returns x: the node is the same tensor as its target from now on.
    const int target = canonical(n.args[0].node);
    sameAs_[n.id] = target;
    const Val& old = env_.at(target);
    if (old.kind != Val::Kind::Sym || old.node < 0)
      throw std::runtime_error("lowering: '" + n.target + "' on a value that is not a tensor");
    // The new value must be a tensor of its own: `o.copy_(a)` lowers to `a` itself (or a view
    // of it), and binding o to that node would make a later `o -= b` update `a` too.
    if (r.kind == Val::Kind::Sym && r.node >= 0) {
      const ir::Node* rn = out_.graph.find(r.node);
      const bool fresh = rn && static_cast<size_t>(rn - out_.graph.nodes.data()) >= nodesBefore;
      if (!fresh || viewBase_.count(r.node)) {
        r = d_.call("aten.clone.default", {r});
        noteViews();
      }
    }
    update(old.node, r);
  }

  void output(const ir::Node& n) {
    ir::Node o;
    o.kind = ir::NodeKind::Output;
    o.name = o.target = "output";
    std::vector<ir::Arg> refs;
    const auto& results = n.args.at(0).list;
    out_.userOutputs = results.size();
    for (size_t i = 0; i < results.size(); ++i) {
      Val v = mapArg(results[i]);
      refs.push_back(ops::GraphDispatcher::toArg(v));
      if (v.kind != Val::Kind::Sym || v.node < 0) continue;
      std::vector<int> chain;
      const int input = inputAlong(v.node, &chain);
      // An output that is the input itself or its later value with no view op in between
      // (`t = x.flatten()` of a 1-d x, which eager returns as x, then `x.add_(1)`) is the input
      // too: an empty chain hands back the real input, so later mutations show through it.
      if (input < 0) continue;
      OutputAlias alias;
      alias.output = i;
      alias.input = static_cast<size_t>(input);
      for (int id : chain) {
        const ir::Node* vn = out_.graph.find(id);
        alias.chain.push_back(ViewStep{vn->target, std::vector<ir::Arg>(vn->args.begin() + 1, vn->args.end())});
      }
      out_.outputAliases.push_back(std::move(alias));
    }
    for (const auto& [input, node] : mutated_) {
      // A final value the captured graph returns already (its last in-place node) is not
      // returned twice.
      auto same = std::find_if(refs.begin(), refs.end(), [&, node = node](const ir::Arg& a) { return a.isNode() && a.node == node; });
      out_.inputMutations.emplace_back(input, static_cast<int>(same - refs.begin()));
      if (same == refs.end()) refs.push_back(ir::Arg::ref(node));
    }
    o.args.push_back(ir::Arg::listOf(std::move(refs)));
    out_.graph.add(std::move(o));
  }
};

}  // namespace

Lowered lower(const ir::Graph& captured) { return Lowering(captured).run(); }

ir::Graph lowerToAten(const ir::Graph& captured, std::map<int, int>* resultOf, std::vector<std::pair<int, int>>* inputMutations) {
  Lowered l = lower(captured);
  if (resultOf) *resultOf = std::move(l.resultOf);
  if (inputMutations) *inputMutations = std::move(l.inputMutations);
  return std::move(l.graph);
}

}  // namespace kiln::passes
