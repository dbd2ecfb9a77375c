// Small CUDA program for the GPU check: a few kernels on two streams, HtoD /
// DtoH copies, a memset and NVTX step ranges, so every record kind the
// collector handles appears at least once.
#include <cstdio>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void Add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void Scale(float* c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] *= s;
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? atoi(argv[1]) : 20;
  const int n = 1 << 22;
  float *ha, *hb, *da, *db, *dc;
  cudaMallocHost(&ha, n * sizeof(float));
  cudaMallocHost(&hb, n * sizeof(float));
  for (int i = 0; i < n; ++i) { ha[i] = 1.0f; hb[i] = 2.0f; }
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  for (int step = 0; step < steps; ++step) {
    char name[32];
    snprintf(name, sizeof(name), "ProfilerStep#%d", step);
    nvtxRangePushA(name);
    cudaMemcpyAsync(da, ha, n * sizeof(float), cudaMemcpyHostToDevice, s1);
    cudaMemcpyAsync(db, hb, n * sizeof(float), cudaMemcpyHostToDevice, s1);
    cudaMemsetAsync(dc, 0, n * sizeof(float), s2);
    cudaStreamSynchronize(s2);
    for (int k = 0; k < 10; ++k) Add<<<(n + 255) / 256, 256, 0, s1>>>(da, db, dc, n);
    Scale<<<(n + 127) / 128, 128, 0, s2>>>(dc, 0.5f, n);
    cudaMemcpyAsync(hb, dc, n * sizeof(float), cudaMemcpyDeviceToHost, s1);
    cudaDeviceSynchronize();
    nvtxRangePop();
  }
  printf("vector_add: %d steps, c[0]=%f\n", steps, hb[0]);
  return 0;
}
