// Poisoning of Tensor::uninitialized (on by default). A kernel that leaves an output element
// unwritten returns whatever the allocator hands back, and the allocator often hands back the
// block the reference just freed, holding the expected values: the bug then passes every
// comparison. With poisoning, each new tensor is filled with a value that changes from call to
// call, so a skipped element differs from the reference and between repeated calls. Only the
// benchmarks turn it off (it costs a write pass over every output).
#pragma once

namespace cvm {

void set_poison_uninitialized(bool on);
bool poison_uninitialized();

}  // namespace cvm
