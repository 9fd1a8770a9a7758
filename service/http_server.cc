#include "service/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "base/unique_fd.h"
#include "base/unix_socket.h"

namespace vigil::service {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

// Boost 1.74's Beast has string views of its own.
beast::string_view Beast(std::string_view text) { return {text.data(), text.size()}; }
std::string_view Std(beast::string_view text) { return {text.data(), text.size()}; }

constexpr std::size_t kHeaderLimit = 16 << 10;
// After refusing a body, how long the rest of it is read and dropped, so
// that the client, still sending, reads the refusal instead of a reset.
constexpr int kLingerMs = 2000;

// Compares without stopping at the first difference (a token's prefix
// must not be learnt from how long a refusal takes).
bool SameToken(std::string_view given, std::string_view token) {
  unsigned char differ = given.size() != token.size();
  for (std::size_t i = 0; i < given.size(); ++i) {
    differ |= static_cast<unsigned char>(given[i] ^ token[i % (token.empty() ? 1 : token.size())]);
  }
  return differ == 0;
}

template <typename Socket>
class Answer final : public HttpAnswer {
 public:
  Answer(Socket& socket, unsigned version, bool keep_alive)
      : socket_(socket), version_(version), keep_alive_(keep_alive) {}

  void Send(int status, std::string_view content_type, std::string_view body) override {
    http::response<http::string_body> res{static_cast<http::status>(status), version_};
    res.set(http::field::content_type, Beast(content_type));
    res.keep_alive(keep_alive_);
    res.body() = std::string(body);
    res.prepare_payload();
    beast::error_code ec;
    http::write(socket_, res, ec);
    ok_ = !ec;
  }

  void BeginStream(std::string_view content_type) override {
    http::response<http::empty_body> res{http::status::ok, version_};
    res.set(http::field::content_type, Beast(content_type));
    res.keep_alive(keep_alive_);
    res.chunked(true);
    http::response_serializer<http::empty_body> serializer{res};
    beast::error_code ec;
    http::write_header(socket_, serializer, ec);
    ok_ = !ec;
  }

  bool Chunk(std::string_view data) override {
    if (!ok_ || data.empty()) return ok_;
    beast::error_code ec;
    asio::write(socket_, http::make_chunk(asio::buffer(data.data(), data.size())), ec);
    ok_ = !ec;
    return ok_;
  }

  void EndStream() override {
    if (!ok_) return;
    beast::error_code ec;
    asio::write(socket_, http::make_chunk_last(), ec);
    ok_ = !ec;
  }

  [[nodiscard]] bool ok() const { return ok_; }

 private:
  Socket& socket_;
  unsigned version_;
  bool keep_alive_;
  bool ok_ = true;
};

// The descriptor under a connection, TLS or not.
template <typename Socket>
int HandleOf(Socket& socket) {
  return socket.native_handle();
}
template <typename Layer>
int HandleOf(asio::ssl::stream<Layer>& stream) {
  return stream.next_layer().native_handle();
}

// Reads and drops what the client still sends, for a while.
void Linger(int fd) {
  ::shutdown(fd, SHUT_WR);
  char buf[65536];
  while (true) {
    pollfd p{.fd = fd, .events = POLLIN};
    if (::poll(&p, 1, kLingerMs) <= 0) return;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0 && !(n < 0 && errno == EINTR)) return;
  }
}

// `token`: what the client must send, "" for nothing.
template <typename Socket>
void ServeConnection(Socket& socket, const HttpOptions& options, std::string_view token,
                     const HttpHandler& handler) {
  beast::flat_buffer buffer;
  while (true) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(options.body_limit);
    beast::error_code ec;
    http::read_header(socket, buffer, parser, ec);
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::connection_reset) {
      return;
    }
    const auto& header = parser.get();
    // Refusals close the connection after reading away what the client
    // still sends, so that it reads the answer instead of a reset.
    auto refuse = [&](int status, std::string_view message) {
      Answer<Socket>(socket, header.version() == 0 ? 11 : header.version(), false)
          .Send(status, "application/json", ErrorJson(message));
      Linger(HandleOf(socket));
    };
    const bool header_read = !ec || ec == http::error::body_limit;
    if (header_read && !token.empty()) {
      const std::string_view given = Std(header[http::field::authorization]);
      if (!given.starts_with("Bearer ") || !SameToken(given.substr(7), token)) {
        return refuse(401, "a bearer token is needed, and this is not it");
      }
    }
    if (!ec) http::read(socket, buffer, parser, ec);
    // Beast checks a Content-Length against the limit with the header, and
    // a chunked body as it comes.
    if (ec == http::error::body_limit) {
      return refuse(413, StrCat("the request body is over the service's limit of ",
                                options.body_limit, " bytes"));
    }
    if (ec) return refuse(400, ec.message());
    Answer<Socket> answer(socket, header.version(), header.keep_alive());
    const std::string_view target = Std(parser.get().target());
    const std::size_t question = target.find('?');
    HttpRequest request{
        .method = std::string(Std(parser.get().method_string())),
        .path = std::string(target.substr(0, question)),
        .query = question == std::string_view::npos ? "" : std::string(target.substr(question + 1)),
        .body = std::move(parser.get().body()),
    };
    handler(request, answer);
    if (!answer.ok() || !header.keep_alive()) return;
  }
}

// `loopback`: whether the address is one (127.0.0.0/8, ::1).
Result<UniqueFd> ListenTcp(const std::string& address, bool* loopback) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Fail(StrCat("--listen ", Quote(address), ": wanted ADDRESS:PORT"));
  std::string host = address.substr(0, colon);
  unsigned port = 0;
  const std::string_view port_text = std::string_view(address).substr(colon + 1);
  if (std::from_chars(port_text.data(), port_text.data() + port_text.size(), port).ptr !=
          port_text.data() + port_text.size() ||
      port > 65535) {
    return Fail(StrCat("--listen ", Quote(address), ": the port is not a number up to 65535"));
  }
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  sockaddr_storage storage{};
  socklen_t length = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    length = sizeof *v4;
    *loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    length = sizeof *v6;
    *loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
  } else {
    return Fail(StrCat("--listen ", Quote(address), ": not a numeric IPv4 or IPv6 address"));
  }
  UniqueFd fd(::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return FailErrno("socket");
  const int one = 1;
  ::setsockopt(fd.Get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd.Get(), reinterpret_cast<sockaddr*>(&storage), length) != 0) {
    return FailErrno(StrCat("--listen ", address));
  }
  if (::listen(fd.Get(), 128) != 0) return FailErrno(StrCat("listen on ", address));
  return fd;
}

// The TLS context of the TCP port, from its PEM files.
Result<void> LoadTls(const HttpOptions& options, asio::ssl::context& tls) {
  tls.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                  asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                  asio::ssl::context::no_tlsv1_1);
  // OpenSSL's errors say little of a file it cannot open: ours first.
  for (const auto& [flag, path] : {std::pair{"--tls-cert", &options.tls_cert},
                                   std::pair{"--tls-key", &options.tls_key}}) {
    if (::access(path->c_str(), R_OK) != 0) return FailErrno(StrCat(flag, " ", Quote(*path)));
  }
  beast::error_code ec;
  tls.use_certificate_chain_file(options.tls_cert, ec);
  if (ec) {
    return Fail(StrCat("--tls-cert ", Quote(options.tls_cert),
                       ": not a PEM certificate chain OpenSSL reads (", ec.message(), ")"));
  }
  tls.use_private_key_file(options.tls_key, asio::ssl::context::pem, ec);
  if (ec) {
    return Fail(StrCat("--tls-key ", Quote(options.tls_key),
                       ": not a PEM private key OpenSSL reads (", ec.message(), ")"));
  }
  return {};
}

}  // namespace

std::string ErrorJson(std::string_view message) {
  json::Writer w;
  w.BeginObject();
  w.StringMember("error", message);
  w.EndObject();
  return w.Take();
}

Result<void> ServeHttp(const HttpOptions& options, const HttpHandler& handler,
                       const std::function<void()>& listening, const std::atomic<bool>& stop) {
  if (!options.tcp.empty() && options.token.empty()) {
    return Fail("--listen needs a token (--token-file): a TCP port is open to every local user");
  }
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return Fail("--tls-cert and --tls-key go together");
  }
  std::optional<asio::ssl::context> tls;
  if (!options.tls_cert.empty()) {
    if (options.tcp.empty()) return Fail("--tls-cert is for the TCP port: give --listen too");
    tls.emplace(asio::ssl::context::tls_server);
    RETURN_IF_ERROR(LoadTls(options, *tls));
  }
  std::vector<pollfd> listeners;
  std::vector<UniqueFd> owned;
  if (!options.unix_path.empty()) {
    ASSIGN_OR_RETURN(UniqueFd fd, ListenUnix(options.unix_path, SOCK_STREAM, 128));
    if (::chmod(options.unix_path.c_str(), 0600) != 0) {
      return FailErrno(StrCat("chmod ", options.unix_path));
    }
    owned.push_back(std::move(fd));
  }
  const bool has_unix = !owned.empty();
  if (!options.tcp.empty()) {
    bool loopback = false;
    ASSIGN_OR_RETURN(UniqueFd fd, ListenTcp(options.tcp, &loopback));
    if (!loopback && !tls) {
      return Fail(StrCat("--listen ", options.tcp,
                         ": not a loopback address, where the token would cross a network in "
                         "clear: give --tls-cert and --tls-key"));
    }
    owned.push_back(std::move(fd));
  }
  if (owned.empty()) return Fail("nothing to listen on: give --socket or --listen");
  for (const UniqueFd& fd : owned) listeners.push_back({.fd = fd.Get(), .events = POLLIN});
  listening();

  // The open connections, shut down at the end so that none waits on in
  // a read (a kept-alive client) while the service ends.
  std::mutex mu;
  std::condition_variable closed;
  std::set<int> open;
  while (!stop) {
    const int ready = ::poll(listeners.data(), listeners.size(), 500);
    if (ready <= 0) continue;
    for (std::size_t i = 0; i < listeners.size(); ++i) {
      if ((listeners[i].revents & POLLIN) == 0) continue;
      const int fd = ::accept4(listeners[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      const bool is_unix = has_unix && i == 0;
      {
        std::lock_guard lock(mu);
        open.insert(fd);
      }
      std::thread([fd, is_unix, &options, &handler, &tls, &mu, &closed, &open] {
        // Forgotten while its socket still holds the number, in one step
        // with the notification: after it this thread touches nothing of
        // ServeHttp's, which may have returned.
        auto forget = [&] {
          std::lock_guard lock(mu);
          open.erase(fd);
          closed.notify_all();
        };
        auto serve = [&](auto& socket) {
          ServeConnection(socket, options, is_unix ? "" : options.token, handler);
          forget();
        };
        asio::io_context context;
        beast::error_code ec;
        if (is_unix) {
          asio::local::stream_protocol::socket socket(context);
          socket.assign(asio::local::stream_protocol(), fd, ec);
          serve(socket);
        } else {
          sockaddr_storage local{};
          socklen_t length = sizeof local;
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length);
          asio::ip::tcp::socket socket(context);
          socket.assign(local.ss_family == AF_INET6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(),
                        fd, ec);
          if (!tls) {
            serve(socket);
          } else {
            asio::ssl::stream<asio::ip::tcp::socket&> stream(socket, *tls);
            stream.handshake(asio::ssl::stream_base::server, ec);
            if (!ec) {
              serve(stream);
            } else {
              forget();
            }
          }
        }
      }).detach();
    }
  }
  std::unique_lock lock(mu);
  for (int fd : open) ::shutdown(fd, SHUT_RDWR);
  closed.wait(lock, [&] { return open.empty(); });
  return {};
}

}  // namespace vigil::service
