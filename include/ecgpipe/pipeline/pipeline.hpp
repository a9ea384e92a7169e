// The whole `ecgpipe run`: CSV -> band-pass -> gates -> beat matrix -> VAE -> outputs:
// run_pipeline (src/pipeline/pipeline.cpp), which lists the steps; each step lives in the file named
// for it. Its options and result: run_types.hpp.
#pragma once

#include <string>

#include "ecgpipe/pipeline/run_types.hpp"

namespace ecgpipe {

// Runs every stage and writes beats.csv, model.safetensors and report.json into options.out_dir, each
// through a temporary file renamed into place, so a failure leaves no partial output; with an empty
// out_dir it writes nothing and only returns the results (the Python API).
RunResult run_pipeline(const RunOptions& options);

// The report.json text (also what `run --json` prints).
std::string run_report_json(const RunOptions& options, const RunResult& result);
// The beats.csv text, byte for byte what the run writes.
std::string run_beats_csv(const RunOptions& options, const RunResult& result);

}  // namespace ecgpipe
