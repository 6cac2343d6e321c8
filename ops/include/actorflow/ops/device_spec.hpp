#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "actorflow/ops/status.hpp"

namespace af {

/// A full or partial device name (TensorFlow's `DeviceSpec` / `DeviceNameUtils::ParsedName`).
///
/// Parses every form TensorFlow accepts: `/job:ps/replica:0/task:0/device:CPU:0`, the legacy
/// `/cpu:0` and `/gpu:1`, `/device:GPU:*`, partial specs such as `/job:worker` or `/task:1`,
/// the bare local form `CPU:0`, and the empty string (nothing specified). Device types are
/// canonicalised to upper case (`"CPU"`, `"GPU"`).
struct DeviceSpec {
  std::optional<std::string> job;          ///< `/job:NAME`
  std::optional<int> replica;              ///< `/replica:N`
  std::optional<int> task;                 ///< `/task:N`
  std::optional<std::string> device_type;  ///< "CPU", "GPU" (upper case)
  std::optional<int> device_index;         ///< unset for `*` or when omitted

  /// Parses `name`; throws InvalidArgumentError naming the bad spec.
  static DeviceSpec parse(std::string_view name);
  /// Parses `name` into `*out`; InvalidArgument "Malformed device specification '...'".
  ///
  /// Follows `DeviceNameUtils::ParseFullName` (components in any order, `*` leaves a field
  /// unset), falling back to `ParseLocalName` (`CPU:0`). As Python's `DeviceSpec` does, it
  /// upper-cases `cpu`/`gpu` and refuses more than one device component
  /// (`/device:GPU:0/cpu:0`). `*out` is untouched on failure.
  static Status parse(std::string_view name, DeviceSpec* out);

  /// Overrides this spec's fields with the fields `other` sets (Python's `merge_from`).
  void merge_from(const DeviceSpec& other);

  /// Merges `other` into this spec, failing with InvalidArgument when a field set in both
  /// differs (TensorFlow's `DeviceNameUtils::MergeDevNames`), e.g. "Cannot merge devices with
  /// incompatible jobs: '/job:a' and '/job:b'"; on failure this spec is left unchanged. With
  /// `allow_soft_placement`, as in TensorFlow, a device type conflict unsets both type and
  /// index, and an index conflict unsets the index, so the placer may choose.
  Status merge_compatible(const DeviceSpec& other, bool allow_soft_placement = false);

  /// True when every field this spec sets equals the same field of `device`.
  bool matches(const DeviceSpec& device) const;

  /// True when job, replica, task, type and index are all set.
  bool fully_specified() const;

  /// True when nothing is set.
  bool empty() const;

  /// Canonical form, only the set fields: `/job:ps/replica:0/task:0/device:CPU:0`,
  /// `/device:GPU:*` for a type without index, `""` when empty.
  std::string to_string() const;

  /// Legacy short form TensorFlow logged in 1.0: `/job:localhost/replica:0/task:0/cpu:0`.
  std::string to_legacy_string() const;

  /// Field-wise equality.
  friend bool operator==(const DeviceSpec&, const DeviceSpec&) = default;
};

/// Prints `s.to_string()`.
std::ostream& operator<<(std::ostream& os, const DeviceSpec& s);

/// Returns the canonical full device name `/job:J/replica:R/task:T/device:TYPE:N`.
std::string full_device_name(std::string_view job, int replica, int task,
                             std::string_view device_type, int index);

}  // namespace af
