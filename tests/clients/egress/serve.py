"""The test hosts' web server (tests/clients/egress.sh): serves a directory
over HTTP or HTTPS on every address of its network namespace, and appends
each request's local address, Host header and path to a log, so that a
test can tell which requests arrived where."""
import http.server
import ssl
import sys
from functools import partial


def main():
    port, root, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    cert = sys.argv[4] if len(sys.argv) > 4 else None

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_head(self):
            with open(log, "a") as out:
                local = self.connection.getsockname()[0]
                out.write(f"{local} {self.headers.get('Host', '-')} {self.path}\n")
            return super().send_head()

    server = http.server.ThreadingHTTPServer(("0.0.0.0", port), partial(Handler, directory=root))
    if cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert + "/cert.pem", cert + "/key.pem")
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


main()
