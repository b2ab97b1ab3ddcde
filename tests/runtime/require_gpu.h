// REQUIRE_GPU(): the first line of every test that needs a GPU (ctest label `gpu`): without one
// the test skips, saying why and where to run it.
#pragma once

#include "engine/runtime/cuda_driver.h"
#include "engine/runtime/cuda_runtime.h"

#include <gtest/gtest.h>

#define REQUIRE_GPU()                                                                                                    \
  if (!::kiln::runtime::cuda::isAvailable())                                                                             \
    GTEST_SKIP() << "no GPU here (" << ::kiln::runtime::CudaDriver::unavailableMessage() << "): run on the GPU machine " \
                 << "(ctest -L gpu, README 'On a GPU machine')";
