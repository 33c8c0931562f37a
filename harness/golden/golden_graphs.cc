#include "harness/golden/golden_graphs.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cvmcheck/case_seed.h"
#include "cvmcheck/errors.h"
#include "cvmcheck/npy.h"
#include "harness/golden/fixture_files.h"
#include "harness/golden/golden.h"
#include "harness/golden/golden_graph_chains.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_signature.h"
#include "harness/graph/graph_folder.h"
#include "harness/graph/graph_gen.h"
#include "harness/graph/graph_run.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kReadme = R"(# Golden graphs

Whole models in the original CVM runtime's own format, with every entry's value as cvmcheck's
reference computes it. Format: docs/golden-format.md, "Golden graphs". Regenerate with
`cvmcheck golden generate --graphs --out golden-graphs` (fixed seeds: the same bytes on any
machine); verify with `cvmcheck golden verify golden-graphs --backend NAME`.

Each folder: graph.json, params, data.npy (the model and its input), entry_<k>.npy (entry k's
expected value, int32) and model.json (each entry's node, name and expected output precision,
the storage plan, and where the model comes from). MANIFEST.json lists every folder and the
sha256 of every file.
)";

void write_model_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) fail_runtime("cannot write ", path.string());
}

// One model written: the folder, its expected entries and model.json; its manifest entry.
nlohmann::ordered_json write_model(const Registry& registry, const fs::path& root, const std::string& name,
                                   const graph::Graph& g, const graph::ModelInputs& inputs,
                                   graph::StoragePlan plan, const std::string& note,
                                   GoldenGraphsSummary& summary) {
  const graph::GraphRun run = graph::run_graph(registry, kReferenceBackend, g, inputs);
  check(run.kind == OutcomeKind::kOk, "golden graph ", name, ": the reference refuses it: ", run.message);
  const fs::path dir = root / name;
  graph::write_graph_folder(dir.string(), g, inputs);
  const std::vector<uint32_t> row_ptr = graph::row_ptr_of(g);
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (uint32_t n = 0; n < g.nodes.size(); ++n) {
    for (uint32_t e = row_ptr[n]; e < row_ptr[n + 1]; ++e) {
      const Tensor& t = *run.entries[e];
      const std::string file = "entry_" + std::to_string(e) + ".npy";
      write_npy((dir / file).string(), Tensor::from_values(t.shape(), t.values(), t.precision(), DType::kInt32));
      entries.push_back({{"entry", e}, {"node", n}, {"name", g.nodes[n].name}, {"file", file},
                         {"precision", t.precision()}});
    }
    if (!g.nodes[n].is_variable()) ++summary.operators[g.nodes[n].operator_name()];
  }
  const nlohmann::ordered_json model = {{"name", name}, {"note", note},
                                        {"storage_plan", graph::storage_plan_name(plan)},
                                        {"entries", entries}};
  write_model_text(dir / "model.json", model.dump(1) + "\n");
  const nlohmann::json files = hash_folder(dir.string(), summary.files, summary.bytes);
  ++summary.models;
  ++summary.storage_plans[graph::storage_plan_name(plan)];
  return {{"name", name}, {"dir", name}, {"storage_plan", graph::storage_plan_name(plan)}, {"files", files}};
}

// The operators of `g` not yet in `covered`.
std::set<std::string> new_operators(const graph::Graph& g, const std::set<std::string>& covered) {
  std::set<std::string> fresh;
  for (const graph::Node& n : g.nodes) {
    if (!n.is_variable() && covered.count(n.operator_name()) == 0) fresh.insert(n.operator_name());
  }
  return fresh;
}

// Random models, kept while each brings an operator the set lacks; the plans in turn.
void write_random_models(const Registry& registry, const fs::path& root, const GoldenGraphsOptions& o,
                         std::set<std::string>& covered, nlohmann::ordered_json& models,
                         GoldenGraphsSummary& summary) {
  const std::set<std::string> wanted = graph::generator_ops();
  int kept = 0;
  for (uint64_t k = 0; k < 4000 && kept < o.max_random; ++k) {
    bool done = true;
    for (const std::string& op : wanted) done = done && covered.count(op) != 0;
    if (done && kept >= graph::kStoragePlanCount) break;
    graph::GenOptions gen;
    gen.nodes = o.nodes;
    gen.max_elements = o.max_elements;
    gen.storage = static_cast<graph::StoragePlan>(kept % graph::kStoragePlanCount);
    const uint64_t seed = case_seed(o.seed, k);
    const graph::GeneratedModel m = graph::generate_model(registry, seed, gen);
    if (new_operators(m.graph, covered).empty() && !done) continue;
    const graph::GraphRun run = graph::run_graph(registry, kReferenceBackend, m.graph, m.inputs);
    if (run.kind != OutcomeKind::kOk || graph::outputs_constant(registry, m)) continue;
    for (const std::string& op : new_operators(m.graph, covered)) covered.insert(op);
    char name[32];
    std::snprintf(name, sizeof name, "random_%02d", kept++);
    models.push_back(write_model(registry, root, name, m.graph, m.inputs, m.storage,
                                 "generated model, seed " + seed_hex(seed) + ", " + std::to_string(o.nodes) +
                                     " nodes asked",
                                 summary));
  }
  for (const std::string& op : wanted) {
    if (covered.count(op) == 0) summary.missing.insert(op);
  }
}

}  // namespace

GoldenGraphsSummary generate_golden_graphs(const Registry& registry, const GoldenGraphsOptions& o) {
  const fs::path root(o.out);
  make_empty_output_dir(o.out);
  GoldenGraphsSummary summary;
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  std::set<std::string> covered;
  for (const GoldenChain& c : golden_chains(registry, o.seed)) {
    models.push_back(write_model(registry, root, c.name, c.graph, c.inputs, c.storage, c.note, summary));
    for (const std::string& op : new_operators(c.graph, covered)) covered.insert(op);
  }
  write_random_models(registry, root, o, covered, models, summary);
  nlohmann::ordered_json manifest;
  manifest["format"] = kGoldenGraphsFormat;
  manifest["format_version"] = kGoldenGraphsFormatVersion;
  manifest["contract_version"] = kContractVersion;
  manifest["generator"] = {{"command", "cvmcheck golden generate --graphs"}, {"seed", o.seed},
                           {"nodes", o.nodes}, {"max_elements", o.max_elements}};
  manifest["models"] = models;
  write_model_text(root / "MANIFEST.json", manifest.dump(1) + "\n");
  write_model_text(root / "README.md", kReadme);
  return summary;
}

bool is_golden_graphs(const std::string& dir) {
  std::error_code ec;
  const fs::path manifest = fs::path(dir) / "MANIFEST.json";
  if (!fs::exists(manifest, ec)) return false;
  const nlohmann::json j = nlohmann::json::parse(fixture_bytes(manifest.string()), nullptr, false);
  return j.is_object() && j.value("format", "") == kGoldenGraphsFormat;
}

namespace {

// The reference's run as the fixture records it: every entry with its expected precision.
graph::GraphRun expected_run(const fs::path& dir, const graph::Graph& g) {
  const nlohmann::json model = nlohmann::json::parse(fixture_bytes((dir / "model.json").string()));
  graph::GraphRun run;
  run.entries.resize(graph::row_ptr_of(g).back());
  for (const nlohmann::json& e : model.at("entries")) {
    const size_t k = e.at("entry").get<size_t>();
    check(k < run.entries.size(), "model.json names entry ", k, " of ", run.entries.size());
    run.entries[k] = read_npy((dir / e.at("file").get<std::string>()).string(), e.at("precision").get<int>());
  }
  for (size_t k = 0; k < run.entries.size(); ++k) check(run.entries[k].has_value(), "model.json lacks entry ", k);
  return run;
}

// A corrupt detail when a listed file is missing or its bytes differ from its sha256.
std::string damaged_file(const fs::path& dir, const nlohmann::json& files) {
  for (const auto& [file, sha] : files.items()) {
    std::error_code ec;
    if (!fs::exists(dir / file, ec)) return "missing " + file;
    if (sha256_hex(fixture_bytes((dir / file).string())) != sha.get<std::string>()) return file + " does not match its sha256";
  }
  return "";
}

GoldenGraphResult verify_model(const Registry& registry, const fs::path& root, const nlohmann::json& entry,
                               const std::string& backend, const ExpectationSet& xfail) {
  GoldenGraphResult r;
  r.name = entry.at("name").get<std::string>();
  const fs::path dir = root / entry.at("dir").get<std::string>();
  r.detail = damaged_file(dir, entry.at("files"));
  if (!r.detail.empty()) {
    r.status = "corrupt";
    return r;
  }
  graph::ModelFiles m;
  graph::GraphRun expected;
  try {
    m = graph::read_graph_folder(dir.string());
    expected = expected_run(dir, m.graph);
  } catch (const std::exception& e) {  // a damaged file: LogicError, RuntimeError or JSON's own
    r.status = "corrupt";
    r.detail = e.what();
    return r;
  }
  const graph::GraphRun actual = graph::run_graph(registry, backend, m.graph, m.inputs);
  if (actual.skipped) {
    r.status = "skipped";
    r.detail = actual.skip_reason;
    return r;
  }
  const auto d = graph::diff_runs(m.graph, expected, actual);
  r.status = d ? "fail" : "pass";
  if (!d) return r;
  r.detail = "first differing node: " + d->what + " [" + d->kind + "]";
  if (xfail.empty()) return r;
  const graph::GraphSignature sig = graph::classify_difference(registry, m.graph, expected, actual, backend, *d, xfail);
  if (!sig.expected_by.empty()) {
    r.status = "xfail";
    r.detail += "; known: " + sig.expected_by;
  }
  return r;
}

}  // namespace

bool GoldenGraphsResult::ok() const {
  for (const GoldenGraphResult& m : models) {
    if (m.status == "fail" || m.status == "corrupt") return false;
  }
  return true;
}

GoldenGraphsResult verify_golden_graphs(const Registry& registry, const std::string& dir,
                                        const std::string& backend, const ExpectationSet& xfail) {
  const fs::path root(dir);
  const nlohmann::json manifest = nlohmann::json::parse(fixture_bytes((root / "MANIFEST.json").string()));
  check(manifest.value("format", "") == kGoldenGraphsFormat, dir, " is not a cvmcheck golden graph set");
  check(registry.find_backend(backend) != nullptr, "unknown backend '", backend, "'");
  GoldenGraphsResult result;
  for (const nlohmann::json& entry : manifest.at("models")) {
    result.models.push_back(verify_model(registry, root, entry, backend, xfail));
  }
  return result;
}

std::string golden_graphs_table(const GoldenGraphsResult& result, const std::string& backend) {
  std::map<std::string, int64_t> counts;
  std::ostringstream lines;
  std::string skip_reason;
  for (const GoldenGraphResult& m : result.models) {
    ++counts[m.status];
    if (m.status == "skipped" && skip_reason.empty()) skip_reason = m.detail;
    if (m.status != "pass" && m.status != "skipped") lines << "  " << m.status << "  " << m.name << ": " << m.detail << "\n";
  }
  std::ostringstream out;
  out << "golden graphs on " << backend << ": " << result.models.size() << " models";
  for (const auto& [status, n] : counts) out << ", " << n << " " << status;
  if (!skip_reason.empty()) out << " (first skip: " << skip_reason << ")";
  out << "\n" << lines.str();
  return out.str();
}

}  // namespace cvm
