// The CUPTI entry points the collector uses, resolved with dlopen/dlsym so
// that the collector has no link-time dependency on libcupti: a missing
// library is reported once instead of keeping the job from loading us, and
// tests substitute a fake libcupti.so.13.
#ifndef TBPROF_SRC_COLLECTOR_CUPTI_API_H_
#define TBPROF_SRC_COLLECTOR_CUPTI_API_H_

#include <cupti.h>

#include <string>

namespace tbprof::collector {

struct CuptiApi {
  CUptiResult (*GetVersion)(uint32_t*) = nullptr;
  CUptiResult (*GetResultString)(CUptiResult, const char**) = nullptr;
  CUptiResult (*GetTimestamp)(uint64_t*) = nullptr;
  CUptiResult (*Subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  // Optional (CUPTI >= 13.0): names the current subscriber on error 39.
  CUptiResult (*Subscribe_v2)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*,
                              CUpti_SubscriberParams*) = nullptr;
  CUptiResult (*Unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                CUpti_CallbackId) = nullptr;
  CUptiResult (*EnableDomain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  CUptiResult (*ActivityEnable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*ActivityDisable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                           CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*ActivityFlushAll)(uint32_t) = nullptr;
  CUptiResult (*ActivityGetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*ActivityGetNumDroppedRecords)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*ActivitySetAttribute)(CUpti_ActivityAttribute, size_t*, void*) = nullptr;
  CUptiResult (*SetThreadIdType)(CUpti_ActivityThreadIdType) = nullptr;
  CUptiResult (*GetDeviceId)(CUcontext, uint32_t*) = nullptr;
  // Optional: names API callback ids for the capture.
  CUptiResult (*GetCallbackName)(CUpti_CallbackDomain, uint32_t, const char**) = nullptr;
  // Optional: forwards NVTX injection to CUPTI.
  CUptiResult (*NvtxInitialize2)(const void*) = nullptr;
};

// Loads libcupti (`path`, or "libcupti.so.13" by soname when empty) and
// resolves the entry points. On failure returns false and sets *error to a
// one-line explanation. The library is never unloaded.
bool LoadCuptiApi(const std::string& path, CuptiApi* api, std::string* error);

// Name of a CUPTI result code for messages (works without libcupti).
const char* CuptiResultName(int code);

}  // namespace tbprof::collector

#endif  // TBPROF_SRC_COLLECTOR_CUPTI_API_H_
