#include "converters/report/report_json.h"

#include <string>

#include "absl/status/status.h"
#include "converters/views/json_text_writer.h"
#include "converters/views/proto_json.h"
#include "google/protobuf/message.h"
#include "src/base/status_macros.h"

namespace tbprof::views {
namespace {

// Each view as MessageToJsonString prints it with always_print_primitive_fields
// (see proto_json.h).
absl::Status AppendViewsMembers(const AllViews& views, std::string* out) {
  out->append("\"overview\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageAsJson(views.overview, out));
  out->append(",\"input_pipeline\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageAsJson(views.input_pipeline, out));
  out->append(",\"kernel_stats\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageAsJson(views.kernel_stats, out));
  out->append(",\"memory_profile\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageAsJson(views.memory_profile, out));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> RenderViewsJson(const AllViews& views) {
  std::string out = "{";
  TBPROF_RETURN_IF_ERROR(AppendViewsMembers(views, &out));
  out.push_back('}');
  return out;
}

absl::StatusOr<std::string> RenderJsonReport(const ReportInput& input) {
  std::string out;
  if (input.hosts.size() == 1) {
    TBPROF_ASSIGN_OR_RETURN(out, RenderViewsJson(input.hosts[0].views));
  } else {
    out = "{\"hosts\":[";
    for (size_t i = 0; i < input.hosts.size(); ++i) {
      if (i > 0) out.push_back(',');
      out.append("{\"host\":");
      AppendJsonString(input.hosts[i].host, &out);
      out.push_back(',');
      TBPROF_RETURN_IF_ERROR(AppendViewsMembers(input.hosts[i].views, &out));
      out.push_back('}');
    }
    out.append("]}");
  }
  out.push_back('\n');
  return out;
}

}  // namespace tbprof::views
