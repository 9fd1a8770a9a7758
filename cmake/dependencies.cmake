# Every dependency is a Debian package (scripts/install-deps lists them);
# nothing is downloaded at build time.

# The vigil binary is a static PIE (it keeps ASLR), as runc's and runsc's
# release binaries are static: every verb is a new process, and resolving
# and relocating nine shared objects was half of a short verb's time on a
# host where a page fault costs tens of microseconds (docs/benchmarks.md,
# "Where the time goes"). The archives come from the same Debian -dev
# packages, so a library's security update needs a rebuild of vigil.
# Off: shared objects.
#
# The link warns that getpwuid, initgroups, getaddrinfo and getservbyname
# "require at runtime the shared libraries from the glibc version used for
# linking": glibc reaches users, groups and hosts through NSS modules it
# loads with dlopen even in a static binary. vigil calls them for a user
# name in a spec (process.user by name, getpwuid for vigil do's home),
# egress host names resolved at create and c-ares's service lookup (and
# libcrypto links dlopen for providers and engines, which vigil serve's
# TLS never loads: the default provider is built in); on the
# host it was built on (the Debian package's glibc) the modules match. A
# binary copied to a host with another glibc may fail those lookups (numeric
# ids and addresses are unaffected): build it there, or with
# -DVIGIL_STATIC=OFF.
option(VIGIL_STATIC "Link the vigil binary statically (static PIE)" ON)

find_package(PkgConfig REQUIRED)
find_package(tl-expected REQUIRED)

# vigil::<name>: the library pkg-config module `module` describes, as the
# first of `names` found in its library directory (an archive's file name
# when VIGIL_STATIC, a library name otherwise).
function(vigil_dependency name module)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "STATIC;SHARED")
  pkg_check_modules(${name} REQUIRED ${module})
  # One cache entry per kind, so that switching VIGIL_STATIC finds anew.
  if(VIGIL_STATIC)
    set(names ${arg_STATIC})
    set(found VIGIL_${name}_ARCHIVE)
  else()
    set(names ${arg_SHARED})
    set(found VIGIL_${name}_SHARED_LIBRARY)
  endif()
  find_library(${found} NAMES ${names} HINTS ${${name}_LIBRARY_DIRS} REQUIRED)
  add_library(vigil::${name} UNKNOWN IMPORTED)
  set_target_properties(vigil::${name} PROPERTIES
    IMPORTED_LOCATION "${${found}}"
    INTERFACE_INCLUDE_DIRECTORIES "${${name}_INCLUDE_DIRS}")
endfunction()

# Debian names yajl's archive libyajl_s.a.
vigil_dependency(yajl yajl STATIC libyajl_s.a SHARED yajl)
vigil_dependency(seccomp libseccomp STATIC libseccomp.a SHARED seccomp)
vigil_dependency(capng libcap-ng STATIC libcap-ng.a SHARED cap-ng)
vigil_dependency(cares libcares STATIC libcares.a SHARED cares)
# vigil serve's TLS port (Boost.Asio's ssl streams over OpenSSL).
vigil_dependency(ssl libssl STATIC libssl.a SHARED ssl)
vigil_dependency(crypto libcrypto STATIC libcrypto.a SHARED crypto)
set(Boost_USE_STATIC_LIBS ${VIGIL_STATIC})
find_package(Boost 1.74 REQUIRED COMPONENTS context)
# `vigil serve` runs a thread per HTTP connection (service/http_server.cc).
find_package(Threads REQUIRED)

if(VIGIL_TESTS)
  find_package(GTest REQUIRED)
endif()
