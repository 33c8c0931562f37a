// cvmcheck report: one self-contained static HTML page from a run's reports (campaign.json,
// and optionally golden verify's and mrt's --json, the gate's summary.md, earlier runs for
// history, the findings store for each finding's life and the runs it recorded). The page is
// tools/cvmcheck/report_page.html, embedded at build time, with the data as one JSON object in a
// script element; everything is drawn in the browser from it, with no network request
// (docs/report.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "report_store.h"
#include "report_page.h"  // generated: kReportPage, the template

namespace cvm::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json read_json(const fs::path& path) {
  try {
    return nlohmann::json::parse(read_text(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path.string() + ": not JSON: " + e.what());
  }
}

// 64-bit seeds as text: JavaScript's numbers would round them (a seed must replay exactly).
void seeds_as_text(nlohmann::json& run) {
  if (run.contains("seed") && run["seed"].is_number()) run["seed"] = run["seed"].dump();
  if (!run.contains("findings")) return;
  for (nlohmann::json& f : run["findings"]) {
    if (f.contains("case_seed") && f["case_seed"].is_number()) f["case_seed"] = f["case_seed"].dump();
  }
}

// A campaign.json as one run of the history: the counts and the findings' identities, without
// the long per-finding reports (the page shows those for the current run only).
nlohmann::json history_run(nlohmann::json run, const std::string& source) {
  nlohmann::json slim{{"source", source}};
  for (const char* key : {"seed", "shard", "seconds", "calls", "mismatching_calls",
                          "expected_failures", "backends", "skipped_backends", "nothing_compared",
                          "table", "run"}) {
    if (run.contains(key)) slim[key] = run[key];
  }
  slim["findings"] = nlohmann::json::array();
  for (nlohmann::json& f : run.value("findings", nlohmann::json::array())) {
    f.erase("report");
    f.erase("repro_dirs");
    slim["findings"].push_back(f);
  }
  return slim;
}

// Where earlier runs come from: campaign.json files, or directories holding them (searched
// recursively for files named campaign.json or *campaign.json, as ci/campaign.sh keeps them in
// reports/history/). The one place that reads campaign.json history; the findings store's runs
// come from --store (report_store.h), in their own shape.
std::vector<nlohmann::json> load_history(const std::vector<std::string>& sources) {
  std::vector<std::pair<std::string, fs::path>> files;
  for (const std::string& source : sources) {
    const size_t colon = source.find(':');
    if (colon != std::string::npos && colon > 1 && source.find('/') > colon) {
      throw std::runtime_error("history source '" + source +
                               "': unknown scheme (a campaign.json file or a directory)");
    }
    if (fs::is_directory(source)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(source)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && name.size() >= 13 &&
            name.compare(name.size() - 13, 13, "campaign.json") == 0) {
          found.push_back(entry.path());
        }
      }
      std::sort(found.begin(), found.end());
      for (const fs::path& p : found) files.emplace_back(p.string(), p);
    } else {
      files.emplace_back(source, source);
    }
  }
  std::vector<nlohmann::json> runs;
  for (const auto& [name, path] : files) {
    runs.push_back(history_run(read_json(path), name));
    seeds_as_text(runs.back());
  }
  // Oldest first, by the time the run started where it says (runs without one keep their place).
  std::stable_sort(runs.begin(), runs.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    const std::string ta = a.contains("run") ? a["run"].value("started", "") : "";
    const std::string tb = b.contains("run") ? b["run"].value("started", "") : "";
    return !ta.empty() && !tb.empty() && ta < tb;
  });
  return runs;
}

// The data as a script element's text: JSON with every '<' escaped, so no "</script>" or
// "<!--" in a finding's text can end the element.
std::string script_safe(const nlohmann::json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

Action add_report_command(CLI::App& app) {
  struct Options {
    std::string campaign = "reports/campaign/campaign.json", golden, mrt, gate, out, title, store;
    std::vector<std::string> history;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "report", "Write one self-contained HTML page (no network, no server) from a run's reports");
  sub->add_option("--campaign", o->campaign,
                  "The run's campaign.json (default reports/campaign/campaign.json)");
  sub->add_option("--golden", o->golden, "golden verify --json output");
  sub->add_option("--mrt", o->mrt, "mrt --json output");
  sub->add_option("--gate", o->gate, "The gate's summary.md");
  sub->add_option("--history", o->history,
                  "Earlier runs, oldest first: campaign.json files or directories holding them "
                  "(repeatable)");
  sub->add_option("--store", o->store,
                  "The findings store (SQLite, campaign --store): each finding's life and the "
                  "history of the runs it recorded");
  sub->add_option("--title", o->title, "The page's title (default: cvmcheck run SEED)");
  sub->add_option("--out", o->out, "The page (default: report.html beside campaign.json)");
  return [o] {
    nlohmann::json data;
    data["generated"] = utc_now();
    data["history"] = load_history(o->history);
    data["campaign"] = read_json(o->campaign);
    data["campaign_path"] = o->campaign;
    const nlohmann::json seed = data["campaign"].value("seed", nlohmann::json(0));
    seeds_as_text(data["campaign"]);
    data["known_by_rule"] = known_groups_data(data["campaign"].value("findings", nlohmann::json()));
    if (!o->store.empty()) data["store"] = store_page_data(o->store);
    if (!o->golden.empty()) data["golden"] = read_json(o->golden);
    if (!o->mrt.empty()) data["mrt"] = read_json(o->mrt);
    if (!o->gate.empty()) data["gate"] = read_text(o->gate);
    const std::string title = !o->title.empty()
                                  ? o->title
                                  : "cvmcheck run " + seed.dump();
    data["title"] = title;
    std::string page = kReportPage;
    const std::string marker = "/*CVMCHECK_REPORT_DATA*/";
    const size_t at = page.find(marker);
    if (at == std::string::npos) throw std::runtime_error("report template without data marker");
    page.replace(at, marker.size(), script_safe(data));
    const fs::path out =
        !o->out.empty() ? fs::path(o->out) : fs::path(o->campaign).parent_path() / "report.html";
    if (out.has_parent_path()) fs::create_directories(out.parent_path());
    std::ofstream file(out, std::ios::binary);
    file << page;
    if (!file.good()) throw std::runtime_error("cannot write " + out.string());
    std::cout << out.string() << "\n";
    return kExitOk;
  };
}

}  // namespace cvm::cli
