// Kernel paths: the code paths a backend's kernels choose among (an ISA's GEMM or the direct
// kernel, a partial panel, a second k-block, a threaded pass, a second chunk), declared as data
// by the backend and reported by the kernels call by call, so that a campaign can say which
// paths its calls reached and fail when a declared one was never reached (docs/paths.md).
//
// A path has one process-wide id ("conv2d.gemm.partial_panel"), defined once by the code that
// takes it (paths::define at static initialisation) and marked by paths::hit where the choice
// is made. A hit is one relaxed atomic load (and an atomic or the first time in a call): no
// lock, no allocation, safe from the threads of a kernel's parallel region. The harness calls
// take() around each backend run (run_op_outcome), one call at a time per process.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cvm {

struct PathInfo {
  std::string id;           // "<op or family>.<what>", e.g. "dense.gemm.kblocks"
  std::vector<std::string> ops;  // the canonical operators whose calls can take it
  std::string description;  // one line: what a call must be like to take it
};

// A size that decides between paths (a panel height, a k-block, a chunk, a thread threshold),
// for the generators to draw on either side of, and for tests to read instead of a copy.
struct PathThreshold {
  std::string name;      // "relu.chunk"
  std::vector<std::string> ops;
  std::string quantity;  // what the value bounds: a generator quantity (docs/paths.md)
  int64_t value = 0;
  std::string description;
};

namespace paths {

inline constexpr int kMaxPaths = 512;

// Defines the path (idempotent by id: the same id gives the same index) and returns its
// index, for hit(). `ops` is a comma-separated list of canonical operator names.
int define(const char* id, const char* ops, const char* description);
// Every defined path, by index.
std::vector<PathInfo> defined();
// The path of an id, or nullptr.
const PathInfo* find(const std::string& id);

namespace detail {
inline std::atomic<uint64_t> g_taken[kMaxPaths / 64];
}  // namespace detail

// Marks path `index` as taken by the call that runs now.
inline void hit(int index) noexcept {
  std::atomic<uint64_t>& word = detail::g_taken[static_cast<unsigned>(index) / 64 % (kMaxPaths / 64)];
  const uint64_t bit = uint64_t{1} << (static_cast<unsigned>(index) % 64);
  if ((word.load(std::memory_order_relaxed) & bit) == 0) word.fetch_or(bit, std::memory_order_relaxed);
}
inline void hit_if(bool taken, int index) noexcept {
  if (taken) hit(index);
}

// The ids of the paths taken since the last take(), in index order; clears them.
std::vector<std::string> take();
// Clears the taken paths without reading them.
void clear();

// Counts of calls per path id, as a campaign keeps them.
using Counts = std::map<std::string, int64_t>;

}  // namespace paths
}  // namespace cvm
