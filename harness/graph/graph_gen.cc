#include "harness/graph/graph_gen.h"

#include <algorithm>
#include <functional>

#include <nlohmann/json.hpp>

#include "cvmcheck/precision.h"
#include "harness/graph/graph_build.h"
#include "harness/graph/graph_gen_ops.h"
#include "harness/graph/graph_infer.h"
#include "harness/graph/graph_run.h"

namespace cvm::graph {
namespace {

// producer -> the operators real quantized models put after it.
const std::vector<std::pair<std::string, std::vector<std::string>>>& natural_chains() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kChains = {
      {"data", {"conv2d", "dense", "flatten", "get_valid_counts"}},
      {"conv2d", {"broadcast_add", "cvm_right_shift", "cvm_clip", "relu"}},
      {"broadcast_add", {"cvm_right_shift", "cvm_clip"}},
      {"cvm_right_shift", {"relu", "conv2d", "max_pool2d", "flatten", "dense", "elemwise_add"}},
      {"cvm_clip", {"relu", "conv2d", "max_pool2d", "flatten", "dense"}},
      {"relu", {"max_pool2d", "conv2d", "flatten"}},
      {"max_pool2d", {"conv2d", "flatten"}},
      {"flatten", {"dense"}},
      {"dense", {"cvm_right_shift", "relu", "dense"}},
      {"elemwise_add", {"cvm_right_shift", "relu"}},
      {"get_valid_counts", {"non_max_suppression"}},
      {"transpose", {"reshape", "flatten"}},
      {"reshape", {"dense", "transpose"}},
  };
  return kChains;
}

bool natural(const std::string& producer, const std::string& op) {
  for (const auto& [from, to] : natural_chains()) {
    if (from == producer) return std::find(to.begin(), to.end(), op) != to.end();
  }
  return false;
}

Tensor draw_values(Rng& rng, const ParamDraft& p) {
  const int64_t a = alpha(p.precision);
  std::vector<int32_t> v(static_cast<size_t>(shape_size(p.shape)));
  for (int32_t& x : v) {
    int64_t y;
    if (p.lo <= p.hi) {
      y = rng.chance(0.2) ? (rng.chance(0.5) ? p.lo : p.hi) : rng.range(p.lo, p.hi);
    } else {
      const uint64_t r = rng.below(100);
      y = r < 10 ? a : r < 20 ? -a : r < 28 ? 0 : r < 33 ? (rng.chance(0.5) ? 1 : -1) : rng.range(-a, a);
      y = std::clamp<int64_t>(y, -a, a);
    }
    if (p.nonzero && y == 0) y = 1;
    x = static_cast<int32_t>(y);
  }
  const bool int8 = p.precision <= 8 && rng.chance(0.3);
  return Tensor::from_values(p.shape, v, p.precision, int8 ? DType::kInt8 : DType::kInt32);
}

Shape draw_data_shape(Rng& rng) {
  const uint64_t r = rng.below(100);
  if (r < 55) return {rng.range(1, 2), rng.range(1, 4), rng.range(4, 10), rng.range(4, 10)};
  if (r < 75) return {rng.range(1, 4), rng.range(2, 24)};
  if (r < 85) return {rng.range(1, 2), rng.range(2, 8), rng.chance(0.6) ? 6 : rng.range(2, 8)};
  Shape s(static_cast<size_t>(rng.range(1, 5)));
  for (int64_t& d : s) d = rng.range(1, 5);
  return s;
}

// The heads packed row by row, as the original's detection post-processing does, hold the same
// number of rows (each head's elements over its last dimension), and there are several.
bool heads_concatenate(const Graph& g) {
  const std::vector<uint32_t> row_ptr = row_ptr_of(g);
  int64_t rows = -1;
  for (const EntryRef& h : g.heads) {
    const Shape& s = g.shape[entry_index(row_ptr, h)];
    const int64_t r = shape_size(s) / s.back();
    if (rows >= 0 && r != rows) return false;
    rows = r;
  }
  return g.heads.size() > 1;
}

// The model's post-processing (the original's CVMModel::SaveTensor): none most often, argmax a
// quarter of the time, detection where the heads can be packed that way.
std::optional<std::string> draw_postprocess(Rng& rng, const Graph& g) {
  const uint64_t r = rng.below(100);
  if (r < 25) return std::string("argmax");
  if (r < 40 && heads_concatenate(g)) return std::string("detection");
  return std::nullopt;
}

class Generator {
 public:
  Generator(const Registry& registry, uint64_t seed, const GenOptions& options)
      : registry_(registry), rng_(seed), options_(options) {}

  GeneratedModel run(uint64_t seed);

 private:
  int choose_primary();
  const OpDrafter* choose_op(const LiveEntry& primary);
  int requantized(int primary, int max_precision);
  bool try_insert(const Draft& d);

  const Registry& registry_;
  Rng rng_;
  GenOptions options_;
  GraphBuilder builder_;
  std::vector<LiveEntry> live_;
  std::vector<NamedTensor> params_;
  int op_nodes_ = 0;
  int drafts_ = 0, refused_ = 0;
};

int Generator::choose_primary() {
  if (rng_.chance(0.5)) return static_cast<int>(live_.size() - 1);
  return static_cast<int>(rng_.below(live_.size()));
}

bool allowed(const GenOptions& o, const std::string& op) { return o.ops.empty() || o.ops.count(op) != 0; }

const OpDrafter* Generator::choose_op(const LiveEntry& primary) {
  std::vector<std::pair<const OpDrafter*, uint64_t>> choices;
  uint64_t total = 0;
  for (const OpDrafter& d : op_drafters()) {
    if (!allowed(options_, d.op)) continue;
    if (d.rank != 0 && d.rank != static_cast<int>(primary.shape.size())) continue;
    const uint64_t w = natural(primary.producer, d.op) ? 9 : 1;
    choices.emplace_back(&d, w);
    total += w;
  }
  if (total == 0) return nullptr;
  uint64_t r = rng_.below(total);
  for (const auto& [d, w] : choices) {
    if (r < w) return d;
    r -= w;
  }
  return nullptr;
}

// The live entry to use at most `max_precision` bits: `primary` itself, or a requantization of
// it just inserted; -1 when none can be.
int Generator::requantized(int primary, int max_precision) {
  const LiveEntry& x = live_[static_cast<size_t>(primary)];
  if (x.precision <= max_precision) return primary;
  const int to = std::min(max_precision, 8);
  Draft d;
  if (allowed(options_, "cvm_right_shift") && (rng_.chance(0.7) || !allowed(options_, "cvm_clip"))) {
    d = {"cvm_right_shift", {{"precision", std::to_string(to)}, {"shift_bit", std::to_string(std::max(1, x.precision - to))}}, {live_input(primary)}};
  } else if (allowed(options_, "cvm_clip")) {
    d = {"cvm_clip", {{"precision", std::to_string(to)}}, {live_input(primary)}};
  } else {
    return -1;
  }
  return try_insert(d) ? static_cast<int>(live_.size() - 1) : -1;
}

std::string draft_attrs_text(const Draft& d) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : d.attrs) j[k] = v;
  return j.dump();
}

bool Generator::try_insert(const Draft& d) {
  ++drafts_;
  std::vector<EntrySpec> in;
  for (const DraftInput& i : d.inputs) {
    if (i.live >= 0) in.push_back({live_[static_cast<size_t>(i.live)].shape, live_[static_cast<size_t>(i.live)].precision});
    else in.push_back({i.param.shape, i.param.precision});
  }
  const std::string attrs = draft_attrs_text(d);
  std::vector<EntrySpec> out;
  try {
    out = infer_node(registry_, d.op, nlohmann::json::parse(attrs), in);
  } catch (const LogicError&) {
    ++refused_;
    return false;
  }
  for (const EntrySpec& o : out) {
    if (shape_size(o.shape) > options_.max_elements) {
      ++refused_;
      return false;
    }
  }
  std::vector<EntryRef> refs;
  for (const DraftInput& i : d.inputs) {
    if (i.live >= 0) {
      refs.push_back(live_[static_cast<size_t>(i.live)].ref);
      continue;
    }
    const std::string name = "param_" + std::to_string(params_.size() + 1);
    refs.push_back(builder_.add_variable(name, i.param.shape, i.param.precision));
    params_.emplace_back(name, draw_values(rng_, i.param));
  }
  std::vector<Shape> shapes;
  std::vector<int> precisions;
  for (const EntrySpec& o : out) {
    shapes.push_back(o.shape);
    precisions.push_back(o.precision);
  }
  const uint32_t node = builder_.add_op(d.op, attrs, refs, shapes, precisions);
  for (uint32_t j = 0; j < out.size(); ++j) live_.push_back({{node, j, 0}, out[j].shape, out[j].precision, d.op});
  ++op_nodes_;
  return true;
}

GeneratedModel Generator::run(uint64_t seed) {
  const ParamDraft data{draw_data_shape(rng_), rng_.chance(0.7) ? 8 : static_cast<int>(rng_.range(1, 16))};
  live_.push_back({builder_.add_variable(kDataName, data.shape, data.precision), data.shape, data.precision, "data"});
  GeneratedModel m;
  m.inputs.data = draw_values(rng_, data);
  const int target = std::clamp(options_.nodes, 1, 64);
  for (int attempt = 0; op_nodes_ < target && attempt < target * 20; ++attempt) {
    const int primary = choose_primary();
    const OpDrafter* op = choose_op(live_[static_cast<size_t>(primary)]);
    if (op == nullptr) continue;
    const int input = requantized(primary, op->max_precision);
    if (input < 0 || op_nodes_ >= target) continue;
    if (const std::optional<Draft> d = op->draft(rng_, input, live_)) try_insert(*d);
  }
  std::vector<EntryRef> heads;
  for (const LiveEntry& e : live_) {
    if (!live_.empty() && e.ref.node == live_.back().ref.node) heads.push_back(e.ref);
  }
  m.graph = builder_.finish(heads);
  m.inputs.params = std::move(params_);
  m.seed = seed;
  m.drafts = drafts_;
  m.refused = refused_;
  return m;
}

}  // namespace

GeneratedModel generate_model(const Registry& registry, uint64_t seed, const GenOptions& options) {
  GeneratedModel m;
  int drafts = 0, refused = 0;
  for (int redraw = 0;; ++redraw) {
    // Redraw k comes from a seed of its own, a function of the model's seed.
    const uint64_t draw_seed = redraw == 0 ? seed : Rng(seed + 0x632BE59BD9B4E019ull * static_cast<uint64_t>(redraw)).next();
    m = Generator(registry, draw_seed, options).run(seed);
    drafts += m.drafts;
    refused += m.refused;
    m.redrawn = redraw;
    if (!options.redraw_constant || redraw == kMaxConstantRedraws || !outputs_constant(registry, m)) break;
  }
  m.drafts = drafts;
  m.refused = refused;
  Rng plan_rng(seed ^ 0x5702A6E9A17D3C11ull);
  m.storage = options.storage ? *options.storage
                              : static_cast<StoragePlan>(plan_rng.below(kStoragePlanCount));
  plan_storage(m.graph, m.storage);
  m.graph.postprocess = draw_postprocess(plan_rng, m.graph);
  return m;
}

bool outputs_constant(const Registry& registry, const GeneratedModel& m) {
  const GraphRun r = run_graph(registry, kReferenceBackend, m.graph, m.inputs);
  if (r.kind != OutcomeKind::kOk) return false;
  const std::vector<uint32_t> row_ptr = row_ptr_of(m.graph);
  for (const EntryRef& h : m.graph.heads) {
    const std::optional<Tensor>& t = r.entries[entry_index(row_ptr, h)];
    if (!t) return false;
    const std::vector<int32_t> v = t->values();
    if (v.size() < 2 || std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) != v.end()) return false;
  }
  return true;
}

std::set<std::string> generator_ops() {
  std::set<std::string> ops;
  for (const OpDrafter& d : op_drafters()) ops.insert(d.op);
  return ops;
}

}  // namespace cvm::graph
