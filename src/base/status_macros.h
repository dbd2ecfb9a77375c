// Propagation macros for absl::Status / absl::StatusOr.
//
// The Debian abseil (20220623) predates absl's own status macros, so the
// project keeps these two. Both evaluate their argument exactly once.
#ifndef TBPROF_SRC_BASE_STATUS_MACROS_H_
#define TBPROF_SRC_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define TBPROF_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::absl::Status tbprof_status_ = (expr);          \
    if (!tbprof_status_.ok()) return tbprof_status_; \
  } while (0)

#define TBPROF_STATUS_CONCAT_INNER_(a, b) a##b
#define TBPROF_STATUS_CONCAT_(a, b) TBPROF_STATUS_CONCAT_INNER_(a, b)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status,
// otherwise moves the value into `lhs` (a declaration or an lvalue).
#define TBPROF_ASSIGN_OR_RETURN(lhs, rexpr)                                  \
  TBPROF_ASSIGN_OR_RETURN_IMPL_(                                             \
      TBPROF_STATUS_CONCAT_(tbprof_statusor_, __LINE__), lhs, rexpr)

#define TBPROF_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                  \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()

#endif  // TBPROF_SRC_BASE_STATUS_MACROS_H_
