#include "cvmcheck/attrs.h"

#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "cvmcheck/rules.h"

namespace cvm {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

// Strict decimal: optional sign, then one or more digits, nothing else. Rejects values
// outside [lo, hi] without ever overflowing.
int64_t parse_decimal(const std::string& raw, int64_t lo, int64_t hi, const char* what) {
  const std::string text = trim(raw);
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) negative = text[pos++] == '-';
  verify(pos < text.size(), "malformed ", what, " '", raw, "'");
  // Accumulate the magnitude as unsigned; 2^63 is the largest magnitude any range here admits.
  const uint64_t limit = uint64_t{1} << 63;
  uint64_t magnitude = 0;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    verify(c >= '0' && c <= '9', "malformed ", what, " '", raw, "'");
    const auto digit = static_cast<uint64_t>(c - '0');
    verify(magnitude <= (limit - digit) / 10, what, " '", raw, "' is out of range");
    magnitude = magnitude * 10 + digit;
  }
  int64_t value;
  if (negative) {
    value = magnitude == limit ? std::numeric_limits<int64_t>::min()
                               : -static_cast<int64_t>(magnitude);
  } else {
    verify(magnitude < limit, what, " '", raw, "' is out of range");
    value = static_cast<int64_t>(magnitude);
  }
  verify(value >= lo && value <= hi, what, " '", raw, "' is out of range");
  return value;
}

}  // namespace

const char* attr_kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt: return "int";
    case AttrKind::kBool: return "bool";
    case AttrKind::kTuple: return "tuple";
    case AttrKind::kOptInt: return "optional int";
    case AttrKind::kString: return "string";
  }
  return "?";
}

int64_t parse_int_attr(const std::string& text) {
  return parse_decimal(text, std::numeric_limits<int32_t>::min(),
                       std::numeric_limits<int32_t>::max(), "int");
}

bool parse_bool_attr(const std::string& raw) {
  const std::string text = trim(raw);
  if (text == "true" || text == "True" || text == "1") return true;
  if (text == "false" || text == "False" || text == "0") return false;
  fail_logic("malformed bool '", raw, "'");
}

Tuple parse_tuple_attr(const std::string& raw) {
  const std::string text = trim(raw);
  verify(!text.empty(), "malformed tuple '", raw, "'");
  const char open = text.front();
  if (open != '(' && open != '[') {
    return {parse_decimal(text, std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max(), "tuple entry")};
  }
  const char close = open == '(' ? ')' : ']';
  verify(text.back() == close && text.size() >= 2, "malformed tuple '", raw, "'");
  const std::string body = trim(text.substr(1, text.size() - 2));
  Tuple entries;
  if (body.empty()) return entries;
  size_t start = 0;
  while (true) {
    const size_t comma = body.find(',', start);
    const std::string item = body.substr(start, comma == std::string::npos ? std::string::npos
                                                                         : comma - start);
    if (comma != std::string::npos && trim(body.substr(comma + 1)).empty()) {
      // A single trailing comma, as in (1,) or (1, 2,).
      verify(!trim(item).empty(), "malformed tuple '", raw, "'");
      entries.push_back(parse_decimal(item, std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int64_t>::max(), "tuple entry"));
      break;
    }
    entries.push_back(parse_decimal(item, std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::max(), "tuple entry"));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return entries;
}

std::optional<int64_t> parse_opt_int_attr(const std::string& text) {
  if (trim(text) == "None") return std::nullopt;
  return parse_int_attr(text);
}

namespace {

AttrValue parse_value(const AttrSpec& spec, const std::string& text) {
  switch (spec.kind) {
    case AttrKind::kInt: return parse_int_attr(text);
    case AttrKind::kBool: return parse_bool_attr(text);
    case AttrKind::kTuple: return parse_tuple_attr(text);
    case AttrKind::kOptInt: return parse_opt_int_attr(text);
    case AttrKind::kString: {
      if (spec.choices.empty()) return text;
      for (const std::string& choice : spec.choices) {
        if (text == choice) return text;
      }
      std::string allowed;
      for (const std::string& choice : spec.choices) allowed += (allowed.empty() ? "" : ", ") + choice;
      fail_logic("value '", text, "' is not one of ", allowed);
    }
  }
  fail_runtime("unhandled attribute kind");
}

}  // namespace

Attrs parse_attrs(const std::vector<AttrSpec>& schema, const nlohmann::json& json) {
  verify_rule(json.is_null() || json.is_object(), rules::kAttrsNotObject,
              "attributes must be a JSON object");
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      bool known = false;
      for (const AttrSpec& spec : schema) known = known || spec.name == key;
      verify_rule(known, rules::kAttrUnknown, "unknown attribute '", key, "'");
      verify_rule(value.is_string(), rules::kAttrNotString, "attribute '", key,
                  "' must be a string, as in CVM graph files");
    }
  }
  Attrs attrs;
  for (const AttrSpec& spec : schema) {
    const bool given = json.is_object() && json.contains(spec.name);
    if (!given) {
      verify_rule(spec.default_text.has_value(), rules::kAttrMissing,
                  "missing required attribute '", spec.name, "'");
      attrs.set(spec.name, parse_value(spec, *spec.default_text), false);
      continue;
    }
    const std::string text = json.at(spec.name).get<std::string>();
    try {
      attrs.set(spec.name, parse_value(spec, text), true);
    } catch (const LogicError& e) {
      fail_rule(rules::kAttrMalformed, "attribute '", spec.name, "' (", attr_kind_name(spec.kind),
                "): ", e.what());
    }
  }
  return attrs;
}

void Attrs::set(const std::string& name, AttrValue value, bool given) {
  values_[name] = std::move(value);
  given_[name] = given;
}

const AttrValue& Attrs::find(const std::string& name) const {
  auto it = values_.find(name);
  check(it != values_.end(), "attribute '", name, "' is not in the operator's schema");
  return it->second;
}

template <typename T>
static const T& get_as(const AttrValue& value, const std::string& name) {
  const T* p = std::get_if<T>(&value);
  check(p != nullptr, "attribute '", name, "' read with the wrong kind");
  return *p;
}

int64_t Attrs::i(const std::string& name) const { return get_as<int64_t>(find(name), name); }
bool Attrs::b(const std::string& name) const { return get_as<bool>(find(name), name); }
const Tuple& Attrs::tuple(const std::string& name) const { return get_as<Tuple>(find(name), name); }
std::optional<int64_t> Attrs::opt_int(const std::string& name) const {
  return get_as<std::optional<int64_t>>(find(name), name);
}
const std::string& Attrs::str(const std::string& name) const {
  return get_as<std::string>(find(name), name);
}
bool Attrs::given(const std::string& name) const {
  auto it = given_.find(name);
  return it != given_.end() && it->second;
}

}  // namespace cvm
