#include "converters/views/report_json.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "converters/views/json_text_writer.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "src/base/status_macros.h"

namespace tbprof::views {
namespace {

absl::Status AppendMessageJson(const google::protobuf::Message& message, std::string* out) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = false;  // lowerCamelCase.
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("cannot print ", message.GetTypeName(),
                                            " as JSON: ", status.ToString()));
  }
  out->append(json);
  return absl::OkStatus();
}

absl::Status AppendViewsMembers(const AllViews& views, std::string* out) {
  out->append("\"overview\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageJson(views.overview, out));
  out->append(",\"input_pipeline\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageJson(views.input_pipeline, out));
  out->append(",\"kernel_stats\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageJson(views.kernel_stats, out));
  out->append(",\"memory_profile\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageJson(views.memory_profile, out));
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
