// Injection: values from a user or an imported table never reach kernel source as text. Kernel
// ids with source syntax are refused by the id parser and by the table reader; well-formed ids
// with values outside a family's declared lists are refused by Family::canonical and
// reject_reason (what import, emit and the runtime call before compiling); and for every
// family, the NVRTC request built from any accepted config carries the embedded template
// unchanged plus name expressions whose template arguments are only integers and true/false.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/tuning_table.hpp"
#include "src/kernels/family.hpp"
#include "src/nvrtc/embedded_sources.hpp"

namespace gemmtune {
namespace {

std::vector<std::string> const kHostileIds = {
    "naive:BM=32,BN=8)",
    "naive:BM=32,BN=8>",
    "naive:BM=32,BN=8,\n#include \"/etc/passwd\"",
    "naive:BM=32,BN=8\n#include </etc/shadow>",
    "naive:BM=32);__global__ void x(){}//",
    "naive:BM=32,BN=8 -include /etc/passwd",
    "naive:BM=32,BN=8;--use_fast_math",
    "naive:BM=0x20,BN=8",
    "naive:BM=32e0,BN=8",
    "naive:BM=-32,BN=8",
    "naive:BM=+32,BN=8",
    "naive:BM=2147483648,BN=8",
    "naive:BM=99999999999999999999999999,BN=8",
    std::string("naive:BM=3\0" "2,BN=8", 17),
    "naive:BM=32,BN=8,",
    "naive:BM=32,,BN=8",
    "naive:BM=32,BN=8/*",
    "naive:BM=32,BN=`id`",
    "naive:BM=$(id),BN=8",
    "nai ve:BM=32,BN=8",
    "../naive:BM=32,BN=8",
    "naive/../../etc:BM=32",
    "naive:BM=32,B N=8",
    "naive:BM=32,BN=8\"",
    "naive:BM=32,BN=8\\",
    "naive:BM=\xef\xbc\x93\xef\xbc\x92,BN=8",
};

nlohmann::json table_with_kernel(std::string const& kernel) {
  return {{"format", "gemmtune-table"},
          {"version", 1},
          {"generated_at", "2026-01-01T00:00:00Z"},
          {"gemmtune_version", "0.1.0"},
          {"gpus", {{{"id", 0}, {"name", "NVIDIA H200"}, {"cc", "9.0"}, {"sm_count", 132}}}},
          {"entries",
           {{{"gpu", 0}, {"precision", "fp32"}, {"layout", "NN"}, {"m", 64}, {"n", 64}, {"k", 64},
             {"align", 16}, {"kernel", kernel}, {"time_ms", 1.0}, {"tflops", 0.000524288}}}},
          {"defaults", nlohmann::json::array()}};
}

}  // namespace

TEST(Injection, KernelIdsWithSourceSyntaxAreRefusedByTheParserAndTheTableReader) {
  int refused = 0;
  for (std::string const& id : kHostileIds) {
    EXPECT_THROW(parse_kernel_id(id), UsageError) << id;
    std::string const table = table_with_kernel(id).dump();
    EXPECT_THROW(parse_tuning_table(table, "t"), Error) << id;
    try {
      parse_tuning_table(table, "t");
    } catch (Error const& e) {
      EXPECT_NE(std::string(e.what()).find("entries[0].kernel"), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_EQ(refused, static_cast<int>(kHostileIds.size()));
  std::printf("[figures] injection: %zu hostile kernel ids refused by the id parser and the table reader\n",
              kHostileIds.size());
}

TEST(Injection, ValuesOutsideTheDeclaredListsAreRefusedBeforeCompiling) {
  Problem const p = parse_shape("256x256x256");
  DeviceLimits const limits = *arch_limits("sm_90");
  int refused = 0;
  for (Family const* f : all_families()) {
    std::vector<ParamSpec> const params = f->params();
    ASSERT_FALSE(params.empty()) << f->name();
    KernelConfig const good = f->enumerate().front();
    std::vector<KernelConfig> bad;
    for (ParamSpec const& ps : params) {
      for (std::int64_t v : {std::int64_t{0}, std::int64_t{3}, std::int64_t{33}, std::int64_t{1} << 20,
                             (std::int64_t{1} << 31) - 1}) {
        if (ps.accepts(v)) continue;
        KernelConfig c = good;
        c.set(ps.name, v);
        bad.push_back(c);
      }
    }
    KernelConfig extra = good;
    extra.set("ZZ", 1);
    bad.push_back(extra);
    // A missing parameter is refused unless it declares what its absence means.
    for (ParamSpec const& ps : params) {
      if (ps.absent) continue;
      KernelConfig missing = good;
      std::erase_if(missing.params, [&](auto const& kv) { return kv.first == ps.name; });
      bad.push_back(missing);
      break;
    }
    for (KernelConfig const& c : bad) {
      // The id is well-formed, so only the family can say no.
      ASSERT_NO_THROW(parse_kernel_id(c.id())) << c.id();
      EXPECT_THROW(f->canonical(c), UsageError) << c.id();
      EXPECT_NE(f->reject_reason(c, p, limits), "") << c.id();
      ++refused;
    }
  }
  std::printf("[figures] injection: %d well-formed ids with undeclared values refused by Family::canonical\n",
              refused);
}

TEST(Injection, CompileRequestsCarryOnlyTheTemplateAndIntegerTemplateArguments) {
  // gemmtune::name<1,2,true,...> — nothing else may appear in a name expression.
  std::regex const expression(R"(gemmtune::[a-z_][a-z0-9_:]*<(-?[0-9]+|true|false)(,\s?(-?[0-9]+|true|false))*>)");
  std::regex const option(R"(-[-A-Za-z0-9_=.]+)");
  int requests = 0;
  for (Family const* f : all_families()) {
    std::optional<std::string_view> const tmpl = embedded_source(f->template_file());
    ASSERT_TRUE(tmpl) << f->template_file();
    std::vector<KernelConfig> const space = f->enumerate();
    std::size_t const step = std::max<std::size_t>(1, space.size() / 300);
    for (Precision prec : kAllPrecisions) {
      if (!f->supports(prec)) continue;
      for (Layout layout : kAllLayouts) {
        Problem const p = parse_shape("1000x1000x1000", prec, layout);
        for (std::size_t i = 0; i < space.size(); i += step) {
          KernelConfig const cfg = f->canonical(space[i]);
          CompileRequest const r = f->compile_request(cfg, p, f->min_arch() >= 90 ? "sm_90a" : "sm_90");
          ++requests;
          EXPECT_EQ(r.source, *tmpl) << cfg.id() << ": the source is not the embedded template";
          ASSERT_FALSE(r.name_expressions.empty()) << cfg.id();
          for (std::string const& e : r.name_expressions) {
            EXPECT_TRUE(std::regex_match(e, expression)) << cfg.id() << " → " << e;
          }
          for (std::string const& o : r.extra_options) {
            EXPECT_TRUE(std::regex_match(o, option)) << cfg.id() << " option " << o;
          }
        }
      }
    }
  }
  EXPECT_GT(requests, 100);
  std::printf("[figures] injection: %d compile requests over every family checked\n", requests);
}

}  // namespace gemmtune
