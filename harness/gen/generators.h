// Generators of operator calls (RapidCheck), one OpGenerators record per operator, attached to
// the operator's OpInfo by its record file (harness/gen/<family>_gen.cc). Valid generators cover the
// whole valid attribute space (both ends of every range, negative axes, empty tuples) with
// values biased to the edges that matter; each invalid generator breaks exactly one rule and
// says which.
#pragma once

#include <limits>
#include <rapidcheck.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cvmcheck/op_list.h"
#include "cvmcheck/precision.h"
#include "harness/engine/call.h"

namespace cvm {

class InvalidGenerator;

namespace gen {
// Appends the generator of calls breaking `rule` to `rules`: each call is `make()` with the
// rule's name, its id (rule_id below) and the expected outcome logic_error set. The one way to
// make an InvalidGenerator, so a generator's calls always name the rule it is listed under.
void add_rule(std::vector<InvalidGenerator>& rules, const std::string& rule,
              std::function<Call()> make);
}  // namespace gen

// Fixed once made: a rule's name and its generator never part.
class InvalidGenerator {
 public:
  const std::string rule;   // e.g. "axis_out_of_range"
  const rc::Gen<Call> gen;  // calls breaking that rule; expected outcome logic_error

 private:
  InvalidGenerator(std::string rule, rc::Gen<Call> gen)
      : rule(std::move(rule)), gen(std::move(gen)) {}
  friend void gen::add_rule(std::vector<InvalidGenerator>& rules, const std::string& rule,
                            std::function<Call()> make);
};

struct OpGenerators {
  rc::Gen<Call> valid = rc::gen::just(Call{});  // must succeed on the reference
  std::vector<InvalidGenerator> invalid;        // operator-specific rules
  // Rules drawn again on shapes far above kMaxElements, where a kernel's fast paths (packing,
  // vector bodies, threads, blocking) run their own copy of a check. Appended after the shared
  // rules, so the golden cases of every earlier rule keep their seeds.
  std::vector<InvalidGenerator> invalid_at_scale;
};

// Operator name (canonical) -> its generators. Each family file harness/gen/<family>_gen.cc fills in
// its operators; the shared input-side rules (common_invalid) are appended by generators_for.
using GeneratorTable = std::map<std::string, OpGenerators>;

#define CVMCHECK_FAMILY_GENERATORS(family) void add_##family##_generators(GeneratorTable& table);
CVMCHECK_FAMILIES(CVMCHECK_FAMILY_GENERATORS)
#undef CVMCHECK_FAMILY_GENERATORS

// The generators of `op`: its family's record plus common_invalid. nullptr when the operator
// has no generator record yet (a test requires every operator to have one).
const OpGenerators* generators_for(const OpInfo& op);

namespace gen {

// Limits several families' draws name.
inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();

inline int ndim_of(const Shape& shape) { return static_cast<int>(shape.size()); }

// Element budget of one generated tensor: keeps one case in the milliseconds.
inline constexpr int64_t kMaxElements = 2048;

// A precision in [lo, hi], with both ends weighted up.
rc::Gen<int> precision(int lo = 1, int hi = 32);

// A value of precision p, biased to 0, +-1, +-alpha(p), +-(alpha(p)-1), powers of two and their
// neighbours; otherwise uniform in [-alpha(p), alpha(p)].
rc::Gen<int32_t> value(int p);

// A tensor of `shape` with values distributed as value(p) (the fast fill of harness/gen/value_fill.h:
// one draw per tensor); int8 storage when `int8` (p must be <= 8).
rc::Gen<Tensor> tensor(const Shape& shape, int p, bool int8 = false);

// While one is alive on this thread, tensor() draws every element from value(p) through
// RapidCheck, as it did before the fast fill: the golden fixtures are drawn so, which keeps
// their bytes (and the names other implementations list expected failures by) unchanged.
struct ScopedPerElementValues {
  ScopedPerElementValues();
  ~ScopedPerElementValues();
  ScopedPerElementValues(const ScopedPerElementValues&) = delete;
  ScopedPerElementValues& operator=(const ScopedPerElementValues&) = delete;
};
// As above, choosing int8 storage at random when p <= 8.
rc::Gen<Tensor> tensor_any_dtype(const Shape& shape, int p);

// A shape of ndim in [min_ndim, max_ndim], each dim in [1, max_dim], with at most
// `max_elements` elements (dims are shrunk to fit, never the ndim).
rc::Gen<Shape> shape(int min_ndim, int max_ndim, int64_t max_dim = 8,
                     int64_t max_elements = kMaxElements);

// Inside a generator: shape(min_ndim, max_ndim), or now and then, while a campaign aims at the
// backends' path thresholds, a shape whose element count is near an "elements" threshold of
// `op` (harness/gen/path_aim.h).
Shape shape_aimed(const std::string& op, int min_ndim, int max_ndim);

// An axis in [-n, n).
rc::Gen<int64_t> axis(int n);
// A random subset of the axes of an n-dim tensor (possibly empty), in random order, each
// spelled either as itself or as its negative alias (a - n). No two name the same axis.
rc::Gen<std::vector<int64_t>> distinct_axes(int n);
// Axis `a` in [0, n) spelled as a or a - n at random.
rc::Gen<int64_t> spell_axis(int64_t a, int n);

// The attribute string of a tuple, in one of the accepted spellings: "(1, 2)", "[1,2]", "(1,)",
// "()", or a bare "3" for one entry.
rc::Gen<std::string> tuple_text(const std::vector<int64_t>& entries);
std::string tuple_text_plain(const std::vector<int64_t>& entries);  // "(1, 2)" / "(1,)" / "()"
// The attribute string of a bool in one of its six spellings.
rc::Gen<std::string> bool_text(bool value);

// Input-side invalid generators every operator shares, derived from a valid generator: a value
// outside its precision (including INT32_MIN), precision 0 or 33, int8 with precision > 8, one
// input too many or too few, an unknown attribute key, a non-string attribute value, a
// malformed attribute value for each schema entry.
std::vector<InvalidGenerator> common_invalid(const OpInfo& op, const rc::Gen<Call>& valid);

// The generator record's helpers: add_rule (above) registers a rule, written
// `add_rule(g.invalid, "axis_out_of_range", [=] { ...; return call; })`, the rule's name once;
// the ones below are drawn inside a generator (rc::gen::exec, a rule's `make`) or a property.
// A fair coin.
bool coin();
// A precision in [lo, hi] drawn at full size: RapidCheck scales gen::inRange with the case
// size, so early cases would mostly draw precision 1, whose tensors are all zeros.
int draw_precision(int lo = 1, int hi = 32);

// The id of the rule a generator of operator `op` (canonical name) calls `rule`
// (docs/contract.md, "Rule ids"). The shared input-side rules and the operator rules that are a
// global rule under an operator's own name (an output precision above 32, an output outside the
// tensor limits, an attribute value outside its choices) map to their global.* id; every other
// name is the operator's own: "<op>.<rule>".
std::string rule_id(const std::string& op, const std::string& rule);

}  // namespace gen
}  // namespace cvm
