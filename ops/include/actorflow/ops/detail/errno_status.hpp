#pragma once

// tsl's errno mapping (tsl/platform/errors.cc: ErrnoToCode, IOError), which the file kernels
// (kernels/src/serialize_io_file_ops.cpp) and the TFRecord streams (queues/src/record_io.cpp)
// share.
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "actorflow/ops/status.hpp"

namespace af::detail {

/// tsl::errors::ErrnoToCode.
inline Code errno_to_code(int error) {
  // clang-format off
  switch (error) {
    case 0: return Code::ok;
    case EINVAL: case ENAMETOOLONG: case E2BIG: case EDESTADDRREQ: case EDOM: case EFAULT:
    case EILSEQ: case ENOPROTOOPT: case ENOTSOCK: case ENOTTY: case EPROTOTYPE: case ESPIPE:
      return Code::invalid_argument;
    case ETIMEDOUT: return Code::deadline_exceeded;
    case ENODEV: case ENOENT: case ENXIO: case ESRCH: return Code::not_found;
    case EEXIST: case EADDRNOTAVAIL: case EALREADY: return Code::already_exists;
    case EPERM: case EACCES: case EROFS: return Code::permission_denied;
    case ENOTEMPTY: case EISDIR: case ENOTDIR: case EADDRINUSE: case EBADF: case EBUSY:
    case ECHILD: case EISCONN: case ENOTCONN: case EPIPE: case ETXTBSY:
      return Code::failed_precondition;
    case ENOSPC: case EDQUOT: case EMFILE: case EMLINK: case ENFILE: case ENOBUFS: case ENOMEM:
      return Code::resource_exhausted;
    case EFBIG: case EOVERFLOW: case ERANGE: return Code::out_of_range;
    case ENOSYS: case ENOTSUP: case EAFNOSUPPORT: case EPROTONOSUPPORT: case EXDEV:
      return Code::unimplemented;
    case EAGAIN: case ECONNREFUSED: case ECONNABORTED: case ECONNRESET: case EINTR:
    case EHOSTUNREACH: case ENETDOWN: case ENETRESET: case ENETUNREACH: case ENOLCK:
      return Code::unavailable;
    case EDEADLK: case ESTALE: return Code::aborted;
    case ECANCELED: return Code::cancelled;
    default: return Code::unknown;
  }
  // clang-format on
}

/// tsl's IOError: "<context>; <strerror>", coded by the errno.
inline Status errno_status(std::string_view context, int error) {
  std::string message(context);
  message += "; ";
  message += std::strerror(error);
  return {errno_to_code(error), std::move(message)};
}

}  // namespace af::detail
