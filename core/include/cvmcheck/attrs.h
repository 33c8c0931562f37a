// Attributes in the CVM graph-file format: one JSON object whose values are strings
// (docs/contract.md, "Attributes"). Parsing is driven by each operator's schema: an unknown key,
// a missing required key or a malformed value is a LogicError. Range rules belong to the
// operators, not to this syntax layer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cvm {

enum class AttrKind {
  kInt,     // decimal, fits int32
  kBool,    // true/false/True/False/1/0
  kTuple,   // (1, 2) [1,2] (1,) () or a bare 3; int64 entries
  kOptInt,  // an int or None
  kString,  // one of `choices` (any string when choices is empty)
};

const char* attr_kind_name(AttrKind kind);

struct AttrSpec {
  std::string name;
  AttrKind kind;
  std::optional<std::string> default_text;  // nullopt: required
  std::vector<std::string> choices;         // kString only
};

using Tuple = std::vector<int64_t>;
using AttrValue = std::variant<int64_t, bool, Tuple, std::optional<int64_t>, std::string>;

// Parsed, typed attributes. Accessors take the schema's names; asking for a name the schema
// does not have, or with the wrong kind, is a bug of ours (RuntimeError).
class Attrs {
 public:
  int64_t i(const std::string& name) const;
  bool b(const std::string& name) const;
  const Tuple& tuple(const std::string& name) const;
  std::optional<int64_t> opt_int(const std::string& name) const;
  const std::string& str(const std::string& name) const;
  // True when the key was present in the JSON (not defaulted).
  bool given(const std::string& name) const;

  void set(const std::string& name, AttrValue value, bool given);

 private:
  const AttrValue& find(const std::string& name) const;
  std::map<std::string, AttrValue> values_;
  std::map<std::string, bool> given_;
};

// Value parsers, exposed for tests. Each throws LogicError on malformed text.
int64_t parse_int_attr(const std::string& text);  // int32 range
bool parse_bool_attr(const std::string& text);
Tuple parse_tuple_attr(const std::string& text);
std::optional<int64_t> parse_opt_int_attr(const std::string& text);

// Parses `json` (must be an object of strings; null means empty) against `schema`.
Attrs parse_attrs(const std::vector<AttrSpec>& schema, const nlohmann::json& json);

}  // namespace cvm
