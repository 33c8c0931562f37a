#include "harness/graph/graph_shrink.h"

#include <exception>

#include "harness/graph/graph_shrink_plan.h"
#include "harness/graph/graph_storage.h"

namespace cvm::graph {
namespace {

// The best plan so far and the model it makes; a candidate plan replaces it where the predicate
// holds for its model.
class GraphShrinker {
 public:
  GraphShrinker(const Model& model, int node, const std::vector<std::optional<Tensor>>& recorded,
                const ModelPredicate& still_fails, int max_tries)
      : original_(model), recorded_(recorded), still_fails_(still_fails), max_tries_(max_tries),
        target_(node), best_(initial_plan(model.graph, node)), best_model_(model), best_node_(node) {}

  void keep_ancestors() {
    ShrinkPlan c = best_;
    std::fill(c.roots.begin(), c.roots.end(), 0);
    c.target_heads = true;
    attempt(std::move(c));
  }

  void freeze_entries() {
    const Graph& g = original_.graph;
    ShrinkPlan producers = best_;
    for (const EntryRef& in : g.nodes[static_cast<size_t>(target_)].inputs) {
      const EntryRef r = resolve_entry(producers, in);
      if (!g.nodes[r.node].is_variable()) producers.frozen[r.node] = 1;
    }
    attempt(std::move(producers));
    for (size_t k = g.nodes.size(); k-- > 0;) {
      if (!freezable(k)) continue;
      ShrinkPlan c = best_;
      c.frozen[k] = 1;
      attempt(std::move(c));
    }
  }

  void remove_nodes() {
    const Graph& g = original_.graph;
    const std::vector<uint32_t> row_ptr = row_ptr_of(g);
    for (size_t k = g.nodes.size(); k-- > 0;) {
      if (static_cast<int>(k) == target_ || !best_.kept[k]) continue;
      if (best_.roots[k]) {
        // Dropped alone: the operator nodes it consumed stay, as roots of their own.
        ShrinkPlan c = best_;
        c.roots[k] = 0;
        c.kept[k] = 0;
        if (!g.nodes[k].is_variable() && !c.frozen[k]) {
          for (const EntryRef& in : g.nodes[k].inputs) {
            const EntryRef r = resolve_entry(c, in);
            if (!g.nodes[r.node].is_variable()) c.roots[r.node] = 1;
          }
        }
        attempt(std::move(c));
        continue;
      }
      if (g.nodes[k].is_variable() || best_.frozen[k] || row_ptr[k + 1] - row_ptr[k] != 1) continue;
      for (const EntryRef& in : g.nodes[k].inputs) {
        const EntryRef r = resolve_entry(best_, in);
        if (g.shape[row_ptr[r.node] + r.index] != g.shape[row_ptr[k]]) continue;
        ShrinkPlan c = best_;
        c.bypass[k] = r;
        if (attempt(std::move(c))) break;
      }
    }
  }

  ShrunkModel result() const {
    ShrunkModel s;
    s.model = best_model_;
    s.node = best_node_;
    s.tries = tries_;
    s.op_nodes_before = op_node_count(original_.graph);
    s.op_nodes_after = op_node_count(best_model_.graph);
    return s;
  }

 private:
  bool freezable(size_t k) const {
    return static_cast<int>(k) != target_ && best_.kept[k] && !best_.frozen[k] && !best_.bypass[k] &&
           !original_.graph.nodes[k].is_variable();
  }

  // Takes the candidate (pruned) when it changes something and its model still fails.
  bool attempt(ShrinkPlan c) {
    if (tries_ >= max_tries_) return false;
    prune(original_.graph, c, target_);
    if (c == best_) return false;
    std::optional<PlannedModel> built = build_model(original_, c, target_, recorded_);
    if (!built) return false;
    // Removing a node can leave two live entries in one storage (a liveness plan reused the
    // storage of an entry the removed node read last): such a candidate is another model's bug,
    // never a step toward this one's repro, unless the drawn model's plan was already wrong.
    if (!original_conflicted_ && storage_conflict(built->model.graph)) return false;
    ++tries_;
    bool holds = false;
    try {
      holds = still_fails_(built->model);
    } catch (const std::exception&) {
      holds = false;  // a candidate the predicate cannot judge does not show the failure
    }
    if (!holds) return false;
    best_ = std::move(c);
    best_model_ = std::move(built->model);
    best_node_ = built->node;
    return true;
  }

  const Model& original_;
  const bool original_conflicted_ = storage_conflict(original_.graph).has_value();
  const std::vector<std::optional<Tensor>>& recorded_;
  const ModelPredicate& still_fails_;
  const int max_tries_;
  const int target_;
  ShrinkPlan best_;
  Model best_model_;
  int best_node_;
  int tries_ = 0;
};

}  // namespace

ShrunkModel shrink_model(const Model& model, int node,
                         const std::vector<std::optional<Tensor>>& recorded,
                         const ModelPredicate& still_fails, int max_tries) {
  if (!shrinkable(model.graph, node)) {
    ShrunkModel s;
    s.model = model;
    s.node = node;
    s.op_nodes_before = s.op_nodes_after = op_node_count(model.graph);
    return s;
  }
  GraphShrinker shrinker(model, node, recorded, still_fails, max_tries);
  shrinker.keep_ancestors();
  shrinker.freeze_entries();
  shrinker.remove_nodes();
  return shrinker.result();
}

}  // namespace cvm::graph
