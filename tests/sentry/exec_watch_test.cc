// Exec verification: which image an exec maps (exec_image.h), and the
// ptrace watch that kills an exec mapping another (exec_watch.h), driven
// here by the test as the tracer of its own children.
#include "sentry/notify/exec_watch.h"

#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "sentry/handlers/exec_image.h"

namespace vigil::sentry {
namespace {

namespace fs = std::filesystem;

TEST(ScriptInterpreterTest, ReadsTheNameAsTheKernelDoes) {
  EXPECT_EQ(ScriptInterpreter("#!/bin/sh\necho hi\n"), "/bin/sh");
  EXPECT_EQ(ScriptInterpreter("#! \t/usr/bin/env python3\n"), "/usr/bin/env");
  EXPECT_EQ(ScriptInterpreter("#!/bin/sh"), std::nullopt) << "cut short: the kernel refuses";
  EXPECT_EQ(ScriptInterpreter("#!/bin/sh -e"), "/bin/sh") << "a blank ends the name";
  EXPECT_EQ(ScriptInterpreter("#!\n"), std::nullopt);
  EXPECT_EQ(ScriptInterpreter("#!   \n"), std::nullopt);
  EXPECT_EQ(ScriptInterpreter("\x7f"
                              "ELF\x02\x01"),
            std::nullopt);
  EXPECT_EQ(ScriptInterpreter(""), std::nullopt);
  EXPECT_EQ(ScriptInterpreter("# !/bin/sh\n"), std::nullopt);
}

// A minimal 64-bit ELF executable naming `interpreter` in a PT_INTERP
// program header (none when nullopt), as a linker lays it out.
std::string ElfNaming(std::optional<std::string> interpreter) {
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_X86_64;
  header.e_phoff = sizeof header;
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 2;
  Elf64_Phdr load{.p_type = PT_LOAD};
  Elf64_Phdr interp{.p_type = interpreter ? static_cast<Elf64_Word>(PT_INTERP)
                                          : static_cast<Elf64_Word>(PT_NOTE)};
  interp.p_offset = sizeof header + 2 * sizeof(Elf64_Phdr);
  const std::string name = interpreter.value_or("") + '\0';
  interp.p_filesz = name.size();
  std::string bytes(reinterpret_cast<const char*>(&header), sizeof header);
  bytes.append(reinterpret_cast<const char*>(&load), sizeof load);
  bytes.append(reinterpret_cast<const char*>(&interp), sizeof interp);
  return bytes + name;
}

std::optional<std::string> ElfInterpreterOf(const std::string& bytes) {
  return ElfInterpreter([&](std::uint64_t offset, std::size_t size) {
    return offset >= bytes.size() ? std::string() : bytes.substr(offset, size);
  });
}

TEST(ElfInterpreterTest, ReadsPtInterpAsTheKernelDoes) {
  EXPECT_EQ(ElfInterpreterOf(ElfNaming("/lib64/ld-linux-x86-64.so.2")),
            "/lib64/ld-linux-x86-64.so.2");
  EXPECT_EQ(ElfInterpreterOf(ElfNaming(std::nullopt)), std::nullopt) << "a static program";
  EXPECT_EQ(ElfInterpreterOf("#!/bin/sh\n"), std::nullopt);
  EXPECT_EQ(ElfInterpreterOf(""), std::nullopt);
  // Cut short, or not NUL-terminated: the kernel refuses the exec.
  const std::string whole = ElfNaming("/lib/ld.so");
  EXPECT_EQ(ElfInterpreterOf(whole.substr(0, whole.size() - 1)), std::nullopt);
  std::string unterminated = whole;
  unterminated.back() = 'x';
  EXPECT_EQ(ElfInterpreterOf(unterminated), std::nullopt);
  EXPECT_EQ(ElfInterpreterOf(whole.substr(0, 100)), std::nullopt) << "a short program header table";
}

// The host's own programs: a dynamic one names the loader, a static one none.
TEST(ElfInterpreterTest, TheHostsPrograms) {
  auto of = [](const char* path) {
    UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
    EXPECT_TRUE(fd) << path;
    return ElfInterpreter([&](std::uint64_t offset, std::size_t size) {
      std::string bytes(size, '\0');
      const ssize_t n = ::pread(fd.Get(), bytes.data(), size, static_cast<off_t>(offset));
      bytes.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
      return bytes;
    });
  };
  EXPECT_EQ(of("/bin/true"), "/lib64/ld-linux-x86-64.so.2");
  if (::access("/bin/busybox", X_OK) == 0) {
    EXPECT_EQ(of("/bin/busybox"), std::nullopt);
  }
}

// The loader is a shared object (a DT_SONAME, no PT_INTERP); programs,
// dynamic or static (busybox; vigil, a static PIE), are not, nor is glibc's
// libc.so.6, which names the loader as its interpreter (run, it prints its
// version and loads nothing).
TEST(SharedObjectTest, TheLoaderIsOneAndProgramsAreNot) {
  auto of = [](const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    EXPECT_TRUE(fd) << path;
    return IsSharedObject([&](std::uint64_t offset, std::size_t size) {
      std::string bytes(size, '\0');
      const ssize_t n = ::pread(fd.Get(), bytes.data(), size, static_cast<off_t>(offset));
      bytes.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
      return bytes;
    });
  };
  EXPECT_TRUE(of("/lib64/ld-linux-x86-64.so.2"));
  EXPECT_FALSE(of("/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(of("/bin/true"));
  EXPECT_FALSE(of(VIGIL_BINARY));
  if (::access("/bin/busybox", X_OK) == 0) {
    EXPECT_FALSE(of("/bin/busybox"));
  }
}

FileId IdOf(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return {.dev = st.st_dev, .ino = st.st_ino};
}

class ExecImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_path_ = fs::temp_directory_path() / ("vigil-exec-image-" + std::to_string(::getpid()));
    fs::create_directories(root_path_ / "bin");
    Write("bin/tool", std::string("\x7f"
                                  "ELF\x02\x01\x01",
                                  7));
    fs::create_directories(root_path_ / "lib");
    Write("lib/ld.so", ElfNaming(std::nullopt));
    Write("bin/dynamic", ElfNaming("/lib/ld.so"));
    Write("bin/dynamic-script", "#!/bin/dynamic\n");
    Write("bin/lost-loader", ElfNaming("/lib/nope.so"));
    Write("bin/relative-loader", ElfNaming("ld.so"));
    Write("bin/script", "#!/bin/tool -x\nbody\n");
    Write("bin/chain", "#!/bin/script\n");
    Write("bin/missing", "#!/bin/nope\n");
    Write("bin/relative", "#!tool\n");
    Write("bin/loop", "#!/bin/loop\n");
    fs::create_symlink("tool", root_path_ / "bin/link");
    Write("bin/via-link", "#!/bin/link\n");
    root_.Reset(::open(root_path_.c_str(), O_PATH | O_CLOEXEC));
    ASSERT_TRUE(root_);
  }
  void TearDown() override { fs::remove_all(root_path_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(root_path_ / name) << text;
  }
  std::optional<FileId> ImageOf(const std::string& name) {
    UniqueFd file(::open((root_path_ / name).c_str(), O_PATH | O_CLOEXEC | O_NOFOLLOW));
    EXPECT_TRUE(file) << name;
    Result<ExecPlan> plan = PlanExec(root_.Get(), file.Get());
    EXPECT_TRUE(plan) << name;
    return plan ? plan->image : std::nullopt;
  }
  Result<ExecPlan> PlanOf(const std::string& name) {
    UniqueFd file(::open((root_path_ / name).c_str(), O_PATH | O_CLOEXEC | O_NOFOLLOW));
    EXPECT_TRUE(file) << name;
    return PlanExec(root_.Get(), file.Get());
  }

  fs::path root_path_;
  UniqueFd root_;
};

TEST_F(ExecImageTest, ABinaryIsItsOwnImage) {
  EXPECT_EQ(ImageOf("bin/tool"), IdOf(root_path_ / "bin/tool"));
}

TEST_F(ExecImageTest, AScriptMapsItsInterpreterFollowedThroughScriptsAndLinks) {
  EXPECT_EQ(ImageOf("bin/script"), IdOf(root_path_ / "bin/tool"));
  EXPECT_EQ(ImageOf("bin/chain"), IdOf(root_path_ / "bin/tool"));
  EXPECT_EQ(ImageOf("bin/via-link"), IdOf(root_path_ / "bin/tool"));
}

TEST_F(ExecImageTest, NoImageIsApprovedWhenTheChainCannotBeFollowed) {
  EXPECT_EQ(ImageOf("bin/missing"), std::nullopt);
  EXPECT_EQ(ImageOf("bin/relative"), std::nullopt);
  EXPECT_EQ(ImageOf("bin/loop"), std::nullopt) << "past the kernel's depth";
}

TEST_F(ExecImageTest, EveryInterpreterIsInThePlan) {
  Result<ExecPlan> plan = PlanOf("bin/dynamic-script");
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->image, IdOf(root_path_ / "bin/dynamic"));
  EXPECT_EQ(plan->elf_interpreter, IdOf(root_path_ / "lib/ld.so"));
  ASSERT_EQ(plan->interpreters.size(), 2u);
  EXPECT_EQ(plan->interpreters[0].name, "/bin/dynamic");
  EXPECT_EQ(plan->interpreters[1].name, "/lib/ld.so");
  plan = PlanOf("bin/tool");
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->interpreters.empty());
  EXPECT_EQ(plan->elf_interpreter, std::nullopt);
}

TEST_F(ExecImageTest, NoImageIsApprovedWhenTheElfInterpreterCannotBeFound) {
  EXPECT_EQ(ImageOf("bin/lost-loader"), std::nullopt);
  EXPECT_EQ(ImageOf("bin/relative-loader"), std::nullopt);
}

TEST_F(ExecImageTest, InterpretersResolveInsideTheRoot) {
  // "/bin/tool" is the root's, not the host's, even if the host has one.
  Write("bin/sh-script", "#!/bin/sh\n");
  EXPECT_EQ(ImageOf("bin/sh-script"), std::nullopt) << "the root has no /bin/sh";
}

// A child that, each time it is told, execs the next of `programs` (all but
// the last should fail) from its main thread or from a second thread; the
// test is its tracer.
class ExecingChild {
 public:
  ExecingChild(const char* program, bool from_thread) : ExecingChild({program}, from_thread) {}
  ExecingChild(std::initializer_list<const char*> programs, bool from_thread) {
    int go[2], tid[2];
    EXPECT_EQ(::pipe2(go, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(tid, O_CLOEXEC), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      auto exec = [&] {
        const pid_t self = static_cast<pid_t>(::syscall(SYS_gettid));
        if (::write(tid[1], &self, sizeof self) != sizeof self) ::_exit(101);
        for (const char* program : programs) {
          char c;
          if (::read(go[0], &c, 1) != 1) ::_exit(102);
          ::execl(program, program, nullptr);
          if (::write(tid[1], "f", 1) != 1) ::_exit(101);
        }
        ::_exit(103);
      };
      if (from_thread) {
        std::thread(exec).join();
      } else {
        exec();
      }
      ::_exit(104);
    }
    ::close(go[0]);
    ::close(tid[1]);
    go_.Reset(go[1]);
    EXPECT_EQ(::read(tid[0], &execing_tid_, sizeof execing_tid_),
              static_cast<ssize_t>(sizeof execing_tid_));
    reports_.Reset(tid[0]);
  }

  pid_t pid() const { return pid_; }
  pid_t execing_tid() const { return execing_tid_; }
  void Go() { ASSERT_EQ(::write(go_.Get(), "g", 1), 1); }
  // Returns once the child says its exec failed.
  void WaitForFailedExec() {
    char c;
    ASSERT_EQ(::read(reports_.Get(), &c, 1), 1);
  }

  // Feeds every event to `watch` until the child process ends; how it did.
  siginfo_t RunUnder(ExecWatch& watch) {
    for (;;) {
      siginfo_t info{};
      if (::waitid(P_ALL, 0, &info, WEXITED | __WALL) != 0) {
        ADD_FAILURE() << "waitid: " << std::strerror(errno);
        return info;
      }
      if (watch.OnChildEvent(info)) continue;
      if (info.si_pid == pid_) return info;
    }
  }

 private:
  pid_t pid_ = 0;
  pid_t execing_tid_ = 0;
  UniqueFd go_, reports_;
};

struct Killed {
  pid_t pid = 0;
  std::string mapped;
};

// What the exec check approves for `path` in the host's root: its image
// and its ELF interpreter.
ExecWatch::Approved ApprovedImage(const char* path) {
  UniqueFd root(::open("/", O_PATH | O_CLOEXEC));
  UniqueFd file(::open(path, O_PATH | O_CLOEXEC));
  Result<ExecPlan> plan = PlanExec(root.Get(), file.Get());
  EXPECT_TRUE(plan) << path;
  EXPECT_EQ(plan->image, IdOf(path));
  return {.event = {.number = SYS_execve},
          .args = {{"path", path}},
          .image = plan->image,
          .interpreter = plan->elf_interpreter};
}

TEST(ExecWatchTest, TheApprovedImageRunsUntraced) {
  std::vector<Killed> killed;
  ExecWatch watch([&](const ExecWatch::Approved&, pid_t pid, const std::string& mapped) {
    killed.push_back({pid, mapped});
  });
  ExecingChild child("/bin/true", /*from_thread=*/false);
  ASSERT_TRUE(watch.Expect(child.execing_tid(), ApprovedImage("/bin/true")));
  EXPECT_EQ(watch.seized(), 1u);
  child.Go();
  siginfo_t end = child.RunUnder(watch);
  EXPECT_EQ(end.si_code, CLD_EXITED);
  EXPECT_EQ(end.si_status, 0);
  EXPECT_TRUE(killed.empty());
  EXPECT_EQ(watch.seized(), 0u);
}

TEST(ExecWatchTest, AnotherImageIsKilledBeforeItRuns) {
  std::vector<Killed> killed;
  std::vector<std::string> audited;
  ExecWatch watch([&](const ExecWatch::Approved& approved, pid_t pid, const std::string& mapped) {
    killed.push_back({pid, mapped});
    audited.push_back(approved.args.at(0).value);
  });
  // /bin/false would exit 1: killed, it never gets to.
  ExecingChild child("/bin/false", /*from_thread=*/false);
  ASSERT_TRUE(watch.Expect(child.execing_tid(), ApprovedImage("/bin/true")));
  child.Go();
  siginfo_t end = child.RunUnder(watch);
  EXPECT_EQ(end.si_code, CLD_KILLED);
  EXPECT_EQ(end.si_status, SIGKILL);
  ASSERT_EQ(killed.size(), 1u);
  EXPECT_EQ(killed[0].pid, child.pid());
  EXPECT_EQ(killed[0].mapped, fs::canonical("/bin/false").string());
  EXPECT_EQ(audited, std::vector<std::string>{"/bin/true"});
}

// The approved program, but with an ELF interpreter no check approved (a
// PT_INTERP swapped after the check): killed before the loader runs.
TEST(ExecWatchTest, AnUnapprovedInterpreterIsKilledBeforeItRuns) {
  std::vector<Killed> killed;
  ExecWatch watch([&](const ExecWatch::Approved&, pid_t pid, const std::string& mapped) {
    killed.push_back({pid, mapped});
  });
  ExecingChild child("/bin/true", /*from_thread=*/false);
  ExecWatch::Approved approved = ApprovedImage("/bin/true");
  ASSERT_TRUE(approved.interpreter) << "/bin/true is a dynamic program here";
  approved.interpreter.reset();
  ASSERT_TRUE(watch.Expect(child.execing_tid(), approved));
  child.Go();
  EXPECT_EQ(child.RunUnder(watch).si_code, CLD_KILLED);
  ASSERT_EQ(killed.size(), 1u);
  EXPECT_EQ(killed[0].mapped, fs::canonical("/lib64/ld-linux-x86-64.so.2").string());
}

TEST(ExecWatchTest, NoApprovedImageMeansAnyExecIsKilled) {
  ExecWatch watch(nullptr);
  ExecingChild child("/bin/true", /*from_thread=*/false);
  ASSERT_TRUE(watch.Expect(child.execing_tid(), {.event = {.number = SYS_execve}}));
  child.Go();
  EXPECT_EQ(child.RunUnder(watch).si_code, CLD_KILLED);
}

TEST(ExecWatchTest, AnExecFromASecondThreadIsVerifiedUnderTheLeadersId) {
  std::vector<Killed> killed;
  ExecWatch watch([&](const ExecWatch::Approved&, pid_t pid, const std::string& mapped) {
    killed.push_back({pid, mapped});
  });
  ExecingChild child("/bin/false", /*from_thread=*/true);
  ASSERT_NE(child.execing_tid(), child.pid());
  ASSERT_TRUE(watch.Expect(child.execing_tid(), ApprovedImage("/bin/true")));
  child.Go();
  EXPECT_EQ(child.RunUnder(watch).si_code, CLD_KILLED);
  ASSERT_EQ(killed.size(), 1u);
  EXPECT_EQ(killed[0].pid, child.pid());
}

// A failed exec leaves the thread seized; its next exec is approved and
// verified anew.
TEST(ExecWatchTest, AThreadWhoseExecFailedIsVerifiedAgainNextTime) {
  std::vector<Killed> killed;
  ExecWatch watch([&](const ExecWatch::Approved&, pid_t pid, const std::string& mapped) {
    killed.push_back({pid, mapped});
  });
  ExecingChild child({"/nonexistent/vigil-exec", "/bin/false"}, /*from_thread=*/false);
  ASSERT_TRUE(watch.Expect(child.execing_tid(), ApprovedImage("/bin/true")));
  child.Go();
  child.WaitForFailedExec();  // no stop: nothing was mapped
  Result<void> again = watch.Expect(child.execing_tid(), ApprovedImage("/bin/true"));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(watch.seized(), 1u);
  child.Go();
  EXPECT_EQ(child.RunUnder(watch).si_code, CLD_KILLED);
  ASSERT_EQ(killed.size(), 1u);
  EXPECT_EQ(killed[0].mapped, fs::canonical("/bin/false").string());
}

TEST(ExecWatchTest, SignalsReachASeizedThread) {
  ExecWatch watch(nullptr);
  ExecingChild child("/bin/true", /*from_thread=*/false);
  ASSERT_TRUE(watch.Expect(child.execing_tid(), ApprovedImage("/bin/true")));
  // Default action: terminate. Passed on by the watch, it ends the child
  // before it is told to exec.
  ASSERT_EQ(::kill(child.pid(), SIGTERM), 0);
  siginfo_t end = child.RunUnder(watch);
  EXPECT_EQ(end.si_code, CLD_KILLED);
  EXPECT_EQ(end.si_status, SIGTERM);
  EXPECT_EQ(watch.seized(), 0u);
}

TEST(ExecWatchTest, AThreadAlreadyTracedElsewhereCannotBeSeized) {
  ExecWatch first(nullptr);
  ExecWatch second(nullptr);
  ExecingChild child("/bin/true", /*from_thread=*/false);
  ASSERT_TRUE(first.Expect(child.execing_tid(), ApprovedImage("/bin/true")));
  Result<void> again = second.Expect(child.execing_tid(), ApprovedImage("/bin/true"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, EPERM);
  child.Go();
  EXPECT_EQ(child.RunUnder(first).si_code, CLD_EXITED);
}

}  // namespace
}  // namespace vigil::sentry
