#include "harness/graph/graph_pairs.h"

#include <nlohmann/json.hpp>

#include "harness/graph/graph_gen_ops.h"
#include "harness/graph/graph_infer.h"
#include "harness/graph/graph_rng.h"

namespace cvm::graph {
namespace {

constexpr int64_t kMaxElements = 4096;  // GenOptions::max_elements' default

// A data entry of `rank` dims (any rank 1..4 when 0), small enough for every operator after it,
// of precision 8 or, half the time, 1..16 (a producer of few bits feeds a consumer of at most 8
// directly, with no requantization between).
LiveEntry data_entry(Rng& rng, int rank) {
  const int r = rank != 0 ? rank : static_cast<int>(rng.range(1, 5));
  Shape shape;
  // The generator's data shapes (graph_gen.cc): images, rows, boxes of 6 columns, anything else.
  if (r == 4 && rng.chance(0.8)) {
    shape = {rng.range(1, 2), rng.range(1, 4), rng.range(4, 10), rng.range(4, 10)};
  } else if (r == 2 && rng.chance(0.8)) {
    shape = {rng.range(1, 4), rng.range(2, 24)};
  } else if (r == 3 && rng.chance(0.8)) {
    shape = {rng.range(1, 2), rng.range(2, 8), rng.chance(0.6) ? 6 : rng.range(2, 8)};
  } else {
    shape.assign(static_cast<size_t>(r), 0);
    for (int64_t& d : shape) d = rng.range(1, 5);
  }
  const int precision = rng.chance(0.5) ? 8 : static_cast<int>(rng.range(1, 16));
  return {EntryRef{0, 0, 0}, shape, precision, "data"};
}

std::string attrs_text(const Draft& d) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : d.attrs) j[k] = v;
  return j.dump();
}

// The outputs of `d` over `live` (parameters as drafted), or none when the inference or the
// size bound refuses it.
std::optional<std::vector<EntrySpec>> outputs_of(const Registry& registry, const Draft& d,
                                                 const std::vector<LiveEntry>& live) {
  std::vector<EntrySpec> in;
  for (const DraftInput& i : d.inputs) {
    if (i.live >= 0) {
      in.push_back({live[static_cast<size_t>(i.live)].shape, live[static_cast<size_t>(i.live)].precision});
    } else {
      in.push_back({i.param.shape, i.param.precision});
    }
  }
  try {
    std::vector<EntrySpec> out = infer_node(registry, d.op, nlohmann::json::parse(attrs_text(d)), in);
    for (const EntrySpec& o : out) {
      if (shape_size(o.shape) > kMaxElements) return std::nullopt;
    }
    return out;
  } catch (const LogicError&) {
    return std::nullopt;
  }
}

// Whether `consumer` takes `entry` (live[primary]) directly, in one of `tries` drafts.
bool takes(const Registry& registry, Rng& rng, const OpDrafter& consumer,
           const std::vector<LiveEntry>& live, int primary) {
  const LiveEntry& x = live[static_cast<size_t>(primary)];
  if (consumer.rank != 0 && consumer.rank != static_cast<int>(x.shape.size())) return false;
  if (x.precision > consumer.max_precision) return false;
  for (int t = 0; t < 4; ++t) {
    const std::optional<Draft> d = consumer.draft(rng, primary, live);
    if (!d) continue;
    // The entry must be one of the consumer's inputs (where takes it as its x, not its first).
    bool uses = false;
    for (const DraftInput& i : d->inputs) uses = uses || i.live == primary;
    if (uses && outputs_of(registry, *d, live)) return true;
  }
  return false;
}

}  // namespace

std::set<OpPair> chainable_pairs(const Registry& registry, const std::set<std::string>& ops,
                                 int tries) {
  std::set<OpPair> pairs;
  Rng rng(0x6772617068706169ull);  // "graphpai": a fixed stream
  for (const OpDrafter& producer : op_drafters()) {
    if (ops.count(producer.op) == 0) continue;
    for (int t = 0; t < tries; ++t) {
      std::vector<LiveEntry> live = {data_entry(rng, producer.rank)};
      const std::optional<Draft> d = producer.draft(rng, 0, live);
      if (!d) continue;
      const std::optional<std::vector<EntrySpec>> out = outputs_of(registry, *d, live);
      if (!out) continue;
      for (uint32_t j = 0; j < out->size(); ++j) {
        live.push_back({EntryRef{1, j, 0}, (*out)[j].shape, (*out)[j].precision, producer.op});
      }
      for (const OpDrafter& consumer : op_drafters()) {
        if (ops.count(consumer.op) == 0 || pairs.count({producer.op, consumer.op}) != 0) continue;
        for (int j = 1; j < static_cast<int>(live.size()); ++j) {
          if (takes(registry, rng, consumer, live, j)) {
            pairs.emplace(producer.op, consumer.op);
            break;
          }
        }
      }
    }
  }
  return pairs;
}

}  // namespace cvm::graph
