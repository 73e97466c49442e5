#include "core/interrupt.h"

#include <signal.h>

#include <atomic>

namespace parity {
namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_installed{false};

extern "C" void on_stop_signal(int signal) {
  g_signal.store(signal);
  // The next one takes the default action: a user pressing Ctrl-C twice means it.
  ::signal(signal, SIG_DFL);
}

}  // namespace

void install_interrupt_handlers() {
  if (g_installed.exchange(true)) return;
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR and their loops look at the flag
    ::sigaction(s, &sa, nullptr);
  }
}

bool interrupt_handlers_installed() { return g_installed.load(); }
bool interrupted() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }
void request_interrupt(int signal) { g_signal.store(signal); }
void clear_interrupt() { g_signal.store(0); }

}  // namespace parity
