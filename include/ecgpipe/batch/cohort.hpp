// `ecgpipe run --cohort-model A B ...`: one model trained on every recording's beats (the
// population model), then each recording scored with it.
#pragma once

#include <exception>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ecgpipe/batch/batch.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"

namespace ecgpipe {

struct CohortTraining {
  std::string model_path;  // out_dir/model.safetensors
  std::size_t recordings = 0, beats = 0;
  // Recordings whose beats could not be made (by name), with their error: they are left out of
  // the training and fail again, with the same error, when scored.
  std::map<std::string, std::exception_ptr> failed;
};

// Segments every item on the CPU (`jobs` at a time) with the options `options_for(item)` gives,
// normalises each recording's rows on their own (rr model), trains one model on all of them with
// the first recording's options (seed, epochs, ...) and saves it to out_dir/model.safetensors, atomically.
// A recording whose beat rows have another length than the first's (another rate) is left out
// with a UsageError. InputError when no recording gives beats.
CohortTraining train_cohort_model(const std::vector<BatchItem>& items, int jobs,
                                  const std::function<RunOptions(const BatchItem&)>& options_for,
                                  const std::string& out_dir);

}  // namespace ecgpipe
