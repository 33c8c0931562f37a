#include "harness/campaign/campaign_paths.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/engine/call_cost.h"
#include "harness/planted/planted.h"
#include "harness/path_oracle/path_marks.h"

namespace cvm {

void count_paths(CampaignPaths& paths, const std::vector<BackendRun>& runs,
                 const std::map<std::string, CampaignCell>& row) {
  for (const BackendRun& run : runs) {
    if (run.skipped || run.outcome.paths.empty()) continue;
    auto& calls = paths.calls[run.backend];
    for (const std::string& id : run.outcome.paths) {
      if (id == planted_unreached_path()) continue;
      if (++calls[id] != 1) continue;
      const auto cell = row.find(run.backend);
      paths.first_reach[run.backend][id] = (cell == row.end() ? 0 : cell->second.cases) + 1;
    }
  }
}

namespace {

// Whether backend `name` compared a call of any operator of `path`.
bool in_scope(const PathInfo& path, const std::string& name, const CampaignResult& result) {
  for (const std::string& op : path.ops) {
    const auto row = result.table.find(op);
    if (row == result.table.end()) continue;
    const auto cell = row->second.find(name);
    if (cell != row->second.end() && cell->second.cases > 0) return true;
  }
  return false;
}

// The aimed calls of the operators of `path` that backend `name` compared, together: every
// backend runs every aimed call of an operator it implements.
int64_t calls_of(const PathInfo& path, const std::string& name, const CampaignResult& result) {
  int64_t calls = 0;
  for (const std::string& op : path.ops) {
    const auto row = result.table.find(op);
    if (row == result.table.end()) continue;
    const auto cell = row->second.find(name);
    const auto aimed = result.aimed_calls.find(op);
    if (cell != row->second.end() && cell->second.cases > 0 && aimed != result.aimed_calls.end()) {
      calls += aimed->second;
    }
  }
  return calls;
}

}  // namespace

void finish_paths(const Registry& registry, const std::vector<std::string>& compared,
                  CampaignResult& result) {
  CampaignPaths& p = result.paths;
  for (const std::string& name : compared) {
    const Backend* backend = registry.find_backend(name);
    if (backend == nullptr || !backend->available || backend->paths.empty()) continue;
    const auto& calls = p.calls[name];
    // A variant's paths of operators its choice does not decide (variant_ops: paths every
    // variant of its base declares) run its base's code, and only the variant's aimed calls of
    // those operators reach them: they are judged on the base.
    const std::set<std::string> decided = variant_ops(registry, name);
    for (const std::string& id : backend->paths) {
      const PathInfo* info = paths::find(id);
      if (info == nullptr || !in_scope(*info, name, result)) continue;
      p.in_scope[name].insert(id);
      const auto why = backend->unreachable_paths.find(id);
      const bool base_code =
          !decided.empty() && std::none_of(info->ops.begin(), info->ops.end(),
                                           [&](const std::string& op) { return decided.count(op); });
      if (why != backend->unreachable_paths.end()) {
        p.unreachable[name][id] = why->second;
      } else if (base_code) {
        p.unreachable[name][id] = "the base's code whatever this variant's choice: judged on " +
                                  backend->variant_of;
      } else if (calls.count(id) == 0) {
        (calls_of(*info, name, result) >= kPathJudgeCalls ? p.not_reached : p.too_few_calls)[name]
            .insert(id);
      }
    }
  }
}

void check_marks(const Registry& registry, const std::vector<std::string>& compared,
                 CampaignPaths& paths) {
  for (const std::string& name : compared) {
    const Backend* backend = registry.find_backend(name);
    if (backend == nullptr || !backend->available || backend->paths.empty()) continue;
    std::vector<std::string> wrong;
    try {
      wrong = path_oracle::check_path_marks(registry, *backend).failures;
    } catch (const std::exception& e) {
      // Whatever a backend declares, its rows end as a finding of that backend, never as the
      // campaign's end (a worker is an implementation we did not write).
      wrong.push_back(name + ": the path oracle could not run its rows (" + e.what() + ")");
    }
    if (!wrong.empty()) paths.wrong_marks[name] = std::move(wrong);
  }
}

void judge_merged_paths(CampaignResult& result) {
  CampaignPaths& p = result.paths;
  for (auto& [backend, few] : p.too_few_calls) {
    for (auto it = few.begin(); it != few.end();) {
      const PathInfo* info = paths::find(*it);
      if (info != nullptr && calls_of(*info, backend, result) >= kPathJudgeCalls) {
        p.not_reached[backend].insert(*it);
        it = few.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::erase_if(p.too_few_calls, [](const auto& entry) { return entry.second.empty(); });
}

std::map<std::string, int> starved_ops(const Registry& registry,
                                       const std::vector<std::string>& compared,
                                       const CampaignPaths& paths, int64_t few) {
  std::map<std::string, int> shares;
  for (const std::string& name : compared) {
    const Backend* backend = registry.find_backend(name);
    if (backend == nullptr || !backend->available) continue;
    const auto calls = paths.calls.find(name);
    for (const std::string& id : backend->paths) {
      if (backend->unreachable_paths.count(id) != 0) continue;
      const int64_t n = calls == paths.calls.end() || calls->second.count(id) == 0
                            ? 0
                            : calls->second.at(id);
      if (n >= few) continue;
      const PathInfo* info = paths::find(id);
      if (info == nullptr) continue;
      for (const std::string& op : info->ops) shares[op] = 2;
    }
  }
  return shares;
}

nlohmann::json paths_json(const CampaignPaths& paths) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [backend, scope] : paths.in_scope) {
    nlohmann::json b;
    const auto calls = paths.calls.find(backend);
    b["calls"] = calls != paths.calls.end() ? nlohmann::json(calls->second) : nlohmann::json::object();
    b["declared_in_scope"] = scope;
    const auto unreachable = paths.unreachable.find(backend);
    b["unreachable"] = unreachable != paths.unreachable.end() ? nlohmann::json(unreachable->second)
                                                              : nlohmann::json::object();
    const auto missing = paths.not_reached.find(backend);
    b["not_reached"] = missing != paths.not_reached.end() ? nlohmann::json(missing->second)
                                                          : nlohmann::json::array();
    const auto few = paths.too_few_calls.find(backend);
    b["too_few_calls"] = few != paths.too_few_calls.end() ? nlohmann::json(few->second)
                                                          : nlohmann::json::array();
    const auto first = paths.first_reach.find(backend);
    b["first_reach"] = first != paths.first_reach.end() ? nlohmann::json(first->second)
                                                        : nlohmann::json::object();
    const auto wrong = paths.wrong_marks.find(backend);
    b["wrong_marks"] = wrong != paths.wrong_marks.end() ? nlohmann::json(wrong->second)
                                                        : nlohmann::json::array();
    json[backend] = b;
  }
  // Backends that report paths without declaring any (an external worker) keep their counts.
  for (const auto& [backend, calls] : paths.calls) {
    if (!json.contains(backend)) json[backend] = {{"calls", calls}};
  }
  return json;
}

CampaignPaths paths_from_json(const nlohmann::json& json) {
  CampaignPaths p;
  for (const auto& [backend, b] : json.items()) {
    p.calls[backend] = b.value("calls", std::map<std::string, int64_t>{});
    if (!b.contains("declared_in_scope")) continue;
    p.in_scope[backend] = b.at("declared_in_scope").get<std::set<std::string>>();
    p.unreachable[backend] = b.value("unreachable", std::map<std::string, std::string>{});
    const auto missing = b.value("not_reached", std::set<std::string>{});
    if (!missing.empty()) p.not_reached[backend] = missing;
    const auto few = b.value("too_few_calls", std::set<std::string>{});
    if (!few.empty()) p.too_few_calls[backend] = few;
    const auto first = b.value("first_reach", std::map<std::string, int64_t>{});
    if (!first.empty()) p.first_reach[backend] = first;
    const auto wrong = b.value("wrong_marks", std::vector<std::string>{});
    if (!wrong.empty()) p.wrong_marks[backend] = wrong;
  }
  return p;
}

void merge_paths(CampaignPaths& into, const CampaignPaths& job) {
  for (const auto& [backend, calls] : job.calls) {
    for (const auto& [id, n] : calls) into.calls[backend][id] += n;
  }
  for (const auto& [backend, scope] : job.in_scope) into.in_scope[backend].insert(scope.begin(), scope.end());
  for (const auto& [backend, why] : job.unreachable) into.unreachable[backend].insert(why.begin(), why.end());
  for (const auto& [backend, missing] : job.not_reached) {
    into.not_reached[backend].insert(missing.begin(), missing.end());
  }
  for (const auto& [backend, few] : job.too_few_calls) {
    into.too_few_calls[backend].insert(few.begin(), few.end());
  }
  for (const auto& [backend, first] : job.first_reach) {
    for (const auto& [id, n] : first) {
      auto [it, added] = into.first_reach[backend].try_emplace(id, n);
      if (!added) it->second = std::min(it->second, n);
    }
  }
  // The first job alone checks the marks (check_marks).
  for (const auto& [backend, wrong] : job.wrong_marks) into.wrong_marks.try_emplace(backend, wrong);
  // What one job did not reach, another may have.
  for (auto* missing : {&into.not_reached, &into.too_few_calls}) {
    for (auto& entry : *missing) {
      const auto& calls = into.calls[entry.first];
      std::erase_if(entry.second, [&calls](const std::string& id) { return calls.count(id) != 0; });
    }
    std::erase_if(*missing, [](const auto& entry) { return entry.second.empty(); });
  }
}

namespace {

// Words joined by spaces into lines of at most `width` characters, later lines indented.
std::string wrapped(const std::vector<std::string>& words, size_t width = 100) {
  std::string out, line;
  for (const std::string& w : words) {
    if (!line.empty() && line.size() + 1 + w.size() > width) {
      out += line + "\n";
      line = "  ";
    }
    line += (line.empty() || line == "  " ? "" : " ") + w;
  }
  return out + line + "\n";
}

size_t size_of(const std::map<std::string, std::map<std::string, std::string>>& m,
               const std::string& backend) {
  const auto it = m.find(backend);
  return it == m.end() ? 0 : it->second.size();
}

}  // namespace

std::string paths_summary(const CampaignPaths& paths, bool full) {
  if (paths.in_scope.empty() && paths.calls.empty()) return "";
  std::vector<std::string> words = {"paths", "reached/declared:"};
  size_t unreachable = 0, missing_total = 0, few_total = 0, judged_total = 0;
  for (const auto& [backend, scope] : paths.in_scope) {
    const size_t here = size_of(paths.unreachable, backend);
    const auto m = paths.not_reached.find(backend);
    const size_t missing = m != paths.not_reached.end() ? m->second.size() : 0;
    const auto f = paths.too_few_calls.find(backend);
    const size_t few = f != paths.too_few_calls.end() ? f->second.size() : 0;
    words.push_back(backend + " " + std::to_string(scope.size() - here - missing - few) + "/" +
                    std::to_string(scope.size() - here) + ",");
    unreachable += here;
    missing_total += missing;
    few_total += few;
    judged_total += scope.size() - here;
  }
  if (words.size() > 2) words.back().pop_back();  // the last comma
  if (unreachable > 0) {
    words.push_back("(" + std::to_string(unreachable) + " unreachable here: campaign.json says why)");
  }
  std::string out = wrapped(words);
  if (few_total > 0) {
    out += wrapped({"warning:", "too", "few", "calls", "to", "judge", "paths:",
                    std::to_string(few_total), "of", std::to_string(judged_total),
                    "not", "reached", "before", "their", "operators", "made",
                    std::to_string(kPathJudgeCalls), "calls", "(a", "longer", "run", "judges",
                    "them;", "--table", "full", "lists", "them)"});
  }
  if (missing_total > 0) {
    // The ids where they fit a few lines; otherwise the counts, and where the ids are.
    std::vector<std::string> never = {"paths", "never", "reached:"};
    for (const auto& [backend, ids] : paths.not_reached) {
      never.push_back(backend + (missing_total <= 8 ? ":" : " " + std::to_string(ids.size())));
      if (missing_total <= 8) never.insert(never.end(), ids.begin(), ids.end());
    }
    if (missing_total > 8) never.push_back("(--table full and campaign.json list them)");
    out += wrapped(never);
  }
  // A wrong mark: the first line of each backend's (the rest in campaign.json and --table full).
  for (const auto& [backend, wrong] : paths.wrong_marks) {
    out += "wrong path marks on " + backend + " (" + std::to_string(wrong.size()) + "): " +
           wrong.front() + "\n";
  }
  if (!full) return out;
  for (const auto& [backend, wrong] : paths.wrong_marks) {
    for (size_t k = 1; k < wrong.size(); ++k) out += "  wrong path mark: " + wrong[k] + "\n";
  }
  for (const auto& [backend, calls] : paths.calls) {
    std::vector<std::string> line = {backend + ":"};
    for (const auto& [id, n] : calls) line.push_back(id + "=" + std::to_string(n));
    out += "  " + wrapped(line);
    const auto u = paths.unreachable.find(backend);
    if (u != paths.unreachable.end()) {
      for (const auto& [id, why] : u->second) out += "    unreachable " + id + ": " + why + "\n";
    }
    const auto m = paths.not_reached.find(backend);
    if (m != paths.not_reached.end()) {
      out += "    never reached:";
      for (const std::string& id : m->second) out += " " + id;
      out += "\n";
    }
    const auto f = paths.too_few_calls.find(backend);
    if (f != paths.too_few_calls.end()) {
      out += "    too few calls to judge:";
      for (const std::string& id : f->second) out += " " + id;
      out += "\n";
    }
  }
  return out;
}

}  // namespace cvm
