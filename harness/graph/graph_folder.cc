#include "harness/graph/graph_folder.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cvmcheck/errors.h"
#include "cvmcheck/npy.h"
#include "harness/graph/graph_json.h"
#include "harness/graph/graph_params.h"

namespace cvm::graph {
namespace {

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail_runtime("cannot write ", path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_runtime("cannot read ", path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The precision the graph declares for the variable named `data`; 32 when none.
int data_precision(const Graph& g) {
  const std::vector<uint32_t> row_ptr = row_ptr_of(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const uint32_t eid = row_ptr[n];
    if (g.nodes[n].is_variable() && g.nodes[n].name == kDataName && eid < g.precision.size()) {
      const int64_t p = g.precision[eid];
      return p >= 1 && p <= 32 ? static_cast<int>(p) : 32;
    }
  }
  return 32;
}

}  // namespace

void write_graph_folder(const std::string& dir, const Graph& g, const ModelInputs& inputs) {
  std::filesystem::create_directories(dir);
  write_file(dir + "/graph.json", write_graph_json(g) + "\n");
  write_file(dir + "/params", write_params(inputs.params));
  if (inputs.data) write_npy(dir + "/data.npy", *inputs.data);
}

ModelFiles read_graph_folder(const std::string& dir) {
  ModelFiles m;
  m.graph = parse_graph_json(read_file(dir + "/graph.json"));
  m.inputs.params = parse_params(read_file(dir + "/params"));
  const std::string data = dir + "/data.npy";
  if (std::filesystem::exists(data)) m.inputs.data = read_npy(data, data_precision(m.graph));
  return m;
}

}  // namespace cvm::graph
