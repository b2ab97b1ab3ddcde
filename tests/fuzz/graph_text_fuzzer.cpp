// libFuzzer target: the graph IR text form (engine/ir/parser.cpp, FX's readable form). Any byte
// string given to ir::parseGraph must parse or raise kiln::ParseError — never crash, hang, trip a
// sanitizer or throw anything else. What parses must print to text that parses again, to the same
// text: printGraph(parseGraph(printGraph(g))) == printGraph(g) (engine/ir/text.h).
#include "engine/ir/text.h"
#include "engine/support/error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ir::Graph g;
  try {
    g = ir::parseGraph(text, "fuzz");
  } catch (const ParseError&) { return 0; }
  (void)g.opCount();
  std::string once = ir::printGraph(g);
  std::string twice;
  try {
    twice = ir::printGraph(ir::parseGraph(once, "printed"));
  } catch (const ParseError& e) {
    std::fprintf(stderr, "graph_text_fuzzer: a printed graph does not parse: %s\n%s\n", e.what(), once.c_str());
    std::abort();
  }
  if (twice != once) {
    std::fprintf(stderr, "graph_text_fuzzer: print(parse(print(g))) != print(g):\n%s\n---\n%s\n", once.c_str(), twice.c_str());
    std::abort();
  }
  return 0;
}
