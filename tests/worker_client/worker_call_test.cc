// The in-process side of the worker protocol (harness/worker_client/worker_tensor.h,
// harness/worker_client/worker_call.h): tensors, attributes and outcomes convert both ways
// without loss, a call served over the protocol gets the outcome run_op_outcome gives in process,
// and inputs that cvm::Tensor cannot hold (over the limits) become logic_error replies, never a
// crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "cvmcheck/compare.h"
#include "cvmcheck/errors.h"
#include "harness/worker_client/worker_call.h"
#include "harness/worker_client/worker_tensor.h"

namespace cvm {
namespace {

namespace wp = cvmcheck_worker;

TEST(WorkerTensor, ConvertsBothWaysWithoutLoss) {
  const Tensor a = Tensor::from_values({2, 2}, {-128, 127, 0, -1}, 8, DType::kInt8);
  const Tensor b = Tensor::from_values({1, 3}, {-2147483647, 2147483647, 5}, 32);
  for (const Tensor& t : {a, b}) {
    const wp::Tensor p = to_protocol(t);
    EXPECT_EQ(p.shape, t.shape());
    EXPECT_EQ(p.precision, t.precision());
    EXPECT_EQ(p.values(), t.values());
    EXPECT_TRUE(from_protocol(p).identical(t));
  }
  EXPECT_EQ(to_protocol(a).dtype, wp::DType::kInt8);
  EXPECT_EQ(to_protocol(b).dtype, wp::DType::kInt32);
}

TEST(WorkerTensor, ShapesOverTheLimitsAreLogicErrorsNamingTheTensor) {
  wp::Tensor t = wp::Tensor::int32({}, {7}, 8);  // 0 dims
  EXPECT_THROW(from_protocol(t, "input 0"), LogicError);
  t.shape = {1, 1, 1, 1, 1, 1, 1};  // 7 dims
  EXPECT_THROW(from_protocol(t), LogicError);
  t.shape = {0};
  t.data.clear();
  EXPECT_THROW(from_protocol(t), LogicError);
  t.shape = {int64_t{1} << 25};  // a dim over 2^24: refused before the data size is looked at
  try {
    from_protocol(t, "input 3");
    ADD_FAILURE() << "accepted a dim over 2^24";
  } catch (const LogicError& e) {
    EXPECT_NE(std::string(e.what()).find("input 3"), std::string::npos) << e.what();
  }
  // The codec's own bound, 16 dims of 2^31: a product that overflows int64 if computed first.
  t.shape.assign(16, int64_t{1} << 31);
  EXPECT_THROW(from_protocol(t), LogicError);
}

TEST(WorkerTensor, DataNotMatchingTheShapeIsAProtocolError) {
  wp::Tensor t = wp::Tensor::int32({3}, {1, 2, 3}, 8);
  t.data.pop_back();
  EXPECT_THROW(from_protocol(t), wp::ProtocolError);
}

TEST(WorkerAttrs, StringObjectsTravelAsPairsInKeyOrderAndAnythingElseAsJson) {
  const nlohmann::json strings = {{"b", "2"}, {"a", "(1,)"}};
  const wp::Attrs pairs = attrs_to_protocol(strings);
  ASSERT_TRUE(pairs.is_string_object);
  EXPECT_EQ(pairs.pairs, (std::vector<std::pair<std::string, std::string>>{{"a", "(1,)"},
                                                                           {"b", "2"}}));
  EXPECT_EQ(attrs_from_protocol(pairs), strings);
  EXPECT_TRUE(attrs_to_protocol(nlohmann::json::object()).is_string_object);

  for (const char* text : {R"({"axis": 1})", "[1, 2]", "null", "\"axis\"", R"({"a": "1", "b": null})"}) {
    const nlohmann::json value = nlohmann::json::parse(text);
    const wp::Attrs json = attrs_to_protocol(value);
    EXPECT_FALSE(json.is_string_object) << text;
    EXPECT_EQ(attrs_from_protocol(json), value) << text;
  }
}

TEST(WorkerAttrs, MalformedJsonAndRepeatedKeysAreLogicErrors) {
  wp::Attrs json;
  json.is_string_object = false;
  json.json = "{not json";
  EXPECT_THROW(attrs_from_protocol(json), LogicError);
  wp::Attrs twice;
  twice.pairs = {{"axis", "1"}, {"axis", "2"}};
  EXPECT_THROW(attrs_from_protocol(twice), LogicError);
}

TEST(WorkerReply, OutcomesConvertBothWays) {
  Outcome ok;
  ok.outputs = {Tensor::from_values({2}, {3, -4}, 5)};
  const Outcome back = outcome_from_reply(reply_from_outcome(ok));
  EXPECT_FALSE(compare_outcomes(back, ok).has_value());
  for (const OutcomeKind kind : {OutcomeKind::kLogicError, OutcomeKind::kRuntimeError}) {
    Outcome error;
    error.kind = kind;
    error.message = "abs: something";
    const wp::Reply reply = reply_from_outcome(error);
    EXPECT_EQ(reply.message, error.message);
    EXPECT_TRUE(reply.rule.empty());
    const Outcome again = outcome_from_reply(reply);
    EXPECT_EQ(again.kind, kind);
    EXPECT_EQ(again.message, error.message);
  }
}

TEST(WorkerServe, AnnouncesEveryImplementedOperatorWithItsAliases) {
  const std::vector<std::string> names = served_op_names(registry(), "reference");
  for (const OpInfo& op : registry().ops()) {
    EXPECT_NE(std::find(names.begin(), names.end(), op.name), names.end()) << op.name;
    for (const std::string& alias : op.aliases) {
      EXPECT_NE(std::find(names.begin(), names.end(), alias), names.end()) << alias;
    }
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "slice"), names.end());
  EXPECT_TRUE(served_op_names(registry(), "no such backend").empty());
}

// Every worked and negative example of every operator, served over the protocol types, gets
// the outcome it gets in process (class, and for ok every output bit for bit).
TEST(WorkerServe, EveryExampleGetsTheInProcessOutcome) {
  int compared = 0;
  for (const OpInfo& op : registry().ops()) {
    for (const Example& e : op.examples) {
      const nlohmann::json attrs = parse_attrs_json(e.attrs_json);
      std::vector<Tensor> inputs;
      wp::Call call;
      call.id = 5;
      call.op = op.name;
      call.attrs = attrs_to_protocol(attrs);
      for (const ExampleTensor& x : e.inputs) {
        inputs.push_back(to_tensor(x));
        call.inputs.push_back(to_protocol(inputs.back()));
      }
      const Outcome expected = run_op_outcome(registry(), "reference", op.name, attrs, inputs);
      const Outcome served = outcome_from_reply(serve_call(registry(), "reference", call));
      const auto difference = compare_outcomes(served, expected);
      EXPECT_FALSE(difference.has_value()) << op.name << "/" << e.name << ": "
                                           << difference->what;
      ++compared;
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(WorkerServe, InputsThatTensorsCannotHoldAreLogicErrorReplies) {
  wp::Call call;
  call.op = "abs";
  call.inputs = {wp::Tensor::int32({}, {1}, 8)};  // 0 dims
  wp::Reply reply = serve_call(registry(), "reference", call);
  EXPECT_EQ(reply.outcome, wp::Outcome::kLogicError) << reply.message;
  EXPECT_NE(reply.message.find("abs: input 0"), std::string::npos) << reply.message;

  call.inputs = {wp::Tensor::int32({1, 1, 1, 1, 1, 1, 1}, {1}, 8)};  // 7 dims
  EXPECT_EQ(serve_call(registry(), "reference", call).outcome, wp::Outcome::kLogicError);

  call.inputs = {wp::Tensor::int32({2}, {1, 2}, 8)};
  call.attrs.is_string_object = false;
  call.attrs.json = "{broken";
  EXPECT_EQ(serve_call(registry(), "reference", call).outcome, wp::Outcome::kLogicError);
  call.attrs.json = R"({"x": 1})";  // valid JSON, not an object of strings
  EXPECT_EQ(serve_call(registry(), "reference", call).outcome, wp::Outcome::kLogicError);

  call.attrs = wp::Attrs{};
  EXPECT_EQ(serve_call(registry(), "no such backend", call).outcome, wp::Outcome::kRuntimeError);
}

}  // namespace
}  // namespace cvm
