#include "sentry/table/listing.h"

#include <string.h>

#include <array>
#include <cstdio>

#include "base/json/json_writer.h"
#include "base/strings.h"

namespace vigil::sentry {
namespace {

constexpr std::array kTiers = {Tier::kFast, Tier::kMediated, Tier::kTraced, Tier::kDenied};

bool Selected(const SyscallEntry& entry, std::optional<Tier> tier) {
  return !tier || entry.tier == *tier;
}

// What decides the call beyond its tier: the handler, the BPF guard, or the
// errno of a denial.
std::string Detail(const SyscallEntry& entry) {
  if (entry.handler != Handler::kNone) {
    // A scoped syscall is mediated only when the policy restricts it.
    return StrCat("handler ", NameOf(entry.handler), entry.scope == Scope::kAlways ? "" : "*");
  }
  if (entry.guard != Guard::kNone) return "guarded";
  if (entry.tier == Tier::kDenied) return strerrorname_np(entry.deny_errno);
  return "";
}

// When a scoped entry reaches the sentry (FilterOptionsFor).
std::string_view MediatedWhen(Scope scope) {
  switch (scope) {
    case Scope::kNetworkPolicy:
      return "the policy restricts egress or unix sockets";
    case Scope::kFilePolicy:
      return "the policy restricts files";
    case Scope::kFileReads:
      return "the policy hides or denies files, or audits every read";
    case Scope::kOutsidePids:
      return "the container has no pid namespace of its own";
    case Scope::kAlways:
      break;
  }
  return "always";
}

std::string Padded(std::string_view text, std::size_t width) {
  std::string out(text);
  out.resize(std::max(width, text.size() + 1), ' ');
  return out;
}

}  // namespace

std::optional<Tier> ParseTier(std::string_view name) {
  for (Tier tier : kTiers) {
    if (NameOf(tier) == name) return tier;
  }
  return std::nullopt;
}

std::string SyscallListingText(std::optional<Tier> tier) {
  std::string out = StrCat(Padded("NR", 5), Padded("NAME", 24), Padded("TIER", 10),
                           Padded("DETAIL", 18), "NOTE\n");
  std::array<int, kTiers.size()> counts{};
  for (const SyscallEntry& entry : SyscallTable()) {
    if (!Selected(entry, tier)) continue;
    ++counts[static_cast<std::size_t>(entry.tier)];
    out += StrCat(Padded(StrCat(entry.number), 5), Padded(entry.name, 24),
                  Padded(NameOf(entry.tier), 10), Padded(Detail(entry), 18), entry.note, "\n");
  }
  int total = 0;
  std::string by_tier;
  for (Tier t : kTiers) {
    int n = counts[static_cast<std::size_t>(t)];
    total += n;
    by_tier += StrCat(by_tier.empty() ? "" : ", ", n, " ", NameOf(t));
  }
  out += StrCat("\n", total, " syscalls: ", by_tier,
                ". Any other number: ENOSYS. Other architectures and x32: the process is killed.\n"
                "* mediated only when the policy restricts them (network: egress or unix "
                "sockets; files: any rule but write), else fast.\n");
  return out;
}

std::string SyscallListingJson(std::optional<Tier> tier) {
  json::Writer writer(json::Writer::Style::kPretty);
  writer.BeginArray();
  for (const SyscallEntry& entry : SyscallTable()) {
    if (!Selected(entry, tier)) continue;
    writer.BeginObject();
    writer.IntMember("number", entry.number);
    writer.StringMember("name", entry.name);
    writer.StringMember("tier", NameOf(entry.tier));
    if (entry.handler != Handler::kNone) {
      writer.StringMember("handler", NameOf(entry.handler));
    }
    if (entry.scope != Scope::kAlways) {
      writer.StringMember("mediatedWhen", MediatedWhen(entry.scope));
    }
    if (entry.guard != Guard::kNone) {
      writer.BoolMember("guarded", true);
    }
    if (entry.tier == Tier::kDenied) {
      writer.StringMember("errno", strerrorname_np(entry.deny_errno));
    }
    writer.StringMember("note", entry.note);
    writer.EndObject();
  }
  writer.EndArray();
  return writer.Take();
}

}  // namespace vigil::sentry
