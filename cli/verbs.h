// One Run function per verb, each in its own verb_*.cc, with its flag table.
#pragma once

#include "cli/command.h"

namespace vigil::cli {

extern const FlagSpec kAuditFlags[7];
Result<int> RunAudit(const Invocation& invocation);

extern const FlagSpec kCheckFlags[1];
Result<int> RunCheck(const Invocation& invocation);

extern const FlagSpec kCreateFlags[8];
Result<int> RunCreate(const Invocation& invocation);

extern const FlagSpec kDeleteFlags[1];
Result<int> RunDelete(const Invocation& invocation);

extern const FlagSpec kDoFlags[10];
Result<int> RunDo(const Invocation& invocation);

extern const FlagSpec kEventsFlags[2];
Result<int> RunEvents(const Invocation& invocation);

extern const FlagSpec kExecFlags[14];
Result<int> RunExec(const Invocation& invocation);

extern const FlagSpec kInstallFlags[8];
Result<int> RunInstall(const Invocation& invocation);
extern const FlagSpec kUninstallFlags[6];
Result<int> RunUninstall(const Invocation& invocation);

extern const FlagSpec kKillFlags[1];
extern const FlagSpec kPauseFlags[1];
Result<int> RunKill(const Invocation& invocation);

extern const FlagSpec kListFlags[2];
Result<int> RunList(const Invocation& invocation);

extern const FlagSpec kPsFlags[1];
Result<int> RunPs(const Invocation& invocation);

extern const FlagSpec kRunFlags[11];
Result<int> RunRun(const Invocation& invocation);

Result<int> RunPause(const Invocation& invocation);
Result<int> RunResume(const Invocation& invocation);
Result<int> RunStart(const Invocation& invocation);
Result<int> RunState(const Invocation& invocation);

Result<int> RunFeatures(const Invocation& invocation);

Result<int> RunHelp(const Invocation& invocation);

extern const FlagSpec kServeFlags[8];
Result<int> RunServe(const Invocation& invocation);

extern const FlagSpec kSpecFlags[2];
Result<int> RunSpec(const Invocation& invocation);

extern const FlagSpec kUpdateFlags[20];
Result<int> RunUpdate(const Invocation& invocation);

extern const FlagSpec kSyscallsFlags[2];
Result<int> RunSyscalls(const Invocation& invocation);
extern const FlagSpec kPolicyFlags[2];
Result<int> RunPolicy(const Invocation& invocation);

}  // namespace vigil::cli
