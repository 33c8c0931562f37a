// What the printing (call_descriptor.cc) and the parsing (call_descriptor_parse.cc) of call
// descriptors share: the error for a malformed descriptor, and the characters of a bare token.
#pragma once

#include <cstring>

#include "cvmcheck/errors.h"

namespace cvm::descriptor_detail {

inline constexpr const char* kPrefix = "call descriptor: ";

template <typename... Parts>
[[noreturn]] void malformed(const Parts&... parts) {
  throw LogicError(concat(kPrefix, parts...));
}

// A character a name may hold without being quoted.
inline bool bare_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("_.-:/@+", c) != nullptr;
}

}  // namespace cvm::descriptor_detail
