#include "converters/report/diff_json.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "converters/report/html_common.h"
#include "converters/report/diff_text.h"

namespace tbprof::views {
namespace {

using Json = views::JsonBuilder;

void Aggregate(const TimeAggregate& a, Json* j) {
  j->Open('{');
  j->Key("count").Int(a.count);
  j->Key("totalMs").Num(a.total_ms);
  j->Key("meanUs").Num(a.mean_us());
  j->Close('}');
}

void Side(const std::string& source, const std::vector<std::string>& hosts, const StepStats& s,
          const TimeAggregate& kernels, Json* j) {
  j->Open('{');
  j->Key("source").Str(source);
  j->Key("hosts").Open('[');
  for (const std::string& h : hosts) j->Str(h);
  j->Close(']');
  j->Key("steps").Open('{');
  j->Key("count").Int(s.count);
  j->Key("meanMs").Num(s.mean_ms);
  j->Key("sdMs").Num(s.sd_ms);
  j->Key("minMs").Num(s.min_ms);
  j->Key("maxMs").Num(s.max_ms);
  j->Close('}');
  j->Key("kernels");
  Aggregate(kernels, j);
  j->Close('}');
}

void Table(const AggregateTable& t, size_t max_rows, Json* j) {
  j->Open('{');
  j->Key("inBoth").Int(t.in_both);
  j->Key("onlyBase").Int(t.only_base);
  j->Key("onlyNew").Int(t.only_next);
  j->Key("rows").Open('[');
  const size_t n = std::min(max_rows, t.rows.size());
  for (size_t i = 0; i < n; ++i) {
    const AggregateDiff& r = t.rows[i];
    j->Open('{');
    j->Key("name").Str(r.name);
    j->Key("base");
    if (r.in_base()) Aggregate(r.base, j); else j->Null();
    j->Key("new");
    if (r.in_next()) Aggregate(r.next, j); else j->Null();
    j->Key("deltaMs").Num(r.delta_ms());
    j->Key("meanDeltaPct").Num(r.mean_delta_pct());
    j->Close('}');
  }
  j->Close(']');
  j->Close('}');
}

}  // namespace

std::string RenderDiffJson(const ProfileDiff& d, const DiffJsonOptions& o) {
  Json j;
  j.Open('{');
  j.Key("base");
  Side(d.base_source, d.base_hosts, d.step.base, d.base_kernels, &j);
  j.Key("new");
  Side(d.next_source, d.next_hosts, d.step.next, d.next_kernels, &j);
  j.Key("stepTime").Open('{');
  j.Key("available").Bool(d.step.available);
  j.Key("deltaMs").Num(d.step.delta_ms);
  j.Key("deltaPct").Num(d.step.delta_pct);
  j.Key("noiseMs").Num(d.step.noise_ms);
  j.Key("noise").Str(NoiseName(d.step.noise));
  j.Key("noiseRule").Str(
      "within noise when |mean_new - mean_base| < max(sd_base, sd_new); unknown when a side "
      "has fewer than 2 steps");
  j.Close('}');
  j.Key("verdict").Str(DiffVerdict(d));
  j.Key("categories").Open('[');
  for (const CategoryDiff& c : d.categories) {
    j.Open('{');
    j.Key("key").Str(c.key);
    j.Key("label").Str(c.label);
    j.Key("baseMs").Num(c.base_ms);
    j.Key("newMs").Num(c.next_ms);
    j.Key("deltaMs").Num(c.delta_ms());
    j.Close('}');
  }
  j.Close(']');
  j.Key("kernels");
  Table(d.kernels, o.max_rows, &j);
  j.Key("operators");
  Table(d.operators, o.max_rows, &j);
  j.Key("communication").Open('{');
  j.Key("base");
  Aggregate(d.base_communication, &j);
  j.Key("new");
  Aggregate(d.next_communication, &j);
  j.Key("deltaMs").Num(d.next_communication.total_ms - d.base_communication.total_ms);
  j.Key("kernels");
  Table(d.collectives, o.max_rows, &j);
  j.Close('}');
  j.Key("memory").Open('[');
  for (const MemoryDiff& m : d.memory) {
    j.Open('{');
    j.Key("allocator").Str(m.allocator);
    j.Key("baseBytes");
    if (m.base_bytes >= 0) j.Int(m.base_bytes); else j.Null();
    j.Key("newBytes");
    if (m.next_bytes >= 0) j.Int(m.next_bytes); else j.Null();
    j.Key("deltaBytes");
    if (m.base_bytes >= 0 && m.next_bytes >= 0) j.Int(m.next_bytes - m.base_bytes); else j.Null();
    j.Close('}');
  }
  j.Close(']');
  if (o.gate.has_value()) {
    j.Key("gate").Open('{');
    j.Key("failIfSlowerPct").Num(o.gate_pct);
    j.Key("ignoreNoise").Bool(o.gate_ignore_noise);
    j.Key("tripped").Bool(o.gate->tripped);
    j.Key("message").Str(o.gate->message);
    j.Close('}');
  }
  j.Close('}');
  return j.Take();
}

}  // namespace tbprof::views
