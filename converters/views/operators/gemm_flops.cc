#include "converters/views/operators/gemm_flops.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tbprof::views {
namespace {

using Shape = std::vector<int64_t>;

// A minimal cursor over JSON text.
class Scanner {
 public:
  explicit Scanner(absl::string_view text) : s_(text) {}
  void SkipSpace() {
    while (i_ < s_.size() && absl::ascii_isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return i_ < s_.size() && s_[i_] == c;
  }
  bool Int(int64_t* v) {
    SkipSpace();
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && absl::ascii_isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    return i_ > start && absl::SimpleAtoi(s_.substr(start, i_ - start), v);
  }
  bool String(std::string* out) {
    if (!Consume('"')) return false;
    out->clear();
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return true;
      if (c == '\\') {
        if (i_ >= s_.size()) return false;
        c = s_[i_++];
        if (c == 'n') c = '\n';
        if (c == 't') c = '\t';
      }
      out->push_back(c);
    }
    return false;
  }
  bool AtEnd() {
    SkipSpace();
    return i_ == s_.size();
  }

 private:
  absl::string_view s_;
  size_t i_ = 0;
};

// Parses "[1, 2, 3]" at the scanner.
bool ParseIntArray(Scanner* sc, Shape* out) {
  out->clear();
  if (!sc->Consume('[')) return false;
  if (sc->Consume(']')) return true;
  do {
    int64_t v;
    if (!sc->Int(&v)) return false;
    out->push_back(v);
  } while (sc->Consume(','));
  return sc->Consume(']');
}

double Product(const Shape& s, size_t begin, size_t end) {
  double p = 1;
  for (size_t i = begin; i < end && i < s.size(); ++i) p *= static_cast<double>(s[i]);
  return p;
}

bool AllNonNegative(const Shape& s) {
  return std::all_of(s.begin(), s.end(), [](int64_t v) { return v >= 0; });
}

const Shape* Input(const OpInputs& in, size_t i) {
  return i < in.dims.size() ? &in.dims[i] : nullptr;
}

absl::string_view Concrete(const OpInputs& in, size_t i) {
  return i < in.concrete.size() ? absl::string_view(in.concrete[i]) : absl::string_view();
}

bool IsTrue(absl::string_view v) {
  v = absl::StripAsciiWhitespace(v);
  return v == "True" || v == "true" || v == "1";
}

absl::string_view AtenName(absl::string_view op_name) {
  absl::ConsumePrefix(&op_name, "aten::");
  return op_name;
}

FlopCount Fail(FlopCount c, absl::string_view why) {
  c.flops = 0;
  c.why_not = std::string(why);
  return c;
}

// 2*M*K*N for A[M,K] x B[K,N].
FlopCount Mm(FlopCount c, const Shape* a, const Shape* b) {
  if (a == nullptr || b == nullptr || a->size() != 2 || b->size() != 2) {
    return Fail(std::move(c), "needs 2-D input shapes");
  }
  c.flops = 2.0 * (*a)[0] * (*a)[1] * (*b)[1];
  return c;
}

// 2*b*M*K*N for A[b,M,K] x B[b,K,N].
FlopCount Bmm(FlopCount c, const Shape* a, const Shape* b) {
  if (a == nullptr || b == nullptr || a->size() != 3 || b->size() != 3) {
    return Fail(std::move(c), "needs 3-D input shapes");
  }
  c.flops = 2.0 * (*a)[0] * (*a)[1] * (*a)[2] * (*b)[2];
  return c;
}

FlopCount Matmul(FlopCount c, const Shape* a, const Shape* b) {
  if (a == nullptr || b == nullptr || a->empty() || b->empty()) {
    return Fail(std::move(c), "needs the shapes of both operands");
  }
  Shape x = *a, y = *b;
  if (x.size() == 1) x.insert(x.begin(), 1);  // [K] -> [1, K]
  if (y.size() == 1) y.push_back(1);          // [K] -> [K, 1]
  const double m = x[x.size() - 2], k = x.back(), n = y.back();
  // Broadcast batch: per dimension from the right, the larger size (1
  // broadcasts).
  double batch = 1;
  const size_t bx = x.size() - 2, by = y.size() - 2;
  for (size_t i = 0; i < std::max(bx, by); ++i) {
    const int64_t dx = i < bx ? x[bx - 1 - i] : 1;
    const int64_t dy = i < by ? y[by - 1 - i] : 1;
    batch *= static_cast<double>(std::max(dx, dy));
  }
  c.flops = 2.0 * batch * m * k * n;
  return c;
}

FlopCount Linear(FlopCount c, const Shape* x, const Shape* w) {
  if (x == nullptr || w == nullptr || x->empty() || w->size() != 2) {
    return Fail(std::move(c), "needs the input and 2-D weight shapes");
  }
  c.flops = 2.0 * Product(*x, 0, x->size() - 1) * x->back() * (*w)[0];
  return c;
}

// Positions of stride / padding / dilation / transposed in the inputs of a
// forward convolution op; -1 where the op has none.
struct ConvArgs {
  int stride = -1, padding = -1, dilation = -1, transposed = -1;
  bool always_transposed = false;
};

ConvArgs ConvArgsOf(absl::string_view aten) {
  ConvArgs a;
  if (absl::StrContains(aten, "transpose")) {
    a.always_transposed = true;
  } else if (aten == "conv1d" || aten == "conv2d" || aten == "conv3d") {
    a = {3, 4, 5, -1, false};
  } else if (aten == "convolution" || aten == "_convolution") {
    a = {3, 4, 5, 6, false};
  } else if (aten == "cudnn_convolution") {
    a = {3, 2, 4, -1, false};
  } else if (aten == "miopen_convolution" || aten == "mkldnn_convolution") {
    a = {4, 3, 5, -1, false};
  }
  return a;
}

// One value per spatial dimension: a list of that length, or of length 1
// (broadcast), or `fallback` when the argument was not recorded.
bool SpatialArg(absl::string_view text, size_t n, int64_t fallback, Shape* out) {
  out->assign(n, fallback);
  if (absl::StripAsciiWhitespace(text).empty()) return false;
  Shape v;
  if (!ParseIntList(text, &v)) return false;
  if (v.size() == 1) {
    out->assign(n, v[0]);
  } else if (v.size() == n) {
    *out = v;
  } else {
    return false;
  }
  return true;
}

// Output spatial sizes of a forward, non-transposed convolution, from its
// recorded arguments; false when they were not recorded.
bool ConvOutputFromArgs(const OpInputs& in, const ConvArgs& args, const Shape& x, const Shape& w,
                        Shape* out) {
  const size_t n = x.size() - 2;
  if (args.stride < 0) return false;
  absl::string_view padding_text = Concrete(in, args.padding);
  Shape stride, padding, dilation;
  if (!SpatialArg(Concrete(in, args.stride), n, 1, &stride)) return false;
  SpatialArg(Concrete(in, args.dilation), n, 1, &dilation);
  out->resize(n);
  if (absl::StrContains(padding_text, "same")) {  // conv2d(padding="same"): stride 1.
    for (size_t i = 0; i < n; ++i) (*out)[i] = x[i + 2];
    return true;
  }
  if (absl::StrContains(padding_text, "valid")) {
    padding.assign(n, 0);
  } else if (!SpatialArg(padding_text, n, 0, &padding)) {
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    if (stride[i] <= 0) return false;
    (*out)[i] = (x[i + 2] + 2 * padding[i] - dilation[i] * (w[i + 2] - 1) - 1) / stride[i] + 1;
  }
  return true;
}

// Forward FLOPs of a convolution X[n,C,S...] * W; `transposed` W is
// [C, Co/g, k...].
FlopCount ConvForward(FlopCount c, absl::string_view aten, const OpInputs& in,
                      const ConvOutputShapes* outputs) {
  const Shape* x = Input(in, 0);
  const Shape* w = Input(in, 1);
  if (x == nullptr || w == nullptr || x->size() < 3 || w->size() != x->size()) {
    return Fail(std::move(c), "needs input and weight shapes of equal rank >= 3");
  }
  const ConvArgs args = ConvArgsOf(aten);
  const bool transposed =
      args.always_transposed || (args.transposed >= 0 && IsTrue(Concrete(in, args.transposed)));
  const double kernel = Product(*w, 2, w->size());
  if (transposed) {
    c.flops = 2.0 * (*x)[0] * Product(*x, 2, x->size()) * (*w)[0] * (*w)[1] * kernel;
    return c;
  }
  Shape spatial_out;
  if (!ConvOutputFromArgs(in, args, *x, *w, &spatial_out)) {
    const Shape* learned = outputs != nullptr ? outputs->Find(*x, *w) : nullptr;
    if (learned == nullptr) {
      return Fail(std::move(c),
                  "output size unknown (no stride/padding recorded and no backward call of "
                  "these shapes)");
    }
    spatial_out = *learned;
  }
  c.flops = 2.0 * (*x)[0] * (*w)[0] * Product(spatial_out, 0, spatial_out.size()) * (*w)[1] *
            kernel;
  return c;
}

FlopCount ConvBackward(FlopCount c, absl::string_view aten, const OpInputs& in, int grads_hint) {
  // convolution_backward(grad_output, input, weight, bias_sizes, stride,
  //   padding, dilation, transposed, output_padding, groups, output_mask);
  // cudnn_convolution_backward(input, grad_output, weight, padding, stride,
  //   dilation, groups, benchmark, deterministic, allow_tf32, output_mask).
  const bool modern = aten == "convolution_backward";
  const Shape* grad_out = Input(in, modern ? 0 : 1);
  const Shape* x = Input(in, modern ? 1 : 0);
  const Shape* w = Input(in, 2);
  if (grad_out == nullptr || x == nullptr || w == nullptr || x->size() < 3 ||
      w->size() != x->size() || grad_out->size() != x->size()) {
    return Fail(std::move(c), "needs gradient, input and weight shapes of equal rank >= 3");
  }
  const double kernel = Product(*w, 2, w->size());
  const bool transposed = modern && IsTrue(Concrete(in, 7));
  const double forward =
      transposed ? 2.0 * (*x)[0] * Product(*x, 2, x->size()) * (*w)[0] * (*w)[1] * kernel
                 : 2.0 * (*x)[0] * (*w)[0] * Product(*grad_out, 2, grad_out->size()) * (*w)[1] *
                       kernel;
  int grads = grads_hint > 0 ? grads_hint : 2;
  // output_mask, recorded as "[True, True, False]": its first two entries say
  // whether the input and weight gradients are computed.
  absl::string_view mask = Concrete(in, 10);
  int seen = 0, set = 0;
  for (size_t pos = mask.find_first_of("TF"); pos != absl::string_view::npos && seen < 2;
       pos = mask.find_first_of("TF", pos + 1)) {
    if (mask.substr(pos, 4) == "True") {
      ++seen;
      ++set;
    } else if (mask.substr(pos, 5) == "False") {
      ++seen;
    }
  }
  if (seen == 2) grads = set;
  c.flops = forward * grads;
  return c;
}

}  // namespace

bool ParseInputDims(absl::string_view json, std::vector<std::vector<int64_t>>* dims) {
  dims->clear();
  Scanner sc(json);
  bool ok = sc.Consume('[');
  if (ok && !sc.Consume(']')) {
    do {
      Shape shape;
      ok = ParseIntArray(&sc, &shape);
      if (ok) dims->push_back(std::move(shape));
    } while (ok && sc.Consume(','));
    ok = ok && sc.Consume(']');
  }
  ok = ok && sc.AtEnd();
  if (!ok) dims->clear();
  return ok;
}

bool ParseStringList(absl::string_view json, std::vector<std::string>* out) {
  out->clear();
  Scanner sc(json);
  bool ok = sc.Consume('[');
  if (ok && !sc.Consume(']')) {
    do {
      std::string s;
      ok = sc.String(&s);
      if (ok) out->push_back(std::move(s));
    } while (ok && sc.Consume(','));
    ok = ok && sc.Consume(']');
  }
  ok = ok && sc.AtEnd();
  if (!ok) out->clear();
  return ok;
}

bool ParseIntList(absl::string_view text, std::vector<int64_t>* out) {
  Scanner sc(text);
  if (sc.Peek('[')) return ParseIntArray(&sc, out) && sc.AtEnd();
  int64_t v;
  out->clear();
  if (!sc.Int(&v) || !sc.AtEnd()) return false;
  out->push_back(v);
  return true;
}

std::string DtypeOf(absl::string_view t) {
  absl::ConsumePrefix(&t, "c10::");
  if (t == "float") return "fp32";
  if (t == "Half") return "fp16";
  if (t == "BFloat16") return "bf16";
  if (t == "double") return "fp64";
  if (absl::StartsWith(t, "Float8_")) return "fp8";
  if (t == "signed char") return "int8";
  return "";
}

FlopOp FlopOpOf(absl::string_view op_name) {
  if (!absl::StartsWith(op_name, "aten::")) return FlopOp::kNone;
  const absl::string_view a = AtenName(op_name);
  if (a == "mm" || a == "addmm" || a == "_addmm_activation" || a == "bmm" || a == "baddbmm" ||
      a == "addbmm" || a == "matmul" || a == "linear" || a == "_scaled_mm") {
    return FlopOp::kMatmul;
  }
  if (a == "convolution_backward" || a == "cudnn_convolution_backward") {
    return FlopOp::kConvolutionBackward;
  }
  if (a == "conv1d" || a == "conv2d" || a == "conv3d" || a == "convolution" ||
      a == "_convolution" || a == "cudnn_convolution" || a == "miopen_convolution" ||
      a == "mkldnn_convolution" || a == "conv_transpose1d" || a == "conv_transpose2d" ||
      a == "conv_transpose3d" || a == "cudnn_convolution_transpose" ||
      a == "miopen_convolution_transpose") {
    return FlopOp::kConvolution;
  }
  return FlopOp::kNone;
}

void ConvOutputShapes::AddBackward(absl::string_view op_name,
                                   const std::vector<std::vector<int64_t>>& dims) {
  if (dims.size() < 3) return;
  const bool modern = AtenName(op_name) == "convolution_backward";
  const Shape& grad_out = dims[modern ? 0 : 1];
  const Shape& x = dims[modern ? 1 : 0];
  const Shape& w = dims[2];
  if (x.size() < 3 || grad_out.size() != x.size() || w.size() != x.size()) return;
  Shape spatial(grad_out.begin() + 2, grad_out.end());
  auto [it, inserted] = outputs_.try_emplace(std::make_pair(x, w), spatial);
  if (!inserted && it->second.has_value() && *it->second != spatial) it->second.reset();
}

const std::vector<int64_t>* ConvOutputShapes::Find(const std::vector<int64_t>& input,
                                                   const std::vector<int64_t>& weight) const {
  auto it = outputs_.find(std::make_pair(input, weight));
  if (it == outputs_.end() || !it->second.has_value()) return nullptr;
  return &*it->second;
}

FlopCount CountFlops(absl::string_view op_name, const OpInputs& in,
                     const ConvOutputShapes* conv_outputs, int grads_hint) {
  FlopCount c;
  for (size_t i = 0; i < in.types.size() && c.dtype.empty(); ++i) {
    if (i < in.dims.size() && in.dims[i].empty()) continue;  // Not a tensor.
    c.dtype = DtypeOf(in.types[i]);
  }
  for (const Shape& s : in.dims) {
    if (!AllNonNegative(s)) return Fail(std::move(c), "negative dimension");
  }
  const FlopOp kind = FlopOpOf(op_name);
  if (kind == FlopOp::kNone) return Fail(std::move(c), "not a GEMM or convolution");
  if (in.dims.empty()) return Fail(std::move(c), "no input shapes recorded");
  const absl::string_view a = AtenName(op_name);
  switch (kind) {
    case FlopOp::kMatmul:
      if (a == "mm" || a == "_scaled_mm") return Mm(std::move(c), Input(in, 0), Input(in, 1));
      if (a == "addmm" || a == "_addmm_activation") {
        return Mm(std::move(c), Input(in, 1), Input(in, 2));
      }
      if (a == "bmm") return Bmm(std::move(c), Input(in, 0), Input(in, 1));
      if (a == "baddbmm" || a == "addbmm") return Bmm(std::move(c), Input(in, 1), Input(in, 2));
      if (a == "matmul") return Matmul(std::move(c), Input(in, 0), Input(in, 1));
      return Linear(std::move(c), Input(in, 0), Input(in, 1));
    case FlopOp::kConvolution:
      return ConvForward(std::move(c), a, in, conv_outputs);
    case FlopOp::kConvolutionBackward:
      return ConvBackward(std::move(c), a, in, grads_hint);
    case FlopOp::kNone:
      break;
  }
  return Fail(std::move(c), "not a GEMM or convolution");
}

}  // namespace tbprof::views
