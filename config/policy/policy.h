// The vigil policy: what a sandboxed workload may do beyond what its OCI
// config already allows — which files it may write, read or even see, where it
// may connect, what it may execute, and how much the sentry audits. The format
// and the built-in profiles are documented in docs/policy.md.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/result.h"

namespace vigil::config {

// What a file rule grants. kHidden makes the path look absent (ENOENT);
// kDenied makes it visible but refuses access (EACCES).
// kMasked: readable, but what is there is covered by a mount made at start,
// as runc's maskedPaths: a file reads as /dev/null, a directory as an empty
// read-only one. The kernel enforces it, so a policy whose only refusals
// are masks and read-only rules needs no sentry for reads.
enum class FileAccess { kWrite, kRead, kHidden, kDenied, kMasked };

// A glob over absolute, normalised container paths (see glob.h) and the access
// it grants.
struct FileRule {
  std::string pattern;
  FileAccess access = FileAccess::kRead;
  bool operator==(const FileRule&) const = default;
};

// An inclusive range of TCP/UDP ports.
struct PortRange {
  std::uint16_t first = 0;
  std::uint16_t last = 65535;
  bool operator==(const PortRange&) const = default;
};

// An address block. Bits of `address` beyond `prefix` are zero (the parser
// refuses anything else); IPv4 uses the first 4 bytes.
struct Cidr {
  int family = AF_INET;  // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> address{};
  int prefix = 0;
  bool operator==(const Cidr&) const = default;
};

// An allowed egress destination: an address block, or a DNS name that
// create resolves into one rule per address (lifecycle/
// egress_hosts.h), each keeping the name. Until then a name's rule has
// cidr.family AF_UNSPEC and allows nothing.
struct EgressRule {
  Cidr cidr;
  std::vector<PortRange> ports;  // empty = every port
  std::string host;              // the DNS name the rule came from, or empty
  bool operator==(const EgressRule&) const = default;
};

// Which mediated decisions the sentry writes to the audit log.
// kActions: refusals and every allowed call but those that only look at
// files (stat, a read-only open, a directory listing, ...): what the
// workload did, not what it read.
enum class AuditLevel { kOff, kDenied, kActions, kAll };

struct Policy {
  std::string name = "custom";  // a built-in profile's name, or the policy's own label
  FileAccess file_default = FileAccess::kWrite;
  std::vector<FileRule> files;  // the first matching rule wins
  bool egress_default_deny = false;
  std::vector<EgressRule> egress;  // allowed destinations when egress_default_deny
  bool unix_sockets = true;        // AF_UNIX connect/bind allowed
  // Globs of the socket files a connect or send may reach ("network.
  // unixPaths"); empty = any. A host daemon's socket is a way out of any
  // sandbox that can see it (`vigil do` lists only its own directories).
  std::vector<std::string> unix_paths;
  std::vector<std::string> exec_allow;  // globs of executable paths; empty = any
  bool exec_from_writable = true;       // false: exec only files on read-only mounts
  bool read_only_root = false;
  bool no_setuid = false;        // setuid/setgid bits have no effect (no_new_privs)
  bool noexec_writable = false;  // writable mounts get noexec (defence in depth)
  AuditLevel audit = AuditLevel::kAll;
  // Mediate (and so audit) files and network even where nothing above is
  // restricted: a record of what a workload does, at the mediated path's cost.
  bool observe = false;
  // "defaultLimits": what the runtime sets where config.json sets no limit
  // of its own (ApplyPolicyToSpec); 0: none.
  std::uint64_t default_memory_bytes = 0;   // linux.resources.memory.limit
  std::uint64_t default_pids = 0;           // linux.resources.pids.limit
  std::uint64_t default_cpu_millis = 0;     // thousandths of a CPU (cpu quota / period)
  std::uint64_t default_nofile = 0;         // RLIMIT_NOFILE, soft and hard
  std::uint64_t default_scratch_bytes = 0;  // size= of each scratch tmpfs the policy adds
  bool operator==(const Policy&) const = default;
};

// Parses a policy document. Every property is optional and unknown ones are
// errors; errors name the JSON path from "policy", e.g.
// `policy.files.rules[2].access: expected one of "read", "write", "hidden",
// "deny", got string "x"`.
[[nodiscard]] Result<Policy> ParsePolicy(std::string_view json);

// The rules of a compiled policy, as WritePolicy wrote them: a profile
// with the rules the container's config implies added still carries the
// profile's name (what it was compiled from), and has no "extends".
[[nodiscard]] Result<Policy> ParseCompiledRules(json::Value value);

// A built-in profile: "default", "agent" or "audit-only". An unknown name is
// an error listing the known ones.
[[nodiscard]] Result<Policy> BuiltinPolicy(std::string_view name);

// The built-in profiles' names, in the order the docs present them.
std::span<const std::string_view> BuiltinPolicyNames();

// The value of `--policy`: inline JSON when it starts with '{'; a JSON file
// when it contains '/' or ends in ".json"; otherwise a built-in profile name.
// Errors start with `source` ("--policy: ").
[[nodiscard]] Result<Policy> PolicyFromFlag(std::string_view value,
                                            std::string_view source = "--policy");

// The value of the annotation dev.vigil.policy: inline JSON when it starts
// with '{', otherwise a built-in profile name. File paths are refused: the
// annotation comes from whoever wrote the bundle, and must not make the
// runtime read host files. Errors start with "annotation dev.vigil.policy: ".
[[nodiscard]] Result<Policy> PolicyFromAnnotation(std::string_view value);

// The whole policy as JSON (every property written), which ParsePolicy reads
// back to an equal Policy for any policy ParsePolicy or BuiltinPolicy made.
std::string DumpPolicy(const Policy& policy);
// The same object, written into `w` (inside a larger document).
void WritePolicy(json::Writer& w, const Policy& policy);

// Whether the file rules take anything away (a default or a rule other
// than write): then the sentry must see the calls that name files.
bool RestrictsFiles(const Policy& policy);

// Whether some file is hidden or denied (a default or a rule): only then
// can the policy refuse a lookup that asks for no access (O_PATH, stat).
bool HidesOrDeniesFiles(const Policy& policy);

// Whether reads and lookups of files need the sentry: some file is hidden
// or denied (only the sentry can refuse a lookup), the policy audits every
// allowed call (`audit: "all"`), or observes. Otherwise the policy refuses
// no read (masked paths are mounts the kernel serves), and reads are the
// kernel's.
bool MediatesReads(const Policy& policy);

// Whether the network rules refuse nothing: every destination may be
// connected and sent to and every address bound (egress allowed, unix
// sockets allowed, and no file hidden or denied: a unix socket's path is a
// file, and a hidden or denied one refuses its connect and send). Then a
// connect, send or bind the sentry has decided and audited may be left to
// the kernel (docs/security.md, "Where the sentry lets the kernel act").
bool RefusesNoAddress(const Policy& policy);

// The path a "masked" rule's mount covers: the pattern itself when it is a
// literal path, the directory of a "DIR/**"; nullopt for any other glob
// (a mount is made once, at start, on one path) and for "/".
std::optional<std::string> MaskTarget(std::string_view pattern);

// Whether `path` is `dir` or lies beneath it (both absolute and
// normalised; "/" holds every path).
bool IsBeneath(std::string_view path, std::string_view dir);

// The access `policy` grants to `resolved_path`, an absolute normalised path
// inside the container: the first matching rule's, else file_default.
FileAccess FileAccessFor(const Policy& policy, std::string_view resolved_path);

// The access `policy` grants to `dir` and to every path beneath it when
// that is one and the same; nullopt when some paths of that tree may get
// another (renaming the directory would move them from under their rules).
std::optional<FileAccess> UniformAccessBeneath(const Policy& policy, std::string_view dir);

// Whether connecting or sending to `address` is allowed. AF_INET and AF_INET6
// are checked against the egress rules (an IPv4-mapped IPv6 address as the
// IPv4 address it reaches; a link-local, private, shared or unique local
// address only by an entry whose block lies within its range, never by a
// wider one such as 0.0.0.0/0); AF_UNIX against unix_sockets; any other family,
// and an address too short for its family, only under a default-allow policy.
bool EgressAllowed(const Policy& policy, const sockaddr* address, socklen_t length);

// Whether `name` (a DNS name in lower case, without the root's trailing
// dot) is one an allow entry's `host` names, case and a trailing dot
// aside: the names the sandbox's resolver answers.
bool NameAllowed(const Policy& policy, std::string_view name);

// Whether an allow entry with `host` matching `name` holds `port`: a
// connect to an address the sandbox learned from `name`'s answer.
bool NameAndPortAllowed(const Policy& policy, std::string_view name, std::uint16_t port);

// The DNS name of the first `host` entry that allows the IP destination
// `address` under an allow-list: what the audit names a connect by. Empty
// for an address no named entry allows, or under a default-allow policy.
std::string_view EgressName(const Policy& policy, const sockaddr* address, socklen_t length);

// Whether binding a socket to the local IP `address` (AF_INET or AF_INET6)
// is allowed. Under a default-allow policy, always; under "deny", when an
// allow entry's block holds the address and its ports the port: an
// IPv4-mapped address is judged as IPv4, a wildcard (0.0.0.0, ::) only by a
// block that holds it, :: only when 0.0.0.0 is allowed too (a dual-stack
// socket takes both), and port 0 (the kernel picks one) by any entry that
// holds the address. Any other family, and an address too short for its
// family, is refused under "deny".
bool BindAllowed(const Policy& policy, const sockaddr* address, socklen_t length);

// Whether `resolved_path` matches exec_allow (any path when it is empty). The
// exec_from_writable check needs the mount table and is the sentry's.
bool ExecAllowed(const Policy& policy, std::string_view resolved_path);

// Whether a connect or send may reach the socket file at `resolved_path`
// (an absolute path in the container): it matches unix_paths, or that is
// empty.
bool UnixPathAllowed(const Policy& policy, std::string_view resolved_path);

}  // namespace vigil::config
