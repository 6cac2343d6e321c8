#pragma once

// Values that travel in CAF messages inside one process. They hold shared buffers and
// resources, so CAF may never serialise them: remote protocols convert them to wire types
// first (the net module). Marked here once for every module.
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/error.hpp>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::Status)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::Tensor)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<af::Tensor>)

namespace af {

/// A Status as a CAF error of category `actorflow` (code and message kept), for actors
/// that answer requests with actorflow errors.
caf::error to_caf_error(const Status& s);
/// A CAF error as a Status: actorflow errors keep code and message; request timeouts
/// become DeadlineExceeded; `context` names what was asked.
Status status_from_caf_error(const caf::error& e, const std::string& context);

}  // namespace af
