// A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) prints one line saying it is a bug and a
// backtrace to stderr, then ends by the same signal (the exit status stays 128 + signal).
#pragma once

namespace ecgpipe {

void install_crash_report();

}  // namespace ecgpipe
