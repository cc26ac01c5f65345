// SB_HOST_DEVICE: functions the host compiler and nvcc both compile (generators, residual).
#pragma once

#if defined(__CUDACC__)
#define SB_HOST_DEVICE __host__ __device__
#else
#define SB_HOST_DEVICE
#endif
