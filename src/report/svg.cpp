// The SVG toolkit's free functions (src/report/svg.hpp).
#include "report/svg.hpp"

#include <cmath>
#include <cstdio>
#include <iterator>

namespace ecgpipe::svg {
namespace {

constexpr int kPixelDecimals = 1;  // 0.1 px is below what a screen shows; keeps the file small

// Viridis, 9 stops: perceptually uniform and readable in grey and by colour-blind readers.
constexpr unsigned kViridis[] = {0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                                 0x28ae80, 0x5ec962, 0xaddc30, 0xfde725};
constexpr int kViridisStops = sizeof kViridis / sizeof kViridis[0];

}  // namespace

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string px(double v) { return fixed(v, kPixelDecimals); }

std::string short_num(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string thousands(std::uint64_t n) {
  std::string s = std::to_string(n), out;
  constexpr int kGroup = 3;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % kGroup == 0) out += ',';
    out += s[i];
  }
  return out;
}

std::vector<double> nice_ticks(Range r, int target, double* step_out) {
  const double span = r.hi - r.lo;
  if (!(span > 0.0) || !std::isfinite(span) || target < 1) return {};
  const double raw = span / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  // Thresholds halfway (geometrically) between the 1-2-5-10 steps.
  constexpr double kTo2 = 1.5, kTo5 = 3.0, kTo10 = 7.0;
  const double step = (f < kTo2 ? 1.0 : f < kTo5 ? 2.0 : f < kTo10 ? 5.0 : 10.0) * magnitude;
  if (step_out) *step_out = step;
  std::vector<double> ticks;
  constexpr double kEdgeSlack = 1e-9;  // a tick on the edge survives rounding
  for (double k = std::ceil(r.lo / step - kEdgeSlack); k * step <= r.hi + step * kEdgeSlack; k += 1.0) {
    const double t = k * step;
    ticks.push_back(std::abs(t) < step * kEdgeSlack ? 0.0 : t);
  }
  return ticks;
}

std::vector<double> time_ticks(Range r, int target, double offset_min, double* step_out) {
  const double span = r.hi - r.lo;
  if (!(span > 0.0) || !std::isfinite(span) || !std::isfinite(offset_min) || target < 1) return {};
  constexpr double kSteps[] = {1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 240, 360, 720, 1440};
  double step = kSteps[std::size(kSteps) - 1];
  for (const double s : kSteps)
    if (span / s <= target) {
      step = s;
      break;
    }
  if (step_out) *step_out = step;
  std::vector<double> ticks;
  constexpr double kEdgeSlack = 1e-9;  // a tick on the edge survives rounding
  for (double k = std::ceil((r.lo + offset_min) / step - kEdgeSlack); k * step - offset_min <= r.hi + step * kEdgeSlack; k += 1.0)
    ticks.push_back(k * step - offset_min);
  return ticks;
}

std::string time_tick_label(double t_min, double offset_min, bool clock) {
  constexpr long long kMinutesPerHour = 60, kMinutesPerDay = 1440;
  if (!std::isfinite(t_min + offset_min)) return "";
  const long long total = std::llround(t_min + offset_min);
  const long long shown = clock ? ((total % kMinutesPerDay) + kMinutesPerDay) % kMinutesPerDay : total;
  char buf[48];
  std::snprintf(buf, sizeof buf, clock ? "%02lld:%02lld" : "%lld:%02lld", shown / kMinutesPerHour, shown % kMinutesPerHour);
  return buf;
}

std::string tick_label(double v, double step) {
  constexpr double kSciSmall = 1e-4, kSciLarge = 1e6;  // outside: 3 significant digits, %g
  if (std::abs(step) < kSciSmall || std::abs(v) >= kSciLarge) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  return fixed(v, decimals);
}

std::string hex_colour(unsigned rgb) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%06x", rgb & 0xffffffu);
  return buf;
}

std::string viridis(double t) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  const double pos = t * (kViridisStops - 1);
  const int i = std::min(static_cast<int>(pos), kViridisStops - 2);
  const double f = pos - i;
  unsigned rgb = 0;
  constexpr int kChannelBits = 8;
  constexpr unsigned kChannelMask = 0xff;
  for (int shift = 2 * kChannelBits; shift >= 0; shift -= kChannelBits) {
    const double a = (kViridis[i] >> shift) & kChannelMask, b = (kViridis[i + 1] >> shift) & kChannelMask;
    rgb |= static_cast<unsigned>(std::lround(a + f * (b - a))) << shift;
  }
  return hex_colour(rgb);
}

}  // namespace ecgpipe::svg
