#pragma once

// The filename queue reader tests feed: a FIFOQueue of strings, a placeholder and the op
// that enqueues one file name.
#include <actorflow/actorflow.hpp>
#include <cstdint>
#include <string>

namespace af::test {

struct FilenameQueue : af::FIFOQueue {
  af::Output name;
  af::Operation enqueue_name;

  explicit FilenameQueue(af::Graph& g, std::int64_t capacity = 10)
      : af::FIFOQueue(g, {.capacity = capacity, .dtypes = {af::string}, .shapes = {{}}}),
        name(g.placeholder(af::string)),
        enqueue_name(enqueue({name})) {}

  /// Enqueues `file` (a step of `sess`).
  void add(af::Session& sess, const std::string& file) const {
    sess.run(enqueue_name, {{name, af::Tensor(file)}});
  }
};

}  // namespace af::test
