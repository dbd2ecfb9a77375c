#include "converters/report/report_json.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "converters/report/html_common.h"
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
      {"gpu_summary", &v.gpu_summary},
  };
}

void AppendBreakdownSummary(const BreakdownSummary& b, JsonBuilder* j) {
  j->Open('{');
  j->Key("breakdown").Str(BreakdownName(b.breakdown));
  j->Key("steps").Int(b.num_steps);
  j->Key("avgStepMs").Num(b.avg_step_ms);
  j->Key("inputMs").Num(b.input_ms);
  j->Key("inputPercent").Num(b.input_percent);
  j->Close('}');
}

// "step_breakdown": which breakdown the step views use, and (when the report
// computed it) the other one, with the sentence the text and HTML show.
void AppendStepBreakdownMember(const AllViews& views, std::string* out) {
  JsonBuilder j;
  j.Open('{');
  j.Key("shown");
  AppendBreakdownSummary(views.breakdown, &j);
  if (views.has_other_breakdown) {
    j.Key("other");
    AppendBreakdownSummary(views.other_breakdown, &j);
  }
  j.Key("note").Str(DescribeBreakdown(views.breakdown,
                                      views.has_other_breakdown ? &views.other_breakdown
                                                                : nullptr));
  j.Close('}');
  out->append(",\"step_breakdown\":");
  out->append(j.Take());
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
  AppendStepBreakdownMember(views, out);
  return absl::OkStatus();
}

absl::StatusOr<std::string> RenderViewsJson(const AllViews& views) {
  std::string out = "{";
  TBPROF_RETURN_IF_ERROR(AppendViewsJsonMembers(views, &out));
  out.push_back('}');
  return out;
}

}  // namespace tbprof::views
