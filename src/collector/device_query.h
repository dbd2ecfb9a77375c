// Reads the properties of every GPU from the CUDA driver API (libcuda.so.1,
// only if the process already loaded it: the collector never initializes
// CUDA itself), for occupancy and the GPU planes' device stats.
#ifndef TBPROF_SRC_COLLECTOR_DEVICE_QUERY_H_
#define TBPROF_SRC_COLLECTOR_DEVICE_QUERY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/capture/capture_records.h"

namespace tbprof::collector {

// cuDriverGetVersion() if libcuda is loaded, else 0.
int32_t CudaDriverVersion();
// cudaRuntimeGetVersion() if a CUDA runtime is visible to dlsym, else 0.
int32_t CudaRuntimeVersion();

// Queries all devices. Returns false (and sets *error) if libcuda is not
// loaded or not initialized yet; devices whose queries fail are skipped with
// a note in *error.
bool QueryDevices(std::vector<capture::DeviceProperties>* devices, std::string* error);

}  // namespace tbprof::collector

#endif  // TBPROF_SRC_COLLECTOR_DEVICE_QUERY_H_
