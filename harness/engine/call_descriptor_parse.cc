// Parsing a call descriptor (docs/call-descriptor.md) back into a CallDescriptor; printing is
// in call_descriptor.cc.
#include "harness/engine/call_descriptor.h"

#include <cstring>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "cvmcheck/errors.h"
#include "harness/engine/call_descriptor_detail.h"

namespace cvm {
namespace {

using descriptor_detail::bare_char;
using descriptor_detail::malformed;

// A decimal integer in [lo, hi]: an optional '-' and digits, nothing else.
int64_t parse_int(const std::string& text, int64_t lo, int64_t hi, const std::string& what) {
  size_t k = text.size() > 0 && text[0] == '-' ? 1 : 0;
  if (k == text.size()) malformed(what, ": expected an integer, got '", text, "'");
  int64_t value = 0;
  for (size_t i = k; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') malformed(what, ": expected an integer, got '", text, "'");
    if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) {
      malformed(what, ": ", text, " is out of range [", lo, ", ", hi, "]");
    }
    value = value * 10 + (text[i] - '0');
  }
  if (k == 1) value = -value;
  if (value < lo || value > hi) malformed(what, ": ", text, " is out of range [", lo, ", ", hi, "]");
  return value;
}

uint64_t parse_seed(const std::string& text, const std::string& what) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) {
    malformed(what, ": expected a seed (a decimal integer below 2^64), got '", text, "'");
  }
  uint64_t value = 0;
  for (char c : text) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      malformed(what, ": seed ", text, " is not below 2^64");
    }
    value = value * 10 + digit;
  }
  return value;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

// Fills `t` from a value list [v,v,v*count,...], each value in [lo, hi], exactly t.size() of
// them.
void fill_listed_values(Tensor& t, const std::string& values, const std::string& what,
                        int32_t lo, int32_t hi) {
  const auto put = [&t](int64_t i, int32_t v) {
    if (t.dtype() == DType::kInt8) {
      t.i8()[i] = static_cast<int8_t>(v);
    } else {
      t.i32()[i] = v;
    }
  };
  if (values.size() < 2 || values.front() != '[' || values.back() != ']') {
    malformed(what, ": expected the values as [v,v,v*count,...] or rand(SEED,LO,HI), got '",
              values.substr(0, 80), values.size() > 80 ? "...'" : "'");
  }
  int64_t filled = 0;
  const std::string body = values.substr(1, values.size() - 2);
  if (!body.empty()) {
    for (const std::string& item : split(body, ',')) {
      const size_t star = item.find('*');
      const int32_t v =
          static_cast<int32_t>(parse_int(item.substr(0, star), lo, hi, what + " value"));
      const int64_t count =
          star == std::string::npos
              ? 1
              : parse_int(item.substr(star + 1), 1, std::numeric_limits<int64_t>::max() / 2,
                          what + " run length");
      if (count > t.size() - filled) {
        malformed(what, ": more values than the shape's ", t.size(), " elements");
      }
      for (int64_t k = 0; k < count; ++k) put(filled++, v);
    }
  }
  if (filled != t.size()) {
    malformed(what, ": ", filled, " values for the shape's ", t.size(), " elements");
  }
}

Tensor parse_tensor(const std::string& text, const std::string& what) {
  // dtype:shape:pPRECISION:values (values hold no ':').
  const std::vector<std::string> parts = split(text, ':');
  if (parts.size() != 4) {
    malformed(what, ": expected DTYPE:SHAPE:pPRECISION:VALUES (e.g. i32:2x3:p8:[1,2,3,4,5,6]), "
                    "got '", text, "'");
  }
  DType dtype = DType::kInt32;
  if (parts[0] == "i8") {
    dtype = DType::kInt8;
  } else if (parts[0] != "i32") {
    malformed(what, ": dtype '", parts[0], "' is neither i8 nor i32");
  }
  if (parts[2].size() < 2 || parts[2][0] != 'p') {
    malformed(what, ": expected the precision as pN (e.g. p8), got '", parts[2], "'");
  }
  const int precision = static_cast<int>(parse_int(parts[2].substr(1), std::numeric_limits<int>::min(),
                                                   std::numeric_limits<int>::max(),
                                                   what + " precision"));
  const std::string& values = parts[3];
  Tensor t;
  if (parts[1] == "-") {
    // A tensor without a shape (default-constructed, no elements).
    if (dtype != DType::kInt32 || values != "[]") {
      malformed(what, ": a tensor without a shape ('-') is i32 with no values ([])");
    }
    t.set_precision(precision);
    return t;
  }
  Shape shape;
  for (const std::string& dim : split(parts[1], 'x')) {
    shape.push_back(parse_int(dim, 1, std::numeric_limits<int32_t>::max(), what + " shape '" + parts[1] + "'"));
  }
  try {
    t = Tensor::zeros(dtype, shape, precision);  // checks the limits before allocating
  } catch (const LogicError& e) {
    malformed(what, ": ", e.what());
  }
  const int32_t lo_limit = dtype == DType::kInt8 ? -128 : std::numeric_limits<int32_t>::min();
  const int32_t hi_limit = dtype == DType::kInt8 ? 127 : std::numeric_limits<int32_t>::max();
  if (values.rfind("rand(", 0) == 0) {
    if (values.back() != ')') malformed(what, ": expected rand(SEED,LO,HI), got '", values, "'");
    const std::vector<std::string> args = split(values.substr(5, values.size() - 6), ',');
    if (args.size() != 3) malformed(what, ": expected rand(SEED,LO,HI), got '", values, "'");
    ValueGenerator gen;
    gen.seed = parse_seed(args[0], what + " rand seed");
    gen.lo = static_cast<int32_t>(parse_int(args[1], lo_limit, hi_limit, what + " rand LO"));
    gen.hi = static_cast<int32_t>(parse_int(args[2], lo_limit, hi_limit, what + " rand HI"));
    if (gen.lo > gen.hi) malformed(what, ": rand LO ", gen.lo, " is above HI ", gen.hi);
    return generated_tensor(dtype, shape, precision, gen);
  }
  fill_listed_values(t, values, what, lo_limit, hi_limit);
  return t;
}

// The end of the JSON value starting at `begin` (an object, array or string; scalars end at the
// next space), so that a value may hold spaces.
size_t json_end(const std::string& text, size_t begin, const std::string& what) {
  const char open = text[begin];
  if (open != '{' && open != '[' && open != '"') {
    const size_t space = text.find(' ', begin);
    return space == std::string::npos ? text.size() : space;
  }
  int depth = 0;
  bool in_string = false;
  for (size_t i = begin; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  malformed(what, ": unterminated JSON value (", in_string ? "an open string" : "unbalanced brackets",
            ")");
}

std::string parse_name(const std::string& value, const std::string& what) {
  if (!value.empty() && value[0] == '"') {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(value);
    } catch (const nlohmann::json::exception& e) {
      malformed(what, ": not a JSON string (", e.what(), ")");
    }
    return j.get<std::string>();
  }
  if (value.empty()) malformed(what, ": empty");
  for (char c : value) {
    if (!bare_char(c)) {
      malformed(what, ": '", value, "' has the character '", std::string(1, c),
                "'; write it as a JSON string (\"...\")");
    }
  }
  return value;
}

}  // namespace

CallDescriptor parse_call_descriptor(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c > 0x7e) {
      malformed("byte ", i, " (", static_cast<int>(c),
                c == '\n' ? ", a newline" : "",
                ") is not printable ASCII; a descriptor is one line of printable ASCII (escape "
                "other characters in JSON strings as \\uXXXX)");
    }
  }
  CallDescriptor d;
  std::set<std::string> seen;
  std::vector<std::pair<size_t, Tensor>> inputs;
  bool have_op = false;
  size_t i = 0;
  while (true) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size()) break;
    const size_t eq = text.find('=', i);
    const size_t space = text.find(' ', i);
    if (eq == std::string::npos || (space != std::string::npos && space < eq)) {
      const std::string word = text.substr(i, space == std::string::npos ? std::string::npos : space - i);
      malformed("'", word.substr(0, 40), word.size() > 40 ? "...'" : "'",
                " is not a field; fields are KEY=VALUE separated by spaces (op=, attrs=, in0=, "
                "..., expect=, rule=, rule_id=, backend=, threads=)");
    }
    const std::string key = text.substr(i, eq - i);
    const size_t begin = eq + 1;
    if (begin == text.size() || text[begin] == ' ') malformed(key, "=: empty value");
    const size_t end = json_end(text, begin, key);
    if (end < text.size() && text[end] != ' ') {
      malformed(key, ": unexpected '", text.substr(end, 20), "' after the value");
    }
    const std::string value = text.substr(begin, end - begin);
    i = end;
    if (!seen.insert(key).second) malformed("field ", key, " given twice");
    if (key == "op") {
      d.call.op = parse_name(value, "op");
      have_op = true;
    } else if (key == "attrs") {
      try {
        d.call.attrs = nlohmann::json::parse(value);
      } catch (const nlohmann::json::exception& e) {
        malformed("attrs: not JSON (", e.what(), ")");
      }
    } else if (key.size() > 2 && key.compare(0, 2, "in") == 0 &&
               key.find_first_not_of("0123456789", 2) == std::string::npos) {
      if (key.size() > 3 && key[2] == '0') malformed("input field ", key, ": no leading zeros");
      const auto index = static_cast<size_t>(parse_int(key.substr(2), 0, 1023, "input index"));
      inputs.emplace_back(index, parse_tensor(value, key));
    } else if (key == "expect") {
      try {
        d.call.expected = parse_outcome_name(value);
      } catch (const LogicError&) {
        malformed("expect: '", value, "' is none of ok, logic_error, runtime_error");
      }
    } else if (key == "rule") {
      d.call.rule = parse_name(value, "rule");
    } else if (key == "rule_id") {
      d.call.rule_id = parse_name(value, "rule_id");
    } else if (key == "backend") {
      d.backend = parse_name(value, "backend");
    } else if (key == "threads") {
      d.threads = static_cast<int>(parse_int(value, 1, 4096, "threads"));
    } else {
      malformed("unknown field '", key.substr(0, 40),
                "' (known: op, attrs, in0, in1, ..., expect, rule, rule_id, backend, threads)");
    }
  }
  if (!have_op) malformed("no op= field");
  d.call.inputs.resize(inputs.size());
  for (auto& entry : inputs) {
    if (entry.first >= inputs.size()) {
      malformed("input in", entry.first, " given, but there are only ", inputs.size(),
                " inputs (they are numbered in0, in1, ... without gaps)");
    }
    d.call.inputs[entry.first] = std::move(entry.second);
  }
  return d;
}


}  // namespace cvm
