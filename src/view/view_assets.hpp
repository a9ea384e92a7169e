// The viewer's page, embedded at build time from src/view/web/ (cmake/embed_text.cmake writes the
// definitions into the build folder), so `ecgpipe view` works offline from the binary alone.
#pragma once

namespace ecgpipe::web {
extern const char* const kViewHtml;  // src/view/web/view.html
extern const char* const kViewJs;    // src/view/web/view.js
}  // namespace ecgpipe::web
