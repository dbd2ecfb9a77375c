// A fake libcuda.so.1 answering the device queries of the collector
// (src/collector/device_query.cc) with H100-like properties.
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "tests/fake_cupti/fake_cupti_control.h"

namespace {

struct Devices {
  std::mutex mu;
  int count = 2;
  std::map<std::pair<int, int>, int> overrides;
};

Devices& D() {
  static Devices* d = new Devices();
  return *d;
}

int DefaultAttribute(int attr) {
  switch (attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 233472;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 232448;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 52428800;
    default: return 0;
  }
}

}  // namespace

extern "C" {

void fakecuda_set_device_count(int count) {
  std::lock_guard<std::mutex> lock(D().mu);
  D().count = count;
}

void fakecuda_set_attribute(int device, int attribute, int value) {
  std::lock_guard<std::mutex> lock(D().mu);
  D().overrides[{device, attribute}] = value;
}

CUresult CUDAAPI cuDriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int* count) {
  std::lock_guard<std::mutex> lock(D().mu);
  *count = D().count;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
  std::lock_guard<std::mutex> lock(D().mu);
  if (ordinal < 0 || ordinal >= D().count) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int* value, CUdevice_attribute attr, CUdevice device) {
  std::lock_guard<std::mutex> lock(D().mu);
  if (device < 0 || device >= D().count) return CUDA_ERROR_INVALID_DEVICE;
  auto it = D().overrides.find({device, static_cast<int>(attr)});
  *value = it != D().overrides.end() ? it->second : DefaultAttribute(attr);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice device) {
  std::snprintf(name, static_cast<size_t>(len), "Fake H100 #%d", device);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  *bytes = size_t{80} << 30;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) {
  std::memset(uuid->bytes, 0, sizeof(uuid->bytes));
  uuid->bytes[0] = static_cast<char>(0xf0 + device);
  return CUDA_SUCCESS;
}

}  // extern "C"
