// Large texts (stage IR, kernel IR and machine code, wrappers, transformed code, guards) are
// stored zstd-compressed: a 200-layer model's session was 162 MB, most of it text that
// compresses 5-10x. A compressed value is a BLOB holding one zstd frame; an uncompressed one
// stays TEXT, as every store before schema 9 wrote it. `Stmt::text` reads both (it decodes a
// BLOB that starts with zstd's magic number), so readers, repair and check need no change.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kiln::storage {

// Texts shorter than this are stored as they are: a zstd frame's header and the per-call cost
// outweigh what a short text saves.
constexpr size_t kCompressMinBytes = 512;

// The zstd frame of `text` when it is at least kCompressMinBytes and compresses to something
// smaller; nullopt when it is better stored as plain TEXT.
std::optional<std::string> compressText(std::string_view text);

// True when `bytes` starts with a zstd frame's magic number (28 B5 2F FD).
bool isCompressedText(std::string_view bytes);

// The text a frame made by compressText holds. Throws StoreError when the frame is damaged
// (a truncated or altered value), naming what was being read.
std::string decompressText(std::string_view frame);

}  // namespace kiln::storage
