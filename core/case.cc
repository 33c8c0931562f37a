#include "cvmcheck/case.h"

#include <filesystem>
#include <fstream>

#include "cvmcheck/errors.h"
#include "cvmcheck/npy.h"

namespace cvm {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad_case(const std::string& what) { throw CaseFileError("case.json: " + what); }

TensorFile parse_tensor_file(const nlohmann::json& json, const std::string& where) {
  if (!json.is_object()) bad_case(where + " must be an object");
  if (!json.contains("file") || !json["file"].is_string()) bad_case(where + ".file must be a string");
  if (!json.contains("precision") || !json["precision"].is_number_integer()) {
    bad_case(where + ".precision must be an integer");
  }
  const std::string file = json["file"].get<std::string>();
  // Files live in the case directory itself: no paths, so a case cannot reach outside it.
  if (file.empty() || file.find('/') != std::string::npos || file.find('\\') != std::string::npos ||
      file == "." || file == "..") {
    bad_case(where + ".file must be a plain file name");
  }
  const auto precision = json["precision"].get<int64_t>();
  if (precision < -1000 || precision > 1000) bad_case(where + ".precision is absurd");
  return {file, static_cast<int>(precision)};
}

nlohmann::json tensor_file_json(const TensorFile& t) {
  return {{"file", t.file}, {"precision", t.precision}};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) throw CaseFileError("cannot open " + path.string());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

CaseSpec parse_case_json(const nlohmann::json& json) {
  if (!json.is_object()) bad_case("must be a JSON object");
  for (const auto& [key, value] : json.items()) {
    if (key != "op" && key != "attrs" && key != "inputs" && key != "expect" && key != "note") {
      bad_case("unknown key '" + key + "'");
    }
  }
  CaseSpec spec;
  if (!json.contains("op") || !json["op"].is_string()) bad_case("'op' must be a string");
  spec.op = json["op"].get<std::string>();
  // Attributes are passed on as they are: their validity is the operator's to judge.
  if (json.contains("attrs")) spec.attrs = json["attrs"];
  if (!json.contains("inputs") || !json["inputs"].is_array()) bad_case("'inputs' must be an array");
  for (size_t k = 0; k < json["inputs"].size(); ++k) {
    spec.inputs.push_back(parse_tensor_file(json["inputs"][k], "inputs[" + std::to_string(k) + "]"));
  }
  if (json.contains("note")) {
    if (!json["note"].is_string()) bad_case("'note' must be a string");
    spec.note = json["note"].get<std::string>();
  }
  if (json.contains("expect")) {
    const nlohmann::json& e = json["expect"];
    if (!e.is_object() || !e.contains("outcome") || !e["outcome"].is_string()) {
      bad_case("'expect' must be an object with a string 'outcome'");
    }
    CaseExpect expect;
    try {
      expect.outcome = parse_outcome_name(e["outcome"].get<std::string>());
    } catch (const LogicError& err) {
      bad_case(err.what());
    }
    if (expect.outcome == OutcomeKind::kOk) {
      if (!e.contains("outputs") || !e["outputs"].is_array()) {
        bad_case("expect.outputs must be an array when the outcome is ok");
      }
      for (size_t k = 0; k < e["outputs"].size(); ++k) {
        expect.outputs.push_back(
            parse_tensor_file(e["outputs"][k], "expect.outputs[" + std::to_string(k) + "]"));
      }
    } else if (e.contains("outputs")) {
      bad_case("expect.outputs is only allowed with outcome ok");
    }
    for (const auto& [key, value] : e.items()) {
      if (key != "outcome" && key != "outputs" && key != "rule") {
        bad_case("unknown key 'expect." + key + "'");
      }
    }
    if (e.contains("rule")) {
      if (expect.outcome != OutcomeKind::kLogicError) {
        bad_case("expect.rule is only allowed with outcome logic_error");
      }
      if (!e["rule"].is_string() || e["rule"].get<std::string>().empty()) {
        bad_case("expect.rule must be a non-empty string");
      }
      expect.rule = e["rule"].get<std::string>();
    }
    spec.expect = expect;
  }
  return spec;
}

nlohmann::json case_json(const CaseSpec& spec) {
  nlohmann::json json;
  json["op"] = spec.op;
  json["attrs"] = spec.attrs;
  json["inputs"] = nlohmann::json::array();
  for (const TensorFile& t : spec.inputs) json["inputs"].push_back(tensor_file_json(t));
  if (spec.expect) {
    json["expect"]["outcome"] = outcome_name(spec.expect->outcome);
    if (spec.expect->outcome == OutcomeKind::kOk) {
      json["expect"]["outputs"] = nlohmann::json::array();
      for (const TensorFile& t : spec.expect->outputs) {
        json["expect"]["outputs"].push_back(tensor_file_json(t));
      }
    }
    if (!spec.expect->rule.empty()) json["expect"]["rule"] = spec.expect->rule;
  }
  if (!spec.note.empty()) json["note"] = spec.note;
  return json;
}

CaseSpec read_case(const std::string& dir) {
  const fs::path path = fs::path(dir) / "case.json";
  const nlohmann::json json = nlohmann::json::parse(read_text(path), nullptr, false);
  if (json.is_discarded()) throw CaseFileError(path.string() + " is not valid JSON");
  return parse_case_json(json);
}

static Tensor load_tensor(const std::string& dir, const TensorFile& t) {
  const fs::path path = fs::path(dir) / t.file;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw CaseFileError("missing file " + path.string());
  return parse_npy(read_text(path), t.precision);
}

std::vector<Tensor> load_inputs(const std::string& dir, const CaseSpec& spec) {
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < spec.inputs.size(); ++k) {
    try {
      inputs.push_back(load_tensor(dir, spec.inputs[k]));
    } catch (const NpyFormatError& e) {
      // A damaged file is the case's fault, not a result of the backend under test.
      throw CaseFileError(concat("input ", k, " (", spec.inputs[k].file, "): ", e.what()));
    } catch (const LogicError& e) {
      throw LogicError(concat("input ", k, " (", spec.inputs[k].file, "): ", e.what()), e.rule());
    }
  }
  return inputs;
}

void write_case(const std::string& dir, const std::string& op, const nlohmann::json& attrs,
                const std::vector<Tensor>& inputs, const std::optional<Outcome>& expect,
                const std::string& note) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  check(!ec, "cannot create ", dir, ": ", ec.message());
  CaseSpec spec;
  spec.op = op;
  spec.attrs = attrs.is_null() ? nlohmann::json::object() : attrs;
  spec.note = note;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string file = "input_" + std::to_string(k) + ".npy";
    write_npy((fs::path(dir) / file).string(), inputs[k]);
    spec.inputs.push_back({file, inputs[k].precision()});
  }
  if (expect) {
    CaseExpect e;
    e.outcome = expect->kind;
    if (expect->kind == OutcomeKind::kLogicError) e.rule = expect->rule;
    for (size_t k = 0; expect->kind == OutcomeKind::kOk && k < expect->outputs.size(); ++k) {
      const std::string file = "output_" + std::to_string(k) + ".npy";
      write_npy((fs::path(dir) / file).string(), expect->outputs[k]);
      e.outputs.push_back({file, expect->outputs[k].precision()});
    }
    spec.expect = e;
  }
  std::ofstream out(fs::path(dir) / "case.json");
  out << case_json(spec).dump(2) << "\n";
  check(out.good(), "cannot write ", dir, "/case.json");
}

Outcome load_expected(const std::string& dir, const CaseExpect& expect) {
  Outcome expected;
  expected.kind = expect.outcome;
  expected.rule = expect.rule;
  for (const TensorFile& t : expect.outputs) {
    try {
      expected.outputs.push_back(load_tensor(dir, t));
    } catch (const LogicError& e) {
      throw CaseFileError("expected output " + t.file + ": " + e.what());
    }
  }
  return expected;
}

}  // namespace cvm
