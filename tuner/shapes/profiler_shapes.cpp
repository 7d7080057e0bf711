// PyTorch profiler traces to row-major problems.
#include "tuner/shapes/profiler_shapes.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/precision.hpp"

namespace gemmtune {
namespace {

using Json = nlohmann::json;

struct Event {
  std::string name;
  double ts = 0.0;
  double dur = 0.0;
  std::string thread;  ///< "pid/tid"
  Json const* args = nullptr;
  std::size_t index = 0;  ///< in traceEvents, for messages
};

std::string id_text(Json const& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::optional<Precision> precision_of(std::string const& type) {
  if (type == "float") return Precision::kFP32;
  if (type == "c10::Half" || type == "Half") return Precision::kFP16;
  if (type == "c10::BFloat16" || type == "BFloat16") return Precision::kBF16;
  return std::nullopt;
}

/// Whether a 2-D operand's strides say it is stored transposed (unit stride along rows).
std::optional<bool> transposed(Json const* strides, std::size_t operand) {
  if (!strides || !strides->is_array() || strides->size() <= operand) return std::nullopt;
  Json const& s = (*strides)[operand];
  if (!s.is_array() || s.size() != 2 || !s[0].is_number_integer() || !s[1].is_number_integer()) {
    return std::nullopt;
  }
  return s[0].get<std::int64_t>() == 1 && s[1].get<std::int64_t>() != 1;
}

}  // namespace

TraceShapes read_profiler_trace(std::string_view json_text, std::string_view source) {
  std::string const src(source);
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (Json::parse_error const& e) {
    throw Error(src + ": not JSON (" + e.what() + ")");
  }
  Json const* list = root.is_array() ? &root : nullptr;
  if (root.is_object()) {
    auto it = root.find("traceEvents");
    if (it != root.end() && it->is_array()) list = &*it;
  }
  if (!list) throw Error(src + ": expected a Chrome trace: {\"traceEvents\": [...]} or an array");

  std::vector<Event> gemm_events;
  std::map<std::string, std::vector<std::pair<double, double>>> linears;  // thread → spans
  for (std::size_t i = 0; i < list->size(); ++i) {
    Json const& e = (*list)[i];
    if (!e.is_object()) continue;
    auto const name = e.find("name");
    if (name == e.end() || !name->is_string()) continue;
    std::string const n = name->get<std::string>();
    if (n != "aten::linear" && n != "aten::mm" && n != "aten::addmm" && n != "aten::bmm" &&
        n != "aten::baddbmm") {
      continue;
    }
    Event ev;
    ev.name = n;
    ev.index = i;
    if (auto ts = e.find("ts"); ts != e.end() && ts->is_number()) ev.ts = ts->get<double>();
    if (auto d = e.find("dur"); d != e.end() && d->is_number()) ev.dur = d->get<double>();
    ev.thread = id_text(e.value("pid", Json())) + "/" + id_text(e.value("tid", Json()));
    if (auto a = e.find("args"); a != e.end() && a->is_object()) ev.args = &*a;
    if (n == "aten::linear") linears[ev.thread].emplace_back(ev.ts, ev.ts + ev.dur);
    gemm_events.push_back(ev);
  }
  for (auto& [thread, spans] : linears) std::sort(spans.begin(), spans.end());
  using Span = std::pair<double, double>;
  // The linear that encloses an event on its thread (the event's own span excluded), if any.
  auto enclosing_linear = [&](Event const& ev) -> std::optional<Span> {
    auto it = linears.find(ev.thread);
    if (it == linears.end()) return std::nullopt;
    Span const own{ev.ts, ev.ts + ev.dur};
    for (Span const& span : it->second) {
      if (span.first > ev.ts) break;
      if (span.second >= own.second && span != own) return span;
    }
    return std::nullopt;
  };
  // The linears with an mm or addmm inside: their child is the GEMM that ran.
  std::set<std::pair<std::string, Span>> parents;
  for (Event const& ev : gemm_events) {
    if (ev.name != "aten::mm" && ev.name != "aten::addmm") continue;
    if (std::optional<Span> const span = enclosing_linear(ev)) parents.emplace(ev.thread, *span);
  }

  TraceShapes out;
  std::map<std::string, std::size_t> index;
  std::map<std::string, std::int64_t> skipped;
  std::vector<std::string> skipped_order;
  auto skip = [&](std::string const& why) {
    if (skipped[why]++ == 0) skipped_order.push_back(why);
  };
  for (Event const& ev : gemm_events) {
    std::string const where = src + ": traceEvents[" + std::to_string(ev.index) + "] (" + ev.name + ")";
    if (ev.name == "aten::bmm" || ev.name == "aten::baddbmm") {
      skip(ev.name + " (batched)");
      continue;
    }
    if (ev.name == "aten::linear" &&
        parents.count({ev.thread, Span{ev.ts, ev.ts + ev.dur}}) > 0) {
      continue;  // its mm or addmm is counted
    }
    Json const* dims = nullptr;
    Json const* types = nullptr;
    Json const* strides = nullptr;
    if (ev.args) {
      if (auto d = ev.args->find("Input Dims"); d != ev.args->end() && d->is_array()) dims = &*d;
      if (auto t = ev.args->find("Input type"); t != ev.args->end() && t->is_array()) types = &*t;
      if (auto s = ev.args->find("Input Strides"); s != ev.args->end()) strides = &*s;
    }
    if (!dims || !types) {
      skip(ev.name + " without recorded shapes (profile with record_shapes=True)");
      continue;
    }
    std::size_t const a = ev.name == "aten::addmm" ? 1 : 0;  // addmm(C, A, B)
    auto shape_of = [&](std::size_t operand) {
      std::vector<std::int64_t> v;
      if (dims->size() <= operand || !(*dims)[operand].is_array()) {
        throw Error(where + ": Input Dims has no operand " + std::to_string(operand));
      }
      for (Json const& x : (*dims)[operand]) {
        if (!x.is_number_integer() || x.get<std::int64_t>() < 1 || x.get<std::int64_t>() > kMaxDim) {
          throw Error(where + ": Input Dims[" + std::to_string(operand) +
                      "]: expected sizes from 1 to " + std::to_string(kMaxDim) + ", got " +
                      (*dims)[operand].dump());
        }
        v.push_back(x.get<std::int64_t>());
      }
      return v;
    };
    if (types->size() <= a || !(*types)[a].is_string()) {
      throw Error(where + ": Input type has no operand " + std::to_string(a));
    }
    std::string const type = (*types)[a].get<std::string>();
    std::optional<Precision> const precision = precision_of(type);
    if (!precision) {
      skip(ev.name + " (" + type + ")");
      continue;
    }
    std::vector<std::int64_t> const x = shape_of(a);
    std::vector<std::int64_t> const w = shape_of(a + 1);
    Problem p;
    p.precision = *precision;
    std::string op = ev.name;
    if (ev.name == "aten::linear") {
      if (x.empty() || w.size() != 2) {
        throw Error(where + ": expected an input of at least 1 dimension and a 2-D weight");
      }
      std::int64_t m = 1;
      for (std::size_t i = 0; i + 1 < x.size(); ++i) m *= x[i];
      if (m > kMaxDim) throw Error(where + ": M of " + std::to_string(m) + " tokens is too large");
      p.m = m;
      p.k = x.back();
      p.n = w[0];
      if (w[1] != p.k) throw Error(where + ": the weight's K " + std::to_string(w[1]) +
                                   " is not the input's " + std::to_string(p.k));
      p.layout = Layout::kNT;
    } else {
      if (x.size() != 2 || w.size() != 2 || x[1] != w[0]) {
        throw Error(where + ": expected 2-D operands M×K and K×N");
      }
      p.m = x[0];
      p.k = x[1];
      p.n = w[1];
      std::optional<bool> const ta = transposed(strides, a);
      std::optional<bool> const tb = transposed(strides, a + 1);
      bool const in_linear = enclosing_linear(ev).has_value();
      bool const t_a = ta.value_or(false);
      bool const t_b = tb.value_or(in_linear);
      p.layout = t_a ? (t_b ? Layout::kTT : Layout::kTN) : (t_b ? Layout::kNT : Layout::kNN);
      if (in_linear) op = "aten::linear";
    }
    std::string const key = p.describe();
    auto const [it, fresh] = index.try_emplace(key, out.gemms.size());
    if (fresh) out.gemms.push_back({p, 0, 0.0, op});
    ++out.gemms[it->second].calls;
    out.gemms[it->second].duration_us += ev.dur;
  }
  for (std::string const& why : skipped_order) out.skipped.emplace_back(why, skipped[why]);
  return out;
}

}  // namespace gemmtune
