// Collective operations (NCCL / RCCL) and their bandwidth, as NCCL-tests
// defines it (github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md):
//
//   algbw = S / t                  (S: the collective's message size, t: its time)
//   busbw = algbw * factor(kind, n)  (n: ranks in the group)
//
//   kind            S (message size)                         factor
//   all_reduce      the buffer (in = out)                    2(n-1)/n
//   all_gather      the whole output (n * the input)         (n-1)/n
//   reduce_scatter  the whole input (n * the output)         (n-1)/n
//   all_to_all      everything a rank sends (its input)      (n-1)/n
//   broadcast       the buffer                               1
//   reduce          the buffer                               1
//   send, recv      the message                              1
//
// Bus bandwidth is the rate each link moves data in a ring-shaped algorithm,
// so it is comparable across collective kinds and group sizes, and with the
// hardware peak. Bandwidths are in GB/s = 1e9 bytes per second (NCCL-tests'
// unit). Gather, scatter, barrier and unrecognised collectives have no
// factor (0): their bus bandwidth is not given.
//
// Also here: recognising collective kernels and the names that PyTorch and
// NCCL give collectives and element types, which a trace may spell in many
// ways ("allreduce", "nccl:all_reduce", "c10d::allreduce_",
// "ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL").
#ifndef TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_BANDWIDTH_H_
#define TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_BANDWIDTH_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::views {

enum class CollectiveKind {
  kUnknown,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSend,
  kRecv,
  kSendRecv,  // A kernel that sends and receives (NCCL's SendRecv: p2p, all_to_all).
  kGather,
  kScatter,
  kBarrier,
};

// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
// "reduce", "send", "recv", "send_recv", "gather", "scatter", "barrier",
// "unknown".
absl::string_view CollectiveKindName(CollectiveKind kind);

// The kind named by a PyTorch collective name or op name, any spelling:
// case, a "nccl:" / "c10d::" / "rccl:" prefix, leading and trailing '_',
// "_base", "_coalesced", "_into_tensor", "_tensor", "v" (all_to_allv) and
// underscores do not matter ("allreduce", "all_reduce", "nccl:all_reduce",
// "c10d::allreduce_", "_allgather_base", "reduce_scatter_tensor_coalesced",
// "all_to_allv", "alltoall_base"). kUnknown for anything else.
CollectiveKind CollectiveKindFromName(absl::string_view name);

// True for NCCL / RCCL kernels: the name, after an optional "void ", starts
// with "nccl" or "rccl" (any case). The profile plugin counts the same
// kernels as collectives (names starting with "nccl").
bool IsCollectiveKernelName(absl::string_view kernel_name);

// The kind in a collective kernel's name: the token after the first '_' of
// "ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_ReduceScatter_...",
// "ncclKernel_SendRecv_...". kUnknown for other names and for NCCL's generic
// kernels ("ncclDevKernel_Generic"), which run any collective.
CollectiveKind CollectiveKindFromKernelName(absl::string_view kernel_name);

// The element type in a collective kernel's name, as written there: the last
// '_'-separated token before the parameter list if it names a type ("float",
// "half", "__nv_bfloat16", "int8_t", "f32", "bf16", "u8", ...); "" otherwise.
std::string DtypeFromKernelName(absl::string_view kernel_name);

// Bytes per element of a type name from any of: record_param_comms `dtype`
// ("Float", "BFloat16", "Half", "Long", "Int", "Char", "Byte", "Bool",
// "Float8_e4m3fn", ...), record_shapes input types ("float", "c10::Half",
// "long int", "unsigned char", ...) and NCCL kernel names ("float", "half",
// "__nv_bfloat16", "int8_t", "f32", "bf16", "f8e4m3", ...). 0 if unknown.
int DtypeBytes(absl::string_view dtype);

// S in the table above, from the element counts PyTorch records for one
// rank (record_param_comms "In msg nelems" / "Out msg nelems"): all_gather
// uses the output, reduce_scatter the input, send/recv/send_recv the larger
// of the two, every other kind the input (the output when the input count
// is unknown). A count < 0 is unknown. 0 when unknown or `dtype_bytes` <= 0.
int64_t CollectiveMessageBytes(CollectiveKind kind, int64_t in_nelems, int64_t out_nelems,
                               int dtype_bytes);

// The bus bandwidth factor of `kind` in a group of `group_size` ranks (table
// above); 0 when the kind has none or group_size < 1. all_reduce with n = 1
// gives 0 (nothing moves), broadcast with n = 1 gives 1 as in NCCL-tests.
double BusBandwidthFactor(CollectiveKind kind, int64_t group_size);

// bytes / time in GB/s (1e9 bytes per second); 0 when either is <= 0.
double AlgorithmBandwidthGBps(int64_t bytes, int64_t time_ps);

// AlgorithmBandwidthGBps() * BusBandwidthFactor().
double BusBandwidthGBps(CollectiveKind kind, int64_t group_size, int64_t bytes, int64_t time_ps);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_BANDWIDTH_H_
