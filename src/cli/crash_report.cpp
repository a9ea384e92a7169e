// The crash report (crash_report.hpp). glibc's backtrace() is the library here: it walks the
// stack with the unwinder and backtrace_symbols_fd() writes frames without malloc. The handler
// uses only async-signal-safe calls after the warm-up in install_crash_report().
#include "cli/crash_report.hpp"

#include <execinfo.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "common/output_set.hpp"

namespace ecgpipe {
namespace {

constexpr int kMaxFrames = 64;
// The handler runs on its own stack, so a stack overflow can still be reported.
constexpr std::size_t kAltStackBytes = 64 * 1024;
alignas(16) char g_alt_stack[kAltStackBytes];

void say(const char* text) { (void)!::write(STDERR_FILENO, text, std::strlen(text)); }

// Where the fault happened, from the signal's saved registers: the faulting instruction and
// the return address at the top of the stack. The unwinder cannot walk from a jump to a null or
// freed function pointer (no unwind data there); these two frames still name the caller.
void fault_frames(const siginfo_t* info, void* context) {
  void* frames[2] = {nullptr, nullptr};
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  frames[0] = reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
  const auto sp = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
  const auto fault = reinterpret_cast<std::uintptr_t>(info->si_addr);
  // A fault at the stack pointer (a stack overflow) would fault again reading it.
  constexpr std::uintptr_t kNearStack = 64 * 1024;
  const bool stack_fault = fault + kNearStack >= sp && fault <= sp + kNearStack;
  if (!stack_fault) frames[1] = *reinterpret_cast<void* const*>(sp);
#elif defined(__aarch64__)
  frames[0] = reinterpret_cast<void*>(uc->uc_mcontext.pc);
  frames[1] = reinterpret_cast<void*>(uc->uc_mcontext.regs[30]);  // the link register
  (void)info;  // the link register is read from the registers, not the stack
#else
  (void)uc;
  (void)info;
  return;
#endif
  say("at (faulting instruction, then the return address on the stack):\n");
  ::backtrace_symbols_fd(frames, 2, STDERR_FILENO);
}

extern "C" void on_crash(int sig, siginfo_t* info, void* context) {
  say("ecgpipe: internal error: ");
  say(sig == SIGSEGV ? "segmentation fault" : sig == SIGBUS ? "bus error" : sig == SIGFPE ? "arithmetic exception"
      : sig == SIGILL ? "illegal instruction" : "abort");
  say(" (a bug in ecgpipe: please report it with the command and this backtrace)\n");
  if (sig != SIGABRT) fault_frames(info, context);
  say("backtrace:\n");
  void* frames[kMaxFrames];
  const int n = ::backtrace(frames, kMaxFrames);
  ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
  remove_output_temporaries_on_crash();
  ::signal(sig, SIG_DFL);  // the default action ends the process with the signal, as before
  ::raise(sig);
}

}  // namespace

void install_crash_report() {
  // The first backtrace() loads libgcc_s (it allocates): done here, not in the handler.
  void* warm[1];
  (void)::backtrace(warm, 1);
  stack_t ss{};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = kAltStackBytes;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_crash;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace ecgpipe
