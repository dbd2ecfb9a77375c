#include "converters/report/report_json.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "converters/report/report_distributed.h"
#include "converters/output/json_text_writer.h"
#include "converters/output/proto_json.h"
#include "google/protobuf/message.h"
#include "src/base/status_macros.h"

namespace tbprof::views {
namespace {

// The members of a host's object, in order. A view that may be absent is
// listed with a null message and left out; adding a view is one line here.
struct ViewMember {
  const char* key;
  const google::protobuf::Message* message;
};

std::vector<ViewMember> ViewMembers(const AllViews& v) {
  return {
      {"overview", &v.overview},
      {"input_pipeline", &v.input_pipeline},
      {"kernel_stats", &v.kernel_stats},
      {"memory_profile", &v.memory_profile},
      {"operators", &v.operators},
      {"modules", &v.modules},
      {"gemm_efficiency", &v.gemm_efficiency},
  };
}

}  // namespace

absl::Status AppendViewsJsonMembers(const AllViews& views, std::string* out) {
  bool first = true;
  for (const ViewMember& member : ViewMembers(views)) {
    if (member.message == nullptr) continue;
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(member.key, out);
    out->push_back(':');
    TBPROF_RETURN_IF_ERROR(AppendMessageAsJson(*member.message, out));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RenderViewsJson(const AllViews& views) {
  std::string out = "{";
  TBPROF_RETURN_IF_ERROR(AppendViewsJsonMembers(views, &out));
  out.push_back('}');
  return out;
}

}  // namespace tbprof::views
