// probe_device(): what the worker's GPU is, and the versions that go into provenance.
#pragma once

#include "src/core/device_report.hpp"

namespace gemmtune {

/// Queries device 0 without keeping a context busy. Never throws: a machine without a driver
/// or GPU gives present = false and a one-line reason.
DeviceReport probe_device();

}  // namespace gemmtune
