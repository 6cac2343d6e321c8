#pragma once

#include <stdexcept>
#include <string>

#include "actorflow/ops/status.hpp"

namespace af {

/// Base of the exceptions thrown by the synchronous API; mirrors `tf.errors.OpError`.
class Error : public std::runtime_error {
 public:
  /// Carries `status` (not OK); `what()` is its message.
  explicit Error(Status status)
      : std::runtime_error(status.message()), status_(std::move(status)) {}
  /// The status code.
  Code code() const noexcept { return status_.code(); }
  /// The full status.
  const Status& status() const noexcept { return status_; }

 private:
  Status status_;
};

#define ACTORFLOW_DEFINE_ERROR(Name)                     \
  /** Thrown for the canonical code of the same name. */ \
  class Name : public Error {                            \
   public:                                               \
    using Error::Error;                                  \
  };
ACTORFLOW_DEFINE_ERROR(CancelledError)
ACTORFLOW_DEFINE_ERROR(UnknownError)
ACTORFLOW_DEFINE_ERROR(InvalidArgumentError)
ACTORFLOW_DEFINE_ERROR(DeadlineExceededError)
ACTORFLOW_DEFINE_ERROR(NotFoundError)
ACTORFLOW_DEFINE_ERROR(AlreadyExistsError)
ACTORFLOW_DEFINE_ERROR(PermissionDeniedError)
ACTORFLOW_DEFINE_ERROR(ResourceExhaustedError)
ACTORFLOW_DEFINE_ERROR(FailedPreconditionError)
ACTORFLOW_DEFINE_ERROR(AbortedError)
ACTORFLOW_DEFINE_ERROR(OutOfRangeError)
ACTORFLOW_DEFINE_ERROR(UnimplementedError)
ACTORFLOW_DEFINE_ERROR(InternalError)
ACTORFLOW_DEFINE_ERROR(UnavailableError)
ACTORFLOW_DEFINE_ERROR(DataLossError)
ACTORFLOW_DEFINE_ERROR(UnauthenticatedError)
#undef ACTORFLOW_DEFINE_ERROR

/// Throws the `af::Error` subclass matching `status.code()`; does nothing when OK.
void throw_if_error(const Status& status);

/// Returns the exception for `status` as an `std::exception_ptr` (null when OK).
std::exception_ptr make_exception_ptr(const Status& status);

/// Returns the Status carried by `e` (Unknown for exceptions that are not `af::Error`).
Status status_from_exception(std::exception_ptr e);

}  // namespace af
