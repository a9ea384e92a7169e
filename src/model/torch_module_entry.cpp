// libecgpipe_torch.so's one exported symbol: its table of functions (torch_module.hpp), for the
// command line's loader (torch_module_loader.cpp). Only in the module.
#include "model/torch_module.hpp"

#include "ecgpipe/model/torch_runtime.hpp"

namespace {

const std::string& build_stamp() {
  static const std::string stamp = ecgpipe::detail::torch_module_build_stamp();
  return stamp;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const ecgpipe::detail::TorchModule* ecgpipe_torch_module() {
  using namespace ecgpipe;
  static const detail::TorchModule table{build_stamp().c_str(),
                                         &train_and_score,
                                         &score_with_model,
                                         &normalise_rows_cpu,
                                         &make_circular_convolution,
                                         &detail::set_torch_threads,
                                         &torch_threads,
                                         &torch_cuda_available};
  return &table;
}
