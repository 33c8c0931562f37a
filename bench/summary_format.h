// Number formatting shared by the summary renderers ("-" for an absent value).
#pragma once

#include <cstdio>
#include <string>

namespace cvm::bench {

inline std::string fmt(double value, const char* format) {
  if (value < 0) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

inline std::string fmt_time(double us) {
  if (us < 0) return "-";
  if (us >= 10000) return fmt(us / 1000, "%.1f ms");
  return fmt(us, "%.0f us");
}

}  // namespace cvm::bench
