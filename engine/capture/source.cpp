#include "engine/capture/source.h"

#include <cctype>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace kiln::capture {

namespace {
// Dynamo's spelling (L['x']) or the user's (x): they differ only in how locals print.
std::string spell(const std::vector<Source::Step>& steps, bool dynamo) {
  std::string out;
  for (const auto& s : steps) {
    switch (s.kind) {
      case Source::Step::Kind::Local: out += dynamo ? "L['" + s.name + "']" : s.name; break;
      case Source::Step::Kind::Global: out += "G['" + s.name + "']"; break;
      case Source::Step::Kind::Attr: out = s.name == "__class__" ? "type(" + out + ")" : out + "." + s.name; break;
      case Source::Step::Kind::Item: out += s.key ? "[" + s.keyRepr + "]" : "['" + s.name + "']"; break;
      case Source::Step::Kind::ClosureCell: out += ".__closure__[" + std::to_string(s.cell) + "].cell_contents"; break;
      case Source::Step::Kind::ClassDictItem:
        out = "dict(type(" + out + ")" + (s.cell ? ".__mro__[" + std::to_string(s.cell) + "]" : "") + ".__dict__)['" + s.name + "']";
        break;
      case Source::Step::Kind::Index: out += "[" + s.name + "]"; break;
      case Source::Step::Kind::Const: out += s.name; break;
      case Source::Step::Kind::TupleIterItem: out = "___tuple_iterator_getitem(" + out + ", " + std::to_string(s.cell) + ")"; break;
      case Source::Step::Kind::ValueAt: out += "[list(" + out + ".keys())[" + std::to_string(s.cell) + "]]"; break;
    }
  }
  return out;
}
}  // namespace

std::string Source::text() const { return spell(steps, true); }

Source Source::itemKey(const py::Value& key, const std::string& repr) const {
  if (key->kind == py::VK::Str) return item(py::as<py::StrObj>(key)->v);
  Source s = *this;
  Step st{Step::Kind::Item, repr};
  st.key = key;
  st.keyRepr = repr;
  s.steps.push_back(st);
  return s;
}

Source Source::withStep(Step::Kind kind, const std::string& name, size_t cell) const {
  Source s = *this;
  Step st{kind, name};
  st.cell = cell;
  s.steps.push_back(st);
  return s;
}

Source Source::closureCell(const std::string& name, size_t i) const { return withStep(Step::Kind::ClosureCell, name, i); }

Source Source::classDictItem(const std::string& name, size_t mro) const { return withStep(Step::Kind::ClassDictItem, name, mro); }

Source Source::tupleIterItem(size_t i) const { return withStep(Step::Kind::TupleIterItem, std::to_string(i), i); }

Source Source::valueAt(size_t i) const { return withStep(Step::Kind::ValueAt, std::to_string(i), i); }

std::string Source::display() const { return spell(steps, false); }

std::string Source::placeholderName() const {
  // Runs of anything but letters and digits (underscores included) become one underscore.
  std::string t = text(), out;
  bool pending = false;
  for (char c : t) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (pending) out += '_';
      pending = false;
      out += c;
    } else {
      pending = true;
    }
  }
  if (pending) out += '_';
  return out;
}

namespace {

// The number of the prefix made of prefix `parent` and one more step: the same for equal steps
// (a key object by identity, which the step holds alive) after the same prefix, in every source.
uint32_t internPrefix(uint32_t parent, const Source::Step& s) {
  using Key = std::tuple<uint32_t, int, std::string, size_t, const void*>;
  static std::mutex mu;
  static std::map<Key, uint32_t> ids;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = ids.try_emplace(Key{parent, static_cast<int>(s.kind), s.name, s.cell, s.key.get()}, 0);
  if (fresh) it->second = static_cast<uint32_t>(ids.size());  // 1, 2, ...: 0 is the empty prefix
  return it->second;
}

const std::vector<uint32_t>& prefixIdsOf(const Source& src) {
  if (src.prefixIds.size() != src.steps.size() || src.prefixIdsFor != src.steps.data()) {
    src.prefixIds.clear();
    uint32_t parent = 0;
    for (const auto& s : src.steps) src.prefixIds.push_back(parent = internPrefix(parent, s));
    src.prefixIdsFor = src.steps.data();
  }
  return src.prefixIds;
}

std::vector<FetchCache::Slot>& threadSlots() {
  thread_local std::vector<FetchCache::Slot> slots;
  return slots;
}

uint64_t nextPass() {
  thread_local uint64_t passes = 0;
  return ++passes;
}

}  // namespace

FetchCache::FetchCache() : slots_(&threadSlots()), pass_(nextPass()) {}

FetchCache::~FetchCache() {
  for (uint32_t p : stored_)
    if ((*slots_)[p].pass == pass_) (*slots_)[p] = Slot{};
}

void FetchCache::put(uint32_t prefix, py::Value v) {
  if (prefix >= slots_->size()) slots_->resize(prefix + 1);
  (*slots_)[prefix] = Slot{pass_, std::move(v)};
  stored_.push_back(prefix);
}

py::Value Source::fetch(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals,
                        FetchCache* cache) const {
  py::Value v;
  // A constant's value is the source's own: not shared through the cache.
  if (!steps.empty() && steps[0].kind == Step::Kind::Const) cache = nullptr;
  const std::vector<uint32_t>* ids = cache ? &prefixIdsOf(*this) : nullptr;
  // The walk starts after the longest prefix fetched before in this pass (often the whole
  // source: a tensor's guard, then the entry's input), so each value is copied once.
  size_t start = 0;
  if (cache)
    for (size_t at = steps.size(); at-- > 0;)
      if (const py::Value* known = cache->find((*ids)[at])) {
        v = *known;
        start = at + 1;
        break;
      }
  for (size_t at = start; at < steps.size(); ++at) {
    const Step& s = steps[at];
    switch (s.kind) {
      case Step::Kind::Const: v = value; break;
      case Step::Kind::Local: {
        auto it = locals.find(s.name);
        if (it == locals.end()) return nullptr;
        v = it->second;
        break;
      }
      case Step::Kind::Global: {
        auto it = globals.scope->vars.find(s.name);
        if (it == globals.scope->vars.end()) return nullptr;
        v = it->second;
        break;
      }
      case Step::Kind::Attr:
        v = in.getAttrOrNull(v, s.name);
        if (!v) return nullptr;
        break;
      case Step::Kind::Index: {
        if (v->kind != py::VK::List && v->kind != py::VK::Tuple) return nullptr;
        const auto& items = v->kind == py::VK::List ? py::as<py::ListObj>(v)->items : py::as<py::TupleObj>(v)->items;
        size_t i = std::stoul(s.name);
        if (i >= items.size()) return nullptr;
        v = items[i];
        break;
      }
      case Step::Kind::Item:
        if (v->kind == py::VK::Dict) {
          v = s.key ? py::as<py::DictObj>(v)->get(s.key) : py::as<py::DictObj>(v)->getStr(s.name);
          if (!v) return nullptr;
          break;
        }
        if (s.key && (v->kind == py::VK::List || v->kind == py::VK::Tuple) && s.key->kind == py::VK::Int) {
          const auto& items = v->kind == py::VK::List ? py::as<py::ListObj>(v)->items : py::as<py::TupleObj>(v)->items;
          int64_t i = py::as<py::IntObj>(s.key)->small();
          if (i < 0) i += static_cast<int64_t>(items.size());
          if (i < 0 || i >= static_cast<int64_t>(items.size())) return nullptr;
          v = items[static_cast<size_t>(i)];
          break;
        }
        return nullptr;
      case Step::Kind::ClassDictItem: {
        auto cls = in.classOf(v);
        if (!cls || s.cell >= cls->mro.size()) return nullptr;
        auto it = cls->mro[s.cell]->dict.find(s.name);
        if (it == cls->mro[s.cell]->dict.end()) return nullptr;
        v = it->second;
        break;
      }
      case Step::Kind::TupleIterItem: {
        auto* it = v->kind == py::VK::Iterator ? py::as<py::IteratorObj>(v) : nullptr;
        if (!it || !it->seq || it->seq->kind != py::VK::Tuple) return nullptr;
        const auto& items = py::as<py::TupleObj>(it->seq)->items;
        if (it->pos + s.cell >= items.size()) return nullptr;
        v = items[it->pos + s.cell];
        break;
      }
      case Step::Kind::ValueAt: {
        if (v->kind != py::VK::Dict) return nullptr;
        const auto& items = py::as<py::DictObj>(v)->items.vec();
        if (s.cell >= items.size()) return nullptr;
        v = items[s.cell].second;
        break;
      }
      case Step::Kind::ClosureCell: {
        if (v->kind != py::VK::Function) return nullptr;
        auto* fn = py::as<py::FunctionObj>(v);
        py::Value found;
        for (py::Scope* sc = fn->closure.get(); sc && !found; sc = sc->parent.get())
          if (auto it = sc->vars.find(s.name); it != sc->vars.end()) found = it->second;
        if (!found) return nullptr;
        v = found;
        break;
      }
    }
    if (cache) cache->put((*ids)[at], v);
  }
  return v;
}

}  // namespace kiln::capture
