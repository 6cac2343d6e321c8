#pragma once

// The one place listing actorflow's message types (see CAF notes §1.1): wire types that
// may cross the network are inspectable and registered in a type-id block; in-process
// payloads (shared pointers, closures) are marked unsafe so they can never be serialised
// by accident. The step protocol's atoms and messages: step_protocol.hpp.
#include <caf/all.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

// -- wire types --------------------------------------------------------------------------

/// A tensor as bytes: dtype, dims and raw little-endian element bytes (or strings).
/// Bytes go through CAF's memcpy path for byte sequences.
struct WireTensor {
  std::uint8_t dtype = 0;
  std::vector<std::int64_t> dims;
  std::vector<char> bytes;
  std::vector<std::string> strings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, WireTensor& x) {
  return f(caf::meta::type_name("af::WireTensor"), x.dtype, x.dims, x.bytes, x.strings);
}

/// A Status on the wire.
struct WireStatus {
  std::uint8_t code = 0;
  std::string message;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, WireStatus& x) {
  return f(caf::meta::type_name("af::WireStatus"), x.code, x.message);
}

WireTensor to_wire(const Tensor& t);
Tensor from_wire(const WireTensor& w);
WireStatus to_wire(const Status& s);
Status from_wire(const WireStatus& w);

// -- in-process payloads -------------------------------------------------------------------

/// A function to run inside the receiving actor (completions from pool threads).
struct Closure {
  std::function<void()> fn;
};

/// Adds actorflow's types to `cfg`.
void add_wire_types(caf::actor_system_config& cfg);
/// Round-trips every wire type through CAF's binary serializer; throws InternalError
/// if one serialises to nothing (an unregistered type silently does in CAF 0.17).
void check_wire_types(caf::actor_system& sys);

/// Converts a Status to a CAF error of category `actorflow` (code and message kept).
caf::error to_error(const Status& s);
/// Converts a CAF error to a Status: actorflow errors keep code and message; request
/// timeouts become DeadlineExceeded; `context` names what was asked.
Status status_from_error(const caf::error& e, const std::string& context);

}  // namespace af::detail

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::Closure)

CAF_BEGIN_TYPE_ID_BLOCK(actorflow, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(actorflow, (af::detail::WireTensor))
CAF_ADD_TYPE_ID(actorflow, (af::detail::WireStatus))
CAF_END_TYPE_ID_BLOCK(actorflow)
