// AAMI beat classes (issue 10): every detected beat gets N, S, V, F or Q from a small model learned
// on MIT-BIH DS1 under the inter-patient protocol (scripts/train-classifier.py; the model is
// data/beat-classifier.json, compiled into the binary so an installed ecgpipe needs no data path).
// Inputs are the raw signal, the R peaks and the sampling rate (beat_features.hpp): the labels
// depend on nothing else, so `run` on either device and `score` with a saved model give the same
// labels for the same R peaks. Plain C++ on the host.
//
// The model never predicts Q (DS1 has 5 Q beats, too few to learn); Q is kept in the enum and in
// every count so outputs have the five AAMI classes.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ecgpipe {

struct AtrialActivity;  // beat_features.hpp

enum class BeatClass : std::uint8_t { N = 0, S = 1, V = 2, F = 3, Q = 4 };
inline constexpr int kBeatClassCount = 5;

// "N", "S", "V", "F" or "Q".
const char* class_name(BeatClass c);
// Per beat its class's letter: the form the EC57 evaluation, the Holter summary and the report take.
std::vector<char> class_letters(const std::vector<BeatClass>& classes);

// A gradient-boosted tree ensemble (scikit-learn's HistGradientBoostingClassifier, exported):
// per class a baseline plus the sum of its trees' leaf values; the class with the largest sum wins.
struct BeatClassifier {
  struct Tree {
    int target = 0;  // class index this tree adds to
    std::vector<int> feature, left, right;  // per node; left/right < 0 at a leaf
    std::vector<float> threshold, value;    // x[feature] <= threshold goes left; value at a leaf
  };
  int version = 0;
  // beat_feature_name(0..kBeatFeatureCount-1); the lead2 model's: those and kLead2FeatureName.
  std::vector<std::string> features;
  std::vector<BeatClass> classes;     // class of each output
  std::vector<double> baseline;       // per output
  std::vector<Tree> trees;
  // The model for recordings with a second lead (beat_features.hpp, lead2_qrs_correlation): the same
  // kind of trees over one more feature, trained on the same records with their other lead. Null:
  // the file has none, and every recording is classified from its primary lead.
  std::shared_ptr<const BeatClassifier> lead2;

  // Scores per output for one beat's features (features.size() floats).
  std::vector<double> decision(const float* x) const;
  BeatClass predict(const float* x) const;
};

// Parses a model file's JSON; InputError naming `where` when it is not a model of this version
// with exactly beat_features' columns (and its optional `lead2` model, those and the second
// lead's).
BeatClassifier parse_beat_classifier(const std::string& json, const std::string& where);

// The model compiled into this binary (data/beat-classifier.json at build time), parsed once.
const BeatClassifier& builtin_beat_classifier();

// One class per R peak (beat_features + the built-in model), on `threads` CPU threads (the same
// classes for every count). `atrial`, when given, receives the P-wave measures that rhythm
// analysis reads (beat_features.hpp, af_detect.hpp). `lead2`, when given (one value per R peak:
// lead2_qrs_correlation of the recording's second lead), selects the built-in model's lead2 model.
std::vector<BeatClass> classify_beats(const std::vector<float>& signal, const std::vector<std::int64_t>& r_peaks, double fs,
                                      int threads = 1, AtrialActivity* atrial = nullptr,
                                      const std::vector<float>* lead2 = nullptr);

// The same from the beats' feature windows (beat_features.hpp: feature_window), as a recording
// read in pieces gathers them.
std::vector<BeatClass> classify_beats_from_windows(const float* windows, std::size_t stride,
                                                   const std::vector<std::int64_t>& r_peaks, double fs, int threads = 1,
                                                   AtrialActivity* atrial = nullptr, const std::vector<float>* lead2 = nullptr);

// Beats of each class, indexed by BeatClass.
std::array<std::int64_t, kBeatClassCount> class_counts(const std::vector<BeatClass>& classes);

}  // namespace ecgpipe
