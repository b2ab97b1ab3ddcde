// Python's iteration protocol: iter() gives an iterator, next() its items until the end.
// Iteration is lazy (a generator is resumed item by item, a list iterator sees appends made
// while it runs); `iterate` materializes for the callers that need every item at once.
#include "engine/python/interpreter.h"
#include "engine/python/tensor_hooks.h"
#include "engine/python/trace_hooks.h"

namespace kiln::py {

namespace {
Value rangeIterator(const IteratorObj& r) {
  auto it = std::make_shared<IteratorObj>();
  it->isRange = true;
  it->rStart = it->rCur = r.rStart;
  it->rStop = r.rStop;
  it->rStep = r.rStep;
  it->typeName = "range_iterator";
  return it;
}
}  // namespace

Value Interpreter::getIter(const Value& v) {
  if (tracer) tracer->onIterate(v);
  if (v->sub)
    if (Value m = classOf(v)->lookup("__iter__"); m && m->kind == VK::Function) {
      Value r = callDunder(v, "__iter__", {});
      return r->kind == VK::Iterator || r->kind == VK::Generator ? r : getIter(r);
    }
  switch (v->kind) {
    case VK::Iterator: {
      auto* it = as<IteratorObj>(v);
      return it->rangeObject ? rangeIterator(*it) : v;
    }
    case VK::Generator: return v;
    case VK::List:
    case VK::Tuple: {
      auto it = std::make_shared<IteratorObj>();
      it->seq = v;
      it->typeName = v->kind == VK::List ? "list_iterator" : "tuple_iterator";
      return it;
    }
    case VK::Str: {
      auto it = std::make_shared<IteratorObj>();
      // One item per code point (UTF-8 sequences stay whole).
      const std::string& s = as<StrObj>(v)->v;
      for (size_t i = 0; i < s.size();) {
        size_t n = 1;
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0xF0) n = 4;
        else if (c >= 0xE0) n = 3;
        else if (c >= 0xC0) n = 2;
        it->items.push_back(makeStr(s.substr(i, n)));
        i += n;
      }
      it->typeName = "str_ascii_iterator";
      return it;
    }
    case VK::Dict: {
      if (tracer) tracer->onDictKeys(v);
      auto* d = as<DictObj>(v);
      auto keys = std::make_shared<std::vector<Value>>();
      for (auto& [k, x] : d->items) keys->push_back(k);
      size_t size = d->items.size();
      auto pos = std::make_shared<size_t>(0);
      Value hold = v;
      return makeLazyIterator(
          [this, hold, keys, size, pos]() -> Value {
            if (as<DictObj>(hold)->items.size() != size) raise("RuntimeError", "dictionary changed size during iteration");
            if (*pos >= keys->size()) return nullptr;
            return (*keys)[(*pos)++];
          },
          "dict_keyiterator");
    }
    case VK::Tensor: {
      auto it = std::make_shared<IteratorObj>();
      it->items = tensorHooks().iterate(*this, v);
      return it;
    }
    case VK::Instance: {
      auto* inst = as<InstanceObj>(v);
      if (inst->cls->name == "set" || inst->cls->name == "frozenset") {
        auto it = std::make_shared<IteratorObj>();
        for (auto& [k, x] : std::static_pointer_cast<DictObj>(inst->native)->items) it->items.push_back(k);
        it->typeName = "set_iterator";
        return it;
      }
      if (Value m = inst->cls->lookup("__iter__")) {
        CallArgs a;
        Value r = call(std::make_shared<BoundMethodObj>(v, m), a);
        if (r->kind == VK::Instance && as<InstanceObj>(r)->cls->lookup("__next__")) return r;
        if (r->kind == VK::Iterator || r->kind == VK::Generator) return r;
        raise("TypeError", "iter() returned non-iterator of type '" + typeName(r) + "'");
      }
      if (Value gi = inst->cls->lookup("__getitem__")) {
        // The old sequence protocol: __getitem__(0), (1) ... until IndexError.
        auto index = std::make_shared<int64_t>(0);
        Value hold = v;
        return makeLazyIterator([this, hold, gi, index]() -> Value {
          CallArgs a;
          a.args.push_back(makeInt((*index)++));
          try {
            return call(std::make_shared<BoundMethodObj>(hold, gi), a);
          } catch (const PyError& e) {
            if (e.type() == "IndexError" || e.type() == "StopIteration") return nullptr;
            throw;
          }
        });
      }
      break;
    }
    case VK::Class: {
      // Iterating a class goes through its metaclass (an Enum's members).
      auto* c = as<ClassObj>(v);
      if (c->meta && c->meta->lookup("__iter__")) {
        Value r = callDunder(v, "__iter__", {});
        return r->kind == VK::Iterator || r->kind == VK::Generator ? r : getIter(r);
      }
      break;
    }
    default: break;
  }
  raise("TypeError", "'" + typeName(v) + "' object is not iterable");
}

Value Interpreter::nextItem(const Value& iterator) {
  checkInterrupt();
  if (tracer && (iterator->kind == VK::Iterator || iterator->kind == VK::Generator) && !tracer->isNew(iterator) &&
      !tracer->onTupleIteratorNext(iterator)) {
    // Advancing an iterator the frame received is a side effect Kiln does not replay (and the
    // items it yields are not guarded): the step runs eagerly instead of baking this call's items.
    GraphBreak u("KB032", "Iterator from outside the frame",
                 "Kiln does not track the position of an iterator or generator that existed before the frame was "
                 "compiled, so advancing it runs eagerly from here.",
                 {"Pass the items (a tuple or list) instead of an iterator over them."});
    u.kilnLimitation = true;
    u.where = currentLocation();
    u.stack = userStack();
    throw u;
  }
  switch (iterator->kind) {
    case VK::Iterator: {
      auto* it = as<IteratorObj>(iterator);
      if (it->nextFn) {
        Value v = it->nextFn();
        if (!v) it->nextFn = nullptr;  // exhausted for good (and drops what it held)
        return v;
      }
      if (it->isRange) {
        if (it->rStep > 0 ? it->rCur < it->rStop : it->rCur > it->rStop) {
          int64_t v = it->rCur;
          // At the end of range(..., 2**63 - 1) the next value would wrap around and restart.
          if (__builtin_add_overflow(it->rCur, it->rStep, &it->rCur)) it->rCur = it->rStop;
          return makeInt(v);
        }
        return nullptr;
      }
      if (it->seq) {
        const auto& items = it->seq->kind == VK::List ? as<ListObj>(it->seq)->items : as<TupleObj>(it->seq)->items;
        if (it->pos < items.size()) return items[it->pos++];
        it->seq = nullptr;
        return nullptr;
      }
      if (it->pos < it->items.size()) return it->items[it->pos++];
      return nullptr;
    }
    case VK::Generator: return resumeGenerator(*as<GeneratorObj>(iterator), nullptr);
    case VK::Instance: {
      Value m = as<InstanceObj>(iterator)->cls->lookup("__next__");
      if (!m) break;
      CallArgs a;
      try {
        return call(std::make_shared<BoundMethodObj>(iterator, m), a);
      } catch (const PyError& e) {
        if (e.type() == "StopIteration") return nullptr;
        throw;
      }
    }
    default: break;
  }
  raise("TypeError", "'" + typeName(iterator) + "' object is not an iterator");
}

std::vector<Value> Interpreter::iterate(const Value& v) {
  if (tracer) tracer->onIterate(v);
  switch (v->kind) {
    case VK::List: return as<ListObj>(v)->items;
    case VK::Tuple: return as<TupleObj>(v)->items;
    case VK::Dict: {
      std::vector<Value> out;
      for (auto& [k, x] : as<DictObj>(v)->items) out.push_back(k);
      return out;
    }
    case VK::Tensor: return tensorHooks().iterate(*this, v);
    case VK::Iterator: {
      auto* it = as<IteratorObj>(v);
      if (it->isRange || it->rangeObject) {
        int64_t cur = it->rangeObject ? it->rStart : it->rCur;
        int64_t count = it->rStep > 0 ? (it->rStop - cur + it->rStep - 1) / it->rStep : (cur - it->rStop - it->rStep - 1) / -it->rStep;
        if (count > 100'000'000) raise("MemoryError", "range of " + std::to_string(count) + " items is too large to materialize");
      }
      break;
    }
    default: break;
  }
  std::vector<Value> out;
  Value it = getIter(v);
  while (Value x = nextItem(it)) {
    out.push_back(std::move(x));
    if (out.size() > 100'000'000) raise("MemoryError", "an iterable of more than 10^8 items cannot be materialized");
  }
  return out;
}

}  // namespace kiln::py
