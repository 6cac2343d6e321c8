// The reader actor (TensorFlow's ReaderBase::Read / ReadUpTo as a message protocol): calls
// are served one at a time, in order; when it needs a file it asks the work queue actor
// and waits for the answer without blocking, so a cancel or the deadline can end the wait
// (the queue then gives nothing away). File I/O blocks only this detached actor's thread.
#include <deque>
#include <limits>
#include <string_view>
#include <vector>

#include "reader_resource.hpp"

namespace af::detail {

namespace {

struct ActiveRead {
  ReaderCall call;
  std::vector<std::string> keys, values;
  Status cancelled_with;  ///< set when cancelled while waiting for work
  // A decoding read (call.decoder): records read so far, the rows allocated, and the first
  // record that did not decode.
  std::int64_t decoded = 0;
  std::int64_t rows = 0;
  Status decode_error;
};

/// Rows a decoding read_up_to allocates at first; it doubles them as it needs.
constexpr std::int64_t kFirstDecodeRows = 4096;
/// Records a decoding read takes from its source per call (RecordSource::read_views).
constexpr std::int64_t kViewBatch = 256;

struct ReaderState {
  std::string reader_name;
  std::string kind;
  std::unique_ptr<RecordSource> source;
  bool work_in_progress = false;
  std::string work;
  std::int64_t num_records_produced = 0;
  std::int64_t work_started = 0;
  std::int64_t work_finished = 0;
  std::deque<ActiveRead> pending;
  bool waiting_for_work = false;
  std::uint64_t work_call_id = 0;
  std::shared_ptr<QueueResource> work_queue;
  CsvBatch batch;                       ///< the front decoding read's columns
  std::vector<std::string_view> views;  ///< a decoding read's records, read_views at a time
  static inline const char* name = "af.reader";
};
using ReaderActor = caf::stateful_actor<ReaderState>;

/// ReaderBase::ResetLocked: forgets the work unit and zeroes the counters.
void reset(ReaderState& s) {
  s.source->close();
  s.work_in_progress = false;
  s.work.clear();
  s.num_records_produced = s.work_started = s.work_finished = 0;
}

/// RestoreStateLocked + RestoreBaseState.
Status restore(ReaderState& s, const std::string& bytes) {
  const std::string who = s.kind + " '" + s.reader_name + "'";
  if (!s.source->supports_serialize()) return unimplemented("Reader RestoreState");
  ReaderBaseState state;
  if (!parse_reader_state(bytes, &state))
    return invalid_argument("Could not parse state for " + who + ": " + c_escape(bytes));
  s.source->close();
  s.work_started = state.work_started;
  s.work_finished = state.work_finished;
  s.num_records_produced = state.num_records_produced;
  s.work = state.current_work;
  s.work_in_progress = false;
  if (s.work_started < 0 || s.work_finished < 0 || s.num_records_produced < 0)
    return invalid_argument("Unexpected negative value when restoring in " + who + ": " +
                            reader_state_debug_string(state));
  if (s.work_started > s.work_finished)
    return invalid_argument("Inconsistent work started vs. finished when restoring in " + who +
                            ": " + reader_state_debug_string(state));
  return {};
}

void reply_front(ReaderActor* self, ReaderReply r) {
  auto& s = self->state;
  auto call = std::move(s.pending.front());
  s.pending.pop_front();
  (*call.call.reply)(std::move(r));
}

void finish_read(ReaderActor* self, Status status) {
  auto& front = self->state.pending.front();
  ReaderReply r;
  r.status = std::move(status);
  if (r.status.ok() && front.call.decoder) r.status = front.decode_error;
  if (r.status.ok()) {
    if (front.call.decoder) {
      r.columns = std::move(self->state.batch.columns());
      if (front.call.kind == ReaderCall::Kind::read_up_to && front.decoded < front.rows)
        for (auto& c : r.columns) c = c.slice_rows(0, front.decoded);
    } else {
      r.keys = std::move(front.keys);
      r.values = std::move(front.values);
    }
  }
  reply_front(self, std::move(r));
}

void request_work(ReaderActor* self) {
  auto& s = self->state;
  auto& front = s.pending.front();
  s.waiting_for_work = true;
  s.work_queue = front.call.work_queue;
  QueueCall q;
  q.kind = QueueCall::Kind::dequeue;
  q.id = s.work_call_id = next_queue_call_id();
  q.deadline = front.call.deadline;
  q.what = "the work queue dequeue of " + s.kind + " '" + s.reader_name + "'";
  auto me = caf::actor_cast<caf::actor>(self);
  auto id = q.id;
  q.reply = make_reply(
      [me, id](QueueReply r) { caf::anon_send(me, reader_work_atom::value, id, std::move(r)); });
  front.call.work_queue->call(std::move(q));
}

/// Serves calls until none is left or one waits for work.
void process(ReaderActor* self) {
  auto& s = self->state;
  while (!s.waiting_for_work && !s.pending.empty()) {
    auto& front = s.pending.front();
    auto& call = front.call;
    switch (call.kind) {
      case ReaderCall::Kind::num_records_produced:
        reply_front(self, {Status(), {}, {}, s.num_records_produced, {}});
        continue;
      case ReaderCall::Kind::num_work_units_completed:
        reply_front(self, {Status(), {}, {}, s.work_finished, {}});
        continue;
      case ReaderCall::Kind::reset:
        reset(s);
        reply_front(self, {});
        continue;
      case ReaderCall::Kind::serialize_state: {
        ReaderReply r;
        if (!s.source->supports_serialize())
          r.status = unimplemented("Reader SerializeState");
        else
          r.state = serialize_reader_state(
              {s.work_started, s.work_finished, s.num_records_produced, s.work});
        reply_front(self, std::move(r));
        continue;
      }
      case ReaderCall::Kind::restore_state: {
        Status st = restore(s, call.state);
        if (!st.ok()) reset(s);  // as ReaderBase::RestoreState: a failed restore resets
        reply_front(self, {std::move(st), {}, {}, 0, {}});
        continue;
      }
      case ReaderCall::Kind::read:
      case ReaderCall::Kind::read_up_to:
        break;
    }
    if (!front.cancelled_with.ok()) {
      finish_read(self, front.cancelled_with);
      continue;
    }
    // ReaderBase::ReadUpTo stops when it has `num_records`; a negative count never matches,
    // so it reads on to the end of the work unit (and past empty ones).
    const std::int64_t wanted = call.kind == ReaderCall::Kind::read ? 1
                                : call.num_records < 0 ? std::numeric_limits<std::int64_t>::max()
                                                       : call.num_records;
    const bool decoding = call.decoder != nullptr;
    if (decoding && front.rows == 0) {
      // Scalar outputs for read, a batch of rows for read_up_to (grown as records come).
      front.rows = call.kind == ReaderCall::Kind::read ? 1 : std::min(wanted, kFirstDecodeRows);
      Status st = s.batch.start(*call.decoder, call.defaults,
                                call.kind == ReaderCall::Kind::read ? Shape{} : Shape{front.rows});
      if (!st.ok()) {
        finish_read(self, st.with_context(call.decoder->node_suffix()));
        continue;
      }
    }
    bool done = false;
    while (!done) {
      auto produced_so_far =
          decoding ? front.decoded : static_cast<std::int64_t>(front.keys.size());
      if (produced_so_far == wanted) {
        finish_read(self, {});
        break;
      }
      if (!s.work_in_progress) {
        request_work(self);
        return;
      }
      bool at_end = false;
      std::int64_t produced = 0;
      Status st;
      if (decoding) {
        // Records come a buffer's worth at a time (views into the source's buffer).
        if (s.views.empty()) s.views.resize(kViewBatch);
        const std::int64_t max = std::min<std::int64_t>(wanted - front.decoded, kViewBatch);
        st = s.source->read_views(max, s.views.data(), &produced, &at_end);
        if (st.ok() && produced > 0) {
          if (front.decoded + produced > front.rows) {
            front.rows = std::min(wanted, std::max(2 * front.rows, front.decoded + produced));
            s.batch.grow(front.rows);
          }
          for (std::int64_t i = 0; i < produced; ++i, ++front.decoded) {
            if (!front.decode_error.ok()) continue;
            Status bad = s.batch.decode(s.views[static_cast<std::size_t>(i)], front.decoded);
            if (!bad.ok()) {
              std::string message = bad.message();
              if (call.decoder->has_keys())
                message += " (" + s.source->key_back(produced - 1 - i) + ")";
              front.decode_error = invalid_argument(message + call.decoder->node_suffix());
            }
          }
        }
      } else {
        std::string key, value;
        bool one = false;
        st = s.source->read(&key, &value, &one, &at_end);
        if (st.ok() && one) {
          produced = 1;
          front.keys.push_back(std::move(key));
          front.values.push_back(std::move(value));
        }
      }
      if (!st.ok()) {
        finish_read(self, st);
        break;
      }
      if (produced > 0) {
        s.num_records_produced += produced;
        if (!at_end) continue;
        // A source may end its work unit with its last record (IdentityReader does).
      }
      if (at_end) {
        s.source->close();
        s.work_in_progress = false;
        s.work_finished = s.work_started;
        if ((decoding ? front.decoded : static_cast<std::int64_t>(front.keys.size())) > 0) {
          // ReadUpTo returns what it has when a file ends.
          finish_read(self, {});
          done = true;
        }
        continue;
      }
      finish_read(self, internal("ReadLocked() for " + s.reader_name +
                                 " must set *at_end=true, *produced=true or return an error."));
      done = true;
    }
  }
}

void on_work(ReaderActor* self, std::uint64_t id, QueueReply& r) {
  auto& s = self->state;
  if (!s.waiting_for_work || id != s.work_call_id || s.pending.empty()) return;
  s.waiting_for_work = false;
  auto& front = s.pending.front();
  if (!r.status.ok()) {
    finish_read(self, front.cancelled_with.ok() ? r.status : front.cancelled_with);
    return process(self);
  }
  Status bad;
  if (r.components.size() != 1)
    bad = invalid_argument("Expected single component queue");
  else if (r.components[0].dtype() != DType::string)
    bad = invalid_argument("Expected queue with single string component");
  else if (r.components[0].num_elements() != 1)
    bad = invalid_argument("Expected to dequeue a one-element string tensor");
  if (!bad.ok()) {
    finish_read(self, bad);
    return process(self);
  }
  s.work = r.components[0].flat<std::string>()[0];
  Status opened = s.source->open(s.work);
  if (!opened.ok()) {
    finish_read(self, opened);
    return process(self);
  }
  ++s.work_started;
  s.work_in_progress = true;
  process(self);
}

caf::behavior reader_actor(ReaderActor* self, std::string name, std::string kind,
                           std::function<std::unique_ptr<RecordSource>()> make_source) {
  self->state.reader_name = std::move(name);
  self->state.kind = std::move(kind);
  self->state.source = make_source();
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto& s = self->state;
    if (s.waiting_for_work && s.work_queue)
      s.work_queue->cancel(s.work_call_id, cancelled("reader " + s.reader_name + " closed"));
    auto pending = std::move(s.pending);
    s.pending.clear();
    for (auto& p : pending)
      (*p.call.reply)(
          {cancelled(s.kind + " '" + s.reader_name + "' was destroyed"), {}, {}, 0, {}});
    self->quit(msg.reason);
  });
  return {
      [self](reader_call_atom, ReaderCall& call) {
        self->state.pending.push_back(ActiveRead{std::move(call), {}, {}, {}});
        process(self);
      },
      [self](reader_work_atom, std::uint64_t id, QueueReply& r) { on_work(self, id, r); },
      [self](reader_cancel_atom, std::uint64_t id, const Status& why) {
        auto& s = self->state;
        for (auto it = s.pending.begin(); it != s.pending.end(); ++it) {
          if (it->call.id != id) continue;
          if (it == s.pending.begin() && s.waiting_for_work) {
            // The queue answers the outstanding dequeue (Cancelled, or a file that we keep).
            it->cancelled_with = why;
            s.work_queue->cancel(s.work_call_id, why);
          } else {
            auto call = std::move(*it);
            s.pending.erase(it);
            (*call.call.reply)({why, {}, {}, 0, {}});
          }
          return;
        }
      },
  };
}

}  // namespace

ReaderResource::ReaderResource(caf::actor_system& sys, std::string name, std::string kind,
                               std::function<std::unique_ptr<RecordSource>()> make_source)
    : name_(std::move(name)), kind_(std::move(kind)) {
  actor_ = sys.spawn<caf::detached>(reader_actor, name_, kind_, std::move(make_source));
}

ReaderResource::~ReaderResource() { caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown); }

void ReaderResource::call(ReaderCall call) const {
  caf::anon_send(actor_, reader_call_atom::value, std::move(call));
}

void ReaderResource::cancel(std::uint64_t id, const Status& why) const {
  caf::anon_send(actor_, reader_cancel_atom::value, id, why);
}

}  // namespace af::detail
