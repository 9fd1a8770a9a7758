// Codecs of the policy's value types: access and audit names, port ranges,
// CIDR blocks, file and egress rules.
#include "config/policy/policy_codec.h"

#include <sys/socket.h>

#include <cctype>
#include <charconv>

#include "config/policy/cidr.h"
#include "config/policy/glob.h"

namespace vigil::config {
namespace {

constexpr Field<FileRule> kFileRuleFields[] = {
    {"path",
     [](json::Value v, const JsonPath& path, FileRule& out) {
       return DecodeGlob(v, path, out.pattern);
     },
     [](json::Writer& w, std::string_view k, const FileRule& in) { w.StringMember(k, in.pattern); },
     /*required=*/true},
    Required<&FileRule::access>("access"),
};

// A host name as DNS writes it: dot-separated labels of letters, digits and
// '-' (not at either end), at most 63 characters each and 253 in all.
// A DNS name, or a wildcard "*.example.com" for every name below one.
bool IsHostName(std::string_view name) {
  if (name.starts_with("*.")) name.remove_prefix(2);
  if (name.ends_with('.')) name.remove_suffix(1);
  if (name.empty() || name.size() > 253) return false;
  for (std::size_t start = 0; start <= name.size();) {
    std::size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view label = name.substr(start, end - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
    }
    start = end + 1;
  }
  return true;
}

constexpr Field<EgressRule> kEgressRuleFields[] = {
    {"cidr",
     [](json::Value v, const JsonPath& path, EgressRule& out) { return Decode(v, path, out.cidr); },
     [](json::Writer& w, std::string_view k, const EgressRule& in) {
       if (in.cidr.family == AF_UNSPEC) return;  // a name not resolved yet
       w.Key(k);
       Encode(w, in.cidr);
     }},
    {"host",
     [](json::Value v, const JsonPath& path, EgressRule& out) -> Result<void> {
       RETURN_IF_ERROR(Decode(v, path, out.host));
       if (!IsHostName(out.host)) {
         return FailAt(path, StrCat(Quote(out.host),
                                    " is not a DNS name (nor a wildcard \"*.example.com\")"));
       }
       return {};
     },
     [](json::Writer& w, std::string_view k, const EgressRule& in) {
       if (in.host.empty()) return;
       w.StringMember(k, in.host);
     }},
    Prop<&EgressRule::ports>("ports"),
};

// A whole decimal port number, "80".
std::optional<std::uint16_t> ParsePort(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

}  // namespace

const std::pair<std::string_view, FileAccess> kFileAccessChoices[5] = {
    {"read", FileAccess::kRead},   {"write", FileAccess::kWrite},   {"hidden", FileAccess::kHidden},
    {"deny", FileAccess::kDenied}, {"masked", FileAccess::kMasked},
};

const std::pair<std::string_view, AuditLevel> kAuditChoices[4] = {
    {"off", AuditLevel::kOff},
    {"denied", AuditLevel::kDenied},
    {"actions", AuditLevel::kActions},
    {"all", AuditLevel::kAll},
};

const std::pair<std::string_view, bool> kEgressDefaultChoices[2] = {
    {"allow", false},
    {"deny", true},
};

tl::unexpected<Error> UnknownProperty(const JsonPath& path, std::string_view key,
                                      std::span<const std::string_view> keys) {
  std::string known;
  for (std::string_view k : keys) known += StrCat(known.empty() ? "" : ", ", k);
  return FailAt(path.Key(key), StrCat("unknown property (expected one of: ", known, ")"));
}

Result<void> Decode(json::Value v, const JsonPath& path, FileAccess& out) {
  return DecodeChoice<FileAccess>(v, path, kFileAccessChoices, out);
}

Result<void> Decode(json::Value v, const JsonPath& path, AuditLevel& out) {
  return DecodeChoice<AuditLevel>(v, path, kAuditChoices, out);
}

void Encode(json::Writer& w, FileAccess in) { EncodeChoice<FileAccess>(w, kFileAccessChoices, in); }

void Encode(json::Writer& w, AuditLevel in) { EncodeChoice<AuditLevel>(w, kAuditChoices, in); }

// A port is 80 or "80"; a range is "8000-8080".
Result<void> Decode(json::Value v, const JsonPath& path, PortRange& out) {
  constexpr std::string_view kWhat = "port number (0-65535) or \"first-last\" range";
  if (v.kind() == json::Kind::kNumber) {
    ASSIGN_OR_RETURN(std::uint64_t port, DecodeUnsigned(v, path, 65535, "port number"));
    out.first = out.last = static_cast<std::uint16_t>(port);
    return {};
  }
  std::optional<std::string_view> text = v.AsString();
  if (!text) return Expected(path, kWhat, v);
  std::size_t dash = text->find('-');
  std::optional<std::uint16_t> first = ParsePort(text->substr(0, dash));
  std::optional<std::uint16_t> last =
      dash == std::string_view::npos ? first : ParsePort(text->substr(dash + 1));
  if (!first || !last) return Expected(path, kWhat, v);
  if (*first > *last) {
    return FailAt(path, StrCat("port range ", Quote(*text), " is empty (first > last)"));
  }
  out.first = *first;
  out.last = *last;
  return {};
}

void Encode(json::Writer& w, const PortRange& in) {
  if (in.first == in.last) {
    w.Uint(in.first);
  } else {
    w.String(StrCat(in.first, '-', in.last));
  }
}

Result<void> Decode(json::Value v, const JsonPath& path, Cidr& out) {
  std::optional<std::string_view> text = v.AsString();
  if (!text) return Expected(path, "CIDR string such as \"10.0.0.0/8\"", v);
  Result<Cidr> cidr = ParseCidr(*text);
  if (!cidr) return FailAt(path, cidr.error().message);
  out = *cidr;
  return {};
}

void Encode(json::Writer& w, const Cidr& in) { w.String(FormatCidr(in)); }

Result<void> Decode(json::Value v, const JsonPath& path, FileRule& out) {
  return DecodeStrict<FileRule>(v, path, kFileRuleFields, out);
}

void Encode(json::Writer& w, const FileRule& in) { EncodeObject<FileRule>(w, kFileRuleFields, in); }

Result<void> Decode(json::Value v, const JsonPath& path, EgressRule& out) {
  out.cidr.family = AF_UNSPEC;  // until "cidr" sets it
  RETURN_IF_ERROR(DecodeStrict<EgressRule>(v, path, kEgressRuleFields, out));
  if (out.cidr.family == AF_UNSPEC && out.host.empty()) {
    return FailAt(path, "needs \"cidr\" (an address block) or \"host\" (a DNS name)");
  }
  return {};
}

void Encode(json::Writer& w, const EgressRule& in) {
  EncodeObject<EgressRule>(w, kEgressRuleFields, in);
}

Result<void> DecodeGlob(json::Value v, const JsonPath& path, std::string& out) {
  RETURN_IF_ERROR(Decode(v, path, out));
  Result<void> checked = CheckGlob(out);
  if (!checked) return FailAt(path, StrCat(Quote(out), ": ", checked.error().message));
  return {};
}

}  // namespace vigil::config
