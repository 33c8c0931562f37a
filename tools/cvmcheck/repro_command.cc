// cvmcheck repro: a fuzz input (crash-*, a corpus file) -> a case directory.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "registry/registry.h"
#include "commands.h"
#include "harness/engine/diff.h"
#include "harness/gen/fuzz_input.h"
#include "harness/engine/verdict.h"
#include "harness/gen/generators.h"
#include "harness/golden/golden.h"

namespace cvm::cli {

Action add_repro_command(CLI::App& app) {
  struct Options {
    std::string input, target = "all", out;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("repro", "Turn a fuzz input into a case directory");
  sub->add_option("fuzz_input", o->input, "A file libFuzzer wrote (crash-*, a corpus entry)")
      ->required();
  sub->add_option("--target", o->target, "The fuzz target it came from (default all)");
  sub->add_option("--out", o->out, "Case directory to write")->required();
  return [o] {
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
    const DiffResult d = judge(registry(), *call, std::move(how)).diff;
    write_repro(*call, d.reference, o->out);
    const std::string backend = d.failing_backend().empty() ? "reference" : d.failing_backend();
    std::cout << d.report(*call) << repro_line(o->out, backend) << "\n"
              << repro_call_line(*call, backend) << "\n";
    return kExitOk;
  };
}

}  // namespace cvm::cli
