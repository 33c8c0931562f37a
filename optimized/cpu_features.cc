#include "optimized/cpu_features.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace cvm::opt {
namespace {

Isa detect() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
    return Isa::kAvx512Vnni;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
#endif
  return Isa::kPortable;
}

// -1: no programmatic cap.
std::atomic<int> g_cap{-1};

int env_cap() {
  const char* text = std::getenv("CVMCHECK_ISA");
  if (text == nullptr) return -1;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512Vnni}) {
    if (std::strcmp(text, isa_name(isa)) == 0) return static_cast<int>(isa);
  }
  return -1;
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAvx512Vnni: return "avx512vnni";
    case Isa::kAvx2: return "avx2";
    case Isa::kPortable: break;
  }
  return "portable";
}

Isa detected_isa() {
  static const Isa isa = detect();
  return isa;
}

Isa active_isa() {
  int cap = g_cap.load(std::memory_order_relaxed);
  if (cap < 0) cap = env_cap();
  const int best = static_cast<int>(detected_isa());
  return static_cast<Isa>(cap < 0 || cap > best ? best : cap);
}

const char* active_isa_name() { return isa_name(active_isa()); }

void set_isa_cap(Isa cap) { g_cap.store(static_cast<int>(cap), std::memory_order_relaxed); }

void clear_isa_cap() { g_cap.store(-1, std::memory_order_relaxed); }

int isa_cap_state() { return g_cap.load(std::memory_order_relaxed); }

void restore_isa_cap_state(int state) { g_cap.store(state, std::memory_order_relaxed); }

}  // namespace cvm::opt
