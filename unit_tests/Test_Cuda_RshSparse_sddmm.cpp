// rsh::sddmm on Kokkos::Cuda (Tensor-Core windows and CUDA-core residual
// behind the public entry) where Kokkos has CUDA; every test skips without a GPU.
#include "Test_RshSparse_sddmm.hpp"

namespace rsh {
namespace test {

#if defined(KOKKOS_ENABLE_CUDA)
INSTANTIATE_TYPED_TEST_SUITE_P(Cuda, SddmmTest, KokkosConfigs<Kokkos::Cuda>);
#else
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SddmmTest);
TEST(KokkosCuda, SddmmThroughThePublicEntry) {
  GTEST_SKIP() << "Kokkos is built without CUDA";
}
#endif

}  // namespace test
}  // namespace rsh
