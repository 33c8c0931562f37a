// Workers as processes, over pipes: `cvmcheck worker` answers every example as the reference
// does in process; the example workers (C++ and Python) agree with the reference on every
// example of the operators they implement; the Python helper turns handler failures into the
// right replies; and each mode of the planted broken worker misbehaves exactly as it says, so
// the client's tests that use it test what they claim.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "registry/registry.h"
#include "cvmcheck/compare.h"
#include "harness/worker_client/worker_call.h"
#include "harness/worker_client/worker_tensor.h"
#include "support/worker_process.h"
#include "support/paths.h"

namespace cvm {
namespace {

namespace wp = cvmcheck_worker;
using testing::WorkerProcess;

// Debian's, with python3-numpy (ci/setup.sh); CVMCHECK_PYTHON names another with numpy (the GPU
// bundle's run picks one).
const std::string kPython = CVMCHECK_PYTHON;
const std::string kPythonWorker =
    std::string(CVMCHECK_SOURCE_DIR) + "/worker_sdk/examples/python_worker.py";

wp::Call call_of(const OpInfo& op, const Example& e, uint64_t id) {
  wp::Call call;
  call.id = id;
  call.op = op.name;
  call.attrs = attrs_to_protocol(parse_attrs_json(e.attrs_json));
  for (const ExampleTensor& x : e.inputs) call.inputs.push_back(to_protocol(to_tensor(x)));
  return call;
}

Outcome in_process(const wp::Call& call) {
  std::vector<Tensor> inputs;
  for (const wp::Tensor& x : call.inputs) inputs.push_back(from_protocol(x));
  return run_op_outcome(registry(), "reference", call.op, attrs_from_protocol(call.attrs), inputs);
}

// Every example of every operator the worker announces goes through it and must get the
// reference's in-process outcome. Returns how many were compared.
int expect_examples_agree(WorkerProcess& worker, const std::vector<std::string>& announced) {
  int compared = 0;
  uint64_t id = 100;
  for (const OpInfo& op : registry().ops()) {
    if (std::find(announced.begin(), announced.end(), op.name) == announced.end()) continue;
    for (const Example& e : op.examples) {
      const wp::Call call = call_of(op, e, ++id);
      const wp::Reply reply = worker.call(call);
      EXPECT_EQ(reply.id, id);
      const auto difference = compare_outcomes(outcome_from_reply(reply), in_process(call));
      EXPECT_FALSE(difference.has_value())
          << op.name << "/" << e.name << ": " << difference->what << " (" << reply.message << ")";
      ++compared;
    }
  }
  return compared;
}

void expect_clean_exit(WorkerProcess& worker) {
  ASSERT_TRUE(worker.send(wp::encode_bye()));
  const std::optional<int> status = worker.wait();
  ASSERT_TRUE(status.has_value()) << "the worker did not exit after bye";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << "status " << *status;
}

TEST(WorkerCommand, ServesEveryExampleOfEveryOperatorAsTheReferenceDoesInProcess) {
  WorkerProcess worker({CVMCHECK_BINARY, "worker", "--backend", "reference"});
  const wp::Hello hello = worker.handshake();
  EXPECT_EQ(hello.version, wp::kProtocolVersion);
  EXPECT_EQ(hello.name, "reference");
  // Built-in backends report rule ids and run whole models.
  EXPECT_EQ(hello.flags, cvmcheck_worker::kFlagReportsRules | cvmcheck_worker::kFlagGraphs);
  EXPECT_EQ(hello.ops, served_op_names(registry(), "reference"));
  EXPECT_GT(expect_examples_agree(worker, hello.ops), 100);

  // An alias and an unknown name, as a graph file may spell them.
  const OpInfo& strided_slice = registry().op("strided_slice");
  wp::Call alias = call_of(strided_slice, strided_slice.examples.front(), 1);
  alias.op = "slice";
  EXPECT_FALSE(compare_outcomes(outcome_from_reply(worker.call(alias)), in_process(alias)));
  alias.op = "no_such_op";
  EXPECT_EQ(worker.call(alias).outcome, wp::Outcome::kLogicError);
  expect_clean_exit(worker);
}

TEST(WorkerCommand, AnUnknownBackendIsAUsageErrorBeforeAnyFrame) {
  WorkerProcess worker({CVMCHECK_BINARY, "worker", "--backend", "no-such-backend"});
  std::string payload;
  EXPECT_EQ(worker.receive(payload), WorkerProcess::Got::kEnd);
  const std::optional<int> status = worker.wait();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 2) << *status;
}

TEST(WorkerCommand, AMalformedCallEndsTheWorkerWithStatus4) {
  WorkerProcess worker({CVMCHECK_BINARY, "worker", "--backend", "reference"});
  worker.handshake();
  ASSERT_TRUE(worker.send(std::string("\x03\x00\x00\x00" "Cxx", 7)));  // a call cut short
  std::string payload;
  EXPECT_EQ(worker.receive(payload), WorkerProcess::Got::kEnd);
  const std::optional<int> status = worker.wait();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 4) << *status;
}

TEST(ExampleWorkers, TheCppWorkerAgreesWithTheReferenceOnItsOperatorsExamples) {
  WorkerProcess worker({CVMCHECK_EXAMPLE_CPP_WORKER});
  const wp::Hello hello = worker.handshake();
  EXPECT_EQ(hello.ops, (std::vector<std::string>{"abs", "negative", "clip", "cvm_clip"}));
  EXPECT_GT(expect_examples_agree(worker, hello.ops), 8);
  expect_clean_exit(worker);
}

TEST(ExampleWorkers, ThePythonWorkerAgreesWithTheReferenceOnItsOperatorsExamples) {
  WorkerProcess worker({kPython, kPythonWorker});
  const wp::Hello hello = worker.handshake();
  EXPECT_EQ(hello.ops, (std::vector<std::string>{"abs", "negative", "clip", "cvm_clip",
                                                 "elemwise_add", "sum"}));
  EXPECT_GT(expect_examples_agree(worker, hello.ops), 12);
  expect_clean_exit(worker);
}

// A handler that fails in each way the helper must translate.
const char* const kFailingPythonWorker = R"(
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import cvmcheck_worker as cw
def handle(call):
    print("a stray print goes to the log, not into a frame")
    if call.op == "logic":
        raise cw.LogicError("bad input", rule="x.rule")
    if call.op == "crash":
        raise KeyError("oops")
    if call.op == "float":
        return [cw.Tensor(np.zeros(2), 8)]
    if call.op == "wide":
        return [cw.Tensor(np.array([1 << 40]), 8)]
    if call.op == "attrs":
        return [cw.Tensor(np.array([len(call.attrs or {}), call.attrs_json is None]), 8)]
    return [cw.Tensor(call.inputs[0].array.astype(np.int64) * 2, call.inputs[0].precision)]
sys.exit(cw.serve("failing", ["twice"], handle, flags=cw.FLAG_REPORTS_RULES))
)";

TEST(PythonHelper, HandlerFailuresBecomeTheRightReplies) {
  WorkerProcess worker({kPython, "-c", kFailingPythonWorker,
                        std::string(CVMCHECK_SOURCE_DIR) + "/worker_sdk/python"});
  const wp::Hello hello = worker.handshake();
  EXPECT_EQ(hello.name, "failing");
  EXPECT_EQ(hello.flags, wp::kFlagReportsRules);

  wp::Call call;
  call.op = "twice";
  wp::Tensor x;
  x.dtype = wp::DType::kInt8;
  x.shape = {3};
  x.precision = 7;
  x.data = {1, 0xfe, 0x3f};  // 1, -2, 63
  call.inputs = {x};
  wp::Reply reply = worker.call(call);
  ASSERT_EQ(reply.outcome, wp::Outcome::kOk) << reply.message;
  ASSERT_EQ(reply.outputs.size(), 1u);
  EXPECT_EQ(reply.outputs[0].dtype, wp::DType::kInt32);  // int64 narrowed: every value fits
  EXPECT_EQ(reply.outputs[0].shape, std::vector<int64_t>{3});
  EXPECT_EQ(reply.outputs[0].values(), (std::vector<int32_t>{2, -4, 126}));
  EXPECT_EQ(reply.outputs[0].precision, 7);

  call.op = "logic";
  reply = worker.call(call);
  EXPECT_EQ(reply.outcome, wp::Outcome::kLogicError);
  EXPECT_EQ(reply.message, "bad input");
  EXPECT_EQ(reply.rule, "x.rule");
  for (const char* op : {"crash", "float", "wide"}) {
    call.op = op;
    reply = worker.call(call);
    EXPECT_EQ(reply.outcome, wp::Outcome::kRuntimeError) << op;
  }
  call.op = "attrs";
  call.attrs.pairs = {{"a", "1"}, {"b", "2"}};
  EXPECT_EQ(worker.call(call).outputs.at(0).values(), (std::vector<int32_t>{2, 1}));
  call.attrs.is_string_object = false;
  call.attrs.json = "[1]";
  EXPECT_EQ(worker.call(call).outputs.at(0).values(), (std::vector<int32_t>{0, 0}));
  expect_clean_exit(worker);
}

// ---------------------------------------------------------------------------------------------
// The planted broken worker.

wp::Call abs_call(uint64_t id) {
  wp::Call call;
  call.id = id;
  call.op = "abs";
  call.inputs = {wp::Tensor::int32({2}, {-3, 4}, 8)};
  return call;
}

// The planted broken worker in front of the reference, served by `cvmcheck worker`.
WorkerProcess broken(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {CVMCHECK_BROKEN_WORKER};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--", CVMCHECK_BINARY, "worker", "--backend", "reference"});
  return WorkerProcess(argv);
}

// After one correct call (mode --on-call 2), the second call's reply never comes and the
// worker ends with `expected` (a wait status predicate).
void expect_dies_on_second_call(const std::string& mode, bool (*expected)(int), const char* what) {
  WorkerProcess worker = broken({mode, "--on-call", "2"});
  worker.handshake();
  EXPECT_EQ(worker.call(abs_call(1)).outputs.at(0).values(), (std::vector<int32_t>{3, 4}));
  ASSERT_TRUE(worker.send(wp::encode_call(abs_call(2))));
  std::string payload;
  EXPECT_EQ(worker.receive(payload), WorkerProcess::Got::kEnd) << mode;
  const std::optional<int> status = worker.wait();
  ASSERT_TRUE(status.has_value()) << mode;
  EXPECT_TRUE(expected(*status)) << mode << ": status " << *status << ", expected " << what;
}

TEST(BrokenWorker, CrashAbortAndExitEndTheProcessOnTheChosenCall) {
  expect_dies_on_second_call(
      "crash", [](int s) { return WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV; }, "SIGSEGV");
  expect_dies_on_second_call(
      "abort", [](int s) { return WIFSIGNALED(s) && WTERMSIG(s) == SIGABRT; }, "SIGABRT");
  expect_dies_on_second_call(
      "exit", [](int s) { return WIFEXITED(s) && WEXITSTATUS(s) == 3; }, "exit status 3");
}

TEST(BrokenWorker, HangNeverAnswers) {
  WorkerProcess worker = broken({"hang"});
  worker.handshake();
  ASSERT_TRUE(worker.send(wp::encode_call(abs_call(1))));
  std::string payload;
  EXPECT_EQ(worker.receive(payload, 500), WorkerProcess::Got::kTimeout);
  EXPECT_FALSE(worker.wait(0).has_value());  // still running; the destructor kills it
}

int64_t resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

TEST(BrokenWorker, MemoryGrowsWithoutBound) {
  WorkerProcess worker = broken({"memory"});
  worker.handshake();
  ASSERT_TRUE(worker.send(wp::encode_call(abs_call(1))));
  // Watched, not limited: an address-space limit would also stop a sanitizer build's worker
  // from starting. 512 MiB resident is well past anything a call here needs.
  int64_t kib = 0;
  for (int i = 0; i < 400 && kib < 512 * 1024; ++i) {
    std::string payload;
    ASSERT_EQ(worker.receive(payload, 25), WorkerProcess::Got::kTimeout);
    kib = resident_kib(worker.pid());
  }
  EXPECT_GE(kib, 512 * 1024);
  worker.kill();
}

TEST(BrokenWorker, WrongValueFlipsOneOutputValue) {
  WorkerProcess worker = broken({"wrong-value"});
  worker.handshake();
  const wp::Reply reply = worker.call(abs_call(1));
  ASSERT_EQ(reply.outcome, wp::Outcome::kOk);
  EXPECT_EQ(reply.outputs.at(0).values(), (std::vector<int32_t>{2, 4}));  // 3 ^ 1
  expect_clean_exit(worker);
}

TEST(BrokenWorker, WrongClassSwapsTheErrorClass) {
  WorkerProcess worker = broken({"wrong-class"});
  worker.handshake();
  wp::Call bad = abs_call(1);
  bad.inputs[0].precision = 40;  // a logic_error in the reference
  EXPECT_EQ(worker.call(bad).outcome, wp::Outcome::kRuntimeError);
  EXPECT_EQ(worker.call(abs_call(2)).outcome, wp::Outcome::kOk);  // ok replies untouched
  expect_clean_exit(worker);
}

// The ProtocolError the client sees for call 1's reply of `garbage KIND`.
std::string garbage_error(const std::string& kind) {
  WorkerProcess worker = broken({"garbage", kind});
  worker.handshake();
  try {
    const wp::Reply reply = worker.call(abs_call(1));
    if (reply.id != 1) return "reply id " + std::to_string(reply.id) + " for call 1";
    return "no error";
  } catch (const wp::ProtocolError& e) {
    return e.what();
  }
}

TEST(BrokenWorker, EachGarbageKindIsTheProtocolErrorItNames) {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"bad-length", "frame length 4294967295 out of range"},
      {"zero-length", "frame length 0 out of range"},
      {"truncated", "stream ends inside a frame"},
      {"unknown-outcome", "unknown outcome code 7"},
      {"data-size", "12 data bytes for 2 elements of int32"},
      {"unknown-dtype", "unknown dtype code 9"},
      {"oversized-count", "outputs count 65537 over the limit"},
      {"trailing-bytes", "4 trailing bytes after the reply"},
      {"wrong-id", "reply id 2 for call 1"},
      {"wrong-type", "message type 'H' where 'R' was expected"},
  };
  for (const auto& [kind, error] : kinds) {
    const std::string got = garbage_error(kind);
    EXPECT_NE(got.find(error), std::string::npos) << kind << ": got '" << got << "'";
  }
}

TEST(BrokenWorker, BadHandshakeAndBadVersion) {
  {
    WorkerProcess worker = broken({"bad-handshake"});
    EXPECT_THROW(worker.handshake(), wp::ProtocolError);
    const std::optional<int> status = worker.wait();
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 1) << *status;
  }
  WorkerProcess worker = broken({"bad-version"});
  EXPECT_EQ(worker.handshake().version, wp::kProtocolVersion + 1);
}

TEST(BrokenWorker, AnUnknownModeIsAUsageError) {
  WorkerProcess worker = broken({"no-such-mode"});
  const std::optional<int> status = worker.wait();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 2) << *status;
}

}  // namespace
}  // namespace cvm
