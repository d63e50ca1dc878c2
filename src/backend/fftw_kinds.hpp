// volfft's real-to-real kinds and FFTW's r2r kinds, one table for both directions: the backend
// plans AxisKind as FFTW kinds, the FFTW-MPI drop-in reads FFTW kinds as AxisKind.
#pragma once

#include <fftw3.h>

#include "volfft/options.hpp"

namespace volfft::backend {

struct FftwKind {
  AxisKind kind;
  fftw_r2r_kind fftw;
};

/// DCT-I..IV are REDFT00/10/01/11, DST-I..IV RODFT00/10/01/11 (unnormalised, as volfft's).
inline constexpr FftwKind kFftwKinds[] = {
    {AxisKind::dct1, FFTW_REDFT00}, {AxisKind::dct2, FFTW_REDFT10}, {AxisKind::dct3, FFTW_REDFT01},
    {AxisKind::dct4, FFTW_REDFT11}, {AxisKind::dst1, FFTW_RODFT00}, {AxisKind::dst2, FFTW_RODFT10},
    {AxisKind::dst3, FFTW_RODFT01}, {AxisKind::dst4, FFTW_RODFT11},
};

/// The entry of `kind`, or nullptr (dft, r2c, none).
inline const FftwKind* fftw_kind_of(AxisKind kind) {
  for (const FftwKind& k : kFftwKinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

/// The entry of FFTW kind `fftw`, or nullptr (R2HC, HC2R, DHT: no volfft kind).
inline const FftwKind* axis_kind_of(int fftw) {
  for (const FftwKind& k : kFftwKinds)
    if (static_cast<int>(k.fftw) == fftw) return &k;
  return nullptr;
}

}  // namespace volfft::backend
