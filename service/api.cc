#include "service/api.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <ctime>
#include <string_view>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/strings.h"
#include "base/time.h"

namespace vigil::service {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kJsonLines = "application/x-ndjson";
// A call's timeout when its request names none, and the most it may name.
constexpr milliseconds kDefaultCallTimeout = seconds(60);
constexpr milliseconds kMaxCallTimeout = seconds(3600);
// How long after a call's timeout its kernel may take to end it, and how
// long a file operation may take, before the sandbox is given up.
constexpr milliseconds kGrace = seconds(5);
constexpr milliseconds kFileLimit = seconds(120);
// The most of a sandbox's audit one answer holds.
constexpr std::size_t kMaxAuditBytes = 256u << 20;

void SendError(HttpAnswer& answer, int status, std::string_view message) {
  answer.Send(status, kJson, ErrorJson(message));
}

void SendFailure(HttpAnswer& answer, const Error& error) {
  const int status = error.code == ENOENT ? 404 : error.code == EINVAL ? 400 : 500;
  SendError(answer, status, error.message);
}

std::string Timestamp(std::chrono::system_clock::time_point t) {
  const auto since = t.time_since_epoch();
  timespec ts{.tv_sec = std::chrono::duration_cast<seconds>(since).count(),
              .tv_nsec = static_cast<long>(
                  std::chrono::duration_cast<std::chrono::nanoseconds>(since % seconds(1)).count())};
  std::string out;
  FormatRfc3339Nano(ts, out);
  return out;
}

void WriteInfo(json::Writer& w, const SandboxInfo& info) {
  w.BeginObject();
  w.StringMember("sandboxId", info.id);
  w.StringMember("templateId", info.template_name);
  w.StringMember("startedAt", Timestamp(info.started));
  w.StringMember("endAt", Timestamp(info.ends));
  w.Key("metadata");
  w.BeginObject();
  for (const auto& [key, value] : info.metadata) w.StringMember(key, value);
  w.EndObject();
  w.EndObject();
}

void SendInfo(HttpAnswer& answer, int status, const SandboxInfo& info) {
  json::Writer w;
  WriteInfo(w, info);
  answer.Send(status, kJson, w.Take());
}

// %XX and '+' decoded, as a query's values are written.
std::string Unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size()) {
      unsigned value = 0;
      if (std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16).ptr ==
          text.data() + i + 3) {
        out += static_cast<char>(value);
        i += 2;
      } else {
        out += text[i];
      }
    } else {
      out += text[i];
    }
  }
  return out;
}

std::optional<std::string> QueryValue(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (Unescape(pair.substr(0, eq)) == name) {
      return eq == std::string_view::npos ? "" : Unescape(pair.substr(eq + 1));
    }
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
  return std::nullopt;
}

// The body as a JSON object ("" counts as {}).
Result<json::Document> ParseBody(std::string_view body) {
  Result<json::Document> document = json::Document::Parse(body.empty() ? "{}" : body);
  if (!document) {
    return tl::unexpected(
        Error{.code = EINVAL, .message = StrCat("malformed JSON: ", document.error().message)});
  }
  if (document->root().kind() != json::Kind::kObject) {
    return tl::unexpected(Error{
        .code = EINVAL,
        .message = StrCat("the body must be a JSON object, not ", document->root().Describe())});
  }
  return document;
}

tl::unexpected<Error> Invalid(std::string message) {
  return tl::unexpected(Error{.code = EINVAL, .message = std::move(message)});
}

Result<std::optional<std::string>> OptionalString(json::Value object, std::string_view key) {
  std::optional<json::Value> value = object.Find(key);
  if (!value || value->IsNull()) return std::optional<std::string>();
  std::optional<std::string_view> text = value->AsString();
  if (!text) return Invalid(StrCat(key, ": expected string, got ", value->Describe()));
  return std::optional<std::string>(std::string(*text));
}

// A number of seconds ("timeout": 2.5), as milliseconds.
Result<std::optional<milliseconds>> OptionalSeconds(json::Value object, std::string_view key) {
  std::optional<json::Value> value = object.Find(key);
  if (!value || value->IsNull()) return std::optional<milliseconds>();
  std::optional<std::string_view> text = value->NumberText();
  double number = 0;
  if (!text || std::from_chars(text->data(), text->data() + text->size(), number).ptr !=
                   text->data() + text->size()) {
    return Invalid(StrCat(key, ": expected a number of seconds, got ", value->Describe()));
  }
  if (!(number > 0) || number > 1e7) {
    return Invalid(StrCat(key, ": ", *text, " is not a positive number of seconds"));
  }
  return std::optional<milliseconds>(milliseconds(static_cast<std::int64_t>(number * 1000)));
}

Result<std::vector<std::pair<std::string, std::string>>> StringMap(json::Value object,
                                                                   std::string_view key) {
  std::vector<std::pair<std::string, std::string>> out;
  std::optional<json::Value> value = object.Find(key);
  if (!value || value->IsNull()) return out;
  if (value->kind() != json::Kind::kObject) {
    return Invalid(StrCat(key, ": expected object, got ", value->Describe()));
  }
  for (std::size_t i = 0; i < value->size(); ++i) {
    std::optional<std::string_view> text = value->MemberValue(i).AsString();
    if (!text) {
      return Invalid(StrCat(key, ".", value->MemberKey(i), ": expected string, got ",
                            value->MemberValue(i).Describe()));
    }
    out.emplace_back(value->MemberKey(i), *text);
  }
  return out;
}

// "env": variables whose names a process environment can hold.
Result<std::vector<std::pair<std::string, std::string>>> Environment(json::Value object) {
  ASSIGN_OR_RETURN(auto env, StringMap(object, "env"));
  for (const auto& [name, value] : env) {
    if (name.empty() || name.find('=') != std::string::npos) {
      return Invalid(StrCat("env: ", Quote(name), " is not a variable's name"));
    }
  }
  return env;
}

Result<SandboxRequest> ReadSandboxRequest(std::string_view body) {
  ASSIGN_OR_RETURN(json::Document document, ParseBody(body));
  const json::Value root = document.root();
  SandboxRequest request;
  ASSIGN_OR_RETURN(std::optional<std::string> name, OptionalString(root, "template"));
  if (name) request.template_name = *name;
  ASSIGN_OR_RETURN(std::optional<milliseconds> lifetime, OptionalSeconds(root, "timeout"));
  if (lifetime) {
    request.lifetime = std::chrono::ceil<seconds>(*lifetime);
  }
  ASSIGN_OR_RETURN(request.env, Environment(root));
  ASSIGN_OR_RETURN(request.metadata, StringMap(root, "metadata"));
  return request;
}

// Streams a call's replies as JSON lines, ending with {"type":"end"}; a
// sandbox lost on the way says so in an "error" line first.
void StreamCall(Sandbox& sandbox, std::string_view request, milliseconds limit,
                HttpAnswer& answer) {
  answer.BeginStream(kJsonLines);
  ReplySink sink{
      .line = [&](std::string_view, std::string_view line) { answer.Chunk(StrCat(line, "\n")); }};
  Result<void> done = sandbox.Call(request, "", limit, sink);
  if (!done) {
    json::Writer w;
    w.BeginObject();
    w.StringMember("type", "error");
    w.StringMember("name", "SandboxError");
    w.StringMember("value", done.error().message);
    w.StringMember("traceback", "");
    w.EndObject();
    answer.Chunk(StrCat(w.View(), "\n"));
  }
  answer.Chunk("{\"type\":\"end\"}\n");
  answer.EndStream();
}

// The call's timeout, from the request's "timeout" (seconds).
Result<milliseconds> CallTimeout(json::Value root) {
  ASSIGN_OR_RETURN(std::optional<milliseconds> timeout, OptionalSeconds(root, "timeout"));
  if (timeout && *timeout > kMaxCallTimeout) {
    return Invalid(StrCat("timeout: over the most a call may run, ",
                          std::chrono::duration_cast<seconds>(kMaxCallTimeout).count(), "s"));
  }
  return timeout.value_or(kDefaultCallTimeout);
}

void RunCode(Sandbox& sandbox, const HttpRequest& http, HttpAnswer& answer) {
  Result<json::Document> document = ParseBody(http.body);
  if (!document) return SendFailure(answer, document.error());
  Result<std::optional<std::string>> code = OptionalString(document->root(), "code");
  if (!code) return SendFailure(answer, code.error());
  if (!*code) return SendError(answer, 400, "code: missing");
  Result<milliseconds> timeout = CallTimeout(document->root());
  if (!timeout) return SendFailure(answer, timeout.error());
  json::Writer w;
  w.BeginObject();
  w.StringMember("op", "run_code");
  w.StringMember("code", **code);
  w.IntMember("timeout_ms", timeout->count());
  w.EndObject();
  StreamCall(sandbox, w.View(), *timeout + kGrace, answer);
}

void RunCommand(Sandbox& sandbox, const HttpRequest& http, HttpAnswer& answer) {
  Result<json::Document> document = ParseBody(http.body);
  if (!document) return SendFailure(answer, document.error());
  const json::Value root = document->root();
  Result<std::optional<std::string>> cmd = OptionalString(root, "cmd");
  if (!cmd) return SendFailure(answer, cmd.error());
  if (!*cmd) return SendError(answer, 400, "cmd: missing");
  Result<std::optional<std::string>> cwd = OptionalString(root, "cwd");
  if (!cwd) return SendFailure(answer, cwd.error());
  Result<std::vector<std::pair<std::string, std::string>>> env = Environment(root);
  if (!env) return SendFailure(answer, env.error());
  Result<milliseconds> timeout = CallTimeout(root);
  if (!timeout) return SendFailure(answer, timeout.error());
  json::Writer w;
  w.BeginObject();
  w.StringMember("op", "command");
  w.StringMember("cmd", **cmd);
  if (*cwd) w.StringMember("cwd", **cwd);
  w.Key("env");
  w.BeginObject();
  for (const auto& [name, value] : *env) w.StringMember(name, value);
  w.EndObject();
  w.IntMember("timeout_ms", timeout->count());
  w.EndObject();
  StreamCall(sandbox, w.View(), *timeout + kGrace, answer);
}

// A file operation's answer: what the kernel replied, or its error as a
// status (a missing file is 404, one the sandbox may not touch 403).
struct FileReply {
  std::string line;  // the last reply that was not an error
  std::string data;
  std::string error_name;
  std::string error_value;
};

Result<FileReply> FileCall(Sandbox& sandbox, std::string_view request, std::string_view payload) {
  FileReply reply;
  ReplySink sink{
      .line =
          [&](std::string_view kind, std::string_view line) {
            if (kind != "error") {
              reply.line = std::string(line);
              return;
            }
            Result<json::Document> parsed = json::Document::Parse(line);
            if (!parsed) return;
            auto field = [&](std::string_view key) {
              std::optional<json::Value> v = parsed->root().Find(key);
              std::optional<std::string_view> text = v ? v->AsString() : std::nullopt;
              return std::string(text.value_or(""));
            };
            reply.error_name = field("name");
            reply.error_value = field("value");
          },
      .data = [&](std::string_view bytes) { reply.data = std::string(bytes); },
  };
  RETURN_IF_ERROR(sandbox.Call(request, payload, kFileLimit, sink));
  return reply;
}

// False (and the error sent) when the kernel refused the operation.
bool FileOk(const FileReply& reply, HttpAnswer& answer) {
  if (reply.error_name.empty()) return true;
  const int status = reply.error_name == "FileNotFoundError" ? 404
                     : reply.error_name == "PermissionError" ? 403
                                                             : 400;
  SendError(answer, status, StrCat(reply.error_name, ": ", reply.error_value));
  return false;
}

void Files(Sandbox& sandbox, const HttpRequest& http, HttpAnswer& answer, bool list) {
  std::optional<std::string> path = QueryValue(http.query, "path");
  if (!path || path->empty() || path->front() != '/') {
    return SendError(answer, 400, "path: an absolute path in the sandbox is needed (?path=/...)");
  }
  json::Writer w;
  w.BeginObject();
  if (http.method == "PUT" || http.method == "POST") {
    w.StringMember("op", "write_file");
    w.StringMember("path", *path);
    w.UintMember("size", http.body.size());
  } else {
    w.StringMember("op", list ? "list" : "read_file");
    w.StringMember("path", *path);
    if (!list) w.UintMember("max", kMaxReplyFile);
  }
  w.EndObject();
  const bool write = http.method == "PUT" || http.method == "POST";
  Result<FileReply> reply = FileCall(sandbox, w.View(), write ? http.body : "");
  if (!reply) return SendFailure(answer, reply.error());
  if (!FileOk(*reply, answer)) return;
  if (write) return answer.Send(204, kJson, "");
  if (!list) return answer.Send(200, "application/octet-stream", reply->data);
  // {"entries": [...], "type": "entries"} as the kernel wrote it.
  answer.Send(200, kJson, reply->line);
}

void SendAudit(Service& service, const std::string& id, HttpAnswer& answer) {
  std::optional<std::string> path = service.AuditPath(id);
  if (!path) return SendError(answer, 404, StrCat("no audit of a sandbox ", Quote(id)));
  Result<std::string> text = ReadFile(*path, kMaxAuditBytes);
  if (!text) return SendFailure(answer, text.error());
  answer.Send(200, kJsonLines, *text);
}

void ListTemplates(const Service& service, HttpAnswer& answer) {
  json::Writer w;
  w.BeginArray();
  for (const Template& t : service.templates()) {
    w.BeginObject();
    w.StringMember("templateId", t.name);
    w.StringMember("bundle", t.bundle);
    w.UintMember("pool", t.pool);
    w.IntMember("lifetime", t.lifetime.count());
    w.IntMember("maxLifetime", t.max_lifetime.count());
    w.EndObject();
  }
  w.EndArray();
  answer.Send(200, kJson, w.Take());
}

void Route(Service& service, const HttpRequest& http, HttpAnswer& answer) {
  std::string_view path = http.path;
  const std::string& method = http.method;
  if (path == "/health" && method == "GET") return answer.Send(200, kJson, "{\"ok\":true}");
  if (path == "/templates" && method == "GET") return ListTemplates(service, answer);
  if (path == "/sandboxes" || path == "/sandboxes/") {
    if (method == "POST") {
      Result<SandboxRequest> request = ReadSandboxRequest(http.body);
      if (!request) return SendFailure(answer, request.error());
      Result<SandboxInfo> info = service.Create(*request);
      if (!info) return SendFailure(answer, info.error());
      return SendInfo(answer, 201, *info);
    }
    if (method == "GET") {
      json::Writer w;
      w.BeginArray();
      for (const SandboxInfo& info : service.List()) WriteInfo(w, info);
      w.EndArray();
      return answer.Send(200, kJson, w.Take());
    }
    return SendError(answer, 405, StrCat(method, " ", path, ": not a method of this path"));
  }
  if (!path.starts_with("/sandboxes/")) return SendError(answer, 404, StrCat("no path ", Quote(path)));
  path.remove_prefix(11);
  const std::size_t slash = path.find('/');
  const std::string id(path.substr(0, slash));
  const std::string_view rest = slash == std::string_view::npos ? "" : path.substr(slash);
  if (rest == "/audit" && method == "GET") return SendAudit(service, id, answer);
  if (rest.empty() && method == "GET") {
    Result<SandboxInfo> info = service.Info(id);
    if (!info) return SendFailure(answer, info.error());
    return SendInfo(answer, 200, *info);
  }
  if (rest.empty() && method == "DELETE") {
    if (!service.Kill(id)) return SendError(answer, 404, StrCat("no sandbox ", Quote(id)));
    return answer.Send(204, kJson, "");
  }
  if (rest == "/timeout" && method == "POST") {
    Result<json::Document> document = ParseBody(http.body);
    if (!document) return SendFailure(answer, document.error());
    Result<std::optional<milliseconds>> lifetime = OptionalSeconds(document->root(), "timeout");
    if (!lifetime) return SendFailure(answer, lifetime.error());
    if (!*lifetime) return SendError(answer, 400, "timeout: missing");
    Result<SandboxInfo> info = service.SetLifetime(id, std::chrono::ceil<seconds>(**lifetime));
    if (!info) return SendFailure(answer, info.error());
    return SendInfo(answer, 200, *info);
  }
  std::shared_ptr<Sandbox> sandbox = service.Find(id);
  if (!sandbox) return SendError(answer, 404, StrCat("no sandbox ", Quote(id)));
  if (rest == "/code" && method == "POST") return RunCode(*sandbox, http, answer);
  if (rest == "/commands" && method == "POST") return RunCommand(*sandbox, http, answer);
  if (rest == "/files" && (method == "GET" || method == "PUT" || method == "POST")) {
    return Files(*sandbox, http, answer, /*list=*/false);
  }
  if (rest == "/files/list" && method == "GET") return Files(*sandbox, http, answer, /*list=*/true);
  SendError(answer, 404, StrCat("no path ", Quote(http.path), " for ", method));
}

}  // namespace

HttpHandler ApiHandler(Service& service) {
  return [&service](const HttpRequest& http, HttpAnswer& answer) { Route(service, http, answer); };
}

}  // namespace vigil::service
