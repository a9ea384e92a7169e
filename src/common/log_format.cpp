// Log lines with their messages made visible: see log_format.hpp.
#include "common/log_format.hpp"

#include <spdlog/pattern_formatter.h>

#include <string_view>

#include "common/text.hpp"

namespace ecgpipe {
namespace {

class VisibleMessage : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string shown = text::visible(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(shown.data(), shown.data() + shown.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<VisibleMessage>(); }
};

}  // namespace

std::unique_ptr<spdlog::formatter> visible_log_formatter(const std::string& pattern) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<VisibleMessage>('*').set_pattern(pattern);
  return formatter;
}

}  // namespace ecgpipe
