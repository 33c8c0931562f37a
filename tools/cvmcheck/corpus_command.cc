// cvmcheck corpus: writes seed inputs for a fuzz target from the operator records (examples,
// encoded explicitly) and from the generator records (generator-mode inputs); with --from-call or
// --from-case, one input holding that call, so a fixed finding becomes a corpus input that CI
// replays on every backend (FuzzCorpus.EveryCorpusFileReplaysWithoutAFinding, docs/bisect.md).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "registry/registry.h"
#include "commands.h"
#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "harness/engine/call_descriptor.h"
#include "harness/engine/diff.h"
#include "harness/gen/fuzz_input.h"
#include "harness/engine/verdict.h"
#include "harness/gen/generators.h"
#include "harness/golden/fixture_files.h"

namespace cvm::cli {

namespace {

// The call of a descriptor or a case directory (LogicError or CaseFileError when unreadable),
// without an expected class or rule: an explicit-mode input holds neither (its replay is judged
// as a free-form call).
Call call_from(const std::string& descriptor, const std::string& case_dir) {
  if (!descriptor.empty()) {
    Call call = parse_call_descriptor(descriptor).call;
    call.expected.reset();
    call.rule.clear();
    call.rule_id.clear();
    return call;
  }
  const CaseSpec spec = read_case(case_dir);
  Call call;
  call.op = spec.op;
  call.attrs = spec.attrs;
  call.inputs = load_inputs(case_dir, spec);
  return call;
}

// Writes `call` as one explicit-mode input named by its sha256, as the seeds are; refuses a call
// the decoder would not give back, since such an input would check some other call.
int write_one(const FuzzTarget& target, const Call& call, const std::string& out) {
  check(input_elements(call) <= kFuzzMaxElements, "corpus: the call has ", input_elements(call),
        " input elements, over the fuzz bound ", kFuzzMaxElements);
  const std::string bytes = encode_fuzz_input(target, call);
  const std::optional<Call> back = decode_fuzz_input(
      target, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  const std::string wanted = format_call_descriptor(call, "");
  const std::string got = back ? format_call_descriptor(*back, "") : "nothing";
  check(got == wanted, "corpus: target ", target.name, " cannot hold this call as an input: ",
        wanted, " decodes to ", got);
  std::filesystem::create_directories(out);
  const std::filesystem::path path =
      std::filesystem::path(out) / sha256_hex(bytes).substr(0, 40);
  std::ofstream(path, std::ios::binary) << bytes;
  std::cout << path.string() << "\n";
  return kExitOk;
}

}  // namespace

Action add_corpus_command(CLI::App& app) {
  struct Options {
    std::string target = "all", out, from_call, from_case;
    int seeds = 8;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("corpus", "Write seed inputs for a fuzz target");
  sub->add_option("--target", o->target, "Fuzz target (all or a family)");
  sub->add_option("--out", o->out, "Directory to write the inputs into")->required();
  sub->add_option("--seeds", o->seeds, "Generator-mode inputs per operator and rule (default 8)");
  CLI::Option* from_call = sub->add_option(
      "--from-call", o->from_call,
      "Write only this call descriptor's call as one input (prints its path)");
  sub->add_option("--from-case", o->from_case,
                  "Write only this case directory's call as one input (prints its path)")
      ->excludes(from_call);
  return [o] {
    const FuzzTarget& target = fuzz_target_named(o->target);
    if (!o->from_call.empty() || !o->from_case.empty()) {
      return write_one(target, call_from(o->from_call, o->from_case), o->out);
    }
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
