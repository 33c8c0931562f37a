#include "harness/graph/graph_storage.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "cvmcheck/errors.h"

namespace cvm::graph {
namespace {

// The compiler's GraphAllocator with its default match range (16) and one colour: a request
// takes the free storage of the smallest size at least the request's, below 16 times it; else
// the largest smaller one above a sixteenth of it; else a new storage.
class Allocator {
 public:
  int request(size_t bytes) {
    constexpr size_t kMatchRange = 16;
    const auto begin = free_.lower_bound(bytes / kMatchRange);
    const auto mid = free_.lower_bound(bytes);
    const auto end = free_.upper_bound(bytes * kMatchRange);
    if (mid != end) return take(mid, bytes);
    if (mid != begin) return take(std::prev(mid), bytes);
    max_bytes_.push_back(bytes);
    return static_cast<int>(max_bytes_.size() - 1);
  }
  void release(int id) { free_.emplace(max_bytes_[static_cast<size_t>(id)], id); }
  int count() const { return static_cast<int>(max_bytes_.size()); }

 private:
  int take(std::multimap<size_t, int>::iterator it, size_t bytes) {
    const int id = it->second;
    max_bytes_[static_cast<size_t>(id)] = std::max(bytes, max_bytes_[static_cast<size_t>(id)]);
    free_.erase(it);
    return id;
  }
  std::multimap<size_t, int> free_;
  std::vector<size_t> max_bytes_;
};

// The graph's readers per entry: each operator input and each head counts once.
std::vector<int64_t> reader_counts(const Graph& g, const std::vector<uint32_t>& row_ptr) {
  std::vector<int64_t> refs(row_ptr.back(), 0);
  for (const Node& n : g.nodes) {
    if (n.is_variable()) continue;
    for (const EntryRef& e : n.inputs) ++refs[entry_index(row_ptr, e)];
  }
  for (const EntryRef& e : g.heads) ++refs[entry_index(row_ptr, e)];
  return refs;
}

// The original's AllocMemory over the operator nodes (variables keep -1 here).
std::vector<int64_t> plan_reuse(const Graph& g, const std::vector<uint32_t>& row_ptr, bool in_place,
                                Allocator& alloc) {
  const std::vector<int64_t> entry_refs = reader_counts(g, row_ptr);
  std::vector<int64_t> sid(row_ptr.back(), -1);
  std::vector<int64_t> sid_refs;  // per storage: readers left
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    const Node& n = g.nodes[nid];
    if (n.is_variable()) continue;
    const uint32_t first = row_ptr[nid], outputs = row_ptr[nid + 1] - row_ptr[nid];
    if (in_place && loader_allows_in_place(n.operator_name())) {
      std::vector<bool> taken(n.inputs.size(), false);
      for (size_t i = 0; i < n.inputs.size() && sid[first] < 0; ++i) {
        const uint32_t in = entry_index(row_ptr, n.inputs[i]);
        const int64_t s = sid[in];
        if (taken[i] || s < 0 || sid_refs[static_cast<size_t>(s)] != 1 || entry_refs[first] == 0 ||
            shape_size(g.shape[first]) != shape_size(g.shape[in])) {
          continue;
        }
        taken[i] = true;
        sid[first] = s;
        sid_refs[static_cast<size_t>(s)] += entry_refs[first];
      }
    }
    // The larger outputs first; of equal ones the later (the compiler walks a multimap backwards).
    std::vector<uint32_t> order;
    for (uint32_t j = 0; j < outputs; ++j) {
      if (sid[first + j] < 0) order.push_back(first + j);
    }
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const int64_t sa = shape_size(g.shape[a]), sb = shape_size(g.shape[b]);
      return sa != sb ? sa > sb : a > b;
    });
    for (uint32_t eid : order) {
      sid[eid] = alloc.request(static_cast<size_t>(shape_size(g.shape[eid])) * 4);
      sid_refs.resize(static_cast<size_t>(alloc.count()), 0);
      sid_refs[static_cast<size_t>(sid[eid])] = entry_refs[eid];
    }
    for (const EntryRef& e : n.inputs) {
      const int64_t s = sid[entry_index(row_ptr, e)];
      if (s >= 0 && --sid_refs[static_cast<size_t>(s)] == 0) alloc.release(static_cast<int>(s));
    }
    for (uint32_t j = 0; j < outputs; ++j) {
      const int64_t s = sid[first + j];
      if (sid_refs[static_cast<size_t>(s)] == 0) alloc.release(static_cast<int>(s));
    }
  }
  return sid;
}

}  // namespace

const char* storage_plan_name(StoragePlan plan) {
  switch (plan) {
    case StoragePlan::kOnePerEntry: return "one_per_entry";
    case StoragePlan::kLiveness: return "liveness";
    case StoragePlan::kInPlace: return "in_place";
  }
  return "?";
}

bool loader_allows_in_place(const std::string& op) {
  // The loader's list; "nagetive" is its spelling, so negative is not among them.
  static const std::set<std::string> kInPlace = {
      "flatten", "relu", "expand_dims", "reshape", "squeeze", "abs", "cvm_precision",
      "elemwise_add", "elemwise_sub", "nagetive", "clip", "cvm_clip", "cvm_right_shift",
      "cvm_left_shift"};
  return kInPlace.count(op) != 0;
}

void plan_storage(Graph& g, StoragePlan plan) {
  const std::vector<uint32_t> row_ptr = row_ptr_of(g);
  if (plan == StoragePlan::kOnePerEntry) {
    g.storage_id.resize(row_ptr.back());
    for (size_t e = 0; e < g.storage_id.size(); ++e) g.storage_id[e] = static_cast<int64_t>(e);
    return;
  }
  Allocator alloc;
  g.storage_id = plan_reuse(g, row_ptr, plan == StoragePlan::kInPlace, alloc);
  // DecorateMemoryPlan: each variable a storage of its own, after the planned ones.
  int64_t next = alloc.count();
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    if (g.nodes[nid].is_variable()) g.storage_id[row_ptr[nid]] = next++;
  }
}

std::optional<std::string> storage_conflict(const Graph& g) {
  const std::vector<uint32_t> row_ptr = row_ptr_of(g);
  const uint32_t entries = row_ptr.back();
  if (g.storage_id.size() != entries) return concat("storage_id has ", g.storage_id.size(), " entries, not ", entries);
  constexpr int64_t kForever = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> written(entries), last_read(entries);
  std::vector<uint32_t> node_of(entries);
  for (uint32_t nid = 0; nid < g.nodes.size(); ++nid) {
    for (uint32_t e = row_ptr[nid]; e < row_ptr[nid + 1]; ++e) {
      node_of[e] = nid;
      written[e] = g.nodes[nid].is_variable() ? -1 : nid;
      last_read[e] = g.nodes[nid].is_variable() ? kForever : nid;
    }
    for (const EntryRef& in : g.nodes[nid].inputs) {
      const uint32_t e = entry_index(row_ptr, in);
      if (e < entries) last_read[e] = std::max<int64_t>(last_read[e], nid);
    }
  }
  for (const EntryRef& h : g.heads) {
    if (h.node < g.nodes.size() && entry_index(row_ptr, h) < entries) last_read[entry_index(row_ptr, h)] = kForever;
  }
  std::map<int64_t, std::vector<uint32_t>> by_storage;
  for (uint32_t e = 0; e < entries; ++e) by_storage[g.storage_id[e]].push_back(e);
  for (const auto& [sid, es] : by_storage) {
    for (size_t i = 0; i < es.size(); ++i) {
      for (size_t k = i + 1; k < es.size(); ++k) {
        const uint32_t a = es[i], b = es[k];  // a written no later than b
        if (written[b] > last_read[a]) continue;
        const bool in_place = written[a] < written[b] && written[b] == last_read[a] &&
                              loader_allows_in_place(g.nodes[node_of[b]].operator_name());
        if (in_place) continue;
        return concat("entry ", b, " (node ", node_of[b], ", ", g.nodes[node_of[b]].name,
                      ") is written into storage ", sid, " while entry ", a, " (node ", node_of[a],
                      ", ", g.nodes[node_of[a]].name, ") is still to be read");
      }
    }
  }
  return std::nullopt;
}

}  // namespace cvm::graph
