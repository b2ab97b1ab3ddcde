#include "app/cli/options.h"

#include "app/cli/commands.h"
#include "engine/capture/backend.h"
#include "engine/driver/explain.h"
#include "engine/passes/pipeline.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>

namespace kiln::cli {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Edit distance (insert, delete, substitute) between short words.
size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// A whole decimal number in [lo, hi], or a UsageError worded for --key.
int64_t number(const std::string& key, const std::string& text, int64_t lo, int64_t hi, const std::string& what) {
  const std::string range = " takes " + what + " from " + std::to_string(lo) + " to " + std::to_string(hi);
  const size_t sign = text.rfind('-', 0) == 0 ? 1 : 0;
  bool digits = text.size() > sign && text.size() <= 18;
  for (size_t i = sign; digits && i < text.size(); ++i) digits = text[i] >= '0' && text[i] <= '9';
  if (!digits) throw UsageError("--" + key + range + ", not '" + text + "'");
  const int64_t v = std::stoll(text);
  if (v < lo || v > hi) throw UsageError("--" + key + range + ", not " + text);
  return v;
}

std::vector<std::string> passNames() {
  std::vector<std::string> names;
  for (const auto& p : passes::pipeline()) names.push_back(p.name);
  return names;
}

// The checked (and canonical) form of the value of --key; a UsageError when it names nothing
// that exists or is out of range.
std::string checkValue(const std::string& key, const std::string& value) {
  if (key == "disable-pass") {
    const std::vector<std::string> names = passNames();
    if (std::find(names.begin(), names.end(), value) == names.end())
      throw UsageError("--disable-pass: no pass named '" + value + "'" + didYouMean(value, names) + " (passes: " + joined(names) + ")");
    return value;
  }
  if (key == "backend") {  // kiln run --backend: a registered backend (built in or a loaded plugin's)
    std::vector<std::string> names;
    for (const auto& b : capture::BackendRegistry::global().entries()) names.push_back(b.name);
    if (std::find(names.begin(), names.end(), value) == names.end())
      throw UsageError("--backend: no backend named '" + value + "'" + didYouMean(value, names) + " (backends: " + joined(names) +
                       "; a plugin's backend needs --plugin)");
    return value;
  }
  if (key == "stop-after") {  // an index into the pipeline, or a pass's name
    const std::vector<std::string> names = passNames();
    const int64_t last = static_cast<int64_t>(names.size()) - 1;
    if (auto at = std::find(names.begin(), names.end(), value); at != names.end()) return std::to_string(at - names.begin());
    if (!value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '-')) {
      std::string listed;
      for (size_t i = 0; i < names.size(); ++i) listed += (i ? ", " : "") + std::to_string(i) + " " + names[i];
      try {
        return std::to_string(number(key, value, 0, last, "a pass index"));
      } catch (const UsageError& e) { throw UsageError(std::string(e.what()) + " (passes: " + listed + ")"); }
    }
    throw UsageError("--stop-after: no pass named '" + value + "'" + didYouMean(value, names) +
                     " (give a pass's name or index: " + joined(names) + ")");
  }
  if (key == "logs") {  // TORCH_LOGS: comma-separated names
    const std::vector<std::string>& known = driver::ExplainReport::logNames();
    std::string canonical;
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      std::string name = value.substr(start, comma - start);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      start = comma + 1;
      if (name.empty()) continue;
      if (std::find(known.begin(), known.end(), name) == known.end())
        throw UsageError("--logs: '" + name + "' is not a log Kiln supports" + didYouMean(name, known) + " (logs: " + joined(known) + ")");
      canonical += (canonical.empty() ? "" : ",") + name;
    }
    if (canonical.empty()) throw UsageError("--logs needs one or more of: " + joined(known));
    return canonical;
  }
  if (key == "profile") return std::to_string(number(key, value, 1, 1000, "a number of runs"));
  if (key == "timeout") return std::to_string(number(key, value, 1, 7 * 24 * 3600, "a number of seconds"));
  if (key == "memory-limit") {  // bytes, or with a binary suffix: 512M, 8G
    std::string digits = value;
    uint64_t scale = 1;
    if (!digits.empty()) {
      switch (std::toupper(static_cast<unsigned char>(digits.back()))) {
        case 'K': scale = uint64_t{1} << 10; break;
        case 'M': scale = uint64_t{1} << 20; break;
        case 'G': scale = uint64_t{1} << 30; break;
        case 'T': scale = uint64_t{1} << 40; break;
        default: break;
      }
      if (scale != 1) digits.pop_back();
    }
    int64_t n = number(key, digits, 1, INT64_MAX / static_cast<int64_t>(scale), "a size (bytes, or 512M, 8G ...)");
    return std::to_string(static_cast<uint64_t>(n) * scale);
  }
  if (key == "nproc-per-node") return std::to_string(number(key, value, 1, 64, "a number of processes"));
  if (key == "repeat") return std::to_string(number(key, value, 1, 1000, "a number of runs"));
  if (key == "threads") return std::to_string(number(key, value, 1, 1024, "a number of threads"));
  if (key == "limit") return std::to_string(number(key, value, 1, 100000, "a number of matches"));
  if (value.empty()) throw UsageError("--" + key + " needs a value");
  if (key == "dump-outputs") {
    std::error_code ec;
    if (std::filesystem::exists(value, ec) && !std::filesystem::is_directory(value, ec))
      throw UsageError("--dump-outputs: '" + value + "' exists and is not a directory");
  }
  return value;
}

// Decodes one UTF-8 sequence at `s[i]`; false for a malformed, overlong or surrogate one.
bool utf8At(const std::string& s, size_t& i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 4;
  if (n == 4 || i + n >= s.size()) return false;  // a stray continuation byte, or cut short
  cp = n == 0 ? c : c & (0x3f >> n);
  for (size_t k = 1; k <= n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return false;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  i += n + 1;
  return true;
}

}  // namespace

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t bestDistance = SIZE_MAX;
  for (const auto& c : candidates)
    if (size_t d = distance(word, c); d < bestDistance) bestDistance = d, best = &c;
  // A typo: a few edits for a word of that length (not 'nosuch' -> 'cse').
  if (!best || bestDistance > std::max<size_t>(1, std::min(word.size(), best->size()) / 3)) return "";
  return "; did you mean '" + *best + "'?";
}

Opts parse(const std::vector<std::string>& args, const std::set<std::string>& withValue, const std::set<std::string>& flagNames) {
  Opts o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      o.positional.insert(o.positional.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (a == "--help" || a == "-h") {
      o.help = true;
      continue;
    }
    if (a.rfind("--", 0) == 0) {
      std::string key = a.substr(2), val;
      auto eq = key.find('=');
      if (eq != std::string::npos) {
        val = key.substr(eq + 1);
        key = key.substr(0, eq);
      }
      if (withValue.count(key)) {
        if (eq == std::string::npos) {
          if (i + 1 >= args.size()) throw UsageError("--" + key + " needs a value");
          val = args[++i];
        }
        o.values[key].push_back(checkValue(key, val));
      } else if (flagNames.count(key) && eq == std::string::npos) {
        o.flags.insert(key);
      } else if (flagNames.count(key)) {
        throw UsageError("--" + key + " takes no value");
      } else {
        std::vector<std::string> known;
        for (const auto& k : withValue) known.push_back(k);
        for (const auto& k : flagNames) known.push_back(k);
        std::string hint = didYouMean(key, known);
        if (!hint.empty()) hint.insert(hint.find('\'') + 1, "--");
        throw UsageError("unknown option '" + a + "'" + hint);
      }
      continue;
    }
    o.positional.push_back(a);
  }
  return o;
}

std::string one(const Opts& o, const std::string& key, const std::string& dflt) {
  auto it = o.values.find(key);
  return it == o.values.end() ? dflt : it->second.back();
}

const std::string& sessionName(const std::string& name) {
  if (name.find_first_not_of(" \t") == std::string::npos) throw UsageError("a session NAME cannot be empty");
  if (name.size() > 200) throw UsageError("a session NAME is at most 200 bytes (this one has " + std::to_string(name.size()) + ")");
  for (size_t i = 0; i < name.size();) {
    uint32_t cp = 0;
    if (!utf8At(name, i, cp)) throw UsageError("a session NAME must be UTF-8 text");
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
      throw UsageError("a session NAME cannot hold control characters (tabs, newlines ...)");
  }
  return name;
}

}  // namespace kiln::cli
