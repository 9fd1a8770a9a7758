#include "runtime/cgroup/cgroup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>

#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class CgroupTest : public ::testing::Test {
 protected:
  // This host's shape: v1 controllers (cpuset, memory, pids), name=systemd,
  // and cgroup2 with hugetlb only.
  std::vector<Hierarchy> Hybrid() {
    tree_.File("cpuset/cpuset.cpus", "0-3\n");
    tree_.File("cpuset/cpuset.mems", "0\n");
    fs_.new_cgroup_files[tree_.Path("cpuset")] = {"cpuset.cpus", "cpuset.mems"};
    return {tree_.V1("cpuset", {"cpuset"}), tree_.V1("memory", {"memory"}, "/runner"),
            tree_.V1("pids", {"pids"}), tree_.V1("systemd", {"name=systemd"}),
            tree_.V2("unified", {"hugetlb"})};
  }

  FakeTree tree_;
  FakeFs fs_;
};

TEST_F(CgroupTest, OpenPlacesAbsoluteAndRelativePaths) {
  std::vector<Hierarchy> h = Hybrid();
  EXPECT_THAT(Cgroup::Open(h, "/vigil/c1", fs_).Paths(),
              ElementsAre(tree_.Path("cpuset/vigil/c1"), tree_.Path("memory/vigil/c1"),
                          tree_.Path("pids/vigil/c1"), tree_.Path("systemd/vigil/c1"),
                          tree_.Path("unified/vigil/c1")));
  // Relative: below the runtime's own cgroup in each hierarchy, as runc.
  EXPECT_THAT(
      Cgroup::Open(h, "a/b", fs_).Paths(),
      ElementsAre(tree_.Path("cpuset/a/b"), tree_.Path("memory/runner/a/b"), tree_.Path("pids/a/b"),
                  tree_.Path("systemd/a/b"), tree_.Path("unified/a/b")));
}

TEST_F(CgroupTest, CreateMakesTheDirectoryInEveryHierarchy) {
  std::vector<Hierarchy> h = Hybrid();
  auto cg = Cgroup::Create(h, "/vigil/c1", fs_);
  ASSERT_TRUE(cg) << cg.error().message;
  for (const std::string& dir : cg->Paths()) EXPECT_TRUE(std::filesystem::is_directory(dir));
  EXPECT_EQ(cg->placements().size(), 5u);
}

TEST_F(CgroupTest, CreateEnablesControllersDownTheCgroup2Tree) {
  std::vector<Hierarchy> h = Hybrid();
  // What the kernel would show in the new /vigil directory.
  tree_.File("unified/vigil/cgroup.controllers", "hugetlb\n");
  tree_.File("unified/vigil/cgroup.subtree_control", "");
  ASSERT_TRUE(Cgroup::Create(h, "/vigil/c1", fs_));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("unified/cgroup.subtree_control")), ElementsAre("+hugetlb"));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("unified/vigil/cgroup.subtree_control")),
              ElementsAre("+hugetlb"));
  // Not in the container's own directory: it will hold processes.
  EXPECT_THAT(fs_.WritesTo(tree_.Path("unified/vigil/c1/cgroup.subtree_control")), IsEmpty());
}

TEST_F(CgroupTest, CreateEnablesOneByOneWhenTheBatchIsRefusedAndSkipsEnabledOnes) {
  std::vector<Hierarchy> h = {tree_.V2("unified", {"cpu", "memory", "pids"})};
  tree_.File("unified/cgroup.subtree_control", "memory\n");
  std::string control = tree_.Path("unified/cgroup.subtree_control");
  fs_.write_errors[control] = {EINVAL, EBUSY, 0};
  ASSERT_TRUE(Cgroup::Create(h, "/c1", fs_));
  EXPECT_THAT(fs_.WritesTo(control), ElementsAre("+cpu +pids", "+cpu", "+pids"));
}

TEST_F(CgroupTest, CreateFillsEmptyV1CpusetFromTheParent) {
  std::vector<Hierarchy> h = Hybrid();
  // New cpuset directories start with empty cpus and mems (new_cgroup_files);
  // an existing one that has them keeps its own.
  tree_.File("cpuset/vigil/cpuset.cpus", "1\n");
  tree_.File("cpuset/vigil/cpuset.mems", "\n");
  ASSERT_TRUE(Cgroup::Create(h, "/vigil/c1", fs_));
  EXPECT_EQ(tree_.Contents("cpuset/vigil/cpuset.cpus"), "1\n");
  EXPECT_EQ(tree_.Contents("cpuset/vigil/cpuset.mems"), "0");
  EXPECT_EQ(tree_.Contents("cpuset/vigil/c1/cpuset.cpus"), "1");
  EXPECT_EQ(tree_.Contents("cpuset/vigil/c1/cpuset.mems"), "0");
}

TEST_F(CgroupTest, CreateFailureRemovesWhatItMade) {
  std::vector<Hierarchy> h = Hybrid();
  tree_.Dir("memory/runner");
  tree_.File("pids/vigil", "a file where a directory should be");
  auto cg = Cgroup::Create(h, "/vigil/c1", fs_);
  ASSERT_FALSE(cg);
  EXPECT_THAT(cg.error().message, HasSubstr("create cgroup /vigil/c1: mkdir"));
  EXPECT_FALSE(tree_.Exists("cpuset/vigil"));
  EXPECT_FALSE(tree_.Exists("memory/vigil"));
}

// runc 1.1 warns and goes on; scripts that put containers in a job's
// cgroup rely on it.
TEST_F(CgroupTest, CreateAcceptsACgroupThatAlreadyHoldsProcesses) {
  std::vector<Hierarchy> h = Hybrid();
  tree_.File("pids/vigil/c1/cgroup.procs", "77\n");
  auto cg = Cgroup::Create(h, "/vigil/c1", fs_);
  ASSERT_TRUE(cg) << cg.error().message;
  EXPECT_TRUE(tree_.Exists("memory/vigil/c1"));
  EXPECT_THAT(*cg->Processes(), ElementsAre(77));
}

// A frozen cgroup would freeze the init halfway through its setup.
TEST_F(CgroupTest, CreateRefusesAFrozenCgroup) {
  std::vector<Hierarchy> h = Hybrid();
  h.push_back(tree_.V1("freezer", {"freezer"}));
  tree_.File("freezer/vigil/c1/freezer.state", "FROZEN\n");
  auto cg = Cgroup::Create(h, "/vigil/c1", fs_);
  ASSERT_FALSE(cg);
  EXPECT_THAT(cg.error().message,
              HasSubstr("create cgroup /vigil/c1: container's cgroup unexpectedly frozen"));
  EXPECT_FALSE(tree_.Exists("memory/vigil"));
  tree_.File("freezer/vigil/c1/freezer.state", "THAWED\n");
  EXPECT_TRUE(Cgroup::Create(h, "/vigil/c1", fs_));
}

TEST_F(CgroupTest, CreateWithoutHierarchies) {
  EXPECT_THAT(Cgroup::Create({}, "/c", fs_).error().message, HasSubstr("no cgroup hierarchy"));
}

TEST_F(CgroupTest, AddProcessWritesCgroupProcsEverywhere) {
  std::vector<Hierarchy> h = Hybrid();
  Cgroup cg = Cgroup::Open(h, "/c1", fs_);
  for (const std::string& dir : cg.Paths()) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/cgroup.procs");
  }
  ASSERT_TRUE(cg.AddProcess(4242));
  for (const std::string& dir : cg.Paths()) {
    EXPECT_THAT(fs_.WritesTo(dir + "/cgroup.procs"), ElementsAre("4242"));
  }
  fs_.write_errors[tree_.Path("pids/c1/cgroup.procs")] = {ESRCH};
  EXPECT_THAT(cg.AddProcess(5).error().message,
              HasSubstr("add process 5 to its cgroup: write " + tree_.Path("pids/c1/cgroup.procs") +
                        ": No such process"));
}

// The supervisor's way in: only the v1 hierarchies of the controllers
// named, never cgroup2; and back out to where the hierarchy found it.
TEST_F(CgroupTest, AddProcessForJoinsOnlyTheNamedV1Controllers) {
  std::vector<Hierarchy> h = Hybrid();
  Cgroup cg = Cgroup::Open(h, "/c1", fs_);
  for (const std::string& dir : cg.Paths()) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/cgroup.procs");
  }
  std::filesystem::create_directories(tree_.Path("memory/runner"));
  std::ofstream(tree_.Path("memory/runner/cgroup.procs"));
  constexpr std::string_view kNames[] = {"memory", "cpu", "hugetlb"};
  ASSERT_TRUE(cg.AddProcessFor(77, kNames));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("memory/c1/cgroup.procs")), ElementsAre("77"));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("pids/c1/cgroup.procs")), IsEmpty());
  EXPECT_THAT(fs_.WritesTo(tree_.Path("unified/c1/cgroup.procs")), IsEmpty()) << "cgroup2";
  ASSERT_TRUE(cg.RemoveProcessFor(77, kNames));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("memory/runner/cgroup.procs")), ElementsAre("77"));
}

// runc's exec --cgroup: a sub-cgroup in the named hierarchies only, or in
// all of them; never above the container's own.
TEST_F(CgroupTest, AddProcessBeneathJoinsAnExistingSubCgroup) {
  std::vector<Hierarchy> h = Hybrid();
  Cgroup cg = Cgroup::Open(h, "/c1", fs_);
  for (const std::string& dir : cg.Paths()) {
    std::filesystem::create_directories(dir + "/sub");
    std::ofstream(dir + "/sub/cgroup.procs");
  }
  const std::vector<std::string> pids = {"pids"};
  ASSERT_TRUE(cg.AddProcessBeneath(77, "sub", pids));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("pids/c1/sub/cgroup.procs")), ElementsAre("77"));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("memory/c1/sub/cgroup.procs")), IsEmpty());
  ASSERT_TRUE(cg.AddProcessBeneath(78, "sub", {}));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("memory/c1/sub/cgroup.procs")), ElementsAre("78"));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("unified/c1/sub/cgroup.procs")), ElementsAre("78"));
  EXPECT_THAT(cg.AddProcessBeneath(79, "missing", pids).error().message,
              HasSubstr("sub-cgroup \"missing\": no such cgroup"));
  for (const char* outside : {"../c2", "/abs", "a/../../x", ""}) {
    EXPECT_THAT(cg.AddProcessBeneath(79, outside, pids).error().message,
                HasSubstr(" is not a sub cgroup path: it must lie beneath the container's cgroup"))
        << outside;
  }
  const std::vector<std::string> none = {"no-such-controller"};
  EXPECT_THAT(cg.AddProcessBeneath(79, "sub", none).error().message,
              HasSubstr("unknown controller \"no-such-controller\""));
  // "/" is the container's own cgroup, which the process is in already.
  EXPECT_TRUE(cg.AddProcessBeneath(80, "/", pids));
  const std::vector<std::string> writes = fs_.WritesTo(tree_.Path("pids/c1/cgroup.procs"));
  EXPECT_EQ(std::count(writes.begin(), writes.end(), "80"), 0);
}

TEST_F(CgroupTest, ProcessesIncludesNestedCgroupsFromThePidsHierarchy) {
  std::vector<Hierarchy> h = Hybrid();
  tree_.File("pids/c1/cgroup.procs", "10\n11\n");
  tree_.File("pids/c1/inner/cgroup.procs", "12\n");
  tree_.File("memory/runner/c1/cgroup.procs", "99\n");  // not read
  auto pids = Cgroup::Open(h, "/c1", fs_).Processes();
  ASSERT_TRUE(pids) << pids.error().message;
  EXPECT_THAT(*pids, UnorderedElementsAre(10, 11, 12));
}

TEST_F(CgroupTest, ProcessesOnPureV2) {
  std::vector<Hierarchy> h = {tree_.V2("unified", {"pids"})};
  tree_.File("unified/c1/cgroup.procs", "3\n");
  EXPECT_THAT(*Cgroup::Open(h, "/c1", fs_).Processes(), ElementsAre(3));
}

TEST_F(CgroupTest, DestroyRemovesNestedCgroupsEverywhereAndIgnoresMissing) {
  std::vector<Hierarchy> h = Hybrid();
  tree_.File("pids/vigil/c1/inner/deeper/pids.max", "max\n");
  tree_.File("memory/vigil/c1/memory.limit_in_bytes", "1\n");
  tree_.Dir("unified/vigil/c1");
  // cpuset and systemd directories never existed.
  Cgroup cg = Cgroup::Open(h, "/vigil/c1", fs_);
  ASSERT_TRUE(cg.Destroy());
  EXPECT_FALSE(tree_.Exists("pids/vigil/c1"));
  EXPECT_FALSE(tree_.Exists("memory/vigil/c1"));
  EXPECT_FALSE(tree_.Exists("unified/vigil/c1"));
  EXPECT_TRUE(tree_.Exists("pids/vigil"));  // shared parent stays
  EXPECT_TRUE(cg.Destroy());                // again: already gone
}

TEST_F(CgroupTest, DestroyRetriesWhileBusy) {
  std::vector<Hierarchy> h = {tree_.V1("pids", {"pids"})};
  tree_.Dir("pids/c1");
  fs_.rmdir_errors[tree_.Path("pids/c1")] = {EBUSY, EBUSY};
  ASSERT_TRUE(Cgroup::Open(h, "/c1", fs_).Destroy());
  EXPECT_EQ(fs_.rmdirs.size(), 3u);
  EXPECT_FALSE(tree_.Exists("pids/c1"));
}

TEST_F(CgroupTest, DestroyGivesUpOnAPersistentlyBusyCgroupButTriesTheOthers) {
  std::vector<Hierarchy> h = {tree_.V1("pids", {"pids"}), tree_.V1("memory", {"memory"})};
  tree_.Dir("pids/c1");
  tree_.Dir("memory/c1");
  fs_.rmdir_errors[tree_.Path("pids/c1")] = {EBUSY, EBUSY, EBUSY, EBUSY, EBUSY, EBUSY};
  auto r = Cgroup::Open(h, "/c1", fs_).Destroy();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, EBUSY);
  EXPECT_THAT(r.error().message, HasSubstr("remove cgroup: rmdir " + tree_.Path("pids/c1") +
                                           ": Device or resource busy"));
  EXPECT_FALSE(tree_.Exists("memory/c1"));
}

TEST_F(CgroupTest, FromPathsMatchesEachDirectoryToItsMount) {
  std::vector<Hierarchy> h = Hybrid();
  std::vector<std::string> dirs = Cgroup::Open(h, "x/y", fs_).Paths();
  auto cg = Cgroup::FromPaths(h, dirs, fs_);
  ASSERT_TRUE(cg);
  EXPECT_EQ(cg->Paths(), dirs);
  EXPECT_EQ(cg->placements()[1].hierarchy.controllers, std::vector<std::string>{"memory"});
  EXPECT_TRUE(cg->placements()[4].hierarchy.v2);
  EXPECT_THAT(Cgroup::FromPaths(h, {"/elsewhere/c"}, fs_).error().message,
              HasSubstr("\"/elsewhere/c\" is under no cgroup mount"));
  // A sibling whose name merely starts like a mount point is not under it.
  EXPECT_FALSE(Cgroup::FromPaths(h, {tree_.Path("pidsx/c")}, fs_));
}

TEST_F(CgroupTest, ApplyWithNothingSetTouchesNothing) {
  std::vector<Hierarchy> h = Hybrid();
  config::Resources r;
  r.memory.emplace();
  r.cpu.emplace();
  r.block_io.emplace();
  r.block_io->weight = 0;  // Docker's "unset"
  r.network.emplace();
  ASSERT_TRUE(Cgroup::Open(h, "/c1", fs_).Apply(r));
  EXPECT_THAT(fs_.writes, IsEmpty());
}

TEST_F(CgroupTest, ApplyStopsAtTheFirstMissingController) {
  std::vector<Hierarchy> h = Hybrid();
  tree_.File("pids/c1/pids.max");
  config::Resources r;
  r.pids = config::Pids{.limit = 5};
  r.network = config::Network{.class_id = 7};
  auto result = Cgroup::Open(h, "/c1", fs_).Apply(r);
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message,
              HasSubstr("linux.resources.network.classID: the net_cls cgroup controller is not "
                        "available"));
  EXPECT_EQ(tree_.Contents("pids/c1/pids.max"), "5");  // earlier knobs stay
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
