// `vigil run` in the foreground with process.terminal and no
// --console-socket: as runc does, vigil receives the terminal's master
// itself and relays between it and its own stdio, with the window size
// and raw mode handled, until the container exits.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::runtime {

// A console socket of vigil's own, in a fresh private directory (0700) in
// /tmp; the directory goes when the receiver does.
class ConsoleReceiver {
 public:
  static Result<ConsoleReceiver> Open();
  ConsoleReceiver(ConsoleReceiver&& other) noexcept;
  ConsoleReceiver& operator=(ConsoleReceiver&&) = delete;
  ~ConsoleReceiver();

  // What create's --console-socket gets.
  const std::string& path() const { return path_; }

  // The terminal's master, which the container's init sent when it was
  // created (it waits in the socket: create connects and sends before this
  // accepts), with the window size of the caller's terminal.
  Result<UniqueFd> Receive();

 private:
  ConsoleReceiver(std::string dir, UniqueFd listener);

  std::string dir_;
  std::string path_;
  UniqueFd listener_;
};

// Copies the caller's stdin to `master` and `master` to the caller's
// stdout until child `pid` exits, then what the container wrote last. A
// stdin that is a terminal is put in raw mode meanwhile (keys such as ^C
// reach the container's terminal, which makes the signal) and its window
// size is given to the container's on every SIGWINCH; the other signals
// WaitForwardingSignals forwards go to `pid`. Returns pid's exit status as
// a shell reports it.
int RelayTerminal(int master, pid_t pid);

}  // namespace vigil::runtime
