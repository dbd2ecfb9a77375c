#include "converters/views/operators/module_tree.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tbprof::views {
namespace {

// A module path, aggregated over its calls.
struct Node {
  std::string name, path;
  int32_t parent = -1;
  std::vector<int32_t> children;  // In the order of their first call.
  int64_t occurrences = 0, host_total_ps = 0, host_self_ps = 0, device_self_ps = 0, ops = 0;
  int64_t device_total_ps = 0;
};

class ModuleTreeBuilder {
 public:
  explicit ModuleTreeBuilder(const OpTree& tree) : tree_(tree) {}

  tbprof::ModuleStats Build() {
    for (const OpThread& thread : tree_.threads) AddThread(thread);
    tbprof::ModuleStats out;
    if (nodes_.empty()) {
      out.set_no_data_reason(
          "no module events: profile with torch.profiler.profile(with_modules=True) (PyTorch "
          ">= 2.0 records \"nn.Module: <Name>\" events) to see time per nn.Module");
      return out;
    }
    int64_t inside = 0;
    for (int32_t root : roots_) inside += Total(root);
    out.set_device_time_outside_modules_ps(tree_.AttributedPs() - inside);
    for (int32_t root : roots_) Emit(root, -1, 0, &out);
    if (out.device_time_outside_modules_ps() > 0) {
      out.add_notes(absl::StrCat(
          "device time outside every module: ",
          absl::StrFormat("%.3f ms", out.device_time_outside_modules_ps() / 1e9),
          " (backward pass, optimizer and other work not called from a module's forward)"));
    }
    return out;
  }

 private:
  int32_t NodeFor(int32_t parent, absl::string_view name) {
    auto [it, inserted] = index_.try_emplace(std::make_pair(parent, std::string(name)),
                                             static_cast<int32_t>(nodes_.size()));
    if (inserted) {
      Node node;
      node.name = std::string(name);
      node.path = parent < 0 ? node.name : absl::StrCat(nodes_[parent].path, "/", name);
      node.parent = parent;
      nodes_.push_back(std::move(node));
      (parent < 0 ? roots_ : nodes_[parent].children).push_back(it->second);
    }
    return it->second;
  }

  // Whether the host plane's events of this metadata are module calls (by
  // name, once per metadata).
  bool IsModuleMetadata(uint32_t metadata) {
    if (module_metadata_.empty()) {
      module_metadata_.assign(tree_.host_plane->num_event_metadata(), kUnknown);
    }
    uint8_t& kind = module_metadata_[metadata];
    if (kind == kUnknown) {
      kind = absl::StartsWith(tree_.host_plane->event_name(metadata), kModuleEventPrefix) ? kModule
                                                                                       : kOther;
    }
    return kind == kModule;
  }

  // NodeFor the name of a module call's event metadata: by the pair of
  // indices, so that a module's name is hashed once per parent, not once
  // per call.
  int32_t NodeFor(int32_t parent, uint32_t metadata) {
    auto [it, inserted] = node_of_metadata_.try_emplace(std::make_pair(parent, metadata), 0);
    if (inserted) {
      it->second = NodeFor(
          parent, tree_.host_plane->event_name(metadata).substr(kModuleEventPrefix.size()));
    }
    return it->second;
  }

  void AddThread(const OpThread& thread) {
    // Without Python events there are no module calls, and no op is in one:
    // nothing to read (not even the calls' times, a pass over the thread).
    if (thread.python.empty()) return;
    // Module calls of this thread: node and parent call, by Python event.
    std::vector<int32_t> node_of(thread.python.size(), -1);
    std::vector<int32_t> stack;  // Python event indices of open module calls.
    struct Span {
      int64_t begin_ps, end_ps;
    };
    std::vector<Span> open;  // The times of the events of `stack`.
    for (size_t i = 0; i < thread.python.size(); ++i) {
      const uint32_t metadata = tree_.PythonMetadata(thread, i);
      if (!IsModuleMetadata(metadata)) continue;
      const xplane::XEventVisitor event = tree_.PythonEventOf(thread, i);
      const Span e{event.begin_ps(), event.end_ps()};
      while (!open.empty() &&
             !(open.back().begin_ps <= e.begin_ps && e.end_ps <= open.back().end_ps)) {
        stack.pop_back();
        open.pop_back();
      }
      const int32_t parent_call = stack.empty() ? -1 : stack.back();
      const int32_t node = NodeFor(parent_call < 0 ? -1 : node_of[parent_call], metadata);
      node_of[i] = node;
      const int64_t duration = e.end_ps - e.begin_ps;
      Node& n = nodes_[node];
      ++n.occurrences;
      n.host_total_ps += duration;
      n.host_self_ps += duration;
      if (parent_call >= 0) nodes_[node_of[parent_call]].host_self_ps -= duration;
      stack.push_back(static_cast<int32_t>(i));
      open.push_back(e);
    }
    if (std::all_of(node_of.begin(), node_of.end(), [](int32_t node) { return node < 0; })) {
      return;  // No module call: no op is in one.
    }
    // The innermost module node of the Python context, by its innermost
    // event (kUnknown: not yet; -1: none): the events around an innermost
    // event are those open when it began (see ForEachOpWithPythonContext),
    // so each context is searched once, not once per op call inside it.
    constexpr int32_t kUnknown = -2;
    std::vector<int32_t> module_of_python(thread.python.size(), kUnknown);
    ForEachOpWithPythonContext(tree_, thread, [&](int32_t op, const std::vector<int32_t>& py) {
      if (py.empty()) return;
      int32_t& node = module_of_python[py.back()];
      if (node == kUnknown) {
        node = -1;
        for (auto it = py.rbegin(); it != py.rend(); ++it) {
          if (node_of[*it] >= 0) {
            node = node_of[*it];
            break;
          }
        }
      }
      if (node < 0) return;
      Node& n = nodes_[node];
      n.device_self_ps += tree_.DeviceOf(tree_.ops[op]).self_ps;
      ++n.ops;
    });
  }

  int64_t Total(int32_t node) {
    Node& n = nodes_[node];
    n.device_total_ps = n.device_self_ps;
    for (int32_t child : n.children) n.device_total_ps += Total(child);
    return n.device_total_ps;
  }

  void Emit(int32_t node, int32_t parent_index, int32_t depth, tbprof::ModuleStats* out) {
    const Node& n = nodes_[node];
    const int32_t index = out->modules_size();
    tbprof::ModuleNode* m = out->add_modules();
    m->set_name(n.name);
    m->set_path(n.path);
    m->set_parent(parent_index);
    m->set_depth(depth);
    m->set_occurrences(n.occurrences);
    m->set_host_total_ps(n.host_total_ps);
    m->set_host_self_ps(n.host_self_ps);
    m->set_device_total_ps(n.device_total_ps);
    m->set_device_self_ps(n.device_self_ps);
    m->set_ops(n.ops);
    for (int32_t child : n.children) Emit(child, index, depth + 1, out);
  }

  const OpTree& tree_;
  std::vector<Node> nodes_;
  std::vector<int32_t> roots_;
  absl::flat_hash_map<std::pair<int32_t, std::string>, int32_t> index_;
  // Of the host plane, by event metadata index (empty until needed).
  enum : uint8_t { kUnknown = 0, kModule, kOther };
  std::vector<uint8_t> module_metadata_;
  absl::flat_hash_map<std::pair<int32_t, uint32_t>, int32_t> node_of_metadata_;
};

}  // namespace

tbprof::ModuleStats ModuleStatsFromTree(const OpTree& tree) {
  return ModuleTreeBuilder(tree).Build();
}

}  // namespace tbprof::views
