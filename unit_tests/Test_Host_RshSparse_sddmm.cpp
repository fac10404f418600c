// rsh::sddmm on the host execution spaces this Kokkos has (the portable kernels).
#include "Test_RshSparse_sddmm.hpp"

namespace rsh {
namespace test {

#if defined(KOKKOS_ENABLE_SERIAL)
INSTANTIATE_TYPED_TEST_SUITE_P(Serial, SddmmTest, KokkosConfigs<Kokkos::Serial>);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
INSTANTIATE_TYPED_TEST_SUITE_P(OpenMP, SddmmTest, KokkosConfigs<Kokkos::OpenMP>);
#endif

}  // namespace test
}  // namespace rsh
