// `ecgpipe view OUT_DIR`: the recording and a run's results in a browser, served on loopback.
//
// The page (src/view/web/view.html and view.js, embedded in the binary) draws the recording from a
// min/max pyramid (pyramid.hpp) built when `view` opens the folder: it reads the recording named
// in report.json (it needs its samples anyway to zoom down to single samples), which takes the
// time of reading the file; `run` is unchanged. The browser fetches only the tiles, beats and
// heart-rate bins of the visible range.
//
// Endpoints (GET; everything else is 404, nothing is read from disk outside the whitelist below):
//   /, /view.js                the page
//   /api/meta                  JSON: samples, fs, pyramid geometry, counts, what the run has, the
//                              start (start_of_day_s: seconds after midnight, or null)
//   /api/tile?level=L&tile=T   float32 (min, max) pairs, little-endian (Pyramid::tile)
//   /api/beats?from=A&to=B     JSON: detections (and reference beats) with A <= sample < B
//   /api/hr?from=A&to=B&bins=N JSON: heart rate per bin (mean, min, max bpm; null if no beat)
//   /api/outliers              JSON: outliers.csv's rows
//   /files/NAME                report.html, report.json, beats.csv, outliers.csv of OUT_DIR
// A missing or non-integer parameter, or a bad range, is 400; a tile outside the pyramid is 404.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/view/pyramid.hpp"

namespace ecgpipe {

struct ViewOptions {
  std::string out_dir;
  // Loopback only unless the user names another address (the data is a patient's ECG).
  std::string bind = "127.0.0.1";
  int port = 8765;  // 0: any free port
  // Reference beats (sample,symbol CSV or .atr); default: the one the run was given, if any.
  std::string reference;
  // The recording; default: report.json's input path.
  std::string recording;
};

// An outliers.csv row.
struct ViewOutlier {
  int rank = 0;
  std::int64_t index = 0;   // beat index in beats.csv
  std::int64_t r_peak = 0;  // sample
  double score = 0.0;
  char beat_class = '-';    // outliers.csv's `class`, else beats.csv's for that beat; '-': none
};

// Everything the server answers from, loaded once.
struct ViewData {
  std::string out_dir, recording;
  double fs = 250.0;
  Pyramid pyramid;
  // Detected beats, in sample order (beats.csv).
  std::vector<std::int64_t> r_peak;
  // NaN / 0 where beats.csv's model columns are empty cells (`ecgpipe analyze`: no model).
  std::vector<float> score;
  std::vector<std::uint8_t> outlier;
  // Whether a model scored the beats: some beats.csv `score` cell holds a number. Without one
  // there is no outliers.csv and the page says "no model: analysis only".
  bool has_model = true;
  // The signal's units (report.json input.units: "mV", "uV", ...; empty: unknown, a CSV) and how
  // many of them make a millivolt (NaN where unknown): the page's mV scale and ECG grid.
  std::string units;
  double units_per_mv = std::numeric_limits<double>::quiet_NaN();
  // When the recording started (report.json input.start, as written; empty: unknown) and, where
  // that reads as a time, its seconds after midnight: the page's times are then clock times.
  std::string start;
  std::optional<double> start_of_day_s;
  std::string beat_class;  // one AAMI class letter per beat ('-': none) when beats.csv has `class`
  double outlier_threshold = 0.0;
  std::vector<ViewOutlier> outliers;
  // AF episodes [start, end) in samples (rhythm.csv; none for a folder written before it existed).
  std::vector<std::pair<std::int64_t, std::int64_t>> af_episodes;
  // With a reference: its beats, and the 150 ms matching (match_beats) both ways.
  std::string reference;
  std::vector<std::int64_t> ref_sample;
  std::string ref_symbol;
  MatchResult match;  // reference = ref_sample, detections = r_peak
};

// Loads OUT_DIR (report.json, beats.csv, outliers.csv), the recording and the reference, and
// builds the pyramid. InputError (exit 3) naming what is missing or malformed. A folder whose
// beats.csv has empty model columns (no score anywhere) needs no outliers.csv: has_model false.
ViewData load_view_data(const ViewOptions& options);

// The HTTP server over one ViewData. Requests are answered from memory on httplib's threads.
class ViewServer {
 public:
  explicit ViewServer(std::shared_ptr<const ViewData> data);
  ~ViewServer();
  ViewServer(const ViewServer&) = delete;
  ViewServer& operator=(const ViewServer&) = delete;
  // Binds address:port (port 0: a free one) and returns the port. OutputError if it cannot
  // (address not local, port taken); UsageError for an empty address. From then on it answers
  // only requests whose Host is this address, localhost or an IP literal (DNS rebinding: a page
  // on another origin that resolves its own name to this machine gets 403).
  int bind(const std::string& address, int port);
  // Serves until stop(); call after bind().
  void listen();
  void stop();

 private:
  struct Impl;
  // Shared with the connection threads: one still reading a slow client when stop() returns keeps
  // the server it runs in alive until it ends (view_server.cpp, ConnectionThreads).
  std::shared_ptr<Impl> impl_;
};

// `ecgpipe view`: loads, binds, writes the URL as one line to `url_out`, serves until SIGINT or
// SIGTERM (then returns normally: exit 0).
void serve_view(const ViewOptions& options, std::ostream& url_out);

}  // namespace ecgpipe
