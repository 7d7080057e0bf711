// Argument parsing of the runtime-timing benchmark.
#include "bench/runtime_timing_options.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace gemmtune::bench {
namespace {

template <typename T>
T number(std::string const& flag, std::string const& text, T lowest) {
  T value{};
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < lowest) {
    throw std::invalid_argument(flag + ": expected a number ≥ " + std::to_string(lowest) +
                                ", got '" + text + "'");
  }
  return value;
}

/// Splits "a,b,c"; empty items are dropped.
std::vector<std::string> split_list(std::string const& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t const comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace

TimingSpec timing_spec(RuntimeTimingOptions const& options, TimingSpec base) {
  if (options.warmup_ms) base.warmup_ms = *options.warmup_ms;
  if (options.target_ms) base.target_ms = *options.target_ms;
  if (options.repeats) base.repeats = *options.repeats;
  base.early_stop_ms = 0.0;  // both paths are timed in full
  return base;
}

RuntimeTimingOptions parse_runtime_timing_args(std::vector<std::string> const& args) {
  RuntimeTimingOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string const& a = args[i];
    auto value = [&]() -> std::string const& {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    try {
      if (a == "-h" || a == "--help") {
        o.help = true;
      } else if (a == "--precision") {
        for (auto const& p : split_list(value())) o.precisions.push_back(parse_precision(p));
      } else if (a == "--layout") {
        for (auto const& l : split_list(value())) o.layouts.push_back(parse_layout(l));
      } else if (a == "--shape") {
        for (auto const& s : split_list(value())) o.shapes.push_back(parse_shape(s).shape());
      } else if (a == "--rounds") {
        o.rounds = number<int>(a, value(), 1);
      } else if (a == "--overhead-calls") {
        o.overhead_calls = number<int>(a, value(), 1);
      } else if (a == "--settle-ms") {
        o.settle_ms = number<double>(a, value(), 0.0);
      } else if (a == "--warmup-ms") {
        o.warmup_ms = number<double>(a, value(), 0.0);
      } else if (a == "--target-ms") {
        o.target_ms = number<double>(a, value(), 0.001);
      } else if (a == "--repeats") {
        o.repeats = number<int>(a, value(), 1);
      } else if (a == "--dry-run") {
        o.dry_run = true;
      } else if (a == "--cubin-cache") {
        o.cubin_cache = value();
      } else if (a == "--json-out") {
        o.json_out = value();
      } else if (a == "--markdown") {
        o.markdown_out = value();
      } else if (!a.empty() && a.front() == '-') {
        throw std::invalid_argument("unknown option " + a);
      } else if (o.table.empty()) {
        o.table = a;
      } else {
        throw std::invalid_argument("one table only; also got '" + a + "'");
      }
    } catch (std::invalid_argument const&) {
      throw;
    } catch (std::exception const& e) {  // the core parsers' UsageError
      throw std::invalid_argument(e.what());
    }
  }
  if (o.table.empty() && !o.help) throw std::invalid_argument("no tuning table given");
  return o;
}

std::string runtime_timing_usage() {
  return "usage: gemmtune_runtime_timing TABLE.json [options]\n"
         "Times each entry of the table for this GPU two ways, interleaved, on the same rotating\n"
         "buffers: the tuner's launch of the compiled kernel and gemmtune::Runtime::gemm().\n"
         "  --precision P[,P]   only these precisions (fp32, tf32, fp16, bf16)\n"
         "  --layout L[,L]      only these layouts (NN, NT, TN, TT)\n"
         "  --shape MxNxK[,..]  only these shapes\n"
         "  --rounds N          interleaved rounds per entry (default 9)\n"
         "  --overhead-calls N  gemm() calls per host-overhead sample (default 64)\n"
         "  --settle-ms MS      run each entry this long, untimed, before its rounds (default\n"
         "                      1000; 0 = none), so the board is at that GEMM's power state\n"
         "  --warmup-ms, --target-ms, --repeats   override the re-time's protocol (warm-up\n"
         "                      20 ms, 7 repeats of 25 ms), under which the table was timed\n"
         "  --cubin-cache DIR   cubin cache of both paths (default: the runtime's)\n"
         "  --dry-run           no GPU: compile and plan each entry for its table GPU's arch\n"
         "  --json-out FILE     write the results as JSON\n"
         "  --markdown FILE     write the results as a Markdown table\n"
         "Exit: 0 all selected entries timed on the tuned path, 1 some were not, 2 no usable GPU,\n"
         "3 bad arguments or table.\n";
}

bool selected(RuntimeTimingOptions const& options, TableEntry const& entry) {
  Problem const& p = entry.problem;
  auto has = [](auto const& list, auto const& v) {
    return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
  };
  return has(options.precisions, p.precision) && has(options.layouts, p.layout) &&
         has(options.shapes, p.shape());
}

}  // namespace gemmtune::bench
