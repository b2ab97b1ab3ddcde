#include "storage/text_codec.h"

#include "storage/store.h"

#include <zstd.h>

namespace kiln::storage {

namespace {
// Level 3 (zstd's default) compresses stage IR ~8x at a few hundred MB/s: a 200-layer model's
// texts take well under a second; higher levels gain little on this kind of text.
constexpr int kLevel = 3;
// No stored text is anywhere near this; a frame claiming more is damaged.
constexpr unsigned long long kMaxTextBytes = 1ull << 32;
}  // namespace

std::optional<std::string> compressText(std::string_view text) {
  if (text.size() < kCompressMinBytes) return std::nullopt;
  std::string out(ZSTD_compressBound(text.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), kLevel);
  if (ZSTD_isError(n) || n >= text.size()) return std::nullopt;
  out.resize(n);
  return out;
}

bool isCompressedText(std::string_view bytes) {
  return bytes.size() >= 4 && static_cast<unsigned char>(bytes[0]) == 0x28 && static_cast<unsigned char>(bytes[1]) == 0xB5 &&
         static_cast<unsigned char>(bytes[2]) == 0x2F && static_cast<unsigned char>(bytes[3]) == 0xFD;
}

std::string decompressText(std::string_view frame) {
  unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > kMaxTextBytes)
    throw StoreError("a compressed text in the session store is damaged (its zstd frame header cannot be read)");
  std::string out(static_cast<size_t>(size), '\0');
  size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != size)
    throw StoreError(std::string("a compressed text in the session store is damaged (zstd: ") +
                     (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size") + ")");
  return out;
}

}  // namespace kiln::storage
