# Each fuzz target and the library holding the code it fuzzes: the fuzz
# build (CMakeLists.txt here, clang) and the seed replay of an ordinary
# build (replay/) both make one executable per entry.
set(vigil_fuzz_targets
  config=vigil::config
  process=vigil::config
  state=vigil::config
  json=vigil::config
  policy=vigil::policy
  seccomp=vigil::seccomp_filters
  sockaddr=vigil::sentry_handlers
  open_how=vigil::sentry_handlers
  received_descriptor=vigil::sentry_ptrace
  dns=vigil::sentry_names
)
