// Whole models through the worker protocol (graph_worker_run.h, graph_wire.h, graph_serve.h): a
// worker with kFlagGraphs gets each model as one graph request and its model reply becomes a run
// that agrees with the reference, packed output included; a worker without the flag still runs
// models node by node; a reply that cannot be the graph's, a crash, a hang and a malformed frame
// are failures of the model; `cvmcheck graphs` through `cvmcheck worker` exits 0, and against the
// planted wrong-storage worker finds the graph-level bug within a bounded number of models.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "harness/graph/graph_build.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_run.h"
#include "harness/graph/graph_wire.h"
#include "harness/graph/graph_worker_run.h"
#include "harness/worker_client/exec_backend.h"
#include "registry/registry.h"
#include "support/graph_models.h"
#include "support/paths.h"
#include "support/spawned_cli.h"
#include "support/temp_dir.h"

namespace cvm::graph {
namespace {

// data (3) -> abs -> negative: operators the example C++ worker implements.
Model abs_model() {
  GraphBuilder b;
  const EntryRef data = b.add_variable("data", {3}, 8);
  const uint32_t a = b.add_op("abs", "{}", {data}, {{3}}, {8});
  const uint32_t n = b.add_op("negative", "{}", {{a, 0, 0}}, {{3}}, {8});
  Model m{b.finish({{n, 0, 0}}), {}};
  m.inputs.data = Tensor::from_values({3}, {-1, 2, -127}, 8);
  return m;
}

int64_t calls_of(const std::string& backend) {
  for (const ExecBackendInfo& info : exec_backends()) {
    if (info.name == backend) return info.calls;
  }
  return -1;
}

std::string exec_name(const std::string& command) { return std::string(kExecPrefix) + command; }

// No address-space limit on the workers: a sanitized build's worker reserves terabytes of it at
// its start.
ExecSettings unlimited() {
  ExecSettings settings;
  settings.memory_bytes = 0;
  return settings;
}

// The registry with external backends registered in it: a copy, so the tests that go through
// every backend of the process's registry never meet these workers.
Registry& registry_with_workers() {
  static Registry copy = registry();
  return copy;
}

TEST(GraphWorker, AGraphWorkerRunsAModelAsOneMessage) {
  const std::string backend =
      resolve_backend(registry_with_workers(), exec_name(std::string(CVMCHECK_BINARY) + " worker --backend optimized"),
                      unlimited());
  const Model m = testing::conv_relu_shift_model();
  const GraphRun expected = run_graph(registry(), "reference", m.graph, m.inputs);
  const int64_t before = calls_of(backend);
  const GraphRun actual = run_graph(registry_with_workers(), backend, m.graph, m.inputs);
  EXPECT_EQ(calls_of(backend), before + 1);  // one graph request, not three calls
  ASSERT_EQ(actual.kind, OutcomeKind::kOk) << actual.failure << ": " << actual.message;
  ASSERT_EQ(actual.entries.size(), 5u);
  EXPECT_EQ(actual.entries[4]->values(), (std::vector<int32_t>{1, 0, 3, 127}));
  ASSERT_TRUE(expected.packed && actual.packed);
  EXPECT_EQ(*actual.packed, *expected.packed);
  EXPECT_EQ(actual.packed->bytes, (std::vector<uint8_t>{1, 0, 3, 127}));
  EXPECT_FALSE(diff_runs(m.graph, expected, actual));

  Model bad = testing::conv_relu_shift_model();  // a parameter out of its precision: the worker's loader refuses it
  bad.inputs.params[0].second.set(0, 1000);
  const GraphRun refused = run_graph(registry_with_workers(), backend, bad.graph, bad.inputs);
  EXPECT_EQ(refused.kind, OutcomeKind::kLogicError) << refused.message;
  EXPECT_FALSE(diff_runs(bad.graph, run_graph(registry(), "reference", bad.graph, bad.inputs), refused));
}

TEST(GraphWorker, AWorkerWithoutTheFlagRunsModelsNodeByNode) {
  const std::string backend =
      resolve_backend(registry_with_workers(), exec_name(CVMCHECK_EXAMPLE_CPP_WORKER), unlimited());
  const Model m = abs_model();
  const int64_t before = calls_of(backend);
  const GraphRun actual = run_graph(registry_with_workers(), backend, m.graph, m.inputs);
  EXPECT_EQ(calls_of(backend), before + 2);  // abs, then negative
  ASSERT_EQ(actual.kind, OutcomeKind::kOk) << actual.message;
  EXPECT_FALSE(diff_runs(m.graph, run_graph(registry(), "reference", m.graph, m.inputs), actual));
}

TEST(GraphWorker, AReplyThatCannotBeTheGraphsIsAProtocolError) {
  const Model m = testing::conv_relu_shift_model();
  cvmcheck_worker::ModelReply reply;
  reply.entries.resize(4);  // the graph has 5
  EXPECT_THROW(run_from_model_reply(m.graph, 5, reply), cvmcheck_worker::ProtocolError);
  reply.entries.clear();
  reply.node = 5;  // nodes 0..4
  EXPECT_THROW(run_from_model_reply(m.graph, 5, reply), cvmcheck_worker::ProtocolError);
  reply.node = 4;
  reply.entries.resize(5);
  cvmcheck_worker::Tensor no_dims;  // breaks the tensor limits
  reply.entries[1] = no_dims;
  EXPECT_THROW(run_from_model_reply(m.graph, 5, reply), cvmcheck_worker::ProtocolError);
  reply.entries[1].reset();
  EXPECT_EQ(run_from_model_reply(m.graph, 5, reply).node, 4);
}

// A worker that says hello with kFlagGraphs (payload: 'H', version 1, an empty name, flags 8,
// no operators), then does what `then` says, in sh.
WorkerOptions fake_graph_worker(const std::string& then) {
  WorkerOptions options;
  options.command = "sh -c \"printf '\\021\\0\\0\\0H\\1\\0\\0\\0\\0\\0\\0\\0\\10\\0\\0\\0\\0\\0\\0\\0'; " +
                    then + "\"";
  options.call_timeout_s = 0.5;
  return options;
}

// The worker's failures during a model, each a failure of its own kind, and a difference of it.
TEST(GraphWorker, ACrashAHangOrAMalformedReplyIsTheModelsFailure) {
  const Model m = testing::conv_relu_shift_model();
  const GraphRun expected = run_graph(registry(), "reference", m.graph, m.inputs);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"exec sleep 60", "hang"},                   // never answers
      {"head -c 30 >/dev/null; exit 3", "crash"},  // reads into the model, ends unanswered
      {"printf '\\1\\0\\0\\0R'; exec sleep 60", "protocol_error"}};  // a call's reply
  for (const auto& [then, kind] : cases) {
    WorkerClient worker(fake_graph_worker(then));
    ASSERT_TRUE(worker.runs_models()) << then;
    const GraphRun run = run_graph_on_worker(worker, registry(), "reference", m.graph, m.inputs);
    EXPECT_EQ(run.failure, kind) << then << ": " << run.message;
    EXPECT_EQ(run.kind, OutcomeKind::kRuntimeError) << then;
    const auto d = diff_runs(m.graph, expected, run);
    ASSERT_TRUE(d) << then;
    EXPECT_EQ(d->kind, kind) << then;
  }
}

class GraphWorkerCli : public testing::TempDirTest {
 protected:
  GraphWorkerCli() : TempDirTest("cvmcheck-graph-worker-cli") {}
  int run(const std::string& args) {
    return testing::wait_cli(testing::spawn_cli("env", args, out(), (dir_ / "err.txt").string()));
  }
  std::string out() const { return (dir_ / "out.txt").string(); }
  std::string report() const { return (dir_ / "report").string(); }
};

TEST_F(GraphWorkerCli, GraphsThroughTheWorkerCommandAgreeWithTheReference) {
  const std::string backend = std::string("exec:") + CVMCHECK_BINARY + " worker --backend optimized";
  ASSERT_EQ(run("graphs --max-graphs 12 --seconds 600 --seed 5 --worker-memory 0 --backends '" + backend +
                "' --report " + report()),
            0)
      << testing::file_text(out()) << testing::file_text((dir_ / "err.txt").string());
  const auto j = nlohmann::json::parse(testing::file_text(report() + "/graphs.json"));
  EXPECT_EQ(j["graphs"], 12);
  EXPECT_TRUE(j["findings"].empty());
  // Its worker (one per job, summed): a request per model and per malformed copy, no restart.
  EXPECT_EQ(j["worker_requests"][backend], 12 + j["malformed"]["drawn"].get<int>()) << j.dump();
  EXPECT_EQ(j["worker_restarts"][backend], 0) << j.dump();
  EXPECT_NE(testing::file_text(out()).find(": 12 compared"), std::string::npos)
      << testing::file_text(out());
}

TEST_F(GraphWorkerCli, FindsThePlantedWrongStoragePlan) {
  // The GPU bundle (ci/gpu-bundle.sh) leaves this CPU-only worker out, to stay within its size.
  if (!std::filesystem::exists(CVMCHECK_WRONG_STORAGE_WORKER)) GTEST_SKIP() << "no wrong_storage_worker";
  // A named worker (--backend-def), so that the replay line must carry its definition.
  const std::string definition = std::string("wrong-storage=") + CVMCHECK_WRONG_STORAGE_WORKER;
  ASSERT_EQ(run("graphs --max-graphs 30 --seconds 600 --seed 7 --worker-memory 0 --backend-def '" +
                definition + "' --backends wrong-storage --report " + report()),
            1)
      << testing::file_text(out()) << testing::file_text((dir_ / "err.txt").string());
  const auto j = nlohmann::json::parse(testing::file_text(report() + "/graphs.json"));
  ASSERT_FALSE(j["findings"].empty());
  // Models, shrinking tries and single-call reruns went to the worker, which never went down.
  EXPECT_GT(j["worker_requests"]["wrong-storage"], 30) << j.dump();
  EXPECT_EQ(j["worker_restarts"]["wrong-storage"], 0) << j.dump();
  EXPECT_NE(testing::file_text(out()).find("wrong-storage: 30 compared; its worker: "), std::string::npos)
      << testing::file_text(out());
  EXPECT_GT(j["findings"][0]["first_differing_node"].get<int>(), 0) << j["findings"].dump();
  // Every node alone is right: every finding is graph-level, and the first one's repro is shrunk
  // to at most 3 operator nodes (a producer, the node whose storage it overwrites, a reader).
  for (const auto& f : j["findings"]) EXPECT_TRUE(f["graph_level"].get<bool>()) << f.dump();
  const auto& first = j["findings"][0];
  ASSERT_FALSE(first["repro"].get<std::string>().empty()) << first.dump();
  EXPECT_LE(first["nodes_saved"].get<int>(), 3) << first.dump();
  // Its replay line, as written, replays the difference.
  const auto finding =
      nlohmann::json::parse(testing::file_text(first["repro"].get<std::string>() + "/finding.json"));
  const std::string replay = finding["replay"];
  EXPECT_EQ(replay, "cvmcheck run " + first["repro"].get<std::string>() + " --backend-def '" +
                        definition + "' --backend wrong-storage");
  ASSERT_EQ(replay.rfind("cvmcheck ", 0), 0u) << replay;
  EXPECT_EQ(run(replay.substr(9) + " --worker-memory 0"), 1) << testing::file_text(out());
}

}  // namespace
}  // namespace cvm::graph
