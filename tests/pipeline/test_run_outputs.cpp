// What a run writes (src/pipeline/run_outputs.cpp): beats.csv's text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "pipeline/run_steps.hpp"
#include "ecgpipe/classify/classify.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/model/vae.hpp"

namespace {

// A run's result with `n` beats and distinct values in every column.
ecgpipe::RunResult result_with_beats(std::size_t n) {
  ecgpipe::RunResult r;
  for (std::size_t i = 0; i < n; ++i) {
    const auto f = static_cast<float>(i);
    r.beats.start.push_back(static_cast<std::int64_t>(i) * 290 + static_cast<std::int64_t>(i % 7));
    r.beats.length.push_back(static_cast<std::int32_t>(250 + i % 11));
    r.model.in_train.push_back(static_cast<std::uint8_t>(i % 4 != 0));
    r.model.recon_error.push_back(0.01f * f + 0.125f);
    r.model.neg_elbo.push_back(0.02f * f + 0.5f);
    r.model.template_distance.push_back(1.0f / (f + 3.0f));
    r.model.score.push_back(0.3f * f - 7.0f);
    for (int k = 0; k < ecgpipe::kLatentDim; ++k) r.model.latent_mean.push_back(f * (k + 1) / 1000.0f);
    r.prematurity.push_back(i % 13 == 0 ? 0.4f : 0.0f);
    r.outlier.push_back(static_cast<std::uint8_t>(i % 97 == 0));
    r.beat_class.push_back(static_cast<ecgpipe::BeatClass>(i % 5));
    r.rhythm.push_back(i % 7 == 0 ? ecgpipe::Rhythm::AFIB : ecgpipe::Rhythm::N);
  }
  return r;
}

// The rows are formatted in pieces of 8192 on threads: the text must not depend on the thread
// count. Row counts: none, one, a piece's edge (8191, 8192, 8193), several pieces (20000).
TEST(RunOutputs, BeatsCsvIsTheSameTextForEveryThreadCount) {
  const ecgpipe::RunOptions o;
  for (const std::size_t n : {0, 1, 8191, 8192, 8193, 20000}) {
    const ecgpipe::RunResult r = result_with_beats(n);
    const std::string one = ecgpipe::beats_csv(o, r, 1);
    for (const int threads : {2, 3, 8}) EXPECT_EQ(ecgpipe::beats_csv(o, r, threads), one) << n << " beats, " << threads << " threads";
    EXPECT_EQ(static_cast<std::size_t>(std::count(one.begin(), one.end(), '\n')), n + 1) << n;  // the header and a row each
    EXPECT_EQ(one.rfind("index,start,r_peak,", 0), 0u);
    if (n > 0) {
      const std::size_t last = one.rfind('\n', one.size() - 2) + 1;
      EXPECT_EQ(one.substr(last, one.find(',', last) - last), std::to_string(n - 1)) << n;
    }
  }
}

}  // namespace
