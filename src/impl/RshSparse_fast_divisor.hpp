#pragma once
// Division by a divisor fixed before a launch, as a multiply-high, an add and
// a shift (Granlund and Montgomery, "Division by invariant integers using
// multiplication", 1994). A GPU has no integer divide: `n / d` with a runtime
// d is a dependent chain of about twenty instructions, and on a small matrix
// the chain that leads a kernel to its first load is most of its time.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "impl/RshSparse_window_columns.hpp"  // RSH_HOST_DEVICE

namespace rsh {
namespace impl {

class FastDivisor {
 public:
  FastDivisor() = default;
  /// d in [1, 2^31).
  explicit FastDivisor(int d) : divisor_(d) {
    if (d < 1) throw std::invalid_argument("rsh::FastDivisor: divisor " + std::to_string(d) + " < 1");
    while ((uint64_t(1) << shift_) < uint64_t(d)) ++shift_;  // ceil(log2 d)
    // m = floor(2^32 (2^s - d) / d) + 1 < 2^32: the low 32 bits of floor(2^(32+s) / d) + 1.
    multiplier_ =
        static_cast<uint32_t>(((uint64_t(1) << 32) * ((uint64_t(1) << shift_) - uint64_t(d))) / uint64_t(d) + 1);
  }

  RSH_HOST_DEVICE int divisor() const { return divisor_; }

  /// floor(n / d) for n in [0, 2^31): t + n stays below 2^32.
  RSH_HOST_DEVICE int divide(int n) const {
    const uint32_t u = static_cast<uint32_t>(n);
    return static_cast<int>((multiply_high(u, multiplier_) + u) >> shift_);
  }

 private:
  RSH_HOST_DEVICE static uint32_t multiply_high(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return static_cast<uint32_t>((uint64_t(a) * b) >> 32);
#endif
  }

  int divisor_ = 1;
  uint32_t multiplier_ = 1;
  uint32_t shift_ = 0;
};

}  // namespace impl
}  // namespace rsh
