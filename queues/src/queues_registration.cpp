// Registers the queues module's ops and kernels once.
#include "queues_registration.hpp"

#include <mutex>

#include "actorflow/queues/queues.hpp"

namespace af {

void register_queue_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    detail::register_queue_ops_and_kernels();
    detail::register_reader_ops_and_kernels();
    detail::register_record_input();
  });
}

}  // namespace af
