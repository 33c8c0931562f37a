// The original's error messages as the worker reports them.
#pragma once

#include <string>

namespace cvm_runtime_worker {

// The message without its stack trace (LOG(FATAL) puts a backtrace between the file:line header
// and the text), on one line, at most 1000 characters.
inline std::string brief(const std::string& what) {
  std::string out;
  size_t start = 0;
  while (start <= what.size()) {
    size_t end = what.find('\n', start);
    if (end == std::string::npos) end = what.size();
    const std::string line = what.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line.rfind("Stack trace", 0) == 0 || line.rfind("[bt]", 0) == 0) continue;
    if (!out.empty()) out += ' ';
    out += line;
  }
  if (out.size() > 1000) out = out.substr(0, 1000) + "...";
  return out;
}

// Whether two of the original's messages are the same error: the same text less the stack trace
// and the time of day its logger puts first ("[hh:mm:ss] ").
inline bool same_error(const std::string& a, const std::string& b) {
  auto key = [](const std::string& what) {
    std::string s = brief(what);
    if (s.size() >= 11 && s[0] == '[' && s[3] == ':' && s[6] == ':' && s[9] == ']') s.erase(0, 11);
    return s;
  };
  return key(a) == key(b);
}

}  // namespace cvm_runtime_worker
