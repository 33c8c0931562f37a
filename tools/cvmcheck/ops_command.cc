// cvmcheck ops: one line per operator: name, arity, backends implementing it, aliases.
// `--json` gives the whole operator list as data (family, arity, attribute schema, examples,
// validity rules, kernels per backend): the Python tools and the benchmarks read it instead of
// keeping their own lists. `--list-json` gives only the family and operator lists of
// cvmcheck/op_list.h, the content of core/op_list.json (which CMake and the scripts read before
// anything is built).
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "commands.h"
#include "cvmcheck/op_list.h"
#include "cvmcheck/registry.h"
#include "harness/gen/generators.h"

namespace cvm::cli {

std::string arity_text(int min_inputs, int max_inputs) {
  if (max_inputs < 0) return std::to_string(min_inputs) + "+";
  if (max_inputs == min_inputs) return std::to_string(min_inputs);
  return std::to_string(min_inputs) + "-" + std::to_string(max_inputs);
}

namespace {

nlohmann::json op_json(const Registry& r, const OpInfo& op) {
  nlohmann::json attrs = nlohmann::json::array();
  for (const AttrSpec& a : op.attrs) {
    nlohmann::json spec = {{"name", a.name}, {"kind", attr_kind_name(a.kind)},
                           {"required", !a.default_text.has_value()}};
    if (a.default_text) spec["default"] = *a.default_text;
    if (!a.choices.empty()) spec["choices"] = a.choices;
    attrs.push_back(std::move(spec));
  }
  int ok = 0, bad = 0;
  for (const Example& e : op.examples) (e.outcome == OutcomeKind::kOk ? ok : bad) += 1;
  nlohmann::json rules = nlohmann::json::array();
  nlohmann::json rule_ids = nlohmann::json::object();  // generator rule name -> rule id
  if (const OpGenerators* gens = generators_for(op)) {
    for (const InvalidGenerator& g : gens->invalid) {
      rules.push_back(g.rule);
      rule_ids[g.rule] = gen::rule_id(op.name, g.rule);
    }
  }
  nlohmann::json backends = nlohmann::json::array();
  for (const Backend& b : r.backends()) {
    if (b.implements(op.name)) backends.push_back(b.name);
  }
  return {{"name", op.name},
          {"family", op.family},
          {"aliases", op.aliases},
          {"min_inputs", op.min_inputs},
          {"max_inputs", op.max_inputs < 0 ? nlohmann::json() : nlohmann::json(op.max_inputs)},
          {"attrs", std::move(attrs)},
          {"examples", {{"ok", ok}, {"logic_error", bad}}},
          {"rules", std::move(rules)},
          {"rule_ids", std::move(rule_ids)},
          {"backends", std::move(backends)}};
}

}  // namespace

Action add_ops_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto list_json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand(
      "ops", "List the operators: name, arity, backends that implement it, aliases");
  sub->add_flag("--json", *json,
                "The operator list as JSON: families, backends (with variant_of for dispatch "
                "variants), and per operator its family, "
                "arity, attributes, examples, rules and backends");
  sub->add_flag("--list-json", *list_json,
                "Only the family and operator lists (cvmcheck/op_list.h) as JSON: the content "
                "of core/op_list.json");
  return [json, list_json] {
    if (*list_json) {
      nlohmann::json out = {{"families", nlohmann::json::array()},
                            {"operators", nlohmann::json::array()}};
      for (std::string_view f : kFamilies) out["families"].push_back(std::string(f));
      for (const ListedOp& op : kOperatorList) {
        out["operators"].push_back({{"name", std::string(op.name)}, {"family", std::string(op.family)}});
      }
      std::cout << out.dump(1) << "\n";
      return kExitOk;
    }
    const Registry& r = registry();
    if (*json) {
      nlohmann::json out;
      out["families"] = nlohmann::json::array();
      for (std::string_view f : kFamilies) out["families"].push_back(std::string(f));
      out["backends"] = nlohmann::json::array();
      for (const Backend& b : r.backends()) {
        nlohmann::json entry = {{"name", b.name}, {"available", b.available}};
        if (!b.available) entry["unavailable_reason"] = b.unavailable_reason;
        if (!b.variant_of.empty()) entry["variant_of"] = b.variant_of;
        out["backends"].push_back(std::move(entry));
      }
      out["operators"] = nlohmann::json::array();
      for (const OpInfo& op : r.ops()) out["operators"].push_back(op_json(r, op));
      std::cout << out.dump(1) << "\n";
      return kExitOk;
    }
    for (const OpInfo& op : r.ops()) {
      std::string backends;
      for (const Backend& b : r.backends()) {
        if (!b.implements(op.name)) continue;
        backends += (backends.empty() ? "" : ",") + b.name;
        if (!b.available) backends += "(unavailable: " + b.unavailable_reason + ")";
      }
      std::cout << std::left << std::setw(22) << op.name << " " << std::setw(4)
                << arity_text(op.min_inputs, op.max_inputs) << " "
                << (backends.empty() ? "-" : backends);
      for (const std::string& alias : op.aliases) std::cout << " alias:" << alias;
      std::cout << "\n";
    }
    return kExitOk;
  };
}

}  // namespace cvm::cli
