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
  StatusOr(T value) : value_(std::move(value)) {}                 // NOLINT
  StatusOr(Status status) : status_(std::move(status)) {          // NOLINT
    if (status_.ok()) status_ = internal("StatusOr constructed from an OK status");
  }

  bool ok() const noexcept { return status_.ok(); }
  const Status& status() const noexcept { return status_; }
  /// The value; throws the matching af::Error when holding an error.
  T& value() & {
    throw_if_error(status_);
    return *value_;
  }
  T&& value() && {
    throw_if_error(status_);
    return std::move(*value_);
  }
  T& operator*() & { return *value_; }
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace af
