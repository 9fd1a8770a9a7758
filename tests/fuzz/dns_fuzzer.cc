// DNS messages as the sandbox's resolver meets them: a query from the
// workload (ParseQuery, then AnswerWithout for a refused name) and an
// answer from upstream (AddressesIn), any bytes. Neither may crash or read
// outside the message; a refusal must be a response to the same question.
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sentry/names/dns_message.h"
#include "tests/fuzz/check.h"

namespace {

using vigil::fuzz::Die;
namespace names = vigil::sentry::names;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> message(data, size);
  if (vigil::Result<names::Question> question = names::ParseQuery(message)) {
    const std::vector<std::uint8_t> refusal = names::AnswerWithout(message, names::Rcode::kRefused);
    vigil::Result<names::Question> echoed = names::ParseQuery(refusal);
    // A response does not parse as a query; read back by hand instead.
    if (echoed) Die("a refusal parses as a query", question->name);
    if (refusal.size() < 12 || refusal[0] != data[0] || refusal[1] != data[1] ||
        (refusal[2] & 0x80) == 0 || (refusal[3] & 0xf) != 5) {
      Die("the refusal is not a REFUSED answer with the query's id", question->name);
    }
  } else {
    vigil::fuzz::CheckOneLine(question.error());
  }
  for (std::uint16_t type : {names::kTypeA, names::kTypeAaaa}) {
    for (const names::LearnedAddress& address : names::AddressesIn(message, type)) {
      if (address.family != (type == names::kTypeA ? AF_INET : AF_INET6)) {
        Die("an address of the other family", "");
      }
    }
  }
  return 0;
}
