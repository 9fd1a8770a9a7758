#include "sentry/audit/record.h"

#include <string.h>

#include <array>
#include <charconv>
#include <limits>

#include "base/strings.h"

namespace vigil::sentry::audit {
namespace {

constexpr std::array<std::string_view, 5> kDecisionNames = {"allow", "deny", "emulate", "kill",
                                                            "none"};

// Linux's errno values stop at EHWPOISON (133) on every architecture we run.
constexpr int kMaxErrno = 133;

struct Alias {
  std::string_view name;
  int value;
};
// Names glibc's strerrorname_np never returns because another name has the
// same number; a record written by another tool may use them.
constexpr Alias kErrnoAliases[] = {
    {"EWOULDBLOCK", EWOULDBLOCK},
    {"EDEADLOCK", EDEADLOCK},
    {"ENOTSUP", ENOTSUP},
};

// A JSON integer as JSON writes it: -?(0|[1-9][0-9]*), so writing it as a
// number and reading it back gives the same text.
bool IsCanonicalInteger(std::string_view text) {
  std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
  if (digits.empty() || digits.size() > 20) return false;
  if (digits.size() > 1 && digits[0] == '0') return false;
  if (text == "-0") return false;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

void WriteArgValue(json::Writer& w, const Arg& arg) {
  if (arg.is_number && IsCanonicalInteger(arg.value)) {
    const char* begin = arg.value.data();
    const char* end = begin + arg.value.size();
    auto parsed = [end](std::from_chars_result r) { return r.ec == std::errc() && r.ptr == end; };
    if (std::int64_t s = 0; parsed(std::from_chars(begin, end, s))) {
      w.Int(s);
      return;
    }
    if (std::uint64_t u = 0; parsed(std::from_chars(begin, end, u))) {
      w.Uint(u);
      return;
    }
  }
  w.String(arg.value);
}

tl::unexpected<Error> FieldError(std::string_view key, std::string_view problem) {
  return Fail(StrCat("audit record: ", Quote(key), ": ", problem));
}

Result<json::Value> Member(json::Value object, std::string_view key) {
  std::optional<json::Value> v = object.Find(key);
  if (!v) return Fail(StrCat("audit record: missing field ", Quote(key)));
  return *v;
}

Result<std::string> StringField(json::Value object, std::string_view key) {
  ASSIGN_OR_RETURN(json::Value v, Member(object, key));
  std::optional<std::string_view> s = v.AsString();
  if (!s) return FieldError(key, StrCat("expected string, got ", v.Describe()));
  return std::string(*s);
}

Result<bool> BoolField(json::Value object, std::string_view key) {
  ASSIGN_OR_RETURN(json::Value v, Member(object, key));
  std::optional<bool> b = v.AsBool();
  if (!b) return FieldError(key, StrCat("expected true or false, got ", v.Describe()));
  return *b;
}

template <typename T>
Result<T> IntegerValue(json::Value v, std::string_view key) {
  std::optional<std::string_view> text = v.NumberText();
  T out{};
  if (text) {
    const char* end = text->data() + text->size();
    auto [ptr, ec] = std::from_chars(text->data(), end, out);
    if (ec == std::errc() && ptr == end) return out;
  }
  return FieldError(key, StrCat("expected integer in [", std::numeric_limits<T>::min(), ", ",
                                std::numeric_limits<T>::max(), "], got ", v.Describe()));
}

template <typename T>
Result<T> IntegerField(json::Value object, std::string_view key) {
  ASSIGN_OR_RETURN(json::Value v, Member(object, key));
  return IntegerValue<T>(v, key);
}

Result<std::vector<Arg>> ArgsField(json::Value object) {
  std::vector<Arg> args;
  std::optional<json::Value> v = object.Find("args");
  if (!v) return args;
  if (v->kind() != json::Kind::kObject) {
    return FieldError("args", StrCat("expected object, got ", v->Describe()));
  }
  args.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    std::string_view name = v->MemberKey(i);
    json::Value value = v->MemberValue(i);
    if (std::optional<std::string_view> s = value.AsString()) {
      args.push_back(Arg{std::string(name), std::string(*s), false});
    } else if (std::optional<std::string_view> n = value.NumberText()) {
      args.push_back(Arg{std::string(name), std::string(*n), true});
    } else {
      return FieldError(StrCat("args.", name),
                        StrCat("expected string or number, got ", value.Describe()));
    }
  }
  return args;
}

Result<int> ErrnoField(json::Value object) {
  std::optional<json::Value> v = object.Find("errno");
  if (!v) return 0;
  if (std::optional<std::string_view> name = v->AsString()) {
    std::optional<int> value = ParseErrnoName(*name);
    if (!value) return FieldError("errno", StrCat("unknown errno name ", Quote(*name)));
    return *value;
  }
  ASSIGN_OR_RETURN(int value, IntegerValue<int>(*v, "errno"));
  if (value < 0) return FieldError("errno", StrCat("negative errno ", value));
  return value;
}

}  // namespace

std::string_view DecisionName(Decision decision) {
  return kDecisionNames[static_cast<std::size_t>(decision)];
}

std::optional<Decision> ParseDecision(std::string_view name) {
  for (std::size_t i = 0; i < kDecisionNames.size(); ++i) {
    if (kDecisionNames[i] == name) return static_cast<Decision>(i);
  }
  return std::nullopt;
}

std::string_view ErrnoName(int error) {
  if (error <= 0) return {};
  const char* name = ::strerrorname_np(error);
  return name == nullptr ? std::string_view() : std::string_view(name);
}

std::optional<int> ParseErrnoName(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (int e = 1; e <= kMaxErrno; ++e) {
    if (ErrnoName(e) == name) return e;
  }
  for (const Alias& alias : kErrnoAliases) {
    if (alias.name == name) return alias.value;
  }
  return std::nullopt;
}

void WriteRecord(json::Writer& w, const Record& record) {
  w.BeginObject();
  w.StringMember("time", record.time);
  w.StringMember("id", record.container_id);
  w.IntMember("pid", record.pid);
  w.IntMember("tid", record.tid);
  w.StringMember("exe", record.exe);
  if (record.event.empty()) {
    w.StringMember("syscall", record.syscall);
  } else {
    w.StringMember("event", record.event);
  }
  w.Key("args");
  w.BeginObject();
  for (const Arg& arg : record.args) {
    w.Key(arg.name);
    WriteArgValue(w, arg);
  }
  w.EndObject();
  w.StringMember("decision", DecisionName(record.decision));
  if (record.error != 0) {
    w.Key("errno");
    if (std::string_view name = ErrnoName(record.error); !name.empty()) {
      w.String(name);
    } else {
      w.Int(record.error);
    }
  }
  if (record.left_to_kernel) {
    w.BoolMember("leftToKernel", true);
  }
  w.UintMember("latencyUs", record.latency_us);
  if (record.suppressed != 0) {
    w.UintMember("suppressed", record.suppressed);
  }
  w.EndObject();
}

std::string EncodeRecord(const Record& record) {
  json::Writer w;
  WriteRecord(w, record);
  return w.Take();
}

Result<Record> DecodeRecord(std::string_view line) {
  Result<json::Document> doc = json::Document::Parse(line);
  if (!doc) return tl::unexpected(std::move(doc).error().Wrap("audit record"));
  return DecodeRecordObject(doc->root());
}

Result<Record> DecodeRecordObject(json::Value object) {
  if (object.kind() != json::Kind::kObject) {
    return Fail(StrCat("audit record: expected object, got ", object.Describe()));
  }
  Record r;
  ASSIGN_OR_RETURN(r.time, StringField(object, "time"));
  ASSIGN_OR_RETURN(r.container_id, StringField(object, "id"));
  ASSIGN_OR_RETURN(r.pid, IntegerField<pid_t>(object, "pid"));
  ASSIGN_OR_RETURN(r.tid, IntegerField<pid_t>(object, "tid"));
  ASSIGN_OR_RETURN(r.exe, StringField(object, "exe"));
  if (object.Find("event") && !object.Find("syscall")) {
    ASSIGN_OR_RETURN(r.event, StringField(object, "event"));
  } else {
    ASSIGN_OR_RETURN(r.syscall, StringField(object, "syscall"));
  }
  ASSIGN_OR_RETURN(r.args, ArgsField(object));
  ASSIGN_OR_RETURN(std::string decision, StringField(object, "decision"));
  std::optional<Decision> parsed = ParseDecision(decision);
  if (!parsed) {
    return FieldError("decision",
                      StrCat("expected allow, deny, emulate, kill or none, got ", Quote(decision)));
  }
  r.decision = *parsed;
  ASSIGN_OR_RETURN(r.error, ErrnoField(object));
  if (object.Find("leftToKernel")) {
    ASSIGN_OR_RETURN(r.left_to_kernel, BoolField(object, "leftToKernel"));
  }
  ASSIGN_OR_RETURN(r.latency_us, IntegerField<std::uint32_t>(object, "latencyUs"));
  if (object.Find("suppressed")) {
    ASSIGN_OR_RETURN(r.suppressed, IntegerField<std::uint64_t>(object, "suppressed"));
  }
  return r;
}

}  // namespace vigil::sentry::audit
