// Small CUDA program for the GPU check: a few kernels on two streams, HtoD /
// DtoH copies, a memset and NVTX step ranges, so every record kind the
// collector handles appears at least once.
//
//   vector_add STEPS          per step: ProfilerStep#N range, 2 HtoD, 1 memset,
//                             10 Add + 1 Scale, 1 DtoH
//   vector_add REPLAYS graph  one CUDA graph of 10 Add + 1 Scale (stream
//                             capture), launched REPLAYS times
// Exit status 1 with one line on any CUDA error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

static int Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "vector_add: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
  return 0;
}

static int RunGraph(int replays, float* da, float* db, float* dc, int n) {
  cudaStream_t s;
  Check(cudaStreamCreate(&s), "cudaStreamCreate");
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  Check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  for (int k = 0; k < 10; ++k) Add<<<(n + 255) / 256, 256, 0, s>>>(da, db, dc, n);
  Scale<<<(n + 127) / 128, 128, 0, s>>>(dc, 0.5f, n);
  Check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
  Check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  for (int r = 0; r < replays; ++r) Check(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
  Check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  printf("vector_add: graph of 11 kernels replayed %d times\n", replays);
  return 0;
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? atoi(argv[1]) : 20;
  const bool graph = argc > 2 && strcmp(argv[2], "graph") == 0;
  const int n = 1 << 22;
  float *ha, *hb, *da, *db, *dc;
  Check(cudaMallocHost(&ha, n * sizeof(float)), "cudaMallocHost");
  Check(cudaMallocHost(&hb, n * sizeof(float)), "cudaMallocHost");
  for (int i = 0; i < n; ++i) { ha[i] = 1.0f; hb[i] = 2.0f; }
  Check(cudaMalloc(&da, n * sizeof(float)), "cudaMalloc");
  Check(cudaMalloc(&db, n * sizeof(float)), "cudaMalloc");
  Check(cudaMalloc(&dc, n * sizeof(float)), "cudaMalloc");
  if (graph) return RunGraph(steps, da, db, dc, n);
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
    Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    nvtxRangePop();
  }
  printf("vector_add: %d steps, c[0]=%f\n", steps, hb[0]);
  return 0;
}
