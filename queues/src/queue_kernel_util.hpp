#pragma once

// Helpers shared by the queue and reader kernels: awaiting a queue call from inside a
// device actor, with the step's deadline and cancellation passed on to the queue.
#include <memory>
#include <string>

#include "actorflow/ops/async_task.hpp"
#include "actorflow/ops/kernel.hpp"
#include "queue_resource.hpp"

namespace af::detail {

/// Sends `call` to `queue` and resumes the kernel (in its device actor) with the reply.
/// The queue gets the step's deadline; a step abort sends it a cancel for this attempt.
/// Either way the kernel resumes only with the queue's own answer, so it knows whether
/// elements were taken.
inline Async<QueueReply> call_queue(StepServices* step, std::shared_ptr<QueueResource> queue,
                                    QueueCall call) {
  return {
      [step, queue = std::move(queue), call = std::move(call)](Completion<QueueReply> c) mutable {
        auto post = step->poster();
        auto token = std::make_shared<std::uint64_t>(0);
        const auto id = call.id = next_queue_call_id();
        call.deadline = step->deadline();
        call.reply = make_reply([post, c, step, token](QueueReply r) {
          post([c, step, token, r = std::move(r)]() mutable {
            if (*token) step->remove_cancel_hook(*token);
            c(std::move(r));
          });
        });
        // The device actor's thread serves the queue itself when nobody else does (no hop to
        // the queue actor); the reply still comes back to it as a message, after this returns.
        queue->call(std::move(call), /*drain_here=*/true);
        *token = step->add_cancel_hook([queue, id](const Status& why) { queue->cancel(id, why); });
      }};
}

/// The op without its "V2": TensorFlow's first queue and reader ops (FIFOQueue,
/// QueueEnqueue, TextLineReader, ReaderRead, ...) take and give Ref(string) handles where the
/// V2 ones use resources; here both forms are the same kernel.
inline std::string base_op(const std::string& op) {
  return op.ends_with("V2") ? op.substr(0, op.size() - 2) : op;
}

/// The queue behind input `i` of the kernel, or null (the kernel failed then).
inline std::shared_ptr<QueueResource> queue_input(OpKernelContext& ctx, int i) {
  auto q = std::dynamic_pointer_cast<QueueResource>(ctx.input(i).resource());
  if (!q)
    ctx.fail(invalid_argument("Input " + std::to_string(i) + " of " + ctx.node_name() +
                              " is not a queue handle"));
  return q;
}

}  // namespace af::detail
