// Reading a TORCH_TRACE log one record at a time, in bounded memory.
//
// A log (PyTorch's torch._logging structured trace, the input of tlparse) is a sequence of
// records: a glog prefix (`V1125 13:58:03.809000 432 torch/_dynamo/convert_frame.py:276] `),
// one JSON object on the same line whose first key names the record, and, when the object has
// `has_payload`, a body on the following lines, each indented by one tab. Plain or gzip files
// read the same. A line that is neither is a problem reported with its number; the records
// around it still read.
#pragma once

#include <nlohmann/json.hpp>
#include "importers/importer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::importers::torch_trace {

struct Record {
  int line = 0;          // 1-based line of the record's prefix
  int64_t pid = 0;       // the process (thread) id of the glog prefix
  std::string key;       // dynamo_start, artifact, chromium_event, ...
  nlohmann::json value;  // the whole JSON object of the line
  std::string payload;   // the tab-indented body, tabs removed, lines joined with '\n'
  bool hasPayload() const { return value.contains("has_payload"); }
};

using Problem = importers::ImportProblem;  // a line that could not be read

class RecordReader {
 public:
  // Throws std::runtime_error when the file cannot be opened.
  explicit RecordReader(const std::string& path);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The next well-formed record; false at the end of the file.
  bool next(Record& out);
  // Lines that were not records (with their numbers), in order; a bounded list.
  const std::vector<Problem>& problems() const { return problems_; }
  int problemCount() const { return problemCount_; }
  // How far the reading is, for progress: bytes of the file consumed and its size.
  uint64_t bytesRead() const;
  uint64_t fileSize() const { return size_; }

  // A payload longer than this is cut (with a note in it) so that one record cannot take
  // unbounded memory.
  static constexpr size_t kMaxPayload = 256u << 20;

 private:
  bool readLine(std::string& line);
  void problem(int line, std::string message);

  struct File;
  std::unique_ptr<File> file_;
  uint64_t size_ = 0;
  int lineNo_ = 0;
  std::string pending_;  // a line read ahead (the prefix of the next record)
  bool havePending_ = false;
  std::vector<Problem> problems_;
  int problemCount_ = 0;
};

}  // namespace kiln::importers::torch_trace
