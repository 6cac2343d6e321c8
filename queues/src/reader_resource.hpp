#pragma once

// A reader as a resource: the handle of a reader actor, which keeps its file, position and
// counters as actor state and takes work (file names) from a queue actor.
#include <caf/all.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/actors/message_types.hpp"
#include "actorflow/kernels/csv_decoder.hpp"
#include "actorflow/ops/resource.hpp"
#include "queue_resource.hpp"
#include "record_source.hpp"

namespace af::detail {

using reader_call_atom = caf::atom_constant<caf::atom("r_call")>;
using reader_cancel_atom = caf::atom_constant<caf::atom("r_cancel")>;
using reader_work_atom = caf::atom_constant<caf::atom("r_work")>;

/// The answer to a reader call: records read (keys and values) or the error that ended it.
struct ReaderReply {
  Status status;
  std::vector<std::string> keys;
  std::vector<std::string> values;
  std::int64_t count = 0;  ///< num_records_produced / num_work_units_completed
  std::string state;       ///< serialize_state: the reader's state as bytes
  /// A decoding read (`ReaderCall::decoder`): the decoded columns instead of keys and values.
  std::vector<Tensor> columns;
};

/// Fires exactly once; with Cancelled when dropped unfired (the reader actor quit).
struct ReaderReplyOnce {
  explicit ReaderReplyOnce(std::function<void(ReaderReply)> f) : fn(std::move(f)) {}
  ~ReaderReplyOnce() {
    if (fn) fn({cancelled("the reader was closed down before it answered"), {}, {}, 0});
  }
  void operator()(ReaderReply r) {
    if (auto f = std::exchange(fn, nullptr)) f(std::move(r));
  }
  std::function<void(ReaderReply)> fn;
};

/// A request to a reader actor.
struct ReaderCall {
  enum class Kind : std::uint8_t {
    read,
    read_up_to,
    num_records_produced,
    num_work_units_completed,
    reset,
    serialize_state,
    restore_state
  };
  Kind kind = Kind::read;
  std::uint64_t id = 0;
  std::shared_ptr<QueueResource> work_queue;
  std::int64_t num_records = 1;
  std::string state;  ///< restore_state: bytes from serialize_state
  /// When set, a read decodes its records as this DecodeCSV node would (the fused
  /// ReaderRead(UpTo) + DecodeCSV node) with `defaults`, and answers with the columns.
  /// A record that does not decode still counts as read: the read goes on to its end as
  /// the unfused one would, then fails with the first decode error.
  std::shared_ptr<const CsvDecoder> decoder;
  std::vector<Tensor> defaults;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::shared_ptr<ReaderReplyOnce> reply;
};

/// The resource owning a reader actor (spawned detached: its file I/O blocks only itself).
class ReaderResource final : public ResourceBase {
 public:
  ReaderResource(caf::actor_system& sys, std::string name, std::string kind,
                 std::function<std::unique_ptr<RecordSource>()> make_source);
  ~ReaderResource() override;

  std::string debug_string() const override { return kind_ + " '" + name_ + "'"; }
  void call(ReaderCall call) const;
  void cancel(std::uint64_t id, const Status& why) const;

 private:
  std::string name_;
  std::string kind_;
  caf::actor actor_;
};

}  // namespace af::detail

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(af::detail::ReaderCall)
