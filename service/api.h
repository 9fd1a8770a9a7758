// The HTTP API of `vigil serve`, over a Service (docs/serve.md lists it):
// JSON in and out, errors as {"error": "..."} with the status that says
// whose fault it was, run_code and commands streamed as JSON lines.
#pragma once

#include "service/http_server.h"
#include "service/service.h"

namespace vigil::service {

HttpHandler ApiHandler(Service& service);

}  // namespace vigil::service
