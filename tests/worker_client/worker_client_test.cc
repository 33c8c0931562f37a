// The harness's client of external workers (harness/worker_client/worker_client.h,
// harness/worker_client/exec_backend.h): the protocol end to end against `cvmcheck worker`, and
// every planted misbehaviour of planted_workers/broken_worker.cc (in front of the reference)
// caught as the right finding kind, with the worker restarted and the harness going on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "cvmcheck/compare.h"
#include "harness/campaign/campaign.h"
#include "harness/worker_client/exec_backend.h"
#include "harness/worker_client/worker_client.h"
#include "support/paths.h"

namespace cvm {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

// ASan reserves terabytes of address space, so an address-space rlimit would stop a sanitized
// worker at its start; the sanitized build runs its workers unlimited.
WorkerOptions options_for(const std::string& command, double timeout_s = 10) {
  WorkerOptions o;
  o.command = command;
  o.call_timeout_s = timeout_s;
  o.memory_bytes = kAsan ? 0 : int64_t{2} << 30;
  return o;
}

// The planted broken worker in front of the reference, served by `cvmcheck worker`.
std::string broken(const std::string& args) {
  return std::string(CVMCHECK_BROKEN_WORKER) + " " + args + " -- " + CVMCHECK_BINARY +
         " worker --backend reference";
}

// A valid call of `abs` whose reference outcome is ok.
struct AbsCall {
  nlohmann::json attrs = nlohmann::json::object();
  std::vector<Tensor> inputs{Tensor::from_values({2, 3}, {1, -2, 3, -4, 5, -6}, 8)};
};

Outcome reference_abs() {
  AbsCall c;
  return run_op_outcome(registry(), "reference", "abs", c.attrs, c.inputs);
}

Outcome call_abs(WorkerClient& client) {
  AbsCall c;
  return client.call("abs", c.attrs, c.inputs);
}

TEST(WorkerClient, ServedOptimizedAgreesWithInProcessOnEveryExample) {
  WorkerClient client(options_for(std::string(CVMCHECK_BINARY) + " worker --backend optimized"));
  EXPECT_FALSE(client.hello().ops.empty());
  int64_t compared = 0;
  for (const OpInfo& op : registry().ops()) {
    for (const Example& ex : op.examples) {
      std::vector<Tensor> inputs;
      for (const ExampleTensor& t : ex.inputs) inputs.push_back(to_tensor(t));
      const nlohmann::json attrs = parse_attrs_json(ex.attrs_json);
      const Outcome in_process = run_op_outcome(registry(), "optimized", op.name, attrs, inputs);
      const Outcome served = client.call(op.name, attrs, inputs);
      EXPECT_EQ(served.failure, "") << op.name << "/" << ex.name << ": " << served.message;
      EXPECT_EQ(served.rule, in_process.rule) << op.name << "/" << ex.name;  // ids pass through
      const auto diff = compare_outcomes(served, in_process, "worker", "in process");
      EXPECT_FALSE(diff) << op.name << "/" << ex.name << ": " << diff->what;
      ++compared;
    }
  }
  EXPECT_GT(compared, 300);
  EXPECT_EQ(client.restarts(), 0);
}

// The diff engine sends a worker its call before running the reference (begin), and takes the
// reply after (finish). A call begun and never finished (its caller threw) must not put the
// stream out of step: the next begin drops its reply.
TEST(WorkerClient, ABegunCallIsFinishedOrDroppedInStep) {
  WorkerOptions options = options_for(std::string(CVMCHECK_BINARY) + " worker --backend reference");
  options.spin_us = 50;  // the polling path too
  WorkerClient client(options);
  AbsCall c;
  client.begin("abs", c.attrs, c.inputs);
  EXPECT_FALSE(compare_outcomes(client.finish(), reference_abs()));
  client.begin("abs", c.attrs, std::vector<Tensor>{});  // abandoned: a logic_error reply
  client.begin("abs", c.attrs, c.inputs);
  const Outcome in_step = client.finish();
  EXPECT_FALSE(compare_outcomes(in_step, reference_abs())) << in_step.message;
  EXPECT_EQ(client.finish().failure, "protocol_error");  // nothing pending
  EXPECT_EQ(client.restarts(), 0);
  EXPECT_EQ(client.calls(), 3);
}

TEST(WorkerClient, NonStringAttributesReachTheWorkerAsJson) {
  WorkerClient client(options_for(std::string(CVMCHECK_BINARY) + " worker --backend reference"));
  AbsCall c;
  const Outcome out = client.call("abs", nlohmann::json::array({1, 2}), c.inputs);
  EXPECT_EQ(out.failure, "");
  EXPECT_EQ(out.kind, OutcomeKind::kLogicError) << out.message;
}

// Every way a worker can die: a crash finding, then a restarted worker answers the next call.
TEST(WorkerClient, DeathsAreCrashesAndTheWorkerIsRestarted) {
  for (const std::string mode : {"crash", "abort", "exit"}) {
    WorkerClient client(options_for(broken(mode + " --on-call 2")));
    EXPECT_EQ(call_abs(client).failure, "") << mode;
    const Outcome died = call_abs(client);
    EXPECT_EQ(died.failure, "crash") << mode;
    EXPECT_EQ(died.kind, OutcomeKind::kRuntimeError);
    EXPECT_NE(died.message.find(mode == "exit" ? "exited with status 3" : "signal"),
              std::string::npos)
        << died.message;
    const Outcome after = call_abs(client);  // call 1 of the restarted worker
    EXPECT_FALSE(compare_outcomes(after, reference_abs())) << mode << ": " << after.message;
    EXPECT_EQ(client.restarts(), 1) << mode;
  }
}

TEST(WorkerClient, ACallOverTheTimeoutIsAHangAndTheWorkerIsKilled) {
  WorkerClient client(options_for(broken("hang --on-call 1"), /*timeout_s=*/0.3));
  const auto start = std::chrono::steady_clock::now();
  const Outcome hung = call_abs(client);
  EXPECT_EQ(hung.failure, "hang") << hung.message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // The restarted worker hangs again on its first call: still a hang, never a stuck harness.
  EXPECT_EQ(call_abs(client).failure, "hang");
  EXPECT_EQ(client.restarts(), 1);
}

// The hang's message says what the worker was doing when it was killed: blocked (sleeping,
// no CPU) or spinning (running), and with hang_stacks, its stacks in a file beside its log.
TEST(WorkerClient, AHangSaysWhetherTheWorkerWasBlockedOrSpinning) {
  WorkerClient blocked(options_for(broken("hang --on-call 1"), /*timeout_s=*/0.3));
  const Outcome asleep = call_abs(blocked);
  EXPECT_EQ(asleep.failure, "hang");
  EXPECT_NE(asleep.message.find("(it was sleeping, 0.00 CPU-s per s"), std::string::npos)
      << asleep.message;
  // The inner worker behind it, in its process group, is named too (waiting for a call).
  EXPECT_NE(asleep.message.find("; its process "), std::string::npos) << asleep.message;
  WorkerClient spinning(options_for(broken("spin --on-call 1"), /*timeout_s=*/0.3));
  const Outcome busy = call_abs(spinning);
  EXPECT_EQ(busy.failure, "hang");
  EXPECT_NE(busy.message.find("(it was running, "), std::string::npos) << busy.message;
}

TEST(WorkerClient, AHangWithHangStacksWritesTheWorkersStacks) {
  WorkerOptions o = options_for(broken("hang --on-call 1"), /*timeout_s=*/0.3);
  o.hang_stacks = true;
  WorkerClient client(o);
  const std::string stacks = client.log_path() + ".stacks.txt";
  std::filesystem::remove(stacks);
  const Outcome hung = call_abs(client);
  ASSERT_EQ(hung.failure, "hang");
  std::ifstream in(stacks);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(": no reply in time"), std::string::npos) << text;
  // Where gdb attached, the sleeping thread's frames; else the message points at the reason.
  if (hung.message.find("; its stacks: " + stacks) != std::string::npos) {
    EXPECT_NE(text.find("#0 "), std::string::npos) << text;
    EXPECT_NE(text.find("pause"), std::string::npos) << text;
  } else {
    EXPECT_NE(hung.message.find("; no stacks taken, see " + stacks), std::string::npos)
        << hung.message;
  }
  std::filesystem::remove(stacks);
}

TEST(WorkerClient, AMemoryBlowUpIsStoppedByTheRlimit) {
  if (kAsan) GTEST_SKIP() << "an address-space rlimit cannot apply to an ASan worker";
  WorkerOptions o = options_for(broken("memory --on-call 1"));
  o.memory_bytes = int64_t{512} << 20;
  WorkerClient client(o);
  const Outcome out = call_abs(client);
  EXPECT_EQ(out.failure, "crash") << out.message;
}

TEST(WorkerClient, EveryMalformedReplyIsAProtocolErrorNamingWhatWasWrong) {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"bad-length", "frame length"},     {"zero-length", "frame length"},
      {"truncated", "ends inside"},       {"unknown-outcome", "unknown outcome"},
      {"data-size", "data bytes"},        {"unknown-dtype", "unknown dtype"},
      {"oversized-count", "over the limit"}, {"trailing-bytes", "trailing bytes"},
      {"wrong-id", "reply for call"},     {"wrong-type", "message type"}};
  for (const auto& [kind, words] : kinds) {
    WorkerClient client(options_for(broken("garbage " + kind + " --on-call 1")));
    const Outcome out = call_abs(client);
    EXPECT_EQ(out.failure, "protocol_error") << kind << ": " << out.message;
    EXPECT_NE(out.message.find(words), std::string::npos) << kind << ": " << out.message;
    // The worker was stopped; its successor misbehaves on its first call too, but is started.
    call_abs(client);
    EXPECT_EQ(client.restarts(), 1) << kind;
  }
}

TEST(WorkerClient, WrongValuesAndWrongClassesAreOrdinaryDifferences) {
  WorkerClient value(options_for(broken("wrong-value")));
  const auto v = compare_outcomes(call_abs(value), reference_abs());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, "value");

  WorkerClient cls(options_for(broken("wrong-class")));
  AbsCall c;
  c.inputs[0].set_precision(2);  // values beyond precision 2: a logic_error
  const Outcome expected = run_op_outcome(registry(), "reference", "abs", c.attrs, c.inputs);
  ASSERT_EQ(expected.kind, OutcomeKind::kLogicError);
  const auto d = compare_outcomes(cls.call("abs", c.attrs, c.inputs), expected);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "class");
}

TEST(WorkerClient, AWorkerThatFailsItsHandshakeIsAClearError) {
  try {
    WorkerClient client(options_for(broken("bad-handshake")));
    FAIL() << "started";
  } catch (const WorkerStartError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken_worker bad-handshake"), std::string::npos) << what;
    EXPECT_NE(what.find("stderr"), std::string::npos) << what;
  }
  try {
    WorkerClient client(options_for(broken("bad-version")));
    FAIL() << "started";
  } catch (const WorkerStartError& e) {
    EXPECT_NE(std::string(e.what()).find("protocol version 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(WorkerClient(options_for("/nonexistent/worker")), WorkerStartError);
}

// The campaign goes on through a crashing worker: the crash is one finding with a repro that
// names the external backend, and the other calls are compared.
TEST(ExecBackend, ACampaignSurvivesACrashingWorker) {
  ExecSettings settings;
  settings.memory_bytes = kAsan ? 0 : int64_t{2} << 30;
  // A copy of the registry: the crashing backend must not outlive this test in the global one,
  // which later tests (the MRT identities) iterate.
  Registry local = registry();
  const std::string name =
      resolve_backend(local, "exec:" + broken("crash --on-call 40"), settings);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cvmcheck-exec-" + std::to_string(::getpid()));
  CampaignOptions options;
  options.seconds = 60;
  options.max_cases = 200;
  // One operator: the crash then has one signature whichever calls the schedule gives it.
  options.ops = {"abs"};
  options.backends = {name};
  options.seed = 7;
  options.repro_root = dir.string();
  options.shrink_seconds = 0;
  const CampaignResult result = run_campaign(local, options, nullptr);
  EXPECT_EQ(result.calls, 200);
  ASSERT_EQ(result.findings.size(), 1u);
  const Finding& f = result.findings[0];
  EXPECT_NE(f.key.find("|crash"), std::string::npos) << f.key;
  EXPECT_GE(f.calls, 4);  // call 40 of each restarted worker
  EXPECT_NE(f.summary.find("__REPRO: cvmcheck run"), std::string::npos);
  EXPECT_NE(f.summary.find("--backend 'exec:"), std::string::npos) << f.summary;
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(f.repro_dir) / "case.json"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cvm
