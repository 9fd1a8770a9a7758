// The fixture of the tests that apply one family of linux.resources
// (`kFamily`, a member of config::Resources: &config::Resources::cpu): a
// cgroup "/c" under fake hierarchies the test lays out, Apply setting that
// family alone, and the writes a Cgroup makes there.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "base/result.h"
#include "config/oci/resources.h"
#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {

template <typename Member>
struct FamilyOf;
template <typename T>
struct FamilyOf<T config::Resources::*> {
  using type = T;
};
template <typename T>
struct FamilyOf<std::optional<T> config::Resources::*> {
  using type = T;
};

template <auto kFamily>
class FamilyTest : public ::testing::Test {
 protected:
  using Family = typename FamilyOf<decltype(kFamily)>::type;

  Result<void> Apply(const Family& family) {
    config::Resources resources;
    resources.*kFamily = family;
    return Cgroup::Open(hierarchies_, "/c", fs_).Apply(resources);
  }

  FakeTree tree_;
  FakeFs fs_;
  std::vector<Hierarchy> hierarchies_;
};

}  // namespace vigil::runtime::cgroup::testing
