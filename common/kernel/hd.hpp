// common/kernel/hd.hpp: one macro so that small helpers compile for the host (tests) and the device (kernels).
#pragma once

#if defined(__CUDACC__)
#define HG_HD __host__ __device__
#else
#define HG_HD
#endif
