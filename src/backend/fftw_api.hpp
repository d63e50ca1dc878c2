// FFTW's API for one precision (DoubleApi: fftw_, FloatApi: fftwf_), so that one template
// serves both: the FFTW backend's batches (fftw_batch.cpp), its columns (fftw_columns.hpp), and
// benchmarks/fftw_passes.cpp, which runs the columns on FFTW alone.
#pragma once

#include <fftw3.h>

namespace volfft::backend {

struct DoubleApi {
  using real = double;
  using complex = fftw_complex;
  using plan = fftw_plan;
  static plan dft(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in,
                  void* out, int sign, unsigned f) {
    return fftw_plan_guru64_dft(r, d, hr, hd, static_cast<complex*>(in),
                                static_cast<complex*>(out), sign, f);
  }
  static plan r2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in,
                  void* out, unsigned f) {
    return fftw_plan_guru64_dft_r2c(r, d, hr, hd, static_cast<real*>(in),
                                    static_cast<complex*>(out), f);
  }
  static plan c2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in,
                  void* out, unsigned f) {
    return fftw_plan_guru64_dft_c2r(r, d, hr, hd, static_cast<complex*>(in),
                                    static_cast<real*>(out), f);
  }
  static plan r2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in, void* out,
                  const fftw_r2r_kind* kinds, unsigned f) {
    return fftw_plan_guru64_r2r(r, d, hr, hd, static_cast<real*>(in), static_cast<real*>(out), kinds, f);
  }
  static void exec_dft(plan p, const void* in, void* out) {
    fftw_execute_dft(p, (complex*)in, static_cast<complex*>(out));
  }
  static void exec_r2r(plan p, const void* in, void* out) { fftw_execute_r2r(p, (real*)in, static_cast<real*>(out)); }
  static void exec_r2c(plan p, const void* in, void* out) {
    fftw_execute_dft_r2c(p, (real*)in, static_cast<complex*>(out));
  }
  static void exec_c2r(plan p, const void* in, void* out) {
    fftw_execute_dft_c2r(p, (complex*)in, static_cast<real*>(out));
  }
  static int alignment_of(const void* p) { return fftw_alignment_of((real*)p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static void init_threads() { fftw_init_threads(); }
  static int planner_threads() { return fftw_planner_nthreads(); }
  static void plan_with_threads(int n) { fftw_plan_with_nthreads(n); }
  static void forget_wisdom() { fftw_forget_wisdom(); }
  static char* sprint_plan(plan p) { return fftw_sprint_plan(p); }  // the caller frees it
};

struct FloatApi {
  using real = float;
  using complex = fftwf_complex;
  using plan = fftwf_plan;
  static plan dft(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in,
                  void* out, int sign, unsigned f) {
    return fftwf_plan_guru64_dft(r, d, hr, hd, static_cast<complex*>(in),
                                 static_cast<complex*>(out), sign, f);
  }
  static plan r2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in,
                  void* out, unsigned f) {
    return fftwf_plan_guru64_dft_r2c(r, d, hr, hd, static_cast<real*>(in),
                                     static_cast<complex*>(out), f);
  }
  static plan c2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in,
                  void* out, unsigned f) {
    return fftwf_plan_guru64_dft_c2r(r, d, hr, hd, static_cast<complex*>(in),
                                     static_cast<real*>(out), f);
  }
  static plan r2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in, void* out,
                  const fftw_r2r_kind* kinds, unsigned f) {
    return fftwf_plan_guru64_r2r(r, d, hr, hd, static_cast<real*>(in), static_cast<real*>(out), kinds, f);
  }
  static void exec_dft(plan p, const void* in, void* out) {
    fftwf_execute_dft(p, (complex*)in, static_cast<complex*>(out));
  }
  static void exec_r2r(plan p, const void* in, void* out) { fftwf_execute_r2r(p, (real*)in, static_cast<real*>(out)); }
  static void exec_r2c(plan p, const void* in, void* out) {
    fftwf_execute_dft_r2c(p, (real*)in, static_cast<complex*>(out));
  }
  static void exec_c2r(plan p, const void* in, void* out) {
    fftwf_execute_dft_c2r(p, (complex*)in, static_cast<real*>(out));
  }
  static int alignment_of(const void* p) { return fftwf_alignment_of((real*)p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static void init_threads() { fftwf_init_threads(); }
  static int planner_threads() { return fftwf_planner_nthreads(); }
  static void plan_with_threads(int n) { fftwf_plan_with_nthreads(n); }
  static void forget_wisdom() { fftwf_forget_wisdom(); }
  static char* sprint_plan(plan p) { return fftwf_sprint_plan(p); }  // the caller frees it
};

}  // namespace volfft::backend
