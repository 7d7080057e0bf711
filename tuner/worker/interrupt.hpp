// Ctrl-C and SIGTERM in the parent: a flag set from the signal handler and read by the search
// loop and the supervisor, so an interrupted search kills its workers and stops cleanly.
#pragma once

namespace gemmtune {

/// Installs handlers for SIGINT and SIGTERM that set the interrupt flag. A second signal while
/// the flag is still set ends the process the default way. Safe to call more than once.
void install_interrupt_handler();

/// True once SIGINT or SIGTERM arrived (and clear_interrupt() was not called since).
bool interrupted();

/// The signal that set the flag, or 0.
int interrupt_signal();

/// Clears the flag (after the interrupt was handled, and in tests).
void clear_interrupt();

}  // namespace gemmtune
