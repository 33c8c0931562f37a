#include "harness/graph/graph_json.h"

#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

namespace cvm::graph {
namespace {

using json = nlohmann::ordered_json;  // keeps the order of keys, for a faithful round trip

template <typename T, typename F>
std::string list(const std::vector<T>& v, F item) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += item(v[i]);
  }
  return out + "]";
}

template <typename T>
std::string numbers(const std::vector<T>& v) {
  return list(v, [](T x) { return std::to_string(x); });
}

std::string entry_text(const EntryRef& e) {
  return "[" + std::to_string(e.node) + ", " + std::to_string(e.index) + ", " +
         std::to_string(e.version) + "]";
}

std::string node_text(const Node& n) {
  std::string out = "{\"op\": " + quote_json(n.op_type) + ", \"name\": " + quote_json(n.name);
  if (!n.attrs.empty()) {
    out += ", \"attrs\": {";
    for (size_t i = 0; i < n.attrs.size(); ++i) {
      if (i) out += ", ";
      out += quote_json(n.attrs[i].first) + ": " + quote_json(n.attrs[i].second);
    }
    out += "}";
  }
  out += ", \"inputs\": " + list(n.inputs, entry_text);
  if (n.precision) out += ", \"precision\": " + std::to_string(*n.precision);
  return out + "}";
}

// One graph attribute: ["list_int", [...]] and the like.
std::string typed(const char* type, const std::string& value) {
  return "[\"" + std::string(type) + "\", " + value + "]";
}

std::string attrs_text(const Graph& g) {
  std::string out = "{\"dltype\": " + typed("list_str", list(g.dltype, quote_json));
  out += ", \"storage_id\": " + typed("list_int", numbers(g.storage_id));
  out += ", \"shape\": " + typed("list_shape", list(g.shape, numbers<int64_t>));
  out += ", \"precision\": " + typed("list_int", numbers(g.precision));
  if (g.device_index) out += ", \"device_index\": " + typed("list_int", numbers(*g.device_index));
  out += ", \"op_attrs\": " + typed("list_str", list(g.op_attrs, quote_json));
  return out + "}";
}

// ---------------------------------------------------------------------------------------------
// Reading

[[noreturn]] void bad(const std::string& what) { throw GraphFormatError("graph json: " + what); }

// The original's reader knows five escapes and no raw line break inside a string; nlohmann
// knows more, so the text is scanned for the others first.
void check_escapes(const std::string& text) {
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_string) {
      in_string = c == '"';
      continue;
    }
    if (c == '"') {
      in_string = false;
    } else if (c == '\n' || c == '\r') {
      bad("a line break inside a string");
    } else if (c == '\\') {
      const char e = i + 1 < text.size() ? text[i + 1] : '\0';
      if (e != '"' && e != '\\' && e != 'n' && e != 'r' && e != 't') {
        bad(std::string("string escape \\") + e + " (the runtime's reader knows \\\" \\\\ \\n \\r \\t)");
      }
      ++i;
    }
  }
}

int64_t integer(const json& v, int64_t lo, int64_t hi, const std::string& what) {
  if (!v.is_number_integer()) bad(what + " is not an integer");
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(hi)) bad(what + " out of range");
    return static_cast<int64_t>(u);
  }
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) bad(what + " out of range");
  return x;
}

constexpr int64_t kU32 = std::numeric_limits<uint32_t>::max();
constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();

const json& array(const json& v, const std::string& what) {
  if (!v.is_array()) bad(what + " is not an array");
  return v;
}

const std::string& string(const json& v, const std::string& what) {
  if (!v.is_string()) bad(what + " is not a string");
  return v.get_ref<const std::string&>();
}

std::vector<uint32_t> u32_list(const json& v, const std::string& what) {
  std::vector<uint32_t> out;
  for (const json& x : array(v, what)) out.push_back(static_cast<uint32_t>(integer(x, 0, kU32, what)));
  return out;
}

std::vector<int64_t> int_list(const json& v, int64_t lo, int64_t hi, const std::string& what) {
  std::vector<int64_t> out;
  for (const json& x : array(v, what)) out.push_back(integer(x, lo, hi, what));
  return out;
}

std::vector<std::string> string_list(const json& v, const std::string& what) {
  std::vector<std::string> out;
  for (const json& x : array(v, what)) out.push_back(string(x, what));
  return out;
}

EntryRef entry(const json& v, const std::string& what) {
  const json& a = array(v, what);
  if (a.size() != 2 && a.size() != 3) bad(what + " must be [node, index] or [node, index, version]");
  EntryRef e;
  e.node = static_cast<uint32_t>(integer(a[0], 0, kU32, what));
  e.index = static_cast<uint32_t>(integer(a[1], 0, kU32, what));
  if (a.size() == 3) e.version = static_cast<uint32_t>(integer(a[2], 0, kU32, what));
  return e;
}

std::vector<EntryRef> entries(const json& v, const std::string& what) {
  std::vector<EntryRef> out;
  for (const json& x : array(v, what)) out.push_back(entry(x, what));
  return out;
}

void node_attrs(const json& v, Node& n) {
  if (!v.is_object()) bad("node " + n.name + ": attrs is not an object");
  bool has_func = false;
  for (const auto& [key, value] : v.items()) {
    if (key != "func_name" && key != "num_inputs" && key != "num_outputs" && key != "op_attrs" &&
        key != "flatten_data") {
      bad("node attributes do not support key " + key);
    }
    has_func = has_func || key == "func_name";
    n.attrs.emplace_back(key, string(value, "node attribute " + key));
  }
  if (!has_func) bad("node attrs without func_name");
}

Node node(const json& v) {
  if (!v.is_object()) bad("a node is not an object");
  Node n;
  int seen = 0;
  for (const auto& [key, value] : v.items()) {
    if (key == "op") {
      n.op_type = string(value, "op");
      if (n.op_type != "cvm_op" && n.op_type != "null") bad("node op " + n.op_type + " (cvm_op or null)");
      seen |= 1;
    } else if (key == "name") {
      n.name = string(value, "name");
      seen |= 2;
    } else if (key == "inputs") {
      n.inputs = entries(value, "node inputs");
      seen |= 4;
    } else if (key == "attrs") {
      node_attrs(value, n);
    } else if (key == "precision") {
      n.precision = integer(value, kI32Min, kI32Max, "node precision");
    } else {
      bad("node does not support key " + key);
    }
  }
  if (seen != 7) bad("a node without op, name or inputs");
  return n;
}

// ["<type>", value]: the value of one graph attribute, its type tag checked.
const json& typed_value(const json& v, const char* type, const std::string& key) {
  const json& a = array(v, "graph attribute " + key);
  if (a.size() != 2 || string(a[0], key) != type) bad("graph attribute " + key + " must be [\"" + type + "\", ...]");
  return a[1];
}

void graph_attrs(const json& v, Graph& g) {
  if (!v.is_object()) bad("attrs is not an object");
  int seen = 0;
  for (const auto& [key, value] : v.items()) {
    if (key == "dltype") {
      g.dltype = string_list(typed_value(value, "list_str", key), key);
    } else if (key == "storage_id") {
      g.storage_id = int_list(typed_value(value, "list_int", key), kI32Min, kI32Max, key);
      seen |= 1;
    } else if (key == "shape") {
      g.shape.clear();
      for (const json& s : array(typed_value(value, "list_shape", key), key)) {
        g.shape.push_back(int_list(s, std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max(), key));
      }
      seen |= 2;
    } else if (key == "precision") {
      g.precision = int_list(typed_value(value, "list_int", key), kI32Min, kI32Max, key);
    } else if (key == "device_index") {
      g.device_index = int_list(typed_value(value, "list_int", key), kI32Min, kI32Max, key);
    } else if (key == "op_attrs") {
      g.op_attrs = string_list(typed_value(value, "list_str", key), key);
      seen |= 4;
    } else {
      bad("graph attribute " + key + " not supported");
    }
  }
  if (seen != 7) bad("attrs without storage_id, shape or op_attrs");
}

}  // namespace

std::string quote_json(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          throw LogicError("graph json: a control character the runtime's reader cannot read");
        }
        out += c;
    }
  }
  return out + "\"";
}

std::string write_graph_json(const Graph& g) {
  std::string out = "{\"nodes\": " + list(g.nodes, node_text);
  out += ", \"arg_nodes\": " + numbers(g.arg_nodes);
  if (!g.node_row_ptr.empty()) out += ", \"node_row_ptr\": " + numbers(g.node_row_ptr);
  out += ", \"heads\": " + list(g.heads, entry_text);
  out += ", \"attrs\": " + attrs_text(g);
  if (g.postprocess) out += ", \"postprocess\": " + quote_json(*g.postprocess);
  return out + ", \"version\": " + quote_json(g.version) + "}";
}

Graph parse_graph_json(const std::string& text) {
  check_escapes(text);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    bad(std::string("not JSON: ") + e.what());
  }
  if (!root.is_object()) bad("not an object");
  Graph g;
  int seen = 0;
  for (const auto& [key, value] : root.items()) {
    if (key == "nodes") {
      for (const json& n : array(value, key)) g.nodes.push_back(node(n));
      seen |= 1;
    } else if (key == "arg_nodes") {
      g.arg_nodes = u32_list(value, key);
    } else if (key == "node_row_ptr") {
      g.node_row_ptr = u32_list(value, key);
    } else if (key == "heads") {
      g.heads = entries(value, key);
      seen |= 2;
    } else if (key == "attrs") {
      graph_attrs(value, g);
      seen |= 4;
    } else if (key == "version") {
      g.version = string(value, key);
    } else if (key == "postprocess") {
      g.postprocess = string(value, key);
    } else {
      bad("key " + key + " is not supported");
    }
  }
  if (seen != 7) bad("no nodes, heads or attrs");
  return g;
}

}  // namespace cvm::graph
