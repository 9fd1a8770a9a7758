# Every dependency is a Debian package (scripts/install-deps lists them);
# nothing is downloaded at build time.
find_package(PkgConfig REQUIRED)
pkg_check_modules(YAJL REQUIRED IMPORTED_TARGET yajl)
pkg_check_modules(SECCOMP REQUIRED IMPORTED_TARGET libseccomp)
pkg_check_modules(CAPNG REQUIRED IMPORTED_TARGET libcap-ng)
find_package(tl-expected REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS context)
if(VIGIL_TESTS)
  find_package(GTest REQUIRED)
endif()
