// libFuzzer target: the JSON column readers of the session store (storage/graph_json.cpp). The
// input is given to every *FromJson reader as a column's text; each must return a value or throw
// storage::StoreError — never crash, trip a sanitizer or let another exception (nlohmann's
// type_error, out_of_range ...) escape. What reads back must write out and read back to the same
// JSON text (graph_json.h: every pair round-trips).
#include "storage/graph_json.h"
#include "storage/store.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using namespace kiln;

template <class Read, class Write>
void roundTrip(const std::string& text, const char* what, Read read, Write write) {
  std::string once;
  try {
    once = write(read(text));
  } catch (const storage::StoreError&) { return; }
  std::string twice;
  try {
    twice = write(read(once));
  } catch (const storage::StoreError& e) {
    std::fprintf(stderr, "graph_json_fuzzer: %s: written JSON does not read back: %s\n%s\n", what, e.what(), once.c_str());
    std::abort();
  }
  if (twice != once) {
    std::fprintf(stderr, "graph_json_fuzzer: %s does not round-trip:\n%s\n%s\n", what, once.c_str(), twice.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln::storage;
  std::string text(reinterpret_cast<const char*>(data), size);
  roundTrip(text, "args", argsFromJson, argsToJson);
  roundTrip(text, "kwargs", kwargsFromJson, kwargsToJson);
  roundTrip(text, "types", typesFromJson, typesToJson);
  roundTrip(text, "source locations", sourceLocsFromJson, sourceLocsToJson);
  roundTrip(text, "ints", intsFromJson, intsToJson);
  roundTrip(text, "strings", stringsFromJson, stringsToJson);
  roundTrip(text, "guards", guardsFromJson, guardsToJson);
  roundTrip(text, "rules", rulesFromJson, rulesToJson);
  try {
    (void)nodeKindFromName(text);
  } catch (const StoreError&) {}
  return 0;
}
