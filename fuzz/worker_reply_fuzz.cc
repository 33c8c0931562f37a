// libFuzzer target `worker_reply`: arbitrary bytes as one message payload for the worker
// protocol's decoders, which the harness runs on whatever an external worker writes (replies
// and hellos; calls too, as workers decode them). fuzz/worker_codec_check.h says what is
// checked; a finding aborts so that libFuzzer keeps the input.
#include <cstdio>
#include <cstdlib>

#include "fuzz/worker_codec_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string payload(reinterpret_cast<const char*>(data), size);
  if (const std::optional<std::string> finding = cvm::worker_codec_finding(payload)) {
    std::fprintf(stderr, "\n==cvmcheck finding (target worker_reply)==\n%s\n", finding->c_str());
    std::abort();
  }
  return 0;
}
