// The HTTP side of `vigil serve` (Boost.Beast underneath, in
// http_server.cc alone): listeners on a unix socket and a TCP address
// (with TLS, OpenSSL through Boost.Asio), a thread per connection, bearer
// tokens, a bound on request bodies, and answers whole or streamed
// (chunked) to the request's handler.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace vigil::service {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // the target before '?', not decoded
  std::string query;   // after '?', not decoded
  std::string body;
};

// What a handler answers with: one Send, or BeginStream, Chunks, EndStream.
class HttpAnswer {
 public:
  virtual ~HttpAnswer() = default;
  virtual void Send(int status, std::string_view content_type, std::string_view body) = 0;
  virtual void BeginStream(std::string_view content_type) = 0;  // status 200
  // False once the client is gone: what is left may be skipped.
  virtual bool Chunk(std::string_view data) = 0;
  virtual void EndStream() = 0;
};

using HttpHandler = std::function<void(const HttpRequest&, HttpAnswer&)>;

struct HttpOptions {
  std::string unix_path;  // "" for none; made 0600 (the service's user only)
  std::string tcp;        // "ADDRESS:PORT", "" for none
  // The TCP port's TLS certificate chain and key (PEM files); without
  // them the port is plain HTTP, allowed on a loopback address only.
  std::string tls_cert;
  std::string tls_key;
  // What TCP clients must send (Authorization: Bearer); the unix socket is
  // its user's alone (0600) and asks none.
  std::string token;
  std::size_t body_limit = 64u << 20;
};

// An error's answer: {"error": MESSAGE}.
std::string ErrorJson(std::string_view message);

// Serves until `stop` is set (checked at least every half second); returns
// after the open connections' handlers end. Calls `listening` once every
// listener is bound. Binding errors name the address.
Result<void> ServeHttp(const HttpOptions& options, const HttpHandler& handler,
                       const std::function<void()>& listening, const std::atomic<bool>& stop);

}  // namespace vigil::service
