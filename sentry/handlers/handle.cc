#include <cerrno>

#include "sentry/handlers/handler.h"

namespace vigil::sentry {

Verdict Handle(Handler handler, HandlerContext& context) {
  switch (handler) {
    case Handler::kUname:
      return HandleUname(context);
    case Handler::kSysinfo:
      return HandleSysinfo(context);
    case Handler::kSocket:
      return HandleSocket(context);
    case Handler::kConnect:
      return HandleConnect(context);
    case Handler::kBind:
      return HandleBind(context);
    case Handler::kSendto:
      return HandleSendto(context);
    case Handler::kSendmsg:
      return HandleSendmsg(context);
    case Handler::kSendmmsg:
      return HandleSendmmsg(context);
    case Handler::kOpen:
      return HandleOpen(context);
    case Handler::kFallBack:
      // Forms whose arguments the sentry would have to decode on top (the
      // *xattrat and file_*attr structs, file handles): ENOSYS, on which
      // callers fall back to an older syscall the sentry serves, or to
      // paths.
      return Verdict::Fail(ENOSYS, Decision::kDeny);
    case Handler::kStat:
      return HandleStat(context);
    case Handler::kAccess:
      return HandleAccess(context);
    case Handler::kReadlink:
      return HandleReadlink(context);
    case Handler::kCreate:
      return HandleCreate(context);
    case Handler::kRemove:
      return HandleRemove(context);
    case Handler::kRename:
      return HandleRename(context);
    case Handler::kLink:
      return HandleLink(context);
    case Handler::kAttributes:
      return HandleAttributes(context);
    case Handler::kGetdents:
      return HandleGetdents(context);
    case Handler::kXattr:
      return HandleXattr(context);
    case Handler::kStatfs:
      return HandleStatfs(context);
    case Handler::kInotifyWatch:
      return HandleInotifyWatch(context);
    case Handler::kIoctl:
      return HandleIoctl(context);
    case Handler::kExec:
      return HandleExec(context);
    case Handler::kCredentials:
      return HandleCredentials(context);
    case Handler::kPersonality:
      return HandlePersonality(context);
    case Handler::kChroot:
      return HandleChroot(context);
    case Handler::kNone:
      break;
  }
  return Verdict::Fail(ENOSYS, Decision::kDeny);
}

}  // namespace vigil::sentry
