// Kernel paths over the worker protocol (kFlagPaths, docs/backend-protocol.md), on both sides:
// `cvmcheck worker`'s server (serve_backend) declares a backend's paths and reports each call's
// Outcome::paths; the harness's exec backend takes a worker's declared paths as Backend::paths
// (defined in the path table) and each reply's as Outcome::paths, by call and by begin/finish;
// a malformed path field is a protocol_error; a worker without the flag reports none.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cvmcheck/paths.h"
#include "harness/worker_client/exec_backend.h"
#include "harness/worker_client/worker_call.h"
#include "harness/worker_client/worker_tensor.h"
#include "ops/schema.h"
#include "reference/kernels.h"
#include "registry/registry.h"
#include "support/paths.h"

namespace cvm {
namespace {

namespace wp = cvmcheck_worker;

// A planted backend whose abs marks a path on every call and another when an input is below
// zero, then runs the reference's abs: a kernel reporting paths whatever the built-in kernels
// do. Its paths are defined when a test first builds it, not when the test binary starts.
Registry planted_paths_registry() {
  static const int any = paths::define("planted.abs.any", "abs", "every call of the planted abs");
  static const int negative =
      paths::define("planted.abs.negative", "abs,negative", "an input below zero");
  Registry r;
  ops::add_all_ops(r);
  r.add_backend(ref::make_backend());
  const Kernel abs = r.find_backend("reference")->kernels.at("abs");
  Backend b;
  b.name = "planted-paths";
  b.add("abs", [abs](const OpContext& ctx) {
    paths::hit(any);
    const Tensor& x = ctx.inputs.at(0);
    for (int64_t i = 0; i < x.size(); ++i) paths::hit_if(x.get(i) < 0, negative);
    return abs(ctx);
  });
  b.paths = {"planted.abs.any", "planted.abs.negative", "planted.never.defined",
             "planted.abs.other_isa"};
  b.unreachable_paths = {{"planted.abs.other_isa", "an ISA this CPU lacks"}};
  r.add_backend(std::move(b));
  return r;
}

wp::Call abs_call(uint64_t id, std::vector<int32_t> values, int32_t precision) {
  wp::Call call;
  call.id = id;
  call.op = "abs";
  call.inputs = {wp::Tensor::int32({static_cast<int64_t>(values.size())}, values, precision)};
  return call;
}

// serve_backend on pipes in a thread, driven over the codec as the harness drives a worker.
class InProcessWorker {
 public:
  InProcessWorker(const Registry& registry, const std::string& backend) {
    EXPECT_EQ(::pipe(to_), 0);
    EXPECT_EQ(::pipe(from_), 0);
    thread_ = std::thread([this, &registry, backend] {
      status_ = serve_backend(registry, backend, to_[0], from_[1]);
    });
  }
  ~InProcessWorker() {
    if (thread_.joinable()) bye();
    for (int fd : {to_[0], from_[0], from_[1]}) ::close(fd);
  }
  wp::Hello handshake() {
    wp::write_all(to_[1], wp::encode_hello(wp::Hello{}));
    hello_ = wp::decode_hello(next());
    return hello_;
  }
  wp::Reply call(const wp::Call& call) {
    wp::write_all(to_[1], wp::encode_call(call));
    return wp::decode_reply(next(), hello_.flags);
  }
  // The reply as bytes, to check that nothing follows a reply without the flag.
  std::string raw_call(const wp::Call& call) {
    wp::write_all(to_[1], wp::encode_call(call));
    return next();
  }
  int bye() {
    wp::write_all(to_[1], wp::encode_bye());
    ::close(to_[1]);
    thread_.join();
    return status_;
  }

 private:
  std::string next() {
    std::string payload;
    if (!wp::read_frame(from_[0], payload)) throw wp::ProtocolError("the server ended");
    return payload;
  }
  int to_[2] = {-1, -1};
  int from_[2] = {-1, -1};
  std::thread thread_;
  int status_ = -1;
  wp::Hello hello_;
};

TEST(WorkerPaths, TheServerDeclaresABackendsPathsAndReportsEachCalls) {
  const Registry registry = planted_paths_registry();
  InProcessWorker worker(registry, "planted-paths");
  const wp::Hello hello = worker.handshake();
  EXPECT_EQ(hello.flags, wp::kFlagReportsRules | wp::kFlagPaths);
  EXPECT_EQ(hello.ops, served_op_names(registry, "planted-paths"));
  ASSERT_EQ(hello.paths.size(), 3u);
  EXPECT_EQ(hello.paths[0].id, "planted.abs.any");
  EXPECT_EQ(hello.paths[0].ops, "abs");
  EXPECT_EQ(hello.paths[0].description, "every call of the planted abs");
  EXPECT_EQ(hello.paths[1].ops, "abs,negative");
  EXPECT_EQ(hello.paths[2].id, "planted.never.defined");  // declared, never defined: no details
  EXPECT_EQ(hello.paths[2].ops, "");  // and the unreachable one is not declared

  wp::Reply reply = worker.call(abs_call(1, {1, 2}, 4));
  ASSERT_EQ(reply.outcome, wp::Outcome::kOk) << reply.message;
  EXPECT_EQ(reply.paths, (std::vector<std::string>{"planted.abs.any"}));
  reply = worker.call(abs_call(2, {1, -2}, 4));
  EXPECT_EQ(reply.outputs.at(0).values(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(reply.paths, (std::vector<std::string>{"planted.abs.any", "planted.abs.negative"}));
  reply = worker.call(abs_call(3, {-1}, 40));  // precision over the limit: a logic_error
  EXPECT_EQ(reply.outcome, wp::Outcome::kLogicError);
  EXPECT_EQ(reply.paths, (std::vector<std::string>{"planted.abs.any", "planted.abs.negative"}));
  wp::Call unknown = abs_call(4, {1}, 4);
  unknown.op = "no_such_op";  // refused before any kernel runs: no path
  reply = worker.call(unknown);
  EXPECT_EQ(reply.outcome, wp::Outcome::kLogicError);
  EXPECT_TRUE(reply.paths.empty());
  EXPECT_EQ(worker.bye(), 0);
}

TEST(WorkerPaths, ABackendDeclaringNoPathsIsServedWithoutTheFlag) {
  const Registry registry = planted_paths_registry();
  InProcessWorker worker(registry, "reference");
  const wp::Hello hello = worker.handshake();
  EXPECT_EQ(hello.flags, wp::kFlagReportsRules);
  EXPECT_TRUE(hello.paths.empty());
  const std::string reply = worker.raw_call(abs_call(1, {-3}, 4));
  EXPECT_EQ(wp::decode_reply(reply).outputs.at(0).values(), std::vector<int32_t>{3});  // no field
  EXPECT_EQ(worker.bye(), 0);
}

// ---------------------------------------------------------------------------------------------
// The harness's side, against workers in other processes.

// A Python worker (worker_sdk/python) declaring paths, one twice; "bad" reports an empty id.
const char* const kPathsPythonWorker = R"(
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import cvmcheck_worker as cw
def handle(call):
    x = call.inputs[0]
    cw.hit_path("py.abs.any")
    if (x.array < 0).any():
        cw.hit_path("py.abs.negative")
    if x.precision > 30:
        raise cw.LogicError("precision over 30")
    if x.precision == 29:
        cw.hit_path("")
    return [cw.Tensor(np.abs(x.array.astype(np.int32)), x.precision)]
declared = [cw.PathDecl("py.abs.any", "abs", "every call"),
            cw.PathDecl("py.abs.negative", "abs,negative", "an input below zero"),
            cw.PathDecl("py.abs.any", "abs", "declared twice: listed once")]
sys.exit(cw.serve("py-paths", ["abs"], handle, paths=declared))
)";

std::string python_worker_command() {
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() /
      ("cvmcheck-paths-worker-" + std::to_string(::getpid()) + ".py");
  std::ofstream(script) << kPathsPythonWorker;
  return shell_quote(CVMCHECK_PYTHON) + " " + shell_quote(script.string()) + " " +
         shell_quote(std::string(CVMCHECK_SOURCE_DIR) + "/worker_sdk/python");
}

ExecSettings exec_settings() {
  ExecSettings settings;
  settings.memory_bytes = 0;  // a sanitizer build's worker reserves terabytes of address space
  return settings;
}

std::vector<Tensor> abs_input(std::vector<int32_t> values, int precision) {
  return {Tensor::from_values({static_cast<int64_t>(values.size())}, values, precision)};
}

TEST(WorkerPaths, AnExecBackendTakesAWorkersDeclaredAndReportedPaths) {
  Registry local = registry();  // the worker's backend must not outlive the test in the global one
  const std::string name =
      resolve_backend(local, "exec:" + python_worker_command(), exec_settings());
  const Backend* b = local.find_backend(name);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->paths, (std::vector<std::string>{"py.abs.any", "py.abs.negative"}));
  const PathInfo* negative = paths::find("py.abs.negative");
  ASSERT_NE(negative, nullptr);
  EXPECT_EQ(negative->ops, (std::vector<std::string>{"abs", "negative"}));
  EXPECT_EQ(negative->description, "an input below zero");

  const nlohmann::json attrs = nlohmann::json::object();
  Outcome out = run_op_outcome(local, name, "abs", attrs, abs_input({1, -2}, 4));
  ASSERT_EQ(out.kind, OutcomeKind::kOk) << out.message;
  EXPECT_EQ(out.paths, (std::vector<std::string>{"py.abs.any", "py.abs.negative"}));
  out = b->external_begin("abs", attrs, abs_input({5}, 4))();  // the diff engine's split call
  ASSERT_EQ(out.kind, OutcomeKind::kOk) << out.message;
  EXPECT_EQ(out.paths, std::vector<std::string>{"py.abs.any"});
  out = run_op_outcome(local, name, "abs", attrs, abs_input({-1}, 31));
  EXPECT_EQ(out.kind, OutcomeKind::kLogicError);
  EXPECT_EQ(out.paths, (std::vector<std::string>{"py.abs.any", "py.abs.negative"}));

  out = run_op_outcome(local, name, "abs", attrs, abs_input({1}, 29));  // an empty path id
  EXPECT_EQ(out.failure, "protocol_error");
  EXPECT_NE(out.message.find("reply path id of 0 bytes"), std::string::npos) << out.message;
  out = run_op_outcome(local, name, "abs", attrs, abs_input({-7}, 4));  // restarted, in step
  ASSERT_EQ(out.kind, OutcomeKind::kOk) << out.message;
  EXPECT_EQ(out.paths, (std::vector<std::string>{"py.abs.any", "py.abs.negative"}));
}

TEST(WorkerPaths, AWorkerWithoutTheFlagDeclaresAndReportsNone) {
  Registry local = registry();
  const std::string name =
      resolve_backend(local, std::string("exec:") + CVMCHECK_EXAMPLE_CPP_WORKER, exec_settings());
  EXPECT_TRUE(local.find_backend(name)->paths.empty());
  const Outcome out =
      run_op_outcome(local, name, "abs", nlohmann::json::object(), abs_input({-1, 2}, 4));
  ASSERT_EQ(out.kind, OutcomeKind::kOk) << out.message;
  EXPECT_EQ(out.outputs.at(0).values(), (std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(out.paths.empty());
}

// `cvmcheck worker --backend B` end to end, for the first built-in backend that declares paths
// (skipped while none does): the exec backend declares what B declares and can reach, and every
// example call reports through the worker the paths it reports in process.
TEST(WorkerPaths, CvmcheckWorkerCarriesABuiltInBackendsPaths) {
  std::string served;
  for (const Backend& b : registry().backends()) {
    if (served.empty() && b.available && !b.paths.empty()) served = b.name;
  }
  if (served.empty()) GTEST_SKIP() << "no built-in backend declares kernel paths yet";
  Registry local = registry();
  const std::string name = resolve_backend(
      local, "exec:" + shell_quote(CVMCHECK_BINARY) + " worker --backend " + served,
      exec_settings());
  std::vector<std::string> reachable;  // what it declares: the unreachable ones are left out
  for (const std::string& id : local.find_backend(served)->paths) {
    if (local.find_backend(served)->unreachable_paths.count(id) == 0) reachable.push_back(id);
  }
  EXPECT_EQ(local.find_backend(name)->paths, reachable);
  int with_paths = 0;
  for (const OpInfo& op : local.ops()) {
    if (!local.find_backend(served)->implements(op.name)) continue;
    for (const Example& e : op.examples) {
      std::vector<Tensor> inputs;
      for (const ExampleTensor& x : e.inputs) inputs.push_back(to_tensor(x));
      const nlohmann::json attrs = parse_attrs_json(e.attrs_json);
      const Outcome in_process = run_op_outcome(local, served, op.name, attrs, inputs);
      const Outcome through_worker = run_op_outcome(local, name, op.name, attrs, inputs);
      EXPECT_EQ(through_worker.paths, in_process.paths) << op.name << "/" << e.name;
      with_paths += in_process.paths.empty() ? 0 : 1;
    }
  }
  EXPECT_GT(with_paths, 0) << served << " declares paths, and no example reached one";
}

}  // namespace
}  // namespace cvm
