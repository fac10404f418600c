// impl::FastDivisor (the kernels' division by a launch-time divisor) against the integer division, on the
// host path of the same code: every divisor up to 4096 with numerators near its multiples, and divisors and
// numerators near 2^31.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>

#include "impl/RshSparse_fast_divisor.hpp"

namespace {

using rsh::impl::FastDivisor;

void expect_divides(int d, int n) {
  const FastDivisor f(d);
  ASSERT_EQ(f.divide(n), n / d) << n << " / " << d;
}

TEST(FastDivisor, MatchesIntegerDivisionAtMultiplesAndTheirNeighbours) {
  constexpr int kMax = 0x7fffffff;
  for (int d = 1; d <= 4096; ++d)
    for (int64_t q : {int64_t(0), int64_t(1), int64_t(7), int64_t(kMax) / d - 1, int64_t(kMax) / d})
      for (int e : {-1, 0, 1, d - 1}) {
        const int64_t n = q * d + e;
        if (n >= 0 && n <= kMax) expect_divides(d, static_cast<int>(n));
      }
}

TEST(FastDivisor, MatchesIntegerDivisionOnRandomOperands) {
  std::mt19937 rng(20261127);
  std::uniform_int_distribution<int> any(0, 0x7fffffff), divisor(1, 0x7fffffff);
  for (int i = 0; i < 200000; ++i) expect_divides(divisor(rng), any(rng));
  for (int d : {0x7fffffff, 0x40000000, 0x40000001, 0x3fffffff})
    for (int n : {0, 1, d - 1, d, 0x7fffffff}) expect_divides(d, n);
}

TEST(FastDivisor, RefusesDivisorsBelowOne) {
  EXPECT_THROW(FastDivisor(0), std::invalid_argument);
  EXPECT_THROW(FastDivisor(-3), std::invalid_argument);
}

}  // namespace
