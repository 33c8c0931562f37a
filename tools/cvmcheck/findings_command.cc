// `cvmcheck findings list|show|diff|runs`: the findings store read back (docs/nightly.md), as text
// a screen holds or as JSON; `cvmcheck findings culprit` records what a bisect found
// (docs/bisect.md).
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "commands.h"
#include "cvmcheck/errors.h"
#include "harness/campaign/campaign_exit.h"
#include "harness/campaign/campaign_store.h"
#include "harness/campaign/campaign_json.h"
#include "harness/findings/findings_store.h"
#include "store_options.h"

namespace cvm::cli {
namespace {

struct FindingsCli {
  std::string store = kDefaultStore;
  bool json = false;
  std::string status;  // list: comma-separated statuses to keep
  std::string signature;
  int64_t run_a = 0, run_b = 0;
  std::string campaign;  // record: the campaign.json
  StoreCli record;       // record: --fail-on (its store is `store`)
  StoreCulprit culprit;  // culprit: what to record
};

// Reading commands never create a store: a wrong path is an error, not an empty history.
FindingsStore open_existing(const std::string& path) {
  check(std::filesystem::exists(path), path, ": no findings store there (a campaign with --store ",
        path, " makes one)");
  return FindingsStore::open(path);
}

// null for a finding never bisected.
nlohmann::json culprit_json(const StoreCulprit& c) {
  if (c.bisected.empty()) return nullptr;
  return {{"introduced", c.introduced}, {"fixed", c.fixed}, {"note", c.note},
          {"report", c.report}, {"bisected", c.bisected}};
}

nlohmann::json finding_json(const StoredFinding& f) {
  return {{"signature", f.signature},     {"op", f.op},
          {"backend", f.backend},         {"status", f.status},
          {"summary", f.summary},         {"descriptor", f.descriptor},
          {"repro_dir", f.repro_dir},     {"expected_by", f.expected_by},
          {"first_run", f.first_run},     {"first_commit", f.first_commit},
          {"last_run", f.last_run},       {"last_commit", f.last_commit},
          {"fixed_run", f.fixed_run},     {"fixed_commit", f.fixed_commit},
          {"runs_seen", f.runs_seen},     {"total_calls", f.total_calls},
          {"culprit", culprit_json(f.culprit)}};
}

std::string run_text(int64_t run, const std::string& commit) {
  if (run == 0) return "-";
  return std::to_string(run) + (commit.empty() ? "" : " " + commit);
}

int list(const FindingsCli& o) {
  const FindingsStore store = open_existing(o.store);
  std::set<std::string> keep;
  std::stringstream statuses(o.status);
  for (std::string s; std::getline(statuses, s, ',');) keep.insert(s);
  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream text;
  text << std::left << std::setw(10) << "status" << std::setw(7) << "runs" << std::setw(9)
       << "calls" << std::setw(22) << "first seen" << std::setw(22) << "last seen"
       << "signature\n";
  int64_t shown = 0;
  for (const StoredFinding& f : store.findings()) {
    if (!keep.empty() && keep.count(f.status) == 0) continue;
    ++shown;
    rows.push_back(finding_json(f));
    text << std::setw(10) << f.status << std::setw(7) << f.runs_seen << std::setw(9)
         << f.total_calls << std::setw(22) << run_text(f.first_run, f.first_commit)
         << std::setw(22) << run_text(f.last_run, f.last_commit) << f.signature << "\n";
  }
  if (o.json) {
    std::cout << rows.dump(2) << "\n";
  } else {
    std::cout << text.str() << shown << " findings in " << o.store << "\n";
  }
  return kExitOk;
}

int show(const FindingsCli& o) {
  const FindingsStore store = open_existing(o.store);
  const std::optional<StoredFinding> f = store.find(o.signature);
  check(f.has_value(), "no finding in ", o.store, " has a signature starting with '", o.signature,
        "' (cvmcheck findings list)");
  nlohmann::json out = finding_json(*f);
  out["sightings"] = nlohmann::json::array();
  for (const StoredSighting& s : store.sightings(f->signature)) {
    out["sightings"].push_back(
        {{"run", s.run}, {"commit", s.commit}, {"calls", s.calls}, {"status", s.status}});
  }
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "signature   " << f->signature << "\nstatus      " << f->status
            << "\noperator    " << f->op << " on " << f->backend << "\nfirst seen  run "
            << run_text(f->first_run, f->first_commit) << "\nlast seen   run "
            << run_text(f->last_run, f->last_commit) << "\n";
  if (f->fixed_run != 0) std::cout << "fixed in    run " << run_text(f->fixed_run, f->fixed_commit) << "\n";
  if (!f->expected_by.empty()) std::cout << "expected    " << f->expected_by << "\n";
  if (!f->culprit.bisected.empty()) {
    const StoreCulprit& c = f->culprit;
    std::cout << "introduced  " << (c.introduced.empty() ? "unknown" : c.introduced)
              << (c.note.empty() ? "" : " (" + c.note + ")") << "\nfixed by    "
              << (c.fixed.empty() ? "-" : c.fixed) << "\nbisected    " << c.bisected
              << (c.report.empty() ? "" : ", " + c.report) << "\n";
  }
  std::cout << "calls       " << f->total_calls << " in " << f->runs_seen << " runs\nsummary     "
            << f->summary << "\n";
  if (!f->descriptor.empty()) std::cout << "smallest    " << f->descriptor << "\n";
  if (!f->repro_dir.empty()) std::cout << "repro       " << f->repro_dir << "\n";
  std::cout << "runs:";
  for (const StoredSighting& s : store.sightings(f->signature)) {
    std::cout << " " << s.run << " (" << s.calls << ")";
  }
  std::cout << "\n";
  return kExitOk;
}

int runs(const FindingsCli& o) {
  const FindingsStore store = open_existing(o.store);
  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream text;
  text << std::left << std::setw(6) << "run" << std::setw(22) << "started" << std::setw(22)
       << "commit" << std::setw(10) << "kind" << std::setw(10) << "seconds" << std::setw(11)
       << "calls" << std::setw(10) << "findings" << "source\n";
  for (const StoredRun& r : store.runs()) {
    rows.push_back({{"id", r.id}, {"kind", r.run.kind}, {"started", r.run.started},
                    {"commit", r.run.commit}, {"version", r.run.version},
                    {"cpu_features", r.run.cpu_features}, {"seed", std::to_string(r.run.seed)},
                    {"seconds", r.run.seconds}, {"calls", r.run.calls},
                    {"backends", r.run.backends}, {"ops", r.run.ops}, {"findings", r.findings},
                    {"source", r.run.source}});
    text << std::setw(6) << r.id << std::setw(22) << r.run.started << std::setw(22)
         << r.run.commit + " " << std::setw(10) << r.run.kind << std::setw(10)
         << static_cast<int64_t>(r.run.seconds) << std::setw(11) << r.run.calls << std::setw(10)
         << r.findings << r.run.source << "\n";
  }
  std::cout << (o.json ? rows.dump(2) + "\n" : text.str());
  return kExitOk;
}

int culprit(const FindingsCli& o) {
  FindingsStore store = open_existing(o.store);
  const std::optional<StoredFinding> f = store.find(o.signature);
  check(f.has_value(), "no finding in ", o.store, " has a signature starting with '", o.signature,
        "' (cvmcheck findings list)");
  StoreCulprit c = o.culprit;
  if (c.bisected.empty()) c.bisected = utc_now();
  store.record_culprit(f->signature, c);
  std::cout << f->signature << ": introduced " << (c.introduced.empty() ? "unknown" : c.introduced)
            << ", fixed " << (c.fixed.empty() ? "-" : c.fixed) << "\n";
  return kExitOk;
}

// Findings of run B not in run A (new), of A not in B (gone), and in both.
int diff(const FindingsCli& o) {
  const FindingsStore store = open_existing(o.store);
  const std::vector<StoredRun> all = store.runs();
  check(all.size() >= 2 || (o.run_a != 0 && o.run_b != 0), o.store,
        ": a diff needs two runs; the store has ", all.size());
  const int64_t b = o.run_b != 0 ? o.run_b : all.back().id;
  const int64_t a = o.run_a != 0 ? o.run_a : all[all.size() - 2].id;
  const std::vector<std::string> in_a = store.run_signatures(a), in_b = store.run_signatures(b);
  const std::set<std::string> set_a(in_a.begin(), in_a.end()), set_b(in_b.begin(), in_b.end());
  nlohmann::json out = {{"a", a}, {"b", b}, {"new", nlohmann::json::array()},
                        {"gone", nlohmann::json::array()}, {"both", nlohmann::json::array()}};
  for (const std::string& s : in_b) out[set_a.count(s) ? "both" : "new"].push_back(s);
  for (const std::string& s : in_a) {
    if (set_b.count(s) == 0) out["gone"].push_back(s);
  }
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "run " << a << " -> run " << b << ": " << out["new"].size() << " new, "
            << out["gone"].size() << " gone, " << out["both"].size() << " in both\n";
  for (const char* kind : {"new", "gone"}) {
    for (const auto& s : out[kind]) std::cout << "  " << kind << "  " << s.get<std::string>() << "\n";
  }
  return kExitOk;
}

// Records a campaign.json made elsewhere (a shard, the merge of a sharded nightly) in the store.
int record(const FindingsCli& o) {
  const CampaignResult result = read_campaign_json(o.campaign);
  StoreCli cli = o.record;
  cli.store = o.store;
  const std::optional<StoreDelta> delta = record_in_store(result, cli);
  return findings_fail(result, delta, cli.fail_on) ? kExitMismatch : kExitOk;
}

CLI::App* add_culprit_command(CLI::App* sub, FindingsCli& o) {
  CLI::App* c = sub->add_subcommand(
      "culprit", "Record what cvmcheck bisect found for a finding (docs/bisect.md)");
  c->add_option("signature", o.signature, "Its signature, or the start of it")->required();
  c->add_option("--introduced", o.culprit.introduced, "The first bad commit");
  c->add_option("--fixed", o.culprit.fixed, "The first commit without it");
  c->add_option("--note", o.culprit.note, "What a reader must know about them");
  c->add_option("--report", o.culprit.report, "The bisect's JSON report");
  c->add_option("--bisected", o.culprit.bisected, "When (default: now, UTC)");
  return c;
}

}  // namespace

Action add_findings_command(CLI::App& app) {
  auto o = std::make_shared<FindingsCli>();
  CLI::App* sub = app.add_subcommand(
      "findings", "The findings store across runs: list, show, diff, runs, record, culprit "
                  "(docs/nightly.md)");
  sub->require_subcommand(1);
  auto common = [o](CLI::App* c) {
    c->add_option("--store", o->store, std::string("The store (default ") + kDefaultStore + ")");
    c->add_flag("--json", o->json, "JSON instead of text");
  };
  CLI::App* l = sub->add_subcommand("list", "Every finding with its status, runs and calls");
  common(l);
  l->add_option("--status", o->status, "Keep these statuses (new,open,expected,fixed,regressed)");
  CLI::App* s = sub->add_subcommand("show", "One finding: history, smallest repro, status");
  common(s);
  s->add_option("signature", o->signature, "Its signature, or the start of it")->required();
  CLI::App* d = sub->add_subcommand("diff", "Findings of run B not in run A and the reverse");
  common(d);
  d->add_option("a", o->run_a, "Run A (default: the run before the last)");
  d->add_option("b", o->run_b, "Run B (default: the last run)");
  CLI::App* r = sub->add_subcommand("runs", "Every run the store holds");
  common(r);
  CLI::App* rec = sub->add_subcommand(
      "record", "Records a campaign.json made elsewhere (a shard, a merged nightly) in the store");
  rec->add_option("--store", o->store, std::string("The store (default ") + kDefaultStore + ")");
  rec->add_option("campaign", o->campaign, "The campaign.json")->required();
  rec->add_option("--fail-on", o->record.fail_on, "unexpected (default), new or any, as campaign's")
      ->check(CLI::IsMember({"unexpected", "new", "any"}));
  CLI::App* c = add_culprit_command(sub, *o);
  common(c);
  return [o, l, s, d, rec, c] {
    if (rec->parsed()) return record(*o);
    if (l->parsed()) return list(*o);
    if (s->parsed()) return show(*o);
    if (d->parsed()) return diff(*o);
    if (c->parsed()) return culprit(*o);
    return runs(*o);
  };
}

}  // namespace cvm::cli
