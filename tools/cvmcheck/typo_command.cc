// Typos on the command line: an unknown subcommand ("cvmcheck nonsense", "cvmcheck bisect
// --help", "cvmcheck golden verfy") is named, with the closest known one suggested, and exits
// with the usage status, instead of CLI11's "A subcommand is required" or the parent's help.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"

namespace cvm::cli {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// Close enough to say "did you mean": a prefix, or at most half the word's letters changed.
bool is_close(const std::string& word, const std::string& name) {
  return name.rfind(word, 0) == 0 ||
         edit_distance(word, name) <= std::max<size_t>(2, word.size() / 2);
}

}  // namespace

std::string closest_name(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const std::string& name : names) {
    // A prefix ("camp") is as close as it gets; otherwise the fewest edits.
    const size_t d = name.rfind(word, 0) == 0 ? 0 : edit_distance(word, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

int check_subcommand_names(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  std::string path = app.get_name().empty() ? "cvmcheck" : app.get_name();
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const std::vector<const CLI::App*> subs =
        at->get_subcommands([](const CLI::App*) { return true; });
    if (subs.empty() || word.empty() || word[0] == '-') return -1;  // options: CLI11's to judge
    if (!at->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) {
      return -1;  // a command with positional arguments takes the word as one
    }
    std::vector<std::string> names;
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : subs) {
      names.push_back(sub->get_name());
      if (sub->check_name(word)) next = sub;
    }
    if (next == nullptr) {
      const std::string close = closest_name(word, names);
      std::cerr << path << ": unknown command '" << word << "'";
      if (!close.empty()) {
        std::cerr << (is_close(word, close) ? "; did you mean '" : "; the closest is '") << close
                  << (is_close(word, close) ? "'?" : "'");
      }
      std::cerr << "\n";
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      std::cerr << "commands: " << known << " (" << path << " --help for more)\n";
      return kExitUsage;
    }
    at = next;
    path += " " + next->get_name();
  }
  return -1;
}

}  // namespace cvm::cli
