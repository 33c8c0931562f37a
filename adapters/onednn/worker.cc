// cvmcheck_onednn_worker: oneDNN (Debian's libdnnl) as an implementation under test, speaking
// the worker protocol v1 (worker_sdk/include/cvmcheck_worker.hpp).
//
//   cvmcheck_onednn_worker [--threads N] [--print-isa]
//
// Served: conv2d and dense (int8 convolution / inner product, s32 bias and output), relu
// (eltwise), max_pool2d (pooling), elemwise_add/sub and broadcast_add/sub/mul/max/greater
// (binary), each on oneDNN's CPU engine with the layouts oneDNN prefers. Not served: what oneDNN
// cannot state in the contract's terms (broadcast_div rounds a float quotient where the contract
// truncates; reductions, shifts, clips, transforms and vision operators have no exact oneDNN
// primitive), so the harness reports them as skipped.
//
// oneDNN knows nothing of CVM precisions, attribute syntax or validity rules: the worker
// validates each call with cvmcheck's production inference (infer/, shared with the optimized
// backend, written apart from the reference), which also gives the output precision, and
// reports the rule id of a refused call. What the harness then compares is oneDNN's arithmetic
// and shapes. Which oneDNN implementation ran each call goes to stderr (report_impl).
// --print-isa prints oneDNN's effective CPU ISA (honouring DNNL_MAX_CPU_ISA) and exits, for
// scripts that pick the known-differences list of that ISA.
#include <omp.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "harness/worker_client/worker_call.h"
#include "onednn_common.h"
#include "registry/registry.h"

namespace {

const char* const kBackend = "onednn";

cvm::Backend onednn_backend() {
  cvm::Backend b;
  b.name = kBackend;
  b.add("conv2d", cvm::onednn::conv2d);
  b.add("dense", cvm::onednn::dense);
  b.add("relu", cvm::onednn::relu);
  b.add("max_pool2d", cvm::onednn::max_pool2d);
  for (const char* op : {"elemwise_add", "elemwise_sub", "broadcast_add", "broadcast_sub",
                         "broadcast_mul", "broadcast_max", "broadcast_greater"}) {
    b.add(op, cvm::onednn::binary_op);
  }
  for (const auto& [op, kernel] : b.kernels) b.declared_ops.insert(op);
  return b;
}

const char* isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;  // the harness runs one call at a time; more threads only share the cores
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--print-isa") == 0) {
      std::printf("%s\n", isa_name(dnnl::get_effective_cpu_isa()));
      return 0;
    } else {
      std::cerr << "usage: cvmcheck_onednn_worker [--threads N] [--print-isa]\n";
      return 2;
    }
  }
  if (threads < 1) threads = 1;
  omp_set_num_threads(threads);
  cvm::registry().add_backend(onednn_backend());
  std::cerr << "onednn-worker: oneDNN " << dnnl_version()->major << "." << dnnl_version()->minor
            << "." << dnnl_version()->patch << ", ISA " << isa_name(dnnl::get_effective_cpu_isa())
            << ", " << threads << " thread(s)\n";
  std::signal(SIGPIPE, SIG_IGN);
  const int protocol_fd = cvm::take_stdout_for_protocol();
  if (protocol_fd < 0) {
    std::cerr << "onednn-worker: cannot set up stdout for the protocol\n";
    return 2;
  }
  // The implementation oneDNN picked for each call is its kernel path (onednn.<op>.<impl>),
  // reported per call; none is declared, since oneDNN picks them at run time per shape.
  return cvmcheck_worker::serve_with_paths(
      "onednn", cvm::served_op_names(cvm::registry(), kBackend), {},
      [](const cvmcheck_worker::Call& call) {
        cvm::onednn::set_call_id(call.id);
        return cvm::serve_call(cvm::registry(), kBackend, call);
      },
      cvmcheck_worker::kFlagReportsRules, /*in_fd=*/0, protocol_fd);
}
