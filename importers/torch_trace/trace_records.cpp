#include "importers/torch_trace/trace_records.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace kiln::importers::torch_trace {

namespace {
// The MD5 of `text` in lower-case hex: PyTorch's structured trace writes hashlib.md5 of each
// payload (before indenting it) as the record's `has_payload`.
std::string md5Hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(text.data(), text.size(), digest, &n, EVP_md5(), nullptr)) return "";
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}
}  // namespace

// gzopen reads plain files too (transparently), so one path serves both forms.
struct RecordReader::File {
  gzFile gz = nullptr;
  ~File() {
    if (gz) gzclose(gz);
  }
};

RecordReader::RecordReader(const std::string& path) : file_(std::make_unique<File>()) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw std::runtime_error("'" + path + "' is a directory, not a log file");
  size_ = std::filesystem::file_size(path, ec);
  if (ec) throw std::runtime_error("cannot read '" + path + "': " + ec.message());
  file_->gz = gzopen(path.c_str(), "rb");
  if (!file_->gz) throw std::runtime_error("cannot open '" + path + "'");
  gzbuffer(file_->gz, 1 << 16);
}

RecordReader::~RecordReader() = default;

uint64_t RecordReader::bytesRead() const {
  z_off_t off = gzoffset(file_->gz);  // the compressed position: comparable with fileSize()
  return off < 0 ? 0 : static_cast<uint64_t>(off);
}

bool RecordReader::readLine(std::string& line) {
  line.clear();
  char buf[1 << 14];
  while (true) {
    if (!gzgets(file_->gz, buf, sizeof buf)) {
      if (line.empty()) return false;
      break;  // a last line without '\n'
    }
    line += buf;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      break;
    }
    // A line longer than any record can be (a garbled file): cut it; the rest reads as more
    // lines, each reported.
    if (line.size() > kMaxPayload) break;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++lineNo_;
  return true;
}

void RecordReader::problem(int line, std::string message) {
  ++problemCount_;
  if (problems_.size() < 1000) problems_.push_back({line, std::move(message)});
}

namespace {

// `V1125 13:58:03.809000 432 torch/_dynamo/convert_frame.py:276] {...}`: the glog prefix is a
// level letter, MMDD, a time, the thread id and the file:line, closed by "] ". Returns the
// position of the JSON text, or npos; sets pid.
size_t jsonStart(const std::string& line, int64_t& pid) {
  if (line.size() < 8 || !std::strchr("VIWEDC", line[0]) || !std::isdigit(static_cast<unsigned char>(line[1]))) return std::string::npos;
  size_t close = line.find("] ");
  if (close == std::string::npos) return std::string::npos;
  // The fields before "]": level+date, time, pid, file:line.
  size_t a = line.find(' ');
  if (a == std::string::npos || a > close) return std::string::npos;
  size_t b = line.find_first_not_of(' ', a);
  b = line.find(' ', b);  // after the time
  if (b == std::string::npos || b > close) return std::string::npos;
  size_t c = line.find_first_not_of(' ', b);
  pid = 0;
  size_t i = c;
  for (; i < close && std::isdigit(static_cast<unsigned char>(line[i])); ++i)
    if (i - c < 15) pid = pid * 10 + (line[i] - '0');
  if (i == c || i >= close || line[i] != ' ') return std::string::npos;
  return close + 2;
}

}  // namespace

bool RecordReader::next(Record& out) {
  std::string line;
  while (true) {
    if (havePending_) {
      line.swap(pending_);
      havePending_ = false;
    } else if (!readLine(line)) {
      return false;
    }
    const int at = lineNo_;
    if (line.empty()) continue;
    if (line[0] == '\t') {
      problem(at, "a payload line with no record before it");
      continue;
    }
    int64_t pid = 0;
    size_t js = jsonStart(line, pid);
    if (js == std::string::npos) {
      problem(at, "not a TORCH_TRACE record (no glog prefix): " + line.substr(0, 80));
      continue;
    }
    nlohmann::json value = nlohmann::json::parse(line.begin() + static_cast<std::ptrdiff_t>(js), line.end(), nullptr, false);
    if (value.is_discarded() || !value.is_object() || value.empty()) {
      problem(at, "the record's JSON does not parse");
      // Its payload lines (if any) belong to nothing: skip them.
      while (readLine(pending_)) {
        if (pending_.empty() || pending_[0] != '\t') {
          havePending_ = true;
          break;
        }
      }
      continue;
    }
    out = Record{};
    out.line = at;
    out.pid = pid;
    out.value = std::move(value);
    for (const auto& [k, v] : out.value.items()) {
      (void)v;
      if (k != "frame_id" && k != "frame_compile_id" && k != "attempt" && k != "has_payload" && k != "compiled_autograd_id") {
        out.key = k;
        break;
      }
    }
    if (out.key.empty()) out.key = out.value.begin().key();
    // The body: every following line that starts with a tab.
    bool cut = false;
    int bodyLines = 0;
    while (readLine(pending_)) {
      if (pending_.empty() || pending_[0] != '\t') {
        int64_t otherPid = 0;
        // A stray line inside a body (another writer's output interleaved): reported, and
        // the body goes on after it.
        if (!pending_.empty() && jsonStart(pending_, otherPid) == std::string::npos) {
          problem(lineNo_, "not a TORCH_TRACE record (no glog prefix): " + pending_.substr(0, 80));
          continue;
        }
        havePending_ = true;
        break;
      }
      if (cut) continue;
      if (out.payload.size() + pending_.size() > kMaxPayload) {
        out.payload += "\n... (payload cut at " + std::to_string(kMaxPayload >> 20) + " MiB by the importer)";
        cut = true;
        continue;
      }
      if (bodyLines++ > 0) out.payload += '\n';
      out.payload.append(pending_, 1, std::string::npos);
    }
    if (out.hasPayload() && out.payload.empty() && !cut) {
      problem(at, "record '" + out.key + "' announces a payload but has none");
    } else if (out.hasPayload() && !cut && out.value["has_payload"].is_string() &&
               out.value["has_payload"].get<std::string>().size() == 32 &&
               md5Hex(out.payload) != out.value["has_payload"].get<std::string>()) {
      // A body that is not what PyTorch wrote: the log was cut short while being written (a
      // killed process) or edited. The record is still read; its content may be incomplete.
      problem(at, "record '" + out.key + "': the payload does not match its has_payload MD5 (the log was cut or edited)");
    }
    return true;
  }
}

}  // namespace kiln::importers::torch_trace
