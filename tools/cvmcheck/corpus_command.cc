// cvmcheck corpus: writes seed inputs for a fuzz target from the operator records (examples,
// encoded explicitly) and from the generator records (generator-mode inputs).
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

Action add_corpus_command(CLI::App& app) {
  struct Options {
    std::string target = "all", out;
    int seeds = 8;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("corpus", "Write seed inputs for a fuzz target");
  sub->add_option("--target", o->target, "Fuzz target (all or a family)");
  sub->add_option("--out", o->out, "Directory to write the inputs into")->required();
  sub->add_option("--seeds", o->seeds, "Generator-mode inputs per operator and rule (default 8)");
  return [o] {
    const FuzzTarget& target = fuzz_target_named(o->target);
    std::filesystem::create_directories(o->out);
    int written = 0;
    auto write = [&](const std::string& bytes) {
      const std::string name = sha256_hex(bytes).substr(0, 40);
      std::ofstream(std::filesystem::path(o->out) / name, std::ios::binary) << bytes;
      ++written;
    };
    for (const std::string& name : target.names) {
      const OpInfo* op = registry().find_op(name);
      if (op == nullptr || op->name != name) continue;  // aliases share their operator's seeds
      for (const Example& e : op->examples) {
        Call call;
        call.op = op->name;
        try {
          call.attrs = parse_attrs_json(e.attrs_json);
          for (const ExampleTensor& t : e.inputs) call.inputs.push_back(to_tensor(t));
        } catch (const std::exception&) {
          continue;  // not expressible as a call (e.g. attributes that are not JSON)
        }
        if (input_elements(call) > kFuzzMaxElements) continue;  // the decoder would reject it
        write(encode_fuzz_input(target, call));
      }
      const OpGenerators* gens = generators_for(*op);
      const size_t rules = gens == nullptr ? 0 : gens->invalid.size();
      for (int s = 0; s < o->seeds; ++s) {
        for (size_t rule = 0; rule <= rules; ++rule) {
          write(encode_generator_input(target, name, 1000 + s, static_cast<uint8_t>(s * 13 % 101),
                                       static_cast<uint8_t>(rule)));
        }
      }
    }
    std::cout << "wrote " << written << " inputs into " << o->out << "\n";
    return kExitOk;
  };
}

}  // namespace cvm::cli
