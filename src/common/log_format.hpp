// The format of ecgpipe's log lines on stderr: the level, then the message made visible
// (text::visible), so that input a message quotes -- a CSV header, a cell, a file name -- cannot
// drive the terminal it is printed on.
#pragma once

#include <memory>
#include <string>

#include <spdlog/formatter.h>

namespace ecgpipe {

// A formatter of `pattern` (spdlog's flags), in which %* is the message made visible; %v, the raw
// message, is not to be used for output.
std::unique_ptr<spdlog::formatter> visible_log_formatter(const std::string& pattern);

}  // namespace ecgpipe
