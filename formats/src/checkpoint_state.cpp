// A checkpoint directory's state file through the generated CheckpointState message.
#include "actorflow/formats/checkpoint_state.hpp"

#include "actorflow/ops/errors.hpp"
#include "actorflow/tf/checkpoint_state.pb.h"
#include "proto_io.hpp"

namespace af {

std::string checkpoint_state_to_text(const CheckpointStatePaths& state) {
  tensorflow::CheckpointState m;
  m.set_model_checkpoint_path(state.model_checkpoint_path);
  for (const auto& p : state.all_model_checkpoint_paths) m.add_all_model_checkpoint_paths(p);
  return detail::print_text(m);
}

CheckpointStatePaths parse_checkpoint_state_text(std::string_view text, std::string_view source) {
  tensorflow::CheckpointState m;
  try {
    detail::parse_text_or_throw(text, source, &m);
  } catch (const InvalidArgumentError& e) {
    throw DataLossError(data_loss(e.what()));  // a damaged file, not a caller's mistake
  }
  CheckpointStatePaths out;
  out.model_checkpoint_path = m.model_checkpoint_path();
  out.all_model_checkpoint_paths.assign(m.all_model_checkpoint_paths().begin(),
                                        m.all_model_checkpoint_paths().end());
  return out;
}

}  // namespace af
