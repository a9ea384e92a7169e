// The bundled sample (data/sample.csv and its ground truth data/sample_beats.csv), compiled into
// the binary by cmake/embed_text.cmake so `ecgpipe selftest` runs from the executable alone.
#pragma once

namespace ecgpipe::embedded {
extern const char* const kSampleCsv;       // data/sample.csv
extern const char* const kSampleBeatsCsv;  // data/sample_beats.csv
}  // namespace ecgpipe::embedded
