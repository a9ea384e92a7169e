// Outlier scoring (score.hpp): model names, the rr model's centred windows, the rhythm term and
// the combined score. Exact values throughout: integer windows, and scores from closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/model/outlier_score.hpp"
#include "ecgpipe/model/vae.hpp"

namespace ecgpipe {
namespace {

TEST(Score, ModelNames) {
  EXPECT_EQ(braced_names(model_names()), "{rr,seed}");
  EXPECT_STREQ(model_name(Model::rr), "rr");
  EXPECT_STREQ(model_name(Model::seed), "seed");
  EXPECT_EQ(value_named(model_names(), "seed"), Model::seed);
  EXPECT_EQ(value_named(model_names(), "SEED"), std::nullopt) << "exact: only the names ecgpipe writes";
  EXPECT_STREQ(device_name(Device::cpu), "cpu");
  EXPECT_STREQ(device_name(Device::cuda), "cuda");
}

// The model file's names are read exactly, from the tables that write them; anything else is a
// damaged record (InputError, exit 3), not a usage error: the user typed none of it.
TEST(Score, ModelMetaReadsNamesExactly) {
  const auto meta = [](const std::string& preset, const std::string& beats) {
    return R"({"format": 1, "model": "LightVAE", "latent_dim": 2, "preset": ")" + preset +
           R"(", "fs": 360.0, "ricker_width": 30, "nms_window": 180, "min_length": 100, "max_length": 256, "beats": ")" +
           beats + R"("})";
  };
  RunOptions o;
  apply_model_meta(meta("seed", "rr"), "m.pt", o);
  EXPECT_EQ(o.preset, Preset::seed);
  EXPECT_EQ(o.model, Model::rr);
  apply_model_meta(meta("robust", "seed"), "m.pt", o);
  EXPECT_EQ(o.preset, Preset::robust);
  EXPECT_EQ(o.model, Model::seed);
  EXPECT_THROW(apply_model_meta(meta("Robust", "rr"), "m.pt", o), InputError);
  try {
    apply_model_meta(meta("robust", "lstm"), "m.pt", o);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "model m.pt has a damaged ecgpipe record: \"beats\" is \"lstm\", not one of {rr,seed}");
  }
}

// 0.25 s before R and 0.45 s after, rounded to samples, the row rounded up to a multiple of 8.
TEST(Score, CentredWindowScalesWithTheSamplingRate) {
  const CentredWindow w360 = centred_window(360.0);
  EXPECT_EQ(w360.before, 90);
  EXPECT_EQ(w360.length, 256);  // 90 + 162 = 252 -> 256
  const CentredWindow w250 = centred_window(250.0);
  EXPECT_EQ(w250.before, 63);   // lround(62.5)
  EXPECT_EQ(w250.length, 176);  // 63 + 113 = 176
  EXPECT_EQ(w250.length % kModelLengthMultiple, 0);
  const CentredWindow w1000 = centred_window(1000.0);
  EXPECT_EQ(w1000.before, 250);
  EXPECT_EQ(w1000.length, 704);  // 700 -> 704
}

TEST(Score, CentredWindowsDropEarlyBeatsAndCutAtTheEnd) {
  const CentredWindow w{10, 32};
  // R at 5 would start at -5: left out. R at 10 starts at 0. R at 90 in a 100-sample signal: cut.
  const BeatTable t = centred_windows({5, 10, 50, 90}, 100, w);
  EXPECT_EQ(t.start, (std::vector<std::int64_t>{0, 40, 80}));
  EXPECT_EQ(t.length, (std::vector<std::int32_t>{32, 32, 20}));
  EXPECT_EQ(centred_windows({}, 100, w).size(), 0u);
  EXPECT_EQ(centred_windows({3}, 100, w).size(), 0u);
}

TEST(Score, PrematurityIsTheLogRatioToTheLocalMedianRr) {
  EXPECT_TRUE(prematurity({}).empty());
  EXPECT_EQ(prematurity({7}), std::vector<float>{0.0f});
  // Regular RR of 100 samples, beat 12 comes 20 samples early, beat 13 after a 120-sample pause.
  std::vector<std::int64_t> r;
  for (int i = 0; i < 30; ++i) r.push_back(100 * i);
  r[12] -= 20;
  const auto p = prematurity(r);
  ASSERT_EQ(p.size(), r.size());
  EXPECT_EQ(p[0], 0.0f);
  EXPECT_FLOAT_EQ(p[12], static_cast<float>(std::log(100.0 / 80.0)));
  EXPECT_EQ(p[13], 0.0f) << "a late beat is not premature";
  for (std::size_t i = 1; i < p.size(); ++i)
    if (i != 12) {  // braces: EXPECT_* expands to an if/else of its own
      EXPECT_EQ(p[i], 0.0f) << i;
    }
}

TEST(Score, CombinesShapeTemplateAndRhythm) {
  // Medians: recon 2, template 4. Beat 1: both at the median, 0.1 premature.
  const std::vector<float> recon{1, 2, 8}, tmpl{4, 4, 16}, prem{0, 0.1f, 0};
  const auto s = score_rr(recon, tmpl, prem);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FLOAT_EQ(s[0], static_cast<float>(std::log(0.5)));
  EXPECT_FLOAT_EQ(s[1], static_cast<float>(kPrematurityWeight * 0.1f));
  EXPECT_FLOAT_EQ(s[2], static_cast<float>(std::log(4.0) + std::log(4.0)));
  EXPECT_TRUE(score_rr({}, {}, {}).empty());
  EXPECT_THROW(score_rr({1}, {1, 2}, {0}), InternalError);
}

TEST(Score, ZeroTermsStayFinite) {
  const auto s = score_rr({0, 0, 0}, {0, 1, 0}, {0, 0, 0});
  for (float v : s) EXPECT_TRUE(std::isfinite(v));
  EXPECT_GT(s[1], s[0]);
}

// Sinus bradycardia with an atrial premature beat in most cycles (N A A N A A ...: sinus beats end
// 1.6 s pauses, the premature beats come 0.8 s apart): the premature beats are the local majority
// at the local median RR, so prematurity is 0 for all of them (the inversion of issue 10), but the
// rhythm term ranks every premature beat above every sinus beat, and is 0 for the sinus beats.
TEST(Score, RhythmTermSurvivesDominantPrematureBeats) {
  std::vector<std::int64_t> r{0};
  std::vector<bool> premature{false};
  for (int cycle = 0; cycle < 20; ++cycle)
    for (const auto& [rr, apc] : {std::pair<int, bool>{288, true}, {288, true}, {576, false}}) {
      r.push_back(r.back() + rr);  // 360 Hz: 0.8 s and 1.6 s
      premature.push_back(apc);
    }
  const std::vector<float> prem = prematurity(r), rhythm = rhythm_term(r);
  float lowest_apc = 1e9f, highest_sinus = -1e9f;
  // Away from the ends, where the local window has its full 21 intervals.
  for (std::size_t i = kRrContext; i + kRrContext < r.size(); ++i) {
    EXPECT_EQ(prem[i], 0.0f) << i;
    if (premature[i]) lowest_apc = std::min(lowest_apc, rhythm[i]);
    else highest_sinus = std::max(highest_sinus, rhythm[i]);
  }
  EXPECT_EQ(highest_sinus, 0.0f);
  EXPECT_NEAR(lowest_apc, kSinusWeight * std::log(2.0), 1e-6);  // the first APC of a pair: p80 = 1.6 s
}

TEST(Score, RhythmTermIsZeroForARegularRhythmAndShortInputs) {
  std::vector<std::int64_t> r;
  for (int i = 0; i < 40; ++i) r.push_back(300 * i);
  for (const float v : rhythm_term(r)) EXPECT_EQ(v, 0.0f);
  EXPECT_TRUE(rhythm_term({}).empty());
  EXPECT_EQ(rhythm_term({5}), std::vector<float>{0.0f});
  // Two beats: the second has an RR before and none after (short-long 0).
  EXPECT_EQ(rhythm_term({0, 100}), (std::vector<float>{0.0f, 0.0f}));
}

}  // namespace
}  // namespace ecgpipe
