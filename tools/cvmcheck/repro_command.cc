// cvmcheck repro: a fuzz input (crash-*, a corpus file) -> a case directory, the finding's
// signature and, with --store, the finding in the findings store.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "registry/registry.h"
#include "commands.h"
#include "harness/engine/call_descriptor.h"
#include "harness/engine/diff.h"
#include "harness/engine/diff_report.h"
#include "harness/findings/finding.h"
#include "harness/gen/fuzz_input.h"
#include "harness/engine/verdict.h"
#include "harness/gen/generators.h"
#include "harness/golden/golden.h"
#include "store_options.h"

namespace cvm::cli {
namespace {

struct ReproCli {
  std::string input, target = "all", out, commit;
  StoreCli store;
};

// The fuzz input as a store run of kind "fuzz" naming the input, with its one finding. It
// compared no operator as a whole (one call proves nothing fixed), so it lists none: recording
// it never marks a finding fixed.
int record_repro(const ReproCli& o, const Call& call, const CallVerdict& verdict,
                 const std::string& signature, const std::string& started) {
  if (o.store.store.empty()) return kExitOk;
  StoreRun run = store_run_facts(o.commit, started);
  run.kind = "fuzz";
  run.source = o.input;
  run.calls = 1;
  std::vector<StoreFinding> findings;
  if (!verdict.passed) {
    StoreFinding f;
    f.signature = signature;
    f.op = call.op;
    f.backend = verdict.diff.failing_backend().empty() ? "reference"
                                                        : verdict.diff.failing_backend();
    f.summary = verdict.report.substr(0, verdict.report.find('\n'));
    f.descriptor = compact_call_descriptor(judged_call(call), f.backend).value_or("");
    f.repro_dir = o.out;
    f.calls = 1;
    findings.push_back(std::move(f));
  }
  record_in_store(run, findings, o.store);
  return kExitOk;
}

}  // namespace

Action add_repro_command(CLI::App& app) {
  auto o = std::make_shared<ReproCli>();
  CLI::App* sub = app.add_subcommand(
      "repro", "Turn a fuzz input into a case directory; print (and with --store record) the "
               "finding's signature");
  sub->add_option("fuzz_input", o->input, "A file libFuzzer wrote (crash-*, a corpus entry)")
      ->required();
  sub->add_option("--target", o->target, "The fuzz target it came from (default all)");
  sub->add_option("--out", o->out, "Case directory to write")->required();
  add_store_option(sub, o->store);
  add_commit_option(sub, o->commit);
  return [o] {
    const std::string started = utc_now();
    std::ifstream in(o->input, std::ios::binary);
    if (!in.good()) throw std::invalid_argument("cannot read " + o->input);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const auto call = decode_fuzz_input(fuzz_target_named(o->target),
                                        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (!call) {
      std::cerr << "cvmcheck repro: the input decodes to no call (outside the bounds)\n";
      return kExitUsage;
    }
    // Judged as the fuzz target judged it (harness/engine/verdict.h).
    Judgement how;
    how.backends = other_backends(registry());
    how.free_form = !call->expected.has_value();
    const CallVerdict verdict = judge(registry(), *call, std::move(how));
    const DiffResult& d = verdict.diff;
    write_repro(*call, d.reference, o->out);
    const std::string backend = d.failing_backend().empty() ? "reference" : d.failing_backend();
    // The campaign's signature of the same failure, so that a night's inputs deduplicate by it
    // (ci/fuzz-nightly.sh) and the store keys them with the campaign's findings.
    const std::string signature = verdict.passed ? "none (the call passes)"
                                                 : finding_signature(call->op, verdict, call->rule);
    std::cout << diff_report(d, *call) << repro_line(o->out, backend) << "\n"
              << repro_call_line(*call, backend) << "\n"
              << "signature: " << signature << "\n";
    return record_repro(*o, *call, verdict, signature, started);
  };
}

}  // namespace cvm::cli
