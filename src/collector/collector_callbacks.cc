// The collector's hot path: CUPTI's buffer callbacks and API callbacks.
// Nothing here allocates, blocks on I/O or calls CUPTI (other than
// cuptiActivityGetNextRecord on a buffer we own).
#include <generated_nvtx_meta.h>

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "src/capture/step_pattern.h"
#include "src/collector/collector.h"

namespace tbprof::collector {
namespace {

namespace layout = capture::layout;

// Handed to CUPTI < 27 at the buffer budget (NULL would crash it); whatever
// CUPTI writes here is discarded.
alignas(8) uint8_t g_discard_buffer[64 * 1024];

}  // namespace

void Collector::NoteThread() {
  const auto tid = static_cast<uint32_t>(gettid());
  size_t slot = (tid * 2654435761u) % kSeenThreads;
  for (size_t i = 0; i < kSeenThreads; ++i, slot = (slot + 1) % kSeenThreads) {
    SeenThread& t = seen_threads_[slot];
    uint32_t cur = t.tid.load(std::memory_order_acquire);
    if (cur == tid) return;
    if (cur == 0) {
      if (!t.tid.compare_exchange_strong(cur, tid)) {
        if (cur == tid) return;
        continue;
      }
      prctl(PR_GET_NAME, t.name, 0, 0, 0);
      t.ready.store(true, std::memory_order_release);
      return;
    }
  }
}

void Collector::OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_num_records) {
  *max_num_records = 0;
  NoteThread();
  if (!inert_.load(std::memory_order_relaxed) && pool_ != nullptr) {
    if (uint8_t* b = pool_->Pop()) {
      *buffer = b;
      *size = pool_->buffer_size();
      return;
    }
  }
  buffers_refused_.fetch_add(1, std::memory_order_relaxed);
  if (cupti_version_.load(std::memory_order_relaxed) >= 27) {
    *buffer = nullptr;
    *size = 0;
  } else {
    *buffer = g_discard_buffer;
    *size = sizeof(g_discard_buffer);
  }
}

void Collector::RewriteRecord(uint8_t* record, uint32_t kind, size_t size, bool size_known) {
  if (size_known && kind < observed_sizes_.size() &&
      observed_sizes_[kind].load(std::memory_order_relaxed) != size) {
    observed_sizes_[kind].store(static_cast<uint32_t>(size), std::memory_order_relaxed);
  }
  auto intern = [&](size_t offset) {
    if (size < offset + 8) return;
    const char* s;
    std::memcpy(&s, record + offset, sizeof(s));
    uint64_t id = interner_->Intern(s);
    std::memcpy(record + offset, &id, sizeof(id));
  };
  auto zero = [&](size_t offset) {
    if (size >= offset + 8) std::memset(record + offset, 0, 8);
  };
  switch (kind) {
    case layout::kKindKernel:
    case layout::kKindConcurrentKernel:
      intern(layout::kKernelNameOffset);
      zero(layout::kKernelAccessPolicyOffset);
      break;
    case layout::kKindMarker:
      intern(layout::kMarkerNameOffset);
      intern(layout::kMarkerDomainOffset);
      break;
    case layout::kKindMemory2:
      intern(layout::kMemoryNameOffset);
      intern(layout::kMemorySourceOffset);
      break;
    case layout::kKindOverhead:
      zero(layout::kOverheadDataOffset);
      break;
    case layout::kKindDriver:
    case layout::kKindRuntime: {
      if (size < offsetof(layout::ApiRecord, start)) break;
      uint32_t cbid;
      std::memcpy(&cbid, record + offsetof(layout::ApiRecord, cbid), sizeof(cbid));
      if (cbid >= kMaxCbid) break;
      std::atomic<uint64_t>& word = seen_cbids_[kind == layout::kKindRuntime][cbid / 64];
      const uint64_t bit = uint64_t{1} << (cbid % 64);
      if ((word.load(std::memory_order_relaxed) & bit) == 0) {
        word.fetch_or(bit, std::memory_order_relaxed);
      }
      break;
    }
    default:
      break;
  }
}

void Collector::OnBufferCompleted(uint8_t* buffer, uint32_t stream_id, size_t valid_size) {
  if (buffer == g_discard_buffer) {
    discarded_bytes_.fetch_add(valid_size, std::memory_order_relaxed);
    // Keep the promise of ZEROED_OUT_ACTIVITY_BUFFER for the next hand-out.
    std::memset(g_discard_buffer, 0, std::min(valid_size, sizeof(g_discard_buffer)));
    return;
  }
  if (inert_.load(std::memory_order_relaxed) || pool_ == nullptr || !pool_->Owns(buffer)) return;
  if (valid_size > pool_->buffer_size()) valid_size = pool_->buffer_size();
  if (valid_size == 0) {
    pool_->Push(buffer);
    return;
  }
  // Name pointers are only valid now: turn them into string ids in place.
  CUpti_Activity* record = nullptr;
  uint8_t* prev = nullptr;
  uint32_t prev_kind = 0;
  uint64_t records = 0;
  while (api_.ActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    auto* cur = reinterpret_cast<uint8_t*>(record);
    if (prev != nullptr) RewriteRecord(prev, prev_kind, cur - prev, /*size_known=*/true);
    prev = cur;
    prev_kind = record->kind;
    ++records;
  }
  if (prev != nullptr) {
    RewriteRecord(prev, prev_kind, buffer + valid_size - prev, /*size_known=*/false);
  }
  records_seen_.fetch_add(records, std::memory_order_relaxed);
  if (!queue_->Push({buffer, static_cast<uint32_t>(valid_size), stream_id})) {
    buffers_lost_.fetch_add(1, std::memory_order_relaxed);
    pool_->Push(buffer);
  }
}

void Collector::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                           const void* cbdata) {
  if (inert_.load(std::memory_order_relaxed)) return;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    cuda_ready_.store(true);
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_NVTX || cbdata == nullptr) return;
  const auto* nvtx = static_cast<const CUpti_NvtxData*>(cbdata);
  if (nvtx->functionParams == nullptr) return;
  const char* message = nullptr;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      message = static_cast<const nvtxRangePushA_params*>(nvtx->functionParams)->message;
      break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
      message = static_cast<const nvtxRangeStartA_params*>(nvtx->functionParams)->message;
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
    case CUPTI_CBID_NVTX_nvtxRangeStartEx: {
      const nvtxEventAttributes_t* attr =
          cbid == CUPTI_CBID_NVTX_nvtxRangePushEx
              ? static_cast<const nvtxRangePushEx_params*>(nvtx->functionParams)->eventAttrib
              : static_cast<const nvtxRangeStartEx_params*>(nvtx->functionParams)->eventAttrib;
      if (attr != nullptr && attr->messageType == NVTX_MESSAGE_TYPE_ASCII) {
        message = attr->message.ascii;
      }
      break;
    }
    default:
      return;
  }
  if (message == nullptr || !capture::GlobMatch(config_.step_pattern.c_str(), message)) return;
  int64_t step = capture::StepNumberFromName(message);
  if (step < 0) step = nvtx_steps_.fetch_add(1) + 1;
  OnStep(step, /*from_api=*/false);
}

}  // namespace tbprof::collector
