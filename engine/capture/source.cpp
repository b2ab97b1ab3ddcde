#include "engine/capture/source.h"

#include <cctype>

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

bool sameStep(const Source::Step& a, const Source::Step& b) {
  return a.kind == b.kind && a.cell == b.cell && a.key.get() == b.key.get() && a.name == b.name;
}

// The prefix hash after one more step. A step's own part is made once and kept in it: steps
// are not changed once made (a source with another step is a copy with one more).
uint64_t stepHash(uint64_t h, const Source::Step& s) {
  if (!s.hash) {
    uint64_t own = 0xcbf29ce484222325ull;
    auto mix = [&](uint64_t x) { own = (own ^ x) * 0x100000001b3ull; };
    mix(static_cast<uint64_t>(s.kind));
    mix(std::hash<std::string>{}(s.name));
    mix(s.cell);
    mix(reinterpret_cast<uintptr_t>(s.key.get()));
    s.hash = own | 1;  // never 0, which stands for "not made yet"
  }
  h = (h ^ s.hash) * 0x100000001b3ull;
  return h | 1;  // never 0, which stands for an empty slot
}

}  // namespace

const py::Value* FetchCache::find(uint64_t hash, const std::vector<Source::Step>& steps, size_t n) const {
  if (hashes_.empty()) return nullptr;
  const size_t mask = hashes_.size() - 1;
  for (size_t i = hash & mask; hashes_[i]; i = (i + 1) & mask) {
    if (hashes_[i] != hash) continue;
    const Entry& c = slots_[i];
    if (c.n != n) continue;
    bool same = true;
    for (size_t k = 0; k < n && same; ++k) same = sameStep((*c.steps)[k], steps[k]);
    if (same) return &c.value;
  }
  return nullptr;
}

void FetchCache::put(uint64_t hash, const std::vector<Source::Step>& steps, size_t n, py::Value v) {
  if (2 * (used_ + 1) > hashes_.size()) {  // at most half full: probes stay short
    std::vector<uint64_t> oldHashes(std::max<size_t>(64, 2 * hashes_.size()), 0);
    std::vector<Entry> oldSlots(oldHashes.size());
    oldHashes.swap(hashes_), oldSlots.swap(slots_);
    used_ = 0;
    for (size_t i = 0; i < oldHashes.size(); ++i)
      if (oldHashes[i]) put(oldHashes[i], *oldSlots[i].steps, oldSlots[i].n, std::move(oldSlots[i].value));
  }
  const size_t mask = hashes_.size() - 1;
  size_t i = hash & mask;
  while (hashes_[i]) i = (i + 1) & mask;
  hashes_[i] = hash;
  slots_[i] = Entry{&steps, n, std::move(v)};
  ++used_;
}

py::Value Source::fetch(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals,
                        FetchCache* cache) const {
  py::Value v;
  // A constant's value is the source's own: not shared through the cache.
  if (!steps.empty() && steps[0].kind == Step::Kind::Const) cache = nullptr;
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t at = 0; at < steps.size(); ++at) {
    const Step& s = steps[at];
    if (cache) {
      hash = stepHash(hash, s);
      if (const py::Value* known = cache->find(hash, steps, at + 1)) {
        v = *known;
        continue;
      }
    }
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
    if (cache) cache->put(hash, steps, at + 1, v);
  }
  return v;
}

}  // namespace kiln::capture
