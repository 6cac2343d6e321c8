#pragma once

// The text of a checkpoint directory's `checkpoint` file: TensorFlow's CheckpointState
// message in protobuf text format (what `tf.train.update_checkpoint_state` writes and
// `get_checkpoint_state` reads). af::train's Saver gives the paths their meaning.

#include <string>
#include <string_view>
#include <vector>

namespace af {

/// The two path fields of a CheckpointState (the timestamps are read and dropped).
struct CheckpointStatePaths {
  std::string model_checkpoint_path;                    ///< the latest checkpoint's prefix
  std::vector<std::string> all_model_checkpoint_paths;  ///< the kept ones, oldest first
};

/// The text format TensorFlow writes: `model_checkpoint_path: "..."` then one
/// `all_model_checkpoint_paths: "..."` line each, strings C-escaped as protobuf escapes them.
std::string checkpoint_state_to_text(const CheckpointStatePaths& state);

/// Parses that text. Throws DataLossError "<source>:<line>:<column>: <protobuf's message>" for
/// text that is not a CheckpointState (an unknown field, a malformed string).
CheckpointStatePaths parse_checkpoint_state_text(std::string_view text, std::string_view source);

}  // namespace af
