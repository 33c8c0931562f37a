// cvmcheck golden generate|verify: the golden fixture suite (docs/golden-format.md).
#include <iostream>

#include "backends/registry.h"
#include "commands.h"
#include "exec_options.h"
#include "harness/golden.h"

namespace cvm::cli {

Action add_golden_command(CLI::App& app) {
  struct Options {
    GoldenOptions generate;
    std::string dir = "golden";
    std::vector<std::string> backends{"reference"};
    XfailCli xfail;
    ExecCli exec;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("golden", "Generate or verify the golden fixture suite");
  sub->require_subcommand(1);
  CLI::App* gen = sub->add_subcommand("generate", "Write the suite (deterministic)");
  gen->add_option("--out", o->generate.out, "New directory to write (default golden)");
  gen->add_option("--random", o->generate.random_per_op,
                  "Generated valid calls per operator (default 6; more for a bigger set)")
      ->check(CLI::Range(0, 100000));
  gen->add_option("--per-rule", o->generate.per_rule,
                  "Generated calls per validity rule (default 1)")
      ->check(CLI::Range(1, 1000));
  CLI::App* verify = sub->add_subcommand("verify", "Replay every case on a backend");
  verify->add_option("dir", o->dir, "Suite directory (default golden)");
  verify->add_option("--backend", o->backends,
                     "Backend, or 'all' (default reference); repeatable; exec:COMMAND runs an "
                     "external worker");
  add_exec_options(verify, o->exec);
  add_xfail_options(verify, o->xfail);
  return [o, gen] {
    if (gen->parsed()) {
      const GoldenSummary s = generate_golden(registry(), o->generate);
      std::cout << "wrote " << s.cases << " cases (" << s.files << " files, " << s.bytes
                << " bytes) for " << s.cases_per_op.size() << " operators into "
                << o->generate.out << "; " << s.omitted << " omitted (inputs over "
                << kGoldenMaxCaseInputBytes << " bytes, listed in the manifest)\n";
      return kExitOk;
    }
    const ExpectationSet xfail = expectations(o->xfail);
    const ExecSettings exec = exec_settings(o->exec);
    std::vector<std::string> backends;
    for (const std::string& name : o->backends) {
      if (name == "all") {
        for (const Backend& b : registry().backends()) backends.push_back(b.name);
        for (const std::string& defined : defined_backend_names(exec)) {
          backends.push_back(resolve_backend(registry(), defined, exec));
        }
      } else {
        backends.push_back(resolve_backend(registry(), name, exec));
      }
    }
    bool ok = true;
    for (const std::string& backend : backends) {
      const GoldenVerifyResult result = verify_golden(registry(), o->dir, backend, xfail);
      std::cout << golden_table(result, backend);
      ok = ok && result.ok();
    }
    return ok ? kExitOk : kExitMismatch;
  };
}

}  // namespace cvm::cli
