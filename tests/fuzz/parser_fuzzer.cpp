// libFuzzer target: any byte string given to the lexer + parser must either parse or raise
// kiln::ParseError — never crash, hang, or trip AddressSanitizer.
#include "engine/python/parser.h"
#include "engine/support/error.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  try {
    kiln::py::parseModule(src, "fuzz.py");
  } catch (const kiln::ParseError&) {}
  return 0;
}
