// The graph JSON of the original CVM runtime (versions cvm_1.0.0 and cvm_1.1.0): written so that
// its loader's JSON reader takes it, and read as that reader reads it (docs/graphs.md, "The graph
// file"). Reading checks the file's syntax and each field's type; what the loader refuses in a
// well-formed file (sizes, ids, shapes, versions) is graph_load.h's.
#pragma once

#include <string>

#include "cvmcheck/errors.h"
#include "harness/graph/graph.h"

namespace cvm::graph {

// The text is not a graph JSON the original's reader reads: not JSON, a string escape other than
// \" \\ \n \r \t, an unknown key, a missing required key, a value of the wrong type. A LogicError:
// a bad model.
class GraphFormatError : public LogicError {
 public:
  explicit GraphFormatError(const std::string& what) : LogicError(what, "graph.format") {}
};

// One line of JSON, keys in a fixed order (nodes, arg_nodes, node_row_ptr, heads, attrs,
// postprocess, version); node_row_ptr, postprocess, device_index and a node's precision only
// when set. LogicError for a string the original's reader cannot read back (a control
// character other than \n, \r, \t).
std::string write_graph_json(const Graph& g);

// GraphFormatError as above.
Graph parse_graph_json(const std::string& text);

// A JSON string literal with only the escapes the original's reader knows.
std::string quote_json(const std::string& s);

}  // namespace cvm::graph
