// Vendor candidate ids: cublas:default, cublaslt round trips, and hostile or malformed ids
// refused with the parameter and range named.
#include <gtest/gtest.h>

#include "src/core/error.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {

TEST(VendorKernel, CublasDefaultIsItsOwnCanonicalId) {
  KernelConfig const c = cublas_default();
  EXPECT_EQ(c.id(), "cublas:default");
  EXPECT_EQ(parse_kernel_id("cublas:default"), c);
  EXPECT_EQ(parse_kernel_id("cublas:"), c);
  EXPECT_TRUE(is_vendor(c));
  EXPECT_EQ(vendor_reject_reason(c), "");
  EXPECT_NE(vendor_reject_reason(parse_kernel_id("cublas:ALGO=1")), "");
  // "default" is a whole word after the colon, not a prefix.
  EXPECT_THROW(parse_kernel_id("cublas:defaults"), UsageError);
}

TEST(VendorKernel, CublasLtRoundTripsEveryField) {
  LtAlgoConfig a;
  a.algo = 66;
  a.tile = 20;
  a.stages = 35;
  a.split_k = 4;
  a.reduction = 2;
  a.swizzle = 1;
  a.custom = 3;
  a.inner = 7;
  a.cluster = 9;
  a.compute = 1;
  KernelConfig const c = to_kernel_config(a);
  EXPECT_EQ(c.id(),
            "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=4,RED=2,SWIZZLE=1,CUSTOM=3,INNER=7,"
            "CLUSTER=9,COMPUTE=1");
  EXPECT_TRUE(is_vendor(c));
  EXPECT_EQ(vendor_reject_reason(c), "");
  EXPECT_EQ(lt_algo_config(parse_kernel_id(c.id())), a);
}

TEST(VendorKernel, RefusesMalformedAndHostileIds) {
  struct Case {
    char const* id;
    char const* why;
  };
  std::string const good =
      "ALGO=6,TILE=20,STAGES=8,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0";
  Case const cases[] = {
      {"cublaslt:ALGO=6", "parameters"},
      {"cublaslt:TILE=20,ALGO=6,STAGES=8,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0",
       "ALGO, not TILE"},
      {"cublaslt:ALGO=5000,TILE=20,STAGES=8,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0",
       "ALGO=5000 is out of range"},
      {"cublaslt:ALGO=6,TILE=20,STAGES=8,SPLITK=0,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0",
       "SPLITK=0 is out of range"},
      {"cublaslt:ALGO=6,TILE=20,STAGES=8,SPLITK=2000,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0",
       "SPLITK=2000"},
      {"cublaslt:ALGO=6,TILE=20,STAGES=8,SPLITK=1,RED=0,SWIZZLE=2,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0",
       "SWIZZLE=2"},
      {"cublaslt:ALGO=6,TILE=20,STAGES=8,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=70000,CLUSTER=0,COMPUTE=0",
       "INNER=70000"},
      {"cublaslt:ALGO=6,TILE=20,STAGES=8,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=2",
       "COMPUTE=2"},
      {"cublaslt:ALGO=6,TILE=20,STAGES=8,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0,X=1",
       "parameters"},
      {"warptile:BM=64", "not a vendor family"},
  };
  for (Case const& c : cases) {
    std::string const why = vendor_reject_reason(parse_kernel_id(c.id));
    EXPECT_NE(why.find(c.why), std::string::npos) << c.id << " -> " << why;
    if (parse_kernel_id(c.id).family == kCublasLtFamily) {
      EXPECT_THROW(lt_algo_config(parse_kernel_id(c.id)), UsageError) << c.id;
    }
  }
  EXPECT_NO_THROW(lt_algo_config(parse_kernel_id("cublaslt:" + good)));
  // Values beyond int32 never get as far as the vendor check.
  EXPECT_THROW(parse_kernel_id("cublaslt:ALGO=99999999999"), UsageError);
  EXPECT_THROW(parse_kernel_id("cublaslt:ALGO=-1"), UsageError);
  EXPECT_FALSE(parse_lt_algo("cublaslt:ALGO=-1").has_value());
  EXPECT_FALSE(parse_lt_algo("cublas:default").has_value());
  EXPECT_FALSE(parse_lt_algo("").has_value());
  EXPECT_TRUE(parse_lt_algo("cublaslt:" + good).has_value());
}

TEST(VendorKernel, BestVendorFigureIsTheFasterOneTimed) {
  EXPECT_DOUBLE_EQ(best_vendor_ms(0.185, 0.180), 0.180);
  EXPECT_DOUBLE_EQ(best_vendor_ms(0.170, 0.180), 0.170);
  EXPECT_DOUBLE_EQ(best_vendor_ms(0.0, 0.180), 0.180);   // cuBLAS missing (or failed)
  EXPECT_DOUBLE_EQ(best_vendor_ms(0.185, -1.0), 0.185);  // cuBLASLt missing
  EXPECT_DOUBLE_EQ(best_vendor_ms(0.0, 0.0), 0.0);
}

}  // namespace gemmtune
