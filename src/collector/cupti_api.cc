#include "src/collector/cupti_api.h"

#include <dlfcn.h>

namespace tbprof::collector {
namespace {

template <typename Fn>
bool Resolve(void* lib, const char* name, Fn* fn, bool required, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*fn == nullptr && required) {
    if (!missing->empty()) missing->append(", ");
    missing->append(name);
    return false;
  }
  return true;
}

}  // namespace

bool LoadCuptiApi(const std::string& path, CuptiApi* api, std::string* error) {
  const char* name = path.empty() ? "libcupti.so.13" : path.c_str();
  void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr && path.empty()) {
    // Common install locations when the loader path does not cover CUPTI.
    for (const char* p : {"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
                          "/usr/local/cuda/lib64/libcupti.so.13",
                          "/usr/local/cuda-13.0/lib/libcupti.so.13"}) {
      lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) break;
    }
  }
  if (lib == nullptr) {
    const char* why = dlerror();
    *error = std::string("cannot load ") + name + " (" + (why ? why : "unknown error") +
             "); install CUPTI for CUDA 13 or set TBPROF_CUPTI_LIBRARY to its path";
    return false;
  }
  std::string missing;
  bool ok = true;
  ok &= Resolve(lib, "cuptiGetVersion", &api->GetVersion, true, &missing);
  ok &= Resolve(lib, "cuptiGetResultString", &api->GetResultString, true, &missing);
  ok &= Resolve(lib, "cuptiGetTimestamp", &api->GetTimestamp, true, &missing);
  ok &= Resolve(lib, "cuptiSubscribe", &api->Subscribe, true, &missing);
  ok &= Resolve(lib, "cuptiSubscribe_v2", &api->Subscribe_v2, false, &missing);
  ok &= Resolve(lib, "cuptiUnsubscribe", &api->Unsubscribe, true, &missing);
  ok &= Resolve(lib, "cuptiEnableCallback", &api->EnableCallback, true, &missing);
  ok &= Resolve(lib, "cuptiEnableDomain", &api->EnableDomain, true, &missing);
  ok &= Resolve(lib, "cuptiActivityEnable", &api->ActivityEnable, true, &missing);
  ok &= Resolve(lib, "cuptiActivityDisable", &api->ActivityDisable, true, &missing);
  ok &= Resolve(lib, "cuptiActivityRegisterCallbacks", &api->ActivityRegisterCallbacks, true,
                &missing);
  ok &= Resolve(lib, "cuptiActivityFlushAll", &api->ActivityFlushAll, true, &missing);
  ok &= Resolve(lib, "cuptiActivityGetNextRecord", &api->ActivityGetNextRecord, true, &missing);
  ok &= Resolve(lib, "cuptiActivityGetNumDroppedRecords", &api->ActivityGetNumDroppedRecords,
                true, &missing);
  ok &= Resolve(lib, "cuptiActivitySetAttribute", &api->ActivitySetAttribute, true, &missing);
  ok &= Resolve(lib, "cuptiSetThreadIdType", &api->SetThreadIdType, true, &missing);
  ok &= Resolve(lib, "cuptiGetDeviceId", &api->GetDeviceId, true, &missing);
  ok &= Resolve(lib, "cuptiNvtxInitialize2", &api->NvtxInitialize2, false, &missing);
  ok &= Resolve(lib, "cuptiGetCallbackName", &api->GetCallbackName, false, &missing);
  if (!ok) {
    *error = std::string(name) + " lacks " + missing + " (is it CUPTI for CUDA 13?)";
    return false;
  }
  return true;
}

const char* CuptiResultName(int code) {
  switch (code) {
    case CUPTI_SUCCESS: return "CUPTI_SUCCESS";
    case CUPTI_ERROR_INVALID_PARAMETER: return "CUPTI_ERROR_INVALID_PARAMETER";
    case CUPTI_ERROR_INVALID_DEVICE: return "CUPTI_ERROR_INVALID_DEVICE";
    case CUPTI_ERROR_INVALID_CONTEXT: return "CUPTI_ERROR_INVALID_CONTEXT";
    case CUPTI_ERROR_INVALID_OPERATION: return "CUPTI_ERROR_INVALID_OPERATION";
    case CUPTI_ERROR_OUT_OF_MEMORY: return "CUPTI_ERROR_OUT_OF_MEMORY";
    case CUPTI_ERROR_NOT_COMPATIBLE: return "CUPTI_ERROR_NOT_COMPATIBLE";
    case CUPTI_ERROR_NOT_INITIALIZED: return "CUPTI_ERROR_NOT_INITIALIZED";
    case CUPTI_ERROR_INVALID_KIND: return "CUPTI_ERROR_INVALID_KIND";
    case CUPTI_ERROR_DISABLED: return "CUPTI_ERROR_DISABLED";
    case CUPTI_ERROR_NOT_SUPPORTED: return "CUPTI_ERROR_NOT_SUPPORTED";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: return "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return "CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_UNKNOWN: return "CUPTI_ERROR_UNKNOWN";
    default: return "CUPTI error";
  }
}

}  // namespace tbprof::collector
