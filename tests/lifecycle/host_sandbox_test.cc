// The config `vigil do` runs a command under: what of the host it shows,
// what it hides, what it lets the command write, and --net.
#include "lifecycle/host_sandbox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/policy/cidr.h"
#include "config/policy/container_setup.h"

namespace vigil::lifecycle {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using ::testing::Not;

const std::vector<HostRootEntry> kHostRoot = {{.name = "bin", .symlink = "usr/bin"},
                                              {.name = "dev", .directory = true},
                                              {.name = "etc", .directory = true},
                                              {.name = "home", .directory = true},
                                              {.name = "proc", .directory = true},
                                              {.name = "root", .directory = true},
                                              {.name = "run", .directory = true},
                                              {.name = "sys", .directory = true},
                                              {.name = "tmp", .directory = true},
                                              {.name = "usr", .directory = true},
                                              {.name = "vmlinuz", .symlink = "boot/vmlinuz"}};

bool Everything(const std::string&) { return true; }
bool Nothing(const std::string&) { return false; }

std::vector<HostEntry> NoEntries(const std::string&) { return {}; }

DoRequest UserRequest() {
  return DoRequest{.command = {"python3", "-c", "1"},
                   .cwd = "/home/u/proj",
                   .uid = 1001,
                   .gid = 1001,
                   .home = "/home/u",
                   .env = {"PATH=/usr/bin", "HOME=/home/u", "AWS_SECRET_ACCESS_KEY=x",
                           "LC_ALL=C.UTF-8", "GITHUB_TOKEN=y", "EDITOR=vi"}};
}

config::Spec MustBuild(const DoRequest& request, bool (*exists)(const std::string&) = Everything) {
  Result<config::Spec> spec =
      HostSandboxSpec(request, kHostRoot, "/state/.do/x/rootfs", exists, NoEntries);
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : config::Spec{};
}

const config::Mount* MountAt(const config::Spec& spec, const std::string& destination) {
  const config::Mount* found = nullptr;
  for (const config::Mount& m : spec.mounts) {
    if (m.destination == destination) found = &m;  // the last one shows
  }
  return found;
}

bool Has(const std::vector<std::string>& options, const std::string& option) {
  return std::find(options.begin(), options.end(), option) != options.end();
}

TEST(HostSandboxTest, TheHostsDirectoriesAreBoundReadOnlyButItsOwnAreNot) {
  config::Spec spec = MustBuild(UserRequest());
  for (const std::string dir : {"/etc", "/usr"}) {
    const config::Mount* m = MountAt(spec, dir);
    ASSERT_NE(m, nullptr) << dir;
    EXPECT_EQ(m->source, dir);
    EXPECT_TRUE(Has(m->options, "rbind") && Has(m->options, "ro")) << dir;
  }
  // The way to the home's secrets is built (HomeBuiltOfItsEntries).
  EXPECT_EQ(MountAt(spec, "/home")->type, "tmpfs");
  // Symbolic links are made in the root, not bound; the host's /proc,
  // /sys, /dev, /run, /tmp and /root never show.
  EXPECT_EQ(MountAt(spec, "/bin"), nullptr);
  EXPECT_EQ(MountAt(spec, "/root"), nullptr);
  EXPECT_EQ(MountAt(spec, "/proc")->type, "proc");
  EXPECT_EQ(MountAt(spec, "/dev")->type, "tmpfs");
  EXPECT_EQ(MountAt(spec, "/tmp")->type, "tmpfs");
  EXPECT_EQ(MountAt(spec, "/run")->type, "tmpfs");
  EXPECT_NE(MountAt(spec, "/sys")->source, "sysfs") << "a user binds the host's /sys";
  EXPECT_EQ(spec.root->path, "/state/.do/x/rootfs");
  EXPECT_TRUE(spec.root->readonly);
}

// The host's entries on the way to the home's secrets, as the fake lists
// them: /home holds u and other; u holds secrets, a link to one, a link
// that leads nowhere, .config (holding gh, a secret) and the project.
std::vector<HostEntry> FakeHome(const std::string& dir) {
  if (dir == "/home") return {{.name = "other"}, {.name = "u"}};
  if (dir == "/home/u") {
    return {{.name = ".bashrc"},
            {.name = ".config"},
            {.name = ".netrc"},
            {.name = ".ssh"},
            {.name = "dangling", .symlink = true},
            {.name = "dotfiles-link", .symlink = true, .target = "/home/u/dotfiles/bashrc"},
            {.name = "netrc-link", .symlink = true, .target = "/home/u/.netrc"},
            {.name = "proj"}};
  }
  if (dir == "/home/u/.config") return {{.name = "gh"}, {.name = "nvim"}};
  return {};
}

// What the home hides stays hidden for the whole run: the directories on
// the way to a secret are tmpfs mounts holding a bind of every other
// entry found at the start, so a credential the host writes, renames over
// or creates later has no path into the sandbox; links into a secret, or
// to nowhere, are left out too. --hide adds paths of the user's own.
TEST(HostSandboxTest, HomeBuiltOfItsEntries) {
  DoRequest request = UserRequest();
  request.hide = {"/home/u/.config/nvim"};
  Result<config::Spec> built =
      HostSandboxSpec(request, kHostRoot, "/state/.do/x/rootfs", Everything, FakeHome);
  ASSERT_TRUE(built) << built.error().message;
  for (const char* dir : {"/home", "/home/u", "/home/u/.config"}) {
    ASSERT_NE(MountAt(*built, dir), nullptr) << dir;
    EXPECT_EQ(MountAt(*built, dir)->type, "tmpfs") << dir;
  }
  for (const char* bound : {"/home/other", "/home/u/.bashrc", "/home/u/dotfiles-link"}) {
    ASSERT_NE(MountAt(*built, bound), nullptr) << bound;
    EXPECT_TRUE(Has(MountAt(*built, bound)->options, "ro")) << bound;
  }
  for (const char* left_out : {"/home/u/.ssh", "/home/u/.netrc", "/home/u/netrc-link",
                               "/home/u/dangling", "/home/u/.config/gh", "/home/u/.config/nvim"}) {
    EXPECT_EQ(MountAt(*built, left_out), nullptr) << left_out;
  }
  // The project: bound read-only as an entry, then writable over it.
  EXPECT_TRUE(Has(MountAt(*built, "/home/u/proj")->options, "rw"));
}

TEST(HostSandboxTest, TheWorkingDirectoryAndRwPathsAreWritableAndShowOverTheRest) {
  DoRequest request = UserRequest();
  request.writable = {"/tmp/shared"};
  config::Spec spec = MustBuild(request);
  for (const std::string dir : {"/home/u/proj", "/tmp/shared"}) {
    const config::Mount* m = MountAt(spec, dir);
    ASSERT_NE(m, nullptr) << dir;
    EXPECT_TRUE(Has(m->options, "rw")) << dir;
  }
  // After the private /tmp, so that /tmp/shared shows over it.
  auto index = [&](const std::string& d) {
    return std::find_if(spec.mounts.begin(), spec.mounts.end(),
                        [&](const config::Mount& m) { return m.destination == d; }) -
           spec.mounts.begin();
  };
  EXPECT_LT(index("/tmp"), index("/tmp/shared"));
  EXPECT_EQ(spec.process->cwd, "/home/u/proj");
}

TEST(HostSandboxTest, SecretsThatExistAreMasked) {
  config::Spec spec = MustBuild(UserRequest());
  EXPECT_THAT(spec.linux_spec->masked_paths,
              IsSupersetOf({"/home/u/.ssh", "/home/u/.aws", "/home/u/.gnupg", "/etc/shadow"}));
  // What is not there is not masked (a mask needs something to cover).
  config::Spec bare = MustBuild(UserRequest(), Nothing);
  EXPECT_THAT(bare.linux_spec->masked_paths, Not(Contains("/home/u/.ssh")));
}

TEST(HostSandboxTest, AWritablePathInsideASecretOrHoldingTheHostsIsRefused) {
  DoRequest in_ssh = UserRequest();
  in_ssh.cwd = "/home/u/.ssh/keys";
  Result<config::Spec> spec = HostSandboxSpec(in_ssh, kHostRoot, "/r", Everything, NoEntries);
  ASSERT_FALSE(spec);
  EXPECT_THAT(spec.error().message,
              HasSubstr("the working directory \"/home/u/.ssh/keys\" lies in \"/home/u/.ssh\""));

  for (const std::string path : {"/", "/etc"}) {
    DoRequest holding = UserRequest();
    holding.writable = {path};
    Result<config::Spec> refused = HostSandboxSpec(holding, kHostRoot, "/r", Everything, NoEntries);
    ASSERT_FALSE(refused) << path;
    EXPECT_THAT(refused.error().message, HasSubstr("--rw \"" + path + "\" holds \"/etc/shadow\""));
  }
  // The home itself may be the working directory: its secrets stay masked
  // over it.
  DoRequest home = UserRequest();
  home.cwd = "/home/u";
  EXPECT_TRUE(HostSandboxSpec(home, kHostRoot, "/r", Everything, NoEntries));
}

// --show takes one of the hidden paths back (read-only, as the rest of the
// home): its mount and its rule go, the others stay; a path the sandbox
// does not hide is refused by name.
TEST(HostSandboxTest, ShowTakesBackOneHiddenPath) {
  DoRequest request = UserRequest();
  request.show = {"/home/u/.npmrc"};
  config::Spec spec = MustBuild(request);
  EXPECT_THAT(spec.linux_spec->masked_paths, Not(Contains("/home/u/.npmrc")));
  EXPECT_THAT(spec.linux_spec->masked_paths, Contains("/home/u/.ssh"));
  EXPECT_THAT(HiddenPaths(request), Not(Contains("/home/u/.npmrc")));
  EXPECT_THAT(HiddenPaths(request), Contains("/home/u/.ssh"));
  config::Policy policy = *config::BuiltinPolicy("agent");
  ProtectHost(request, policy);
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/.npmrc"), config::FileAccess::kRead);

  request.show = {"/home/u/notes"};
  Result<config::Spec> refused = HostSandboxSpec(request, kHostRoot, "/r", Everything, NoEntries);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "--show \"/home/u/notes\" is none of the paths the sandbox hides");
}

TEST(HostSandboxTest, ItEndsTwoSecondsAfterItsTerm) {
  EXPECT_EQ(MustBuild(UserRequest()).annotations.at("dev.vigil.timeout-grace"), "2s");
}

TEST(HostSandboxTest, AUserRunsAsItselfInANamespaceMappingOnlyItsIds) {
  config::Spec spec = MustBuild(UserRequest());
  EXPECT_EQ(spec.process->user.uid, 1001u);
  EXPECT_EQ(spec.process->user.gid, 1001u);
  ASSERT_NE(spec.linux_spec->FindNamespace(config::NamespaceType::kUser), nullptr);
  EXPECT_THAT(spec.linux_spec->uid_mappings,
              ElementsAre(config::IdMapping{.container_id = 1001, .host_id = 1001, .size = 1}));
  EXPECT_THAT(spec.linux_spec->gid_mappings,
              ElementsAre(config::IdMapping{.container_id = 1001, .host_id = 1001, .size = 1}));
  ASSERT_TRUE(spec.process->capabilities);
  EXPECT_TRUE(spec.process->capabilities->bounding.empty());
  EXPECT_TRUE(spec.process->no_new_privileges);
}

TEST(HostSandboxTest, RootRunsAsRootWithoutAUserNamespace) {
  DoRequest request = UserRequest();
  request.uid = 0;
  request.gid = 0;
  request.home = "/root";
  config::Spec spec = MustBuild(request);
  EXPECT_EQ(spec.process->user.uid, 0u);
  EXPECT_EQ(spec.linux_spec->FindNamespace(config::NamespaceType::kUser), nullptr);
}

TEST(HostSandboxTest, OnlyHarmlessVariablesPassUnlessAsked) {
  DoRequest request = UserRequest();
  request.pass_env = {"EDITOR", "MODE=test"};
  config::Spec spec = MustBuild(request);
  EXPECT_THAT(spec.process->env, ElementsAre("PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C.UTF-8",
                                             "EDITOR=vi", "MODE=test"));
}

// --net none and allow= (which slirp4netns connects to the host's
// network): a namespace of its own, where the sandbox's resolver answers.
TEST(HostSandboxTest, TheNetworkIsItsOwnUnlessTheHostsIsAsked) {
  config::Spec none = MustBuild(UserRequest());
  EXPECT_NE(none.linux_spec->FindNamespace(config::NamespaceType::kNetwork), nullptr);
  DoRequest allow = UserRequest();
  allow.network = DoNetwork::kAllow;
  EXPECT_NE(MustBuild(allow).linux_spec->FindNamespace(config::NamespaceType::kNetwork), nullptr);
  DoRequest host = UserRequest();
  host.network = DoNetwork::kHost;
  EXPECT_EQ(MustBuild(host).linux_spec->FindNamespace(config::NamespaceType::kNetwork), nullptr);
}

TEST(ApplyNetworkFlagTest, AllowListsExactlyTheDestinationsGiven) {
  config::Policy policy;
  policy.egress_default_deny = true;
  const std::vector<std::string> allow = {"10.1.2.3:443", "[2001:db8::1]:80-81", "pypi.org:443"};
  ASSERT_TRUE(ApplyNetworkFlag(DoNetwork::kAllow, allow, policy));
  EXPECT_TRUE(policy.egress_default_deny);
  ASSERT_EQ(policy.egress.size(), 3u);
  EXPECT_EQ(policy.egress[0].cidr.family, AF_INET);
  EXPECT_EQ(policy.egress[0].cidr.prefix, 32);
  EXPECT_THAT(policy.egress[0].ports, ElementsAre(config::PortRange{443, 443}));
  EXPECT_EQ(policy.egress[1].cidr.family, AF_INET6);
  EXPECT_THAT(policy.egress[1].ports, ElementsAre(config::PortRange{80, 81}));
  EXPECT_EQ(policy.egress[2].host, "pypi.org");
  EXPECT_EQ(policy.egress[2].cidr.family, AF_UNSPEC);
}

// What the host later runs from a writable directory stays read-only
// there, and beats the directory's own write grant (which create adds
// after the leading rules); an --rw path beneath it that names one opens
// it up; a writable home keeps its start-up files.
TEST(ProtectHostTest, FilesTheHostRunsStayReadOnlyInWritableDirectories) {
  DoRequest request = UserRequest();
  request.writable = {"/home/u/proj/.vscode", "/home/u"};
  config::Policy policy = *config::BuiltinPolicy("agent");
  ProtectHost(request, policy);
  config::Spec spec = MustBuild(request);
  config::AddImpliedRules(policy, spec);
  using config::FileAccess;
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/proj/main.py"), FileAccess::kWrite);
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/proj/.git/objects/ab"), FileAccess::kWrite);
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/proj/.git/hooks/post-checkout"),
            FileAccess::kRead);
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/proj/.git/config"), FileAccess::kRead);
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/proj/.envrc"), FileAccess::kRead);
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/proj/.vscode/tasks.json"), FileAccess::kWrite)
      << "named by --rw";
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/.bashrc"), FileAccess::kRead);
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/notes.txt"), FileAccess::kWrite);
  EXPECT_EQ(policy.name, "agent+do");
}

// The secrets the mounts hide are hidden rules too, ahead of every write
// grant: the sentry refuses (and audits) each lookup, even in a writable
// home and after the host replaced the file.
TEST(ProtectHostTest, WhatTheMountsHideTheSentryHidesToo) {
  DoRequest request = UserRequest();
  request.cwd = "/home/u";
  request.hide = {"/srv/keys[1]*"};
  config::Policy policy = *config::BuiltinPolicy("agent");
  ProtectHost(request, policy);
  config::AddImpliedRules(policy, MustBuild(request));
  using config::FileAccess;
  for (const char* path : {"/home/u/.ssh", "/home/u/.ssh/id_ed25519", "/home/u/.aws/credentials",
                           "/home/u/.git-credentials", "/etc/shadow",
                           "/etc/ssh/ssh_host_ed25519_key", "/srv/keys[1]*", "/srv/keys[1]*/a"}) {
    EXPECT_EQ(config::FileAccessFor(policy, path), FileAccess::kHidden) << path;
  }
  EXPECT_EQ(config::FileAccessFor(policy, "/srv/keys1x"), FileAccess::kRead)
      << "a name, not a glob";
  EXPECT_EQ(config::FileAccessFor(policy, "/home/u/.sshd"), FileAccess::kWrite);
  EXPECT_TRUE(config::MediatesReads(policy));
}

// Unix connects and sends reach the sandbox's own /tmp and /run, and the
// sockets --allow-socket names; a host daemon's elsewhere is refused.
TEST(ProtectHostTest, OnlyTheSandboxsOwnSocketsAndTheNamedOnes) {
  DoRequest request = UserRequest();
  request.sockets = {"/home/u/.colima/default/docker.sock", "/srv/a*.sock"};
  config::Policy policy = *config::BuiltinPolicy("agent");
  ProtectHost(request, policy);
  EXPECT_TRUE(config::UnixPathAllowed(policy, "/tmp/app.sock"));
  EXPECT_TRUE(config::UnixPathAllowed(policy, "/run/user/1001/bus"));
  EXPECT_TRUE(config::UnixPathAllowed(policy, "/home/u/.colima/default/docker.sock"));
  EXPECT_FALSE(config::UnixPathAllowed(policy, "/var/lib/incus/unix.socket"));
  EXPECT_FALSE(config::UnixPathAllowed(policy, "/home/u/proj/dev.sock"));
  EXPECT_TRUE(config::UnixPathAllowed(policy, "/srv/a*.sock"));
  EXPECT_FALSE(config::UnixPathAllowed(policy, "/srv/ab.sock")) << "a name, not a glob";
  EXPECT_FALSE(config::RefusesNoAddress(policy));
}

// A built-in profile's name on a changed policy would not parse back.
TEST(ApplyNetworkFlagTest, AChangedPolicyIsRenamed) {
  config::Policy policy{.name = "agent"};
  ASSERT_TRUE(ApplyNetworkFlag(DoNetwork::kNone, {}, policy));
  EXPECT_EQ(policy.name, "agent");
  ASSERT_TRUE(ApplyNetworkFlag(DoNetwork::kHost, {}, policy));
  EXPECT_EQ(policy.name, "agent+net");
}

TEST(ApplyNetworkFlagTest, HostAllowsEveryDestinationAndNoneKeepsThePolicys) {
  config::Policy policy;
  policy.egress_default_deny = true;
  ASSERT_TRUE(ApplyNetworkFlag(DoNetwork::kNone, {}, policy));
  EXPECT_TRUE(policy.egress_default_deny);
  ASSERT_TRUE(ApplyNetworkFlag(DoNetwork::kHost, {}, policy));
  EXPECT_FALSE(policy.egress_default_deny);
}

TEST(ApplyNetworkFlagTest, ABadEntryIsNamed) {
  for (const auto& [entry, why] : std::vector<std::pair<std::string, std::string>>{
           {"example.com", "wanted HOST:PORT"},
           {"example.com:0", "\"0\" is not a port"},
           {"example.com:http", "\"http\" is not a port"},
           {"example.com:90-80", "the range ends before it starts"},
           {"[fe80::zz]:80", "\"fe80::zz\" is not an IPv6 address"}}) {
    config::Policy policy;
    const std::vector<std::string> allow = {entry};
    Result<void> applied = ApplyNetworkFlag(DoNetwork::kAllow, allow, policy);
    ASSERT_FALSE(applied) << entry;
    EXPECT_THAT(applied.error().message, HasSubstr("--net allow=" + entry + ": " + why));
  }
}

}  // namespace
}  // namespace vigil::lifecycle
