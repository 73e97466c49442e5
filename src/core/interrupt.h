// core/interrupt.h: Ctrl-C and SIGTERM as a request to stop, not a sudden death.
//
// Parity owns child processes (workers, Chromium) and temporary folders (browser profiles). If
// SIGINT killed it outright, those would leak. Instead the first SIGINT/SIGTERM/SIGHUP sets a flag
// that every waiting loop (worker replies, CDP pumps, conformance jobs) polls: they return an
// ErrorKind::interrupted Error, the stack unwinds through the RAII owners (which kill and remove
// what they own), and the verb exits with 130. A second signal kills at once (default action).
// This is process-wide by nature (a signal is); it is the one piece of global state Parity keeps.
#pragma once

namespace parity {

// Installs the handlers (idempotent). Called by main(); tests that do not call it never see
// interrupted().
void install_interrupt_handlers();

// True once install_interrupt_handlers ran: only then can a stop be requested by a signal, so
// only then do long calls that cannot poll (an in-process Session::Run) need a watcher.
bool interrupt_handlers_installed();

// True once a stop was requested.
bool interrupted();

// The signal that requested it (0 if none), for the exit code (128 + signal).
int interrupt_signal();

// For tests: request a stop as a signal would, or clear the request.
void request_interrupt(int signal);
void clear_interrupt();

}  // namespace parity
