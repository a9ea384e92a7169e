// The viewer's page, embedded at build time from web/ (cmake/embed_text.cmake writes the
// definitions into the build folder), so `ecgpipe view` works offline from the binary alone.
#pragma once

namespace ecgpipe::web {
extern const char* const kViewHtml;  // web/view.html
extern const char* const kViewJs;    // web/view.js
}  // namespace ecgpipe::web
