// rsh::spmm on the host execution spaces this Kokkos has (the portable kernels).
#include "Test_RshSparse_spmm.hpp"

namespace rsh {
namespace test {

#if defined(KOKKOS_ENABLE_SERIAL)
INSTANTIATE_TYPED_TEST_SUITE_P(Serial, SpmmTest, SpmmConfigs<Kokkos::Serial>);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
INSTANTIATE_TYPED_TEST_SUITE_P(OpenMP, SpmmTest, SpmmConfigs<Kokkos::OpenMP>);
#endif

}  // namespace test
}  // namespace rsh
