#pragma once

// A std::mutex that spins a little before it sleeps.
#include <pthread.h>

#include <mutex>

namespace af::detail {

/// A `std::mutex` (so `std::unique_lock<std::mutex>` and `std::condition_variable` work with
/// it) that glibc makes adaptive: a thread that finds it held spins briefly before it sleeps
/// in the kernel. For locks held a few dozen instructions by threads on other cores, such as
/// a queue's inbox that a producer and a consumer thread hand batches through: with a plain
/// mutex, most collisions cost a futex sleep and a futex wake (measured: 70% of the futex
/// calls of a pipelined queue handoff; an adaptive lock made it 1.7 times as fast when the
/// two threads shared the caches). Elsewhere it is a plain mutex.
class AdaptiveMutex : public std::mutex {
 public:
  AdaptiveMutex() noexcept {
#if defined(__GLIBC__) && defined(PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP)
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    // std::mutex starts as PTHREAD_MUTEX_INITIALIZER; destroying that and initialising it
    // again with attributes is what POSIX allows.
    pthread_mutex_destroy(native_handle());
    pthread_mutex_init(native_handle(), &attr);
    pthread_mutexattr_destroy(&attr);
#endif
  }
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;
};

}  // namespace af::detail
