#include "cvmcheck/paths.h"

#include <deque>
#include <mutex>
#include <sstream>

#include "cvmcheck/errors.h"
#include "cvmcheck/op_list.h"

namespace cvm::paths {
namespace {

struct Table {
  std::mutex mutex;  // define() runs at static initialisation and in tests, never on a hot path
  std::deque<PathInfo> paths;  // a deque: find()'s pointers stay valid as paths are added
};

Table& table() {
  static Table instance;
  return instance;
}

// "a,family:F,*" -> canonical operator names: a family's operators, or every listed one.
std::vector<std::string> split_ops(const char* ops) {
  std::vector<std::string> list;
  std::stringstream in(ops);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t a = item.find_first_not_of(' '), b = item.find_last_not_of(' ');
    if (a == std::string::npos) continue;
    item = item.substr(a, b - a + 1);
    const bool family = item.rfind("family:", 0) == 0;
    if (!family && item != "*") {
      list.push_back(item);
      continue;
    }
    for (const ListedOp& op : kOperatorList) {
      if (item == "*" || op.family == std::string_view(item).substr(7)) list.emplace_back(op.name);
    }
  }
  return list;
}

}  // namespace

int define(const char* id, const char* ops, const char* description) {
  Table& t = table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  for (size_t i = 0; i < t.paths.size(); ++i) {
    if (t.paths[i].id != id) continue;
    // A lower layer's kernel may mark a path by id alone (ops ""): the backend's definition
    // with its ops and description completes it, whichever runs first.
    if (t.paths[i].ops.empty()) t.paths[i].ops = split_ops(ops);
    if (t.paths[i].description.empty()) t.paths[i].description = description;
    return static_cast<int>(i);
  }
  check(t.paths.size() < static_cast<size_t>(kMaxPaths), "more than ", kMaxPaths,
        " kernel paths defined (cvmcheck/paths.h, kMaxPaths)");
  t.paths.push_back(PathInfo{id, split_ops(ops), description});
  return static_cast<int>(t.paths.size() - 1);
}

std::vector<PathInfo> defined() {
  Table& t = table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  return {t.paths.begin(), t.paths.end()};
}

const PathInfo* find(const std::string& id) {
  Table& t = table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  for (const PathInfo& p : t.paths) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

std::vector<std::string> take() {
  std::vector<std::string> ids;
  Table& t = table();
  for (size_t w = 0; w < kMaxPaths / 64; ++w) {
    uint64_t bits = detail::g_taken[w].exchange(0, std::memory_order_relaxed);
    while (bits != 0) {
      const int b = __builtin_ctzll(bits);
      bits &= bits - 1;
      const size_t index = w * 64 + static_cast<size_t>(b);
      if (index < t.paths.size()) ids.push_back(t.paths[index].id);
    }
  }
  return ids;
}

void clear() {
  for (auto& word : detail::g_taken) word.store(0, std::memory_order_relaxed);
}

}  // namespace cvm::paths
