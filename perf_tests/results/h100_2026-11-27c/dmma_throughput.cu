// Throughput of the FP64 mma.sync shapes on this GPU: each warp runs ILP independent chains.
#include <cstdio>
#include <cuda_runtime.h>
constexpr int ILP = 4, ITERS = 4096;
template <int SHAPE> __global__ void run(double* out, const double* in) {
  double a[8], b[4], c[ILP][4];
  for (int i = 0; i < 8; ++i) a[i] = in[(threadIdx.x + i) % 64];
  for (int i = 0; i < 4; ++i) b[i] = in[(threadIdx.x + 3 * i) % 64];
  for (int j = 0; j < ILP; ++j) for (int i = 0; i < 4; ++i) c[j][i] = 0;
  for (int it = 0; it < ITERS; ++it) {
#pragma unroll
    for (int j = 0; j < ILP; ++j) {
      if (SHAPE == 884) {
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(c[j][0]), "+d"(c[j][1]) : "d"(a[0]), "d"(b[0]));
      } else if (SHAPE == 1684) {
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};" : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3]) : "d"(a[0]), "d"(a[1]), "d"(b[0]));
      } else if (SHAPE == 1688) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
      } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};" : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
      }
    }
  }
  double s = 0;
  for (int j = 0; j < ILP; ++j) for (int i = 0; i < 4; ++i) s += c[j][i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int SHAPE> void time(int m, int n, int k, double* out, const double* in) {
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const int blocks = 132 * 8, threads = 256;
  run<SHAPE><<<blocks, threads>>>(out, in);
  cudaEventRecord(e0);
  run<SHAPE><<<blocks, threads>>>(out, in);
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  const double flops = 2.0 * m * n * k * double(ITERS) * ILP * blocks * threads / 32;
  printf("m%dn%dk%d f64: %.3f ms, %.1f TFLOP/s\n", m, n, k, ms, flops / ms * 1e-9);
}
int main() {
  double *out, *in; cudaMalloc(&out, 132 * 8 * 256 * 8); cudaMalloc(&in, 64 * 8); cudaMemset(in, 0, 512);
  time<884>(8, 8, 4, out, in); time<1684>(16, 8, 4, out, in); time<1688>(16, 8, 8, out, in); time<16816>(16, 8, 16, out, in);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
