#include "engine/passes/pass.h"

namespace kiln::passes {

void PassResult::fired(const std::string& rule, int id) {
  changed = true;
  for (auto& r : rules)
    if (r.rule == rule) {
      ++r.count;
      r.nodes.push_back(id);
      return;
    }
  rules.push_back(session::RuleHit{rule, 1, {id}});
}

}  // namespace kiln::passes
