// Every registered operator: the optimized backend against the reference on one representative
// mid-sized case (about 256K output elements), on 1 and 2 threads for ours (the reference is
// single-threaded). The cases are written here per operator; an operator without one (added
// later) gets the largest valid call of a few draws of its generator record. An operator the
// optimized backend does not implement is reported as "no optimized kernel". Before timing,
// ours is checked once against the reference, bit for bit. Names:
// speedup/<op>/<ours|reference>/t<threads>.
#include <functional>
#include <map>

#include "registry/registry.h"
#include "harness/gen/generators.h"
#include "op_call.h"
#include "summary.h"

namespace cvm::bench {
namespace {

struct SpeedupCase {
  nlohmann::json attrs = nlohmann::json::object();
  std::vector<Tensor> inputs;
  std::string origin;  // "hand-written" or "generator"
};

using Json = nlohmann::json;
Tensor t16(const Shape& shape, uint32_t seed) { return hashed_tensor(shape, 16, seed); }
Tensor t8(const Shape& shape, uint32_t seed) { return hashed_tensor(shape, 8, seed); }

SpeedupCase hand(Json attrs, std::vector<Tensor> inputs) {
  return {std::move(attrs), std::move(inputs), "hand-written"};
}

// NMS rows (id, score, box) on a 64 x 64 grid of overlapping boxes, 4 classes, tied scores.
Tensor nms_rows(int64_t batches, int64_t rows) {
  const Tensor ids = hashed_range({batches * rows}, 0, 3, 8, 40);
  const Tensor scores = hashed_range({batches * rows}, 0, 99, 8, 41);
  const Tensor corners = hashed_range({batches * rows * 2}, 0, 1000, 12, 42);
  const Tensor sizes = hashed_range({batches * rows * 2}, 1, 100, 12, 43);
  std::vector<int32_t> v;
  for (int64_t i = 0; i < batches * rows; ++i) {
    const int32_t x1 = corners.i32()[2 * i], y1 = corners.i32()[2 * i + 1];
    for (int32_t e : {ids.i32()[i], scores.i32()[i], x1, y1, x1 + sizes.i32()[2 * i],
                      y1 + sizes.i32()[2 * i + 1]}) {
      v.push_back(e);
    }
  }
  return Tensor::from_values({batches, rows, 6}, v, 12);
}

const std::map<std::string, std::function<SpeedupCase()>>& hand_cases() {
  static const std::map<std::string, std::function<SpeedupCase()>> table = {
      {"sum", [] { return hand({{"axis", "(1,)"}}, {t16({64, 64, 64}, 1)}); }},
      {"max", [] { return hand({{"axis", "(1,)"}}, {t16({64, 64, 64}, 2)}); }},
      {"broadcast_add", [] { return hand({}, {t16({256, 1024}, 3), t16({1024}, 4)}); }},
      {"broadcast_sub", [] { return hand({}, {t16({256, 1024}, 3), t16({1024}, 4)}); }},
      {"broadcast_mul", [] { return hand({}, {t16({256, 1024}, 3), t16({1024}, 4)}); }},
      {"broadcast_div", [] { return hand({}, {t16({256, 1024}, 3), t16({256, 1}, 4)}); }},
      {"broadcast_max", [] { return hand({}, {t16({256, 1024}, 3), t16({1024}, 4)}); }},
      {"broadcast_greater", [] { return hand({}, {t16({256, 1024}, 3), t16({1024}, 4)}); }},
      {"abs", [] { return hand({}, {t16({512, 512}, 5)}); }},
      {"negative", [] { return hand({}, {t16({512, 512}, 5)}); }},
      {"cvm_precision", [] { return hand({}, {t16({512, 512}, 5)}); }},
      {"clip", [] { return hand({{"a_min", "-100"}, {"a_max", "100"}}, {t16({512, 512}, 5)}); }},
      {"cvm_clip", [] { return hand({{"precision", "8"}}, {t16({512, 512}, 5)}); }},
      {"cvm_right_shift",
       [] { return hand({{"precision", "8"}, {"shift_bit", "3"}}, {t16({512, 512}, 5)}); }},
      {"cvm_left_shift",
       [] { return hand({{"precision", "24"}, {"shift_bit", "4"}}, {t16({512, 512}, 5)}); }},
      {"elemwise_add", [] { return hand({}, {t16({512, 512}, 5), t16({512, 512}, 6)}); }},
      {"elemwise_sub", [] { return hand({}, {t16({512, 512}, 5), t16({512, 512}, 6)}); }},
      {"conv2d",
       [] {
         return hand({{"channels", "16"}, {"kernel_size", "(3, 3)"}, {"padding", "(1, 1)"},
                      {"use_bias", "false"}},
                     {t8({1, 16, 32, 32}, 7), t8({16, 16, 3, 3}, 8)});
       }},
      {"dense",
       [] {
         return hand({{"units", "256"}, {"use_bias", "false"}},
                     {t8({64, 256}, 9), t8({256, 256}, 10)});
       }},
      {"relu", [] { return hand({}, {t16({512, 512}, 11)}); }},
      {"max_pool2d",
       [] {
         return hand({{"pool_size", "(3, 3)"}, {"strides", "(2, 2)"}, {"padding", "(1, 1)"}},
                     {t16({1, 64, 128, 128}, 12)});
       }},
      {"upsampling", [] { return hand({{"scale", "2"}}, {t16({1, 16, 64, 64}, 13)}); }},
      {"repeat",
       [] { return hand({{"repeats", "2"}, {"axis", "1"}}, {t16({256, 512}, 14)}); }},
      {"tile", [] { return hand({{"reps", "(2, 2)"}}, {t16({256, 256}, 15)}); }},
      {"flatten", [] { return hand({}, {t16({64, 64, 64}, 16)}); }},
      {"concatenate",
       [] { return hand({{"axis", "1"}}, {t16({512, 256}, 17), t16({512, 256}, 18)}); }},
      {"expand_dims", [] { return hand({{"axis", "1"}}, {t16({512, 512}, 19)}); }},
      {"reshape", [] { return hand({{"shape", "(256, -1)"}}, {t16({512, 512}, 20)}); }},
      {"squeeze", [] { return hand({{"axis", "(1,)"}}, {t16({512, 1, 512}, 21)}); }},
      {"transpose", [] { return hand({{"axes", "(2, 0, 1)"}}, {t16({64, 64, 64}, 22)}); }},
      {"strided_slice",
       [] {
         return hand({{"begin", "(1, 1)"}, {"end", "(1023, 1023)"}, {"stride", "(2, 2)"}},
                     {t16({1024, 1024}, 23)});
       }},
      {"take",
       [] {
         return hand({{"axis", "0"}},
                     {t16({1024, 512}, 24), hashed_range({512}, -5, 1030, 12, 25)});
       }},
      {"cvm_lut",
       [] {
         return hand({{"in_dim", "256"}},
                     {hashed_range({512, 512}, -3, 258, 10, 26), t16({256}, 27)});
       }},
      {"slice_like",
       [] { return hand({}, {t16({1024, 1024}, 28), t16({512, 512}, 29)}); }},
      {"where",
       [] {
         return hand({}, {hashed_tensor({512, 512}, 2, 30), t16({512, 512}, 31),
                          t16({512, 512}, 32)});
       }},
      {"pad",
       [] {
         return hand({{"pad_width", "(1, 1, 2, 2)"}, {"constant_value", "-7"}},
                     {t16({512, 512}, 33)});
       }},
      {"get_valid_counts",
       [] { return hand({{"score_threshold", "0"}}, {t16({4, 8192, 8}, 34)}); }},
      {"non_max_suppression",
       [] {
         return hand({{"iou_threshold", "50"}, {"max_output_size", "256"}},
                     {nms_rows(4, 2048), hashed_range({4}, 1900, 2048, 13, 35)});
       }},
      {"ov_strided_slice",
       [] {
         return hand({{"begin", "(0, 0, 0)"}, {"end", "(64, 0, 64)"}, {"stride", "(1, -1, 2)"},
                      {"begin_mask", "(0, 1, 0)"}, {"end_mask", "(0, 1, 0)"}},
                     {t16({64, 64, 64}, 36)});
       }},
  };
  return table;
}

int64_t input_elements(const std::vector<Tensor>& inputs) {
  int64_t n = 0;
  for (const Tensor& t : inputs) n += t.size();
  return n;
}

// The largest valid call among a few draws of the operator's generator record, at the
// generators' largest size (their tensors stay within gen::kMaxElements).
std::optional<SpeedupCase> generated_case(const OpInfo& op) {
  const OpGenerators* gens = generators_for(op);
  if (gens == nullptr) return std::nullopt;
  std::optional<SpeedupCase> best;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    try {
      const Call call = gens->valid(rc::Random(seed), 100).value();
      if (run_op_outcome(registry(), "reference", op.name, call.attrs, call.inputs).kind !=
          OutcomeKind::kOk) {
        continue;
      }
      if (!best || input_elements(call.inputs) > input_elements(best->inputs)) {
        best = SpeedupCase{call.attrs, call.inputs, "generator"};
      }
    } catch (const std::exception&) {
      // A draw that fails to generate: try the next seed.
    }
  }
  return best;
}

// Built once per operator, shared by every benchmark of it.
const std::optional<SpeedupCase>& case_of(const OpInfo& op) {
  static std::map<std::string, std::optional<SpeedupCase>> built;
  auto it = built.find(op.name);
  if (it == built.end()) {
    const auto hand_it = hand_cases().find(op.name);
    it = built.emplace(op.name, hand_it != hand_cases().end()
                                    ? std::optional<SpeedupCase>(hand_it->second())
                                    : generated_case(op))
             .first;
  }
  return it->second;
}

// Empty when the reference accepts the case, else its message (a kernel must never be timed on
// a call that throws).
const std::string& rejection(const OpInfo& op, const SpeedupCase& c) {
  static std::map<std::string, std::string> rejections;
  auto it = rejections.find(op.name);
  if (it == rejections.end()) {
    const Outcome ref = run_op_outcome(registry(), "reference", op.name, c.attrs, c.inputs);
    it = rejections.emplace(op.name, ref.kind == OutcomeKind::kOk ? "" : ref.message).first;
  }
  return it->second;
}

const std::string& verdict(const OpInfo& op, const SpeedupCase& c) {
  static std::map<std::string, std::string> verdicts;
  auto it = verdicts.find(op.name);
  if (it == verdicts.end()) {
    it = verdicts.emplace(op.name, differs_from_reference("optimized", op.name, c.attrs, c.inputs)
                                       .value_or(""))
             .first;
  }
  return it->second;
}

void bench_op(benchmark::State& state, const OpInfo* op, const std::string& backend,
              int threads) {
  set_bench_threads(threads);
  const std::optional<SpeedupCase>& c = case_of(*op);
  if (!c) {
    state.SkipWithError("no benchmark case (no hand-written case, no generator record)");
    return;
  }
  if (!rejection(*op, *c).empty()) {
    state.SkipWithError(("the reference rejects the case: " + rejection(*op, *c)).c_str());
    return;
  }
  if (backend == "optimized") {
    if (!implements("optimized", op->name)) {
      state.SkipWithError("no optimized kernel");
      return;
    }
    const std::string& why = verdict(*op, *c);
    if (!why.empty()) {
      state.SkipWithError(why.c_str());
      return;
    }
  }
  const OpCall call(op->name, c->attrs, c->inputs, backend);
  for (auto _ : state) {
    std::vector<Tensor> y = call.run();
    benchmark::DoNotOptimize(y[0].i32());
  }
  std::string label = c->origin + " case:";
  for (const Tensor& t : c->inputs) {
    label += ' ';  // appended: GCC 12 warns, falsely, on " " + std::string temporaries
    label += shape_str(t.shape());
  }
  state.SetLabel(label);
}

}  // namespace

// Called from main, not at static initialisation: it reads the registry.
void register_speedup_benchmarks() {
  for (const OpInfo& op : registry().ops()) {
    const std::string base = "speedup/" + op.name + "/";
    for (int t : {1, 2}) {
      register_case(base + "ours/t" + std::to_string(t), bench_op, &op, std::string("optimized"),
                    t);
    }
    register_case(base + "reference/t1", bench_op, &op, std::string("reference"), 1);
  }
}

}  // namespace cvm::bench
