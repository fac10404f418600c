// rsh::spmm on Kokkos::Cuda (the CUDA backend behind the public entry) where
// Kokkos has CUDA; every test skips without a GPU.
#include "Test_RshSparse_spmm.hpp"

namespace rsh {
namespace test {

#if defined(KOKKOS_ENABLE_CUDA)
INSTANTIATE_TYPED_TEST_SUITE_P(Cuda, SpmmTest, SpmmConfigs<Kokkos::Cuda>);
#else
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SpmmTest);
TEST(KokkosCuda, SpmmThroughThePublicEntry) {
  GTEST_SKIP() << "Kokkos is built without CUDA";
}
#endif

}  // namespace test
}  // namespace rsh
