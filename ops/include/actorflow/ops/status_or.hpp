#pragma once

#include <optional>
#include <utility>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/status.hpp"

namespace af {

/// A value or the error that prevented it (TensorFlow's `StatusOr<T>`).
template <class T>
class StatusOr {
 public:
  /// Holds `value` (OK).
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT
  /// Holds the error `status`; an OK status becomes Internal (there is no value).
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = internal("StatusOr constructed from an OK status");
  }

  /// True when a value is held.
  bool ok() const noexcept { return status_.ok(); }
  /// The error (OK when a value is held).
  const Status& status() const noexcept { return status_; }
  /// The value; throws the matching af::Error when holding an error.
  T& value() & {
    throw_if_error(status_);
    return *value_;
  }
  /// As above, moving the value out.
  T&& value() && {
    throw_if_error(status_);
    return std::move(*value_);
  }
  /// The value, unchecked (must be `ok()`).
  T& operator*() & { return *value_; }
  /// The value, unchecked (must be `ok()`).
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace af
