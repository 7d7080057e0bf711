// The interrupt flag: set by SIGINT/SIGTERM through the installed handler, cleared on request.
#include "tuner/worker/interrupt.hpp"

#include <csignal>

#include <gtest/gtest.h>

namespace gemmtune {
namespace {

TEST(Interrupt, SignalSetsTheFlagAndClearResetsIt) {
  install_interrupt_handler();
  clear_interrupt();
  EXPECT_FALSE(interrupted());
  EXPECT_EQ(interrupt_signal(), 0);
  std::raise(SIGINT);
  EXPECT_TRUE(interrupted());
  EXPECT_EQ(interrupt_signal(), SIGINT);
  clear_interrupt();
  EXPECT_FALSE(interrupted());
  std::raise(SIGTERM);
  EXPECT_EQ(interrupt_signal(), SIGTERM);
  clear_interrupt();
}

}  // namespace
}  // namespace gemmtune
