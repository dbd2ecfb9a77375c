#include "src/collector/device_query.h"

#include <cuda.h>
#include <dlfcn.h>

#include <cstring>

namespace tbprof::collector {
namespace {

using capture::DeviceAttr;

struct DriverApi {
  CUresult (*DriverGetVersion)(int*) = nullptr;
  CUresult (*DeviceGetCount)(int*) = nullptr;
  CUresult (*DeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*DeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*DeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*DeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*DeviceGetUuid)(CUuuid*, CUdevice) = nullptr;
};

bool LoadDriver(DriverApi* api) {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) return false;
  api->DriverGetVersion = reinterpret_cast<decltype(api->DriverGetVersion)>(
      dlsym(lib, "cuDriverGetVersion"));
  api->DeviceGetCount = reinterpret_cast<decltype(api->DeviceGetCount)>(
      dlsym(lib, "cuDeviceGetCount"));
  api->DeviceGet = reinterpret_cast<decltype(api->DeviceGet)>(dlsym(lib, "cuDeviceGet"));
  api->DeviceGetAttribute = reinterpret_cast<decltype(api->DeviceGetAttribute)>(
      dlsym(lib, "cuDeviceGetAttribute"));
  api->DeviceGetName = reinterpret_cast<decltype(api->DeviceGetName)>(
      dlsym(lib, "cuDeviceGetName"));
  api->DeviceTotalMem = reinterpret_cast<decltype(api->DeviceTotalMem)>(
      dlsym(lib, "cuDeviceTotalMem_v2"));
  api->DeviceGetUuid = reinterpret_cast<decltype(api->DeviceGetUuid)>(
      dlsym(lib, "cuDeviceGetUuid_v2"));
  return api->DeviceGetCount != nullptr && api->DeviceGet != nullptr &&
         api->DeviceGetAttribute != nullptr;
}

struct AttrMap {
  DeviceAttr ours;
  CUdevice_attribute cuda;
};
constexpr AttrMap kAttrs[] = {
    {DeviceAttr::kComputeCapabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
    {DeviceAttr::kComputeCapabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
    {DeviceAttr::kMultiprocessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
    {DeviceAttr::kClockRateKhz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
    {DeviceAttr::kMemoryClockRateKhz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
    {DeviceAttr::kMemoryBusWidthBits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
    {DeviceAttr::kMaxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
    {DeviceAttr::kMaxThreadsPerMultiprocessor, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
    {DeviceAttr::kMaxRegistersPerBlock, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
    {DeviceAttr::kMaxRegistersPerMultiprocessor,
     CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
    {DeviceAttr::kWarpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE},
    {DeviceAttr::kMaxSharedMemoryPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
    {DeviceAttr::kMaxSharedMemoryPerMultiprocessor,
     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
    {DeviceAttr::kMaxSharedMemoryPerBlockOptin,
     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
    {DeviceAttr::kReservedSharedMemoryPerBlock,
     CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK},
    {DeviceAttr::kMaxBlocksPerMultiprocessor, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR},
    {DeviceAttr::kL2CacheSizeBytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
    {DeviceAttr::kPciDomainId, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID},
    {DeviceAttr::kPciBusId, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID},
    {DeviceAttr::kPciDeviceId, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID},
};

}  // namespace

int32_t CudaDriverVersion() {
  DriverApi api;
  int v = 0;
  if (LoadDriver(&api) && api.DriverGetVersion != nullptr &&
      api.DriverGetVersion(&v) == CUDA_SUCCESS) {
    return v;
  }
  return 0;
}

int32_t CudaRuntimeVersion() {
  using Fn = int (*)(int*);
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"));
  int v = 0;
  if (fn != nullptr && fn(&v) == 0) return v;
  return 0;
}

bool QueryDevices(std::vector<capture::DeviceProperties>* devices, std::string* error) {
  DriverApi api;
  if (!LoadDriver(&api)) {
    *error = "libcuda.so.1 is not loaded";
    return false;
  }
  int count = 0;
  CUresult r = api.DeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    *error = "cuDeviceGetCount failed with CUresult " + std::to_string(r);
    return false;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice dev;
    if (api.DeviceGet(&dev, ordinal) != CUDA_SUCCESS) {
      *error += "cuDeviceGet(" + std::to_string(ordinal) + ") failed; ";
      continue;
    }
    capture::DeviceProperties p;
    p.ordinal = static_cast<uint32_t>(ordinal);
    char name[256] = {};
    if (api.DeviceGetName != nullptr && api.DeviceGetName(name, sizeof(name) - 1, dev) == 0) {
      p.name = name;
    }
    CUuuid uuid;
    if (api.DeviceGetUuid != nullptr && api.DeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
      std::memcpy(p.uuid.data(), uuid.bytes, 16);
    }
    size_t total = 0;
    if (api.DeviceTotalMem != nullptr && api.DeviceTotalMem(&total, dev) == CUDA_SUCCESS) {
      p.Set(DeviceAttr::kTotalMemoryBytes, static_cast<int64_t>(total));
    }
    for (const AttrMap& a : kAttrs) {
      int v = 0;
      if (api.DeviceGetAttribute(&v, a.cuda, dev) == CUDA_SUCCESS) p.Set(a.ours, v);
    }
    int64_t mem_khz = p.Get(DeviceAttr::kMemoryClockRateKhz);
    int64_t bus_bits = p.Get(DeviceAttr::kMemoryBusWidthBits);
    if (mem_khz > 0 && bus_bits > 0) {
      // Double data rate: two transfers per clock.
      p.Set(DeviceAttr::kMemoryBandwidthBytesPerSec, 2 * mem_khz * 1000 * bus_bits / 8);
    }
    devices->push_back(std::move(p));
  }
  return true;
}

}  // namespace tbprof::collector
