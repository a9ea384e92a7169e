// The HTTP side of `ecgpipe view` (view.hpp): cpp-httplib routes answering from a ViewData in
// memory, and serving until Ctrl-C.
#include <httplib.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <charconv>
#include <cerrno>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/view/view.hpp"
#include "common/text.hpp"
#include "view/view_assets.hpp"
#include "common/json_text.hpp"

namespace ecgpipe {
namespace {

using nlohmann::json;

// Most beats one /api/beats answer holds: the page asks for beats only when a few minutes are
// visible (a few hundred beats); a whole 20-hour recording (~90 k beats) must not come in one go.
constexpr std::size_t kMaxBeatsPerRequest = 20000;
// Most heart-rate bins per request: more than any screen has pixels.
constexpr std::int64_t kMaxHrBins = 10000;

// Bounds that keep one client from holding up the others (issue 25: eight slow clients stalled the
// viewer; a 300 MB request body was buffered whole). The viewer takes no uploads, so a body is
// refused (413) past a few kB without being read; a read that waits longer than kReadTimeoutS
// ends its connection; each connection has its own thread (up to kMaxConnections at once; more
// wait for one to end), so a slow client delays nobody else; stop() waits kStopGrace for the
// connections still open and leaves the rest to end on their own (ConnectionThreads).
constexpr std::size_t kMaxRequestBody = 8 * 1024;
constexpr time_t kReadTimeoutS = 5;
constexpr time_t kWriteTimeoutS = 5;
constexpr std::size_t kMaxConnections = 256;
constexpr auto kStopGrace = std::chrono::milliseconds(1000);

// The write end of the pipe a SIGINT/SIGTERM handler writes to while a server runs (-1: none).
volatile sig_atomic_t g_stop_fd = -1;

extern "C" void on_view_stop_signal(int) {
  const int saved = errno;
  const char byte = 1;
  if (g_stop_fd >= 0) (void)!::write(g_stop_fd, &byte, 1);
  errno = saved;
}

// Routes SIGINT and SIGTERM to a pipe while alive; restores the earlier handlers (the output
// set's cleanup, output.hpp) when destroyed.
class StopPipe {
 public:
  StopPipe() {
    if (::pipe2(fd_, O_CLOEXEC) != 0) throw InternalError(std::string("view: pipe: ") + std::strerror(errno));
    g_stop_fd = fd_[1];
    struct sigaction sa {};
    sa.sa_handler = on_view_stop_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopPipe() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    g_stop_fd = -1;
    ::close(fd_[0]);
    ::close(fd_[1]);
  }
  StopPipe(const StopPipe&) = delete;
  StopPipe& operator=(const StopPipe&) = delete;

  // Returns once a signal came or wake() was called.
  void wait() const {
    char byte = 0;
    while (::read(fd_[0], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  void wake() const { on_view_stop_signal(0); }

 private:
  int fd_[2] = {-1, -1};
  struct sigaction old_int_ {}, old_term_ {};
};

void reply_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json_text(json{{"error", message}}), "application/json");
}

// Whether a request announces a body past kMaxRequestBody: a Content-Length that is not a decimal
// count up to it, or any Transfer-Encoding (chunked: a length not known before it is read). Judged
// on the headers, before httplib reads anything more: its own payload limit reads the body and
// discards it, up to the read timeout, before it answers 413 (5 s late for a header-only request).
bool announces_big_body(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding")) return true;
  if (!req.has_header("Content-Length")) return false;
  const std::string v = req.get_header_value("Content-Length");
  std::size_t length = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), length);
  return v.empty() || ec != std::errc() || ptr != v.data() + v.size() || length > kMaxRequestBody;
}

// A query parameter that must be a whole decimal integer (no sign other than '-', no spaces, no
// trailing text); false if missing or malformed.
bool int_param(const httplib::Request& req, const char* name, std::int64_t& out) {
  if (!req.has_param(name)) return false;
  const std::string v = req.get_param_value(name);
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && ptr == v.data() + v.size() && !v.empty();
}

// from/to of a range request, checked: 0 <= from < to (to may pass the end).
bool range_params(const httplib::Request& req, httplib::Response& res, std::int64_t& from, std::int64_t& to) {
  if (!int_param(req, "from", from) || !int_param(req, "to", to)) {
    reply_error(res, 400, "from and to must be integer sample indices");
    return false;
  }
  if (from < 0 || to <= from) {
    reply_error(res, 400, "need 0 <= from < to");
    return false;
  }
  return true;
}

std::size_t lower_index(const std::vector<std::int64_t>& v, std::int64_t x) {
  return static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), x) - v.begin());
}

json meta_json(const ViewData& d) {
  const Pyramid& p = d.pyramid;
  // The scores that are numbers (a beat without a model's score is NaN, which has no order).
  std::vector<float> sorted;
  for (const float v : d.score)
    if (std::isfinite(v)) sorted.push_back(v);
  std::sort(sorted.begin(), sorted.end());
  const auto quantile = [&](double q) {
    return sorted.empty() ? 0.0 : static_cast<double>(sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))]);
  };
  json j{{"samples", p.samples()},
         {"fs", d.fs},
         {"levels", p.levels()},
         {"factor", Pyramid::kFactor},
         {"tile_bins", Pyramid::kTileBins},
         {"recording", d.recording},
         {"out_dir", d.out_dir},
         {"beats", d.r_peak.size()},
         {"has_class", !d.beat_class.empty()},
         {"has_model", d.has_model},
         {"units", d.units.empty() ? json(nullptr) : json(d.units)},
         {"units_per_mv", std::isfinite(d.units_per_mv) ? json(d.units_per_mv) : json(nullptr)},
         {"outlier_threshold", d.outlier_threshold},
         {"score_p05", quantile(0.05)},
         {"score_p50", quantile(0.5)},
         {"score_p99", quantile(0.99)},
         {"max_beats_per_request", kMaxBeatsPerRequest},
         {"has_reference", !d.reference.empty()},
         {"af_episodes", d.af_episodes},
         {"start", d.start.empty() ? json(nullptr) : json(d.start)},
         {"start_of_day_s", d.start_of_day_s ? json(*d.start_of_day_s) : json(nullptr)}};
  if (!d.reference.empty()) {
    j["reference"] = {{"path", d.reference}, {"beats", d.ref_sample.size()}, {"tp", d.match.tp},
                      {"fn", d.match.fn}, {"fp", d.match.fp}, {"tolerance_ms", 150}};
  }
  return j;
}

void beats_reply(const ViewData& d, const httplib::Request& req, httplib::Response& res) {
  std::int64_t from = 0, to = 0;
  if (!range_params(req, res, from, to)) return;
  const std::size_t a = lower_index(d.r_peak, from), b = lower_index(d.r_peak, to);
  const std::size_t ra = lower_index(d.ref_sample, from), rb = lower_index(d.ref_sample, to);
  if (b - a > kMaxBeatsPerRequest || rb - ra > kMaxBeatsPerRequest) {
    reply_error(res, 400, "the range holds more than " + std::to_string(kMaxBeatsPerRequest) + " beats; ask for a shorter one");
    return;
  }
  json beats{{"r_peak", std::vector<std::int64_t>(d.r_peak.begin() + a, d.r_peak.begin() + b)},
             {"index", a},
             {"score", std::vector<float>(d.score.begin() + a, d.score.begin() + b)},
             {"outlier", std::vector<int>(d.outlier.begin() + a, d.outlier.begin() + b)}};
  if (!d.beat_class.empty()) beats["class"] = d.beat_class.substr(a, b - a);
  json j{{"from", from}, {"to", to}, {"beats", beats}};
  if (!d.reference.empty()) {
    std::vector<int> det_matched, ref_matched;
    for (std::size_t i = a; i < b; ++i) det_matched.push_back(d.match.matched_reference[i] >= 0 ? 1 : 0);
    for (std::size_t i = ra; i < rb; ++i) ref_matched.push_back(d.match.matched_detection[i] >= 0 ? 1 : 0);
    j["beats"]["matched"] = det_matched;
    j["reference"] = {{"sample", std::vector<std::int64_t>(d.ref_sample.begin() + ra, d.ref_sample.begin() + rb)},
                      {"symbol", d.ref_symbol.substr(ra, rb - ra)},
                      {"matched", ref_matched}};
  }
  res.set_content(json_text(j), "application/json");
}

// Heart rate 60 fs / RR of each beat (from the previous detection) in [from, to), per bin.
void hr_reply(const ViewData& d, const httplib::Request& req, httplib::Response& res) {
  std::int64_t from = 0, to = 0, bins = 0;
  if (!range_params(req, res, from, to)) return;
  if (!int_param(req, "bins", bins) || bins < 1 || bins > kMaxHrBins) {
    reply_error(res, 400, "bins must be an integer in 1.." + std::to_string(kMaxHrBins));
    return;
  }
  const auto n = static_cast<std::size_t>(bins);
  std::vector<double> sum(n, 0.0), lo(n, INFINITY), hi(n, -INFINITY);
  std::vector<int> count(n, 0);
  const double span = static_cast<double>(to - from);
  for (std::size_t i = std::max<std::size_t>(1, lower_index(d.r_peak, from)); i < d.r_peak.size() && d.r_peak[i] < to; ++i) {
    const auto rr = d.r_peak[i] - d.r_peak[i - 1];
    if (rr <= 0) continue;
    const double bpm = 60.0 * d.fs / static_cast<double>(rr);
    const auto k = std::min(n - 1, static_cast<std::size_t>(static_cast<double>(d.r_peak[i] - from) / span * static_cast<double>(n)));
    sum[k] += bpm;
    lo[k] = std::min(lo[k], bpm);
    hi[k] = std::max(hi[k], bpm);
    ++count[k];
  }
  json mean = json::array(), mn = json::array(), mx = json::array();
  for (std::size_t k = 0; k < n; ++k) {
    if (count[k] == 0) {
      mean.push_back(nullptr), mn.push_back(nullptr), mx.push_back(nullptr);
    } else {
      mean.push_back(sum[k] / count[k]), mn.push_back(lo[k]), mx.push_back(hi[k]);
    }
  }
  res.set_content(json_text(json{{"from", from}, {"to", to}, {"bins", bins}, {"mean", mean}, {"min", mn}, {"max", mx}}),
                  "application/json");
}

void tile_reply(const ViewData& d, const httplib::Request& req, httplib::Response& res) {
  std::int64_t level = 0, tile = 0;
  if (!int_param(req, "level", level) || !int_param(req, "tile", tile)) {
    reply_error(res, 400, "level and tile must be integers");
    return;
  }
  std::vector<float> values;
  if (level < 0 || level >= d.pyramid.levels() || !d.pyramid.tile(static_cast<int>(level), tile, values)) {
    reply_error(res, 404, "no tile " + std::to_string(tile) + " at level " + std::to_string(level));
    return;
  }
  // float32 little-endian, as the page's Float32Array reads it (x86 and ARM hosts are little-endian).
  res.set_content(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)),
                  "application/octet-stream");
  res.set_header("Cache-Control", "max-age=3600");
}

json outliers_json(const ViewData& d) {
  json rows = json::array();
  for (const auto& o : d.outliers)
    rows.push_back({{"rank", o.rank}, {"index", o.index}, {"r_peak", o.r_peak}, {"score", o.score},
                    {"class", std::string(1, o.beat_class)}});
  return rows;
}

// The output files the page links to; nothing else of the folder (or beyond it) is served.
// httplib's task queue, a thread per connection. Each thread holds `keep`, the server's state, so
// that a thread still reading a client when stop() has returned (a client trickling its headers)
// never outlives what it uses; the process exits without waiting for it.
class ConnectionThreads final : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(std::shared_ptr<void> keep) : state_(std::make_shared<State>()) { state_->keep = std::move(keep); }

  void enqueue(std::function<void()> fn) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->pending.push_back(std::move(fn));
    start_pending(state_);
  }

  void shutdown() override {
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->done.wait_for(lock, kStopGrace, [&] { return state_->running == 0 && state_->pending.empty(); });
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable done;
    std::size_t running = 0;
    std::deque<std::function<void()>> pending;
    std::shared_ptr<void> keep;
  };

  // With state->mu held: starts waiting connections while fewer than kMaxConnections run. A thread
  // that cannot be started (the system's limit) leaves its connection waiting for the next end.
  static void start_pending(const std::shared_ptr<State>& state) {
    while (state->running < kMaxConnections && !state->pending.empty()) {
      std::function<void()> fn = std::move(state->pending.front());
      state->pending.pop_front();
      try {
        std::thread([state, fn]() {
          fn();
          std::lock_guard<std::mutex> lock(state->mu);
          --state->running;
          start_pending(state);
          state->done.notify_all();
        }).detach();
        ++state->running;
      } catch (const std::system_error&) {
        state->pending.push_front(std::move(fn));
        return;
      }
    }
  }

  std::shared_ptr<State> state_;
};

bool is_loopback_name(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  if (host == "localhost") return true;
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool is_any_address(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  if (host == "0") return true;  // getaddrinfo reads "0" as 0.0.0.0
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return v4.s_addr == htonl(INADDR_ANY);
  return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_UNSPECIFIED(&v6);
}

// Whether a request's Host header names this server: the bound address, localhost, or an IP
// literal. A DNS name other than these is refused: a page on another origin can point its own
// name at 127.0.0.1 (DNS rebinding) and would otherwise read the recordings as same-origin.
bool host_allowed(const std::string& header, const std::string& bound) {
  std::string host = header;
  if (!host.empty() && host.front() == '[') {
    const std::size_t end = host.find(']');
    if (end == std::string::npos) return false;
    host = host.substr(1, end - 1);
  } else if (const std::size_t colon = host.rfind(':'); colon != std::string::npos) {
    host = host.substr(0, colon);
  }
  host = text::lower(host);
  if (host.empty()) return false;
  if (host == "localhost" || host == text::lower(bound)) return true;
  in_addr v4{};
  in6_addr v6{};
  return ::inet_pton(AF_INET, host.c_str(), &v4) == 1 || ::inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

// The bytes of out_dir/name if that is a regular file whose real path lies inside the real
// out_dir (a symlink out of the folder is not followed), read without blocking (a FIFO would hold
// the handler, and with it Ctrl-C); otherwise false and why.
bool read_served_file(const std::string& out_dir, const std::string& name, std::string& bytes, std::string& why) {
  char dir_buf[PATH_MAX], file_buf[PATH_MAX];
  const std::string path = out_dir + "/" + name;
  if (::realpath(out_dir.c_str(), dir_buf) == nullptr || ::realpath(path.c_str(), file_buf) == nullptr) {
    why = name + " is not in " + out_dir;
    return false;
  }
  const std::string dir = dir_buf, file = file_buf;
  if (file.compare(0, dir.size() + 1, dir + "/") != 0) {
    why = name + " leads out of " + out_dir + "; not served";
    return false;
  }
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    why = name + " is not a regular file in " + out_dir;
    return false;
  }
  bytes.clear();
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      if (n < 0) why = "cannot read " + name + ": " + std::strerror(errno);
      return n == 0;
    }
    bytes.append(buf, static_cast<std::size_t>(n));
  }
}

bool served_file(const std::string& name) {
  return name == "report.html" || name == "report.json" || name == "beats.csv" || name == "outliers.csv" ||
         name == "rhythm.csv";
}

}  // namespace

struct ViewServer::Impl {
  std::shared_ptr<const ViewData> data;
  httplib::Server server;
  std::string bound;  // the address given to bind()
};

ViewServer::ViewServer(std::shared_ptr<const ViewData> data) : impl_(std::make_shared<Impl>()) {
  impl_->data = std::move(data);
  const ViewData& d = *impl_->data;
  auto& s = impl_->server;
  s.set_payload_max_length(kMaxRequestBody);
  s.set_read_timeout(kReadTimeoutS, 0);
  s.set_write_timeout(kWriteTimeoutS, 0);
  s.set_keep_alive_timeout(kReadTimeoutS);
  std::weak_ptr<Impl> weak = impl_;  // the queue is made in listen(), while impl_ is alive
  s.new_task_queue = [weak] { return new ConnectionThreads(weak.lock()); };
  const std::string* bound = &impl_->bound;
  const std::string meta = json_text(meta_json(d)), outliers = json_text(outliers_json(d));
  // httplib's default also sets SO_REUSEPORT, with which a second viewer on a taken port binds
  // silently and the two share its connections; SO_REUSEADDR alone still allows a quick restart.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Debian's httplib answers a browser's "Accept-Encoding: br" with brotli at its highest quality,
  // which took 140-270 ms for a 30 kB JSON reply here (gzip: 4-12 ms): browsers get gzip. The
  // request is ours to edit: httplib hands the handler a const view of its own non-const object.
  s.set_pre_routing_handler([bound](const httplib::Request& req, httplib::Response& res) {
    if (!host_allowed(req.get_header_value("Host"), *bound)) {
      reply_error(res, 403, "this viewer answers only requests for " + *bound + ", localhost or an IP address");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (announces_big_body(req)) {
      reply_error(res, 413, "the viewer takes no uploads: a request body of at most " + std::to_string(kMaxRequestBody) +
                                " bytes, with its Content-Length");
      return httplib::Server::HandlerResponse::Handled;
    }
    auto& headers = const_cast<httplib::Request&>(req).headers;
    const auto it = headers.find("Accept-Encoding");
    if (it != headers.end()) {
      const bool gzip = it->second.find("gzip") != std::string::npos;
      headers.erase("Accept-Encoding");
      if (gzip) headers.emplace("Accept-Encoding", "gzip");
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.Get("/", [](const httplib::Request&, httplib::Response& res) { res.set_content(web::kViewHtml, "text/html; charset=utf-8"); });
  s.Get("/view.js", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(web::kViewJs, "text/javascript; charset=utf-8");
  });
  s.Get("/api/meta", [meta](const httplib::Request&, httplib::Response& res) { res.set_content(meta, "application/json"); });
  s.Get("/api/outliers", [outliers](const httplib::Request&, httplib::Response& res) {
    res.set_content(outliers, "application/json");
  });
  s.Get("/api/tile", [&d](const httplib::Request& req, httplib::Response& res) { tile_reply(d, req, res); });
  s.Get("/api/beats", [&d](const httplib::Request& req, httplib::Response& res) { beats_reply(d, req, res); });
  s.Get("/api/hr", [&d](const httplib::Request& req, httplib::Response& res) { hr_reply(d, req, res); });
  s.Get(R"(/files/([^/]+))", [&d](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1];
    if (!served_file(name)) return reply_error(res, 404, "not served: " + name);
    std::string bytes, why;
    if (!read_served_file(d.out_dir, name, bytes, why)) return reply_error(res, 404, why);
    const bool html = name.size() > 5 && name.compare(name.size() - 5, 5, ".html") == 0;
    const bool js = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
    res.set_content(std::move(bytes), html ? "text/html; charset=utf-8" : js ? "application/json" : "text/csv");
  });
  // Unknown paths (and so any attempt at ../): a short JSON error instead of an empty 404.
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty()) res.set_content(json_text(json{{"error", "not found: " + req.path}}), "application/json");
  });
}

ViewServer::~ViewServer() { stop(); }

int ViewServer::bind(const std::string& address, int port) {
  auto& s = impl_->server;
  if (port < 0 || port > 65535) throw UsageError("--port must be in 0..65535");
  if (address.empty()) throw UsageError("--bind needs an address (127.0.0.1 serves this machine only)");
  impl_->bound = address;
  const int bound = port == 0 ? s.bind_to_any_port(address) : (s.bind_to_port(address, port) ? port : -1);
  if (bound < 0) {
    throw OutputError("cannot listen on " + address + ":" + std::to_string(port) +
                      " (port in use, or not an address of this host)");
  }
  return bound;
}

void ViewServer::listen() { impl_->server.listen_after_bind(); }

void ViewServer::stop() {
  if (impl_ && impl_->server.is_running()) impl_->server.stop();
}

void serve_view(const ViewOptions& options, std::ostream& url_out) {
  if (options.bind.empty()) throw UsageError("--bind needs an address (127.0.0.1 serves this machine only)");
  auto data = std::make_shared<const ViewData>(load_view_data(options));
  ViewServer server(data);
  const int port = server.bind(options.bind, options.port);
  // Ctrl-C and SIGTERM end the server cleanly. The handler only writes a byte to a pipe (all a
  // handler may do); a waiter thread reads it and stops the server. A handler, not a blocked
  // mask and sigwait: `run --view` has started LibTorch's and the CUDA driver's threads before
  // this point, and a signal sent to the process lands on any thread that does not block it,
  // which would end the process by the default action. A handler also overrides the SIGINT that
  // a shell ignores for background jobs, so `kill -INT` stops a backgrounded viewer too.
  StopPipe stop;
  std::atomic<bool> listened{false};
  std::thread waiter([&] {
    stop.wait();
    // A signal right after the URL is printed may come before listen() runs, when stop() has
    // nothing to stop yet: repeat until listen() has returned.
    while (!listened) {
      server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  const std::string host = options.bind.find(':') != std::string::npos ? "[" + options.bind + "]" : options.bind;
  if (is_any_address(options.bind)) {
    spdlog::warn("view: --bind {} listens on every network interface: anyone who can reach this machine can read "
                 "these recordings; 127.0.0.1 serves this machine only", options.bind);
  } else if (!is_loopback_name(options.bind)) {
    spdlog::warn("view: --bind {} is reachable from the network: anyone who can reach it can read these recordings",
                 options.bind);
  }
  url_out << "http://" << host << ":" << port << "/" << std::endl;
  spdlog::info("view: serving {} on http://{}:{}/ (Ctrl-C stops)", options.out_dir, host, port);
  server.listen();
  listened = true;
  stop.wake();  // listen() may have returned for another reason: the waiter must not wait on
  waiter.join();
  spdlog::info("view: stopped");
}

}  // namespace ecgpipe
