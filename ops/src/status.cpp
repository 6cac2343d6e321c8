#include "actorflow/ops/status.hpp"

#include <exception>

#include "actorflow/ops/errors.hpp"

namespace af {

std::string_view code_name(Code code) noexcept {
  switch (code) {
    case Code::ok:
      return "OK";
    case Code::cancelled:
      return "CANCELLED";
    case Code::unknown:
      return "UNKNOWN";
    case Code::invalid_argument:
      return "INVALID_ARGUMENT";
    case Code::deadline_exceeded:
      return "DEADLINE_EXCEEDED";
    case Code::not_found:
      return "NOT_FOUND";
    case Code::already_exists:
      return "ALREADY_EXISTS";
    case Code::permission_denied:
      return "PERMISSION_DENIED";
    case Code::resource_exhausted:
      return "RESOURCE_EXHAUSTED";
    case Code::failed_precondition:
      return "FAILED_PRECONDITION";
    case Code::aborted:
      return "ABORTED";
    case Code::out_of_range:
      return "OUT_OF_RANGE";
    case Code::unimplemented:
      return "UNIMPLEMENTED";
    case Code::internal:
      return "INTERNAL";
    case Code::unavailable:
      return "UNAVAILABLE";
    case Code::data_loss:
      return "DATA_LOSS";
    case Code::unauthenticated:
      return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE";
}

const std::string& Status::empty_message() noexcept {
  static const std::string empty;
  return empty;
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  std::string out{code_name(code())};
  out += ": ";
  out += message();
  return out;
}

Status Status::with_context(std::string_view suffix) const {
  if (ok()) return *this;
  return Status{code(), message() + std::string{suffix}};
}

std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.to_string(); }

namespace {

template <class E>
std::exception_ptr make(const Status& s) {
  return std::make_exception_ptr(E{s});
}

}  // namespace

std::exception_ptr make_exception_ptr(const Status& s) {
  switch (s.code()) {
    case Code::ok:
      return nullptr;
    case Code::cancelled:
      return make<CancelledError>(s);
    case Code::unknown:
      return make<UnknownError>(s);
    case Code::invalid_argument:
      return make<InvalidArgumentError>(s);
    case Code::deadline_exceeded:
      return make<DeadlineExceededError>(s);
    case Code::not_found:
      return make<NotFoundError>(s);
    case Code::already_exists:
      return make<AlreadyExistsError>(s);
    case Code::permission_denied:
      return make<PermissionDeniedError>(s);
    case Code::resource_exhausted:
      return make<ResourceExhaustedError>(s);
    case Code::failed_precondition:
      return make<FailedPreconditionError>(s);
    case Code::aborted:
      return make<AbortedError>(s);
    case Code::out_of_range:
      return make<OutOfRangeError>(s);
    case Code::unimplemented:
      return make<UnimplementedError>(s);
    case Code::internal:
      return make<InternalError>(s);
    case Code::unavailable:
      return make<UnavailableError>(s);
    case Code::data_loss:
      return make<DataLossError>(s);
    case Code::unauthenticated:
      return make<UnauthenticatedError>(s);
  }
  return make<UnknownError>(s);
}

void throw_if_error(const Status& status) {
  if (status.ok()) return;
  std::rethrow_exception(make_exception_ptr(status));
}

Status status_from_exception(std::exception_ptr e) {
  if (!e) return {};
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    return err.status();
  } catch (const std::exception& err) {
    return unknown(err.what());
  } catch (...) {
    return unknown("unknown exception");
  }
}

}  // namespace af
