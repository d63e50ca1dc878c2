#include "kernels/copy_box.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/parallel_for.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#define VOLFFT_STREAM_STORES 1
#endif

namespace volfft::kernels {
namespace {

// Below this many elements a copy runs on the calling thread alone (32 Ki elements, 0.5 MiB of
// complex doubles: starting a parallel region costs a few microseconds).
constexpr Index kParallelElements = Index(1) << 15;

// Whether `threads` threads pay for themselves on a copy of `elements` elements.
bool threads_pay(int threads, Index elements) { return threads > 1 && elements >= kParallelElements; }

// Tile edge for transposes: 16 x 16 complex doubles = 4 KiB per side, both sides in L1.
template <class T>
constexpr Index tile_edge() {
  return sizeof(T) >= 16 ? 16 : 32;
}

// Elements in one cache line (64 bytes): the width of a transpose's strips (copy_box).
template <class T>
constexpr Index line_elements() {
  return sizeof(T) >= 64 ? 1 : Index(64 / sizeof(T));
}

// A row of n elements; the destination's stride is 1 except in interleaved (batch_layout
// inner) user arrays.
template <class T>
inline void copy_row(const T* src, Index src_stride, T* dst, Index dst_stride, Index n,
                     Scalar<T> scale) {
  if (dst_stride != 1 && scale == Scalar<T>(1)) {
    // A plain copy (a Reshape's, the interleaved user arrays of a batch) multiplies nothing.
    for (Index k = 0; k < n; ++k) dst[k * dst_stride] = src[k * src_stride];
  } else if (dst_stride != 1) {
    for (Index k = 0; k < n; ++k) dst[k * dst_stride] = src[k * src_stride] * scale;
  } else if (src_stride == 1 && scale == Scalar<T>(1)) {
    std::memcpy(static_cast<void*>(dst), static_cast<const void*>(src), sizeof(T) * n);
  } else if (src_stride == 1) {
    for (Index k = 0; k < n; ++k) dst[k] = src[k] * scale;
  } else if (scale == Scalar<T>(1)) {
    for (Index k = 0; k < n; ++k) dst[k] = src[k * src_stride];
  } else {
    for (Index k = 0; k < n; ++k) dst[k] = src[k * src_stride] * scale;
  }
}

// for k in [0, work): body(k), over `threads` threads when `parallel`, else on the calling
// thread alone (kernels/parallel_for.hpp). Outside the streaming stores' #if: every build copies
// with it.
template <class F>
void parallel_for(Index work, int threads, bool parallel, const F& body) {
  kernels::parallel_for(work, parallel ? threads : 1, [&](Index k, int) { body(k); });
}

#if defined(VOLFFT_STREAM_STORES)
// Streaming (non-temporal) stores: a box this large (bytes) is written around the caches. An
// ordinary store first reads the line it writes (three memory passes per copied byte, not two)
// and leaves the destination in cache, where it only evicts what else was there once the box
// exceeds the cache. Measured on this 2-core VM (one forward slab block of c2c 256^3, 128 x 128
// x 256 complex doubles, 67 MB, one process / two at once): the strip transpose 9.6 / 11.3-12.4
// ms with ordinary stores, 6.6 / 6.9-7.0 with the first streamed strips, one line wide (memcpy
// of the same bytes 6.7 / 6.8-7.3; the strips in copy_box are now 8 elements wide, see there);
// the backward block, square tiles 12.7 / 12.4-12.7, those strips streamed 10.1 / 9.5-9.8; rows
// of 4 KiB memcpy 6.1 / 5.5, streamed 4.3 / 4.1. A smaller box is left in cache for the stage
// that reads it next: at 64^3 (1 MiB blocks) streaming made the np 2 exchange slower (0.13-0.19 -> 0.20-0.22
// ms backward), at 128^3 (8 MiB blocks) a little faster (c2c backward copies 4.3-5.4 -> 3.6 ms).
// VOLFFT_TEST_STREAM_BYTES = B (> 0) streams every box of at least B bytes, so that
// the tests reach these paths on small arrays; users have no reason to set it.
Index stream_bytes() {
  static const Index bytes = [] {
    const char* env = std::getenv("VOLFFT_TEST_STREAM_BYTES");
    const long long b = env ? std::atoll(env) : 0;
    return b > 0 ? static_cast<Index>(b) : Index{4} << 20;
  }();
  return bytes;
}

// Bytes from `p` to the next cache line.
inline Index to_line(const void* p) {
  return static_cast<Index>((64 - reinterpret_cast<std::uintptr_t>(p) % 64) % 64);
}

// Writes 16 bytes at `to` (16-byte aligned) with one streaming store: 16 / sizeof(T) elements
// from[j * stride] times `scale` (when `scaled`). The loads are the may-alias intrinsics.
template <class T>
inline void stream16(T* to, const T* from, Index stride, Scalar<T> scale, bool scaled) {
  static_assert(sizeof(T) == 16 || sizeof(T) == 8 || sizeof(T) == 4, "an element of 4, 8 or 16 bytes");
  __m128i v;
  if constexpr (sizeof(T) == 16) {
    v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
  } else if constexpr (sizeof(T) == 8) {
    v = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(from)),
                           _mm_loadl_epi64(reinterpret_cast<const __m128i*>(from + stride)));
  } else {
    v = _mm_castps_si128(_mm_set_ps(from[3 * stride], from[2 * stride], from[stride], from[0]));
  }
  if (scaled) {
    if constexpr (std::is_same_v<Scalar<T>, double>)
      v = _mm_castpd_si128(_mm_mul_pd(_mm_castsi128_pd(v), _mm_set1_pd(scale)));
    else
      v = _mm_castps_si128(_mm_mul_ps(_mm_castsi128_ps(v), _mm_set1_ps(scale)));
  }
  _mm_stream_si128(reinterpret_cast<__m128i*>(to), v);
}

// One whole destination line (64 bytes at `to`, line-aligned) from from[j * stride].
template <class T>
inline void stream_line(T* to, const T* from, Index stride, Scalar<T> scale, bool scaled) {
  constexpr Index G = 16 / sizeof(T);
  for (Index g = 0; g < 64 / 16; ++g) stream16(to + g * G, from + g * G * stride, stride, scale, scaled);
}

// copy_row into a contiguous destination row, its whole cache lines streamed; the partial lines
// at either end with ordinary stores. Elements that never line up with a cache line (a
// complex<double> array 8 bytes off) are all copied the ordinary way.
template <class T>
void stream_row(const T* src, Index src_stride, T* dst, Index n, Scalar<T> scale) {
  const Index head_bytes = to_line(dst);
  if (head_bytes % static_cast<Index>(sizeof(T)) != 0) return copy_row(src, src_stride, dst, 1, n, scale);
  constexpr Index L = 64 / sizeof(T);
  const Index head = std::min(n, head_bytes / static_cast<Index>(sizeof(T)));
  copy_row(src, src_stride, dst, 1, head, scale);
  const bool scaled = scale != Scalar<T>(1);
  Index k = head;
  for (; k + L <= n; k += L) stream_line(dst + k, src + k * src_stride, src_stride, scale, scaled);
  copy_row(src + k * src_stride, src_stride, dst + k, 1, n - k, scale);
}

// for k in [0, work): body(k), over `threads` threads when `parallel`; then each thread fences
// its streamed stores (weakly ordered: without the fence another rank, or the caller after the
// region, could read the lines before they reach memory).
template <class F>
void streamed_for(Index work, int threads, bool parallel, const F& body) {
  (void)threads, (void)parallel;
#if defined(VOLFFT_HAVE_OPENMP)
  if (parallel) {  // not `if (parallel)` on the pragma: kernels/parallel_for.hpp says why
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static) nowait
      for (Index k = 0; k < work; ++k) body(k);
      _mm_sfence();
    }
    return;
  }
#endif
  for (Index k = 0; k < work; ++k) body(k);
  _mm_sfence();
}
#endif

}  // namespace

template <class T>
void copy_box(const T* src, const std::array<Index, 3>& ss, T* dst,
              const std::array<Index, 3>& ds, const std::array<Index, 3>& e,
              Scalar<T> scale, int threads) {
  if (e[0] <= 0 || e[1] <= 0 || e[2] <= 0) return;
  // Threads only pay for themselves on boxes that take longer than starting them.
  const bool parallel = threads_pay(threads, e[0] * e[1] * e[2]);
  // Axes of the destination from slowest to fastest; an extent-1 axis counts as the slowest
  // whatever its stride (it is no loop at all). Sorted as the fastest instead, it became the
  // "fastest axis" of a transpose one element wide: every 2-D array (its axis 0 has extent 1)
  // and every one-plane box was then copied element by element with scattered writes, 2-3x
  // slower than the strips below.
  // An insertion sort, stable: std::stable_sort takes a temporary buffer from the heap on every
  // call, even for three elements (found by tests/mpi/test_no_allocation.cpp).
  std::array<int, 3> ax{0, 1, 2};
  const auto key = [&](int a) { return e[a] > 1 ? ds[a] : std::numeric_limits<Index>::max(); };
  for (int i = 1; i < 3; ++i)
    for (int j = i; j > 0 && key(ax[j]) > key(ax[j - 1]); --j) std::swap(ax[j], ax[j - 1]);
  const int fd = ax[2];  // destination's fastest axis
  int fs = fd;           // source's fastest axis among those with extent > 1
  for (int a = 0; a < 3; ++a)
    if (e[a] > 1 && (e[fs] <= 1 || ss[a] < ss[fs])) fs = a;
#if defined(VOLFFT_STREAM_STORES)
  const bool stream = ds[fd] == 1 && e[0] * e[1] * e[2] * static_cast<Index>(sizeof(T)) >= stream_bytes();
#endif
  if (fs == fd || e[fs] <= 1 || ss[fd] == 1) {
    // Stream rows along the destination's fastest axis; the two outer axes are one loop so
    // that threads get even shares whichever of them is short.
    const int a0 = ax[0], a1 = ax[1];
    const Index rows = e[a0] * e[a1], n1 = e[a1];
#if defined(VOLFFT_STREAM_STORES)
    if (stream) {
      streamed_for(rows, threads, parallel, [&](Index r) {
        const Index x0 = r / n1, x1 = r % n1;
        stream_row(src + x0 * ss[a0] + x1 * ss[a1], ss[fd], dst + x0 * ds[a0] + x1 * ds[a1], e[fd], scale);
      });
      return;
    }
#endif
    parallel_for(rows, threads, parallel, [&](Index r) {
      const Index x0 = r / n1, x1 = r % n1;
      copy_row(src + x0 * ss[a0] + x1 * ss[a1], ss[fd], dst + x0 * ds[a0] + x1 * ds[a1], ds[fd], e[fd],
               scale);
    });
    return;
  }
  // Transpose between fs (contiguous in src) and fd (contiguous in dst), the third axis outside.
  const int t = 3 - fs - fd;
  const Index n_s = e[fs], n_d = e[fd];
  const Index src_d = ss[fd], src_s = ss[fs], dst_s = ds[fs], dst_d = ds[fd];
#if defined(VOLFFT_STREAM_STORES)
  // Streamed, in either direction, strips of whole destination lines, 8 elements wide where a
  // line holds fewer: every step writes whole lines, so the stores need no line read first and
  // leave no line half written (which costs streaming stores dearly), and reads from 8 source
  // rows at once. Measured on the blocks above (one process): complex doubles, 2 lines (8 rows)
  // forward 5.1 ms, backward 8.0, against 6.1 and 8.6 with one line (4 rows) and 7.7 and 9.3
  // with 4 (16 rows); complex floats, 1 line (8 rows) 2.8-3.0 and 5.3-5.4 ms, against 5.0-5.2
  // and 5.5-5.8 with 2 lines (16 rows).
  // That needs the rows a strip walks (along fs) to start at the same offset in their cache
  // lines (their stride whole lines); the rows of different xt may differ (r2c's 129-element
  // rows at 256^3), so each xt has its own head up to the first line boundary (strip 0, ordinary
  // stores, possibly empty), then the strips, the last one partial.
  constexpr Index line = 64 / static_cast<Index>(sizeof(T)), wide = std::max<Index>(line, 8);
  if (stream && dst_s % line == 0 && reinterpret_cast<std::uintptr_t>(dst) % sizeof(T) == 0) {
    const Index strips = 1 + (n_d + wide - 1) / wide;
    const bool scaled = scale != Scalar<T>(1);
    streamed_for(e[t] * strips, threads, parallel, [&](Index k) {
      const Index xt = k / strips, strip = k % strips;
      const Index head = std::min(n_d, to_line(dst + xt * ds[t]) / static_cast<Index>(sizeof(T)));
      const Index d0 = strip == 0 ? 0 : std::min(n_d, head + (strip - 1) * wide);
      const Index width = strip == 0 ? head : std::min(wide, n_d - d0);
      if (width == 0) return;
      const T* s_strip = src + xt * ss[t] + d0 * src_d;
      T* d_strip = dst + xt * ds[t] + d0;
      // The common case, its width known to the compiler: one loop for every strip, the width a
      // variable, was 10-20% slower (complex float forward block 3.2-3.5 against 2.8-2.9 ms).
      if (width == wide) {
        // The next strip's source rows (same xt; the thread's next task under the static
        // schedule) are prefetched while this strip's are read, spread over its steps: each
        // strip reads `wide` rows of n_s values, each on a page of its own at 256^3, where the
        // hardware's prefetcher starts again. c2c double 256^3 at np 2 (Zen 5 VM, alternating
        // jobs with the build before): the forward's copies (pack + exchange) 11.4-14.5 -> 8.7-8.8
        // ms and the backward's 15.8-18.3 -> 11.0-11.2 in three pairs (in two more, run in the
        // other order, the forward's 10.8-11.3 -> 11.9-13.5, the backward's 13.6-16.4 ->
        // 11.2-11.8); r2c double 256^3 forward 5.0-5.2 -> 4.2-4.5, backward 6.1-7.0 -> 4.9-5.0.
        const Index next_rows = src_s == 1 && strip + 1 < strips ? std::min(wide, n_d - (d0 + wide)) : 0;
        const Index row_lines = (n_s * static_cast<Index>(sizeof(T)) + 63) / 64;
        const Index per_step = (next_rows * row_lines + n_s - 1) / n_s;
        // The next line to prefetch: line `at` (64 bytes each) of the next strip's row `row`.
        Index row = 0, at = 0;
        for (Index xs = 0; xs < n_s; ++xs) {
          const T* from = s_strip + xs * src_s;
          T* to = d_strip + xs * dst_s;
          for (Index l = 0; l < wide; l += line) stream_line(to + l, from + l * src_d, src_d, scale, scaled);
          for (Index c = 0; c < per_step && row < next_rows; ++c) {
            _mm_prefetch(reinterpret_cast<const char*>(s_strip + (wide + row) * src_d) + at * 64, _MM_HINT_T0);
            if (++at == row_lines) at = 0, ++row;
          }
        }
        return;
      }
      // The head (no whole line) or the last strip: its whole lines, if any, streamed.
      const Index whole = strip == 0 ? 0 : (width / line) * line;
      for (Index xs = 0; xs < n_s; ++xs) {
        const T* from = s_strip + xs * src_s;
        T* to = d_strip + xs * dst_s;
        for (Index l = 0; l < whole; l += line) stream_line(to + l, from + l * src_d, src_d, scale, scaled);
        copy_row(from + whole * src_d, src_d, to + whole, 1, width - whole, scale);
      }
    });
    return;
  }
#endif
  if (dst_s <= src_d) {
    // The destination's rows lie closer together than the source's: strips one destination
    // cache line wide (L elements), each walking the whole source-contiguous axis, so every
    // step writes one whole destination line and reads from L source rows streamed along
    // (every source line used whole on consecutive steps). Measured on the forward slab
    // exchange block of c2c 256^3 (128 x 256 x 128 complex doubles, one thread, this 2-core VM):
    // 10.1-11.2 ms against 14.0-15.2 for the square tiles below (memcpy of the same bytes:
    // 5.3-6.3 ms), 384^3 35-36 against 49; in the np 2 bench the forward's pack + exchange
    // 32.6 -> 29.7 ms (c2c float: 24.6 -> 18.7 ms). A first try of streaming stores in these
    // strips took 21 ms; the streamed strips above (boxes of megabytes), aligned to the
    // destination's lines and 8 elements wide, take 5 ms.
    // The other direction (source rows the closer ones) keeps the square tiles: these strips
    // were 1.5-1.9x slower there, and 32-row x one-line tiles, 15% faster alone (10.9-11.1 ms
    // against 12.9-13.8), were no faster in the np 2 bench, where both ranks copy at once.
    constexpr Index L = line_elements<T>();
    const Index strips = (n_d + L - 1) / L, work = e[t] * strips;
    const bool unit = dst_d == 1 && scale == Scalar<T>(1);
    parallel_for(work, threads, parallel, [&](Index k) {
      const Index xt = k / strips, d0 = (k % strips) * L, width = std::min(L, n_d - d0);
      const T* s_strip = src + xt * ss[t] + d0 * src_d;
      T* d_strip = dst + xt * ds[t] + d0 * dst_d;
      if (width == L && unit) {  // the common case, its width known to the compiler
        for (Index xs = 0; xs < n_s; ++xs) {
          const T* from = s_strip + xs * src_s;
          T* to = d_strip + xs * dst_s;
          for (Index j = 0; j < L; ++j) to[j] = from[j * src_d];
        }
        return;
      }
      for (Index xs = 0; xs < n_s; ++xs) {
        const T* from = s_strip + xs * src_s;
        T* to = d_strip + xs * dst_s;
        if (scale == Scalar<T>(1)) {
          for (Index j = 0; j < width; ++j) to[j * dst_d] = from[j * src_d];
        } else {
          for (Index j = 0; j < width; ++j) to[j * dst_d] = from[j * src_d] * scale;
        }
      }
    });
    return;
  }
  // Square tiles (both sides in L1), one loop over (third-axis index, strip of B source rows):
  // each strip is a row of tiles.
  constexpr Index B = tile_edge<T>();
  const Index strips = (n_s + B - 1) / B, work = e[t] * strips;
  parallel_for(work, threads, parallel, [&](Index k) {
    const Index xt = k / strips, s0 = (k % strips) * B;
    const T* s_t = src + xt * ss[t];
    T* d_t = dst + xt * ds[t];
    const Index s1 = std::min(n_s, s0 + B);
    for (Index d0 = 0; d0 < n_d; d0 += B) {
      const Index d1 = std::min(n_d, d0 + B);
      for (Index xs = s0; xs < s1; ++xs) {
        const T* s_row = s_t + xs * src_s;
        T* d_row = d_t + xs * dst_s;
        if (scale == Scalar<T>(1)) {
          for (Index xd = d0; xd < d1; ++xd) d_row[xd * dst_d] = s_row[xd * src_d];
        } else {
          for (Index xd = d0; xd < d1; ++xd) d_row[xd * dst_d] = s_row[xd * src_d] * scale;
        }
      }
    }
  });
}

template void copy_box<std::complex<double>>(const std::complex<double>*,
                                             const std::array<Index, 3>&, std::complex<double>*,
                                             const std::array<Index, 3>&,
                                             const std::array<Index, 3>&, double, int);
template void copy_box<std::complex<float>>(const std::complex<float>*,
                                            const std::array<Index, 3>&, std::complex<float>*,
                                            const std::array<Index, 3>&,
                                            const std::array<Index, 3>&, float, int);
template void copy_box<double>(const double*, const std::array<Index, 3>&, double*, const std::array<Index, 3>&,
                               const std::array<Index, 3>&, double, int);
template void copy_box<float>(const float*, const std::array<Index, 3>&, float*, const std::array<Index, 3>&,
                              const std::array<Index, 3>&, float, int);

template <class T>
void copy_fields(const T* src, const std::array<Index, 3>& src_strides, Index sf, T* dst,
                 const std::array<Index, 3>& dst_strides, Index df, const std::array<Index, 3>& extent, Index fields,
                 Scalar<T> scale, int threads) {
  if (extent[0] <= 0 || extent[1] <= 0 || extent[2] <= 0 || fields <= 0) return;
  if (fields == 1 || (sf != 1 && df != 1)) {
    for (Index f = 0; f < fields; ++f)
      copy_box(src + f * sf, src_strides, dst + f * df, dst_strides, extent, scale, threads);
    return;
  }
  if (sf == 1 && df == 1) {
    // Both sides interleave the fields: every element is a vector of `fields` adjacent values.
    auto fastest = [&](const std::array<Index, 3>& st) {
      int f = -1;
      for (int a = 0; a < 3; ++a)
        if (extent[a] > 1 && (f < 0 || st[a] < st[f])) f = a;
      return f < 0 ? 2 : f;
    };
    const int fd = fastest(dst_strides), fs = fastest(src_strides);
    if (fd == fs && src_strides[fd] == fields && dst_strides[fd] == fields) {
      // The same fastest axis, contiguous on both sides: with the fields it is one longer row.
      std::array<Index, 3> e = extent, ss = src_strides, ds = dst_strides;
      e[fd] *= fields, ss[fd] = 1, ds[fd] = 1;
      copy_box(src, ss, dst, ds, e, scale, threads);
      return;
    }
    // Otherwise tiles between the two sides' fastest axes (one strip of one tile where they are
    // the same axis), the third axis outside, and in each element its vector of fields.
    const int third = fs != fd ? 3 - fs - fd : (fd == 0 ? 1 : 0), last = 3 - fd - third;
    const int tile = fs != fd ? fs : last;  // the axis along the strips
    constexpr Index B = tile_edge<T>();
    const Index n_s = extent[tile], n_d = extent[fd], strips = (n_s + B - 1) / B, work = extent[third] * strips;
    const bool parallel = threads_pay(threads, work * B * n_d * fields);
    parallel_for(work, threads, parallel, [&](Index k) {
      const Index xt = k / strips, s0 = (k % strips) * B, s1 = std::min(n_s, s0 + B);
      const T* s_t = src + xt * src_strides[third];
      T* d_t = dst + xt * dst_strides[third];
      for (Index d0 = 0; d0 < n_d; d0 += B) {
        const Index d1 = std::min(n_d, d0 + B);
        for (Index xs = s0; xs < s1; ++xs)
          for (Index xd = d0; xd < d1; ++xd) {
            const T* from = s_t + xs * src_strides[tile] + xd * src_strides[fd];
            T* to = d_t + xs * dst_strides[tile] + xd * dst_strides[fd];
            if (scale == Scalar<T>(1)) {
              for (Index f = 0; f < fields; ++f) to[f] = from[f];
            } else {
              for (Index f = 0; f < fields; ++f) to[f] = from[f] * scale;
            }
          }
      }
    });
    return;
  }
  // copy_box's method over four axes, the fields the fourth: rows along the destination's
  // fastest axis where the source's is the same, else tiles between the two fastest axes
  // (where both are the fields, between the fastest of the box's axes: vectors of fields).
  const std::array<Index, 4> e{extent[0], extent[1], extent[2], fields};
  const std::array<Index, 4> ss{src_strides[0], src_strides[1], src_strides[2], sf};
  const std::array<Index, 4> ds{dst_strides[0], dst_strides[1], dst_strides[2], df};
  std::array<int, 4> ax{0, 1, 2, 3};
  std::sort(ax.begin(), ax.end(), [&](int a, int b) {
    const Index sa = e[a] > 1 ? ds[a] : 0, sb = e[b] > 1 ? ds[b] : 0;
    return sa > sb;
  });
  const int fd = ax[3];
  int fs = fd;
  for (int a = 0; a < 4; ++a)
    if (e[a] > 1 && (e[fs] <= 1 || ss[a] < ss[fs])) fs = a;

  const bool parallel = threads_pay(threads, e[0] * e[1] * e[2] * e[3]);
  if (fs == fd || e[fs] <= 1 || ss[fd] == 1) {
    const int a0 = ax[0], a1 = ax[1], a2 = ax[2];
    const Index rows = e[a0] * e[a1] * e[a2];
    parallel_for(rows, threads, parallel, [&](Index r) {
      const Index x2 = r % e[a2], x1 = (r / e[a2]) % e[a1], x0 = r / (e[a2] * e[a1]);
      copy_row(src + x0 * ss[a0] + x1 * ss[a1] + x2 * ss[a2], ss[fd], dst + x0 * ds[a0] + x1 * ds[a1] + x2 * ds[a2],
               ds[fd], e[fd], scale);
    });
    return;
  }
  // Tiles of fs (contiguous in the source) x fd (contiguous in the destination); the two other
  // axes and the strips of source rows are one loop.
  std::array<int, 2> outer{};
  for (int a = 0, k = 0; a < 4; ++a)
    if (a != fs && a != fd) outer[static_cast<std::size_t>(k++)] = a;
  const int t0 = outer[0], t1 = outer[1];
  constexpr Index B = tile_edge<T>();
  const Index n_s = e[fs], n_d = e[fd];
  const Index strips = (n_s + B - 1) / B, work = e[t0] * e[t1] * strips;
  parallel_for(work, threads, parallel, [&](Index k) {
    const Index strip = k % strips, x1 = (k / strips) % e[t1], x0 = k / (strips * e[t1]);
    const T* s_t = src + x0 * ss[t0] + x1 * ss[t1];
    T* d_t = dst + x0 * ds[t0] + x1 * ds[t1];
    const Index s0 = strip * B, s1 = std::min(n_s, s0 + B);
    for (Index d0 = 0; d0 < n_d; d0 += B) {
      const Index d1 = std::min(n_d, d0 + B);
      for (Index xs = s0; xs < s1; ++xs) {
        const T* s_row = s_t + xs * ss[fs];
        T* d_row = d_t + xs * ds[fs];
        if (scale == Scalar<T>(1)) {
          for (Index xd = d0; xd < d1; ++xd) d_row[xd * ds[fd]] = s_row[xd * ss[fd]];
        } else {
          for (Index xd = d0; xd < d1; ++xd) d_row[xd * ds[fd]] = s_row[xd * ss[fd]] * scale;
        }
      }
    }
  });
}

#define VOLFFT_COPY_FIELDS(T)                                                                                     \
  template void copy_fields<T>(const T*, const std::array<Index, 3>&, Index, T*, const std::array<Index, 3>&, Index, \
                               const std::array<Index, 3>&, Index, Scalar<T>, int);
VOLFFT_COPY_FIELDS(std::complex<double>)
VOLFFT_COPY_FIELDS(std::complex<float>)
VOLFFT_COPY_FIELDS(double)
VOLFFT_COPY_FIELDS(float)
#undef VOLFFT_COPY_FIELDS

template <class T>
void stream_row(const T* src, Index src_stride, T* dst, Index n) {
#if defined(VOLFFT_STREAM_STORES)
  stream_row(src, src_stride, dst, n, Scalar<T>(1));
#else
  copy_row(src, src_stride, dst, 1, n, Scalar<T>(1));
#endif
}

void stream_fence() {
#if defined(VOLFFT_STREAM_STORES)
  _mm_sfence();
#endif
}

template void stream_row<std::complex<double>>(const std::complex<double>*, Index, std::complex<double>*, Index);
template void stream_row<std::complex<float>>(const std::complex<float>*, Index, std::complex<float>*, Index);

template <class Real>
void scale_array(Real* p, Index n, Real factor, int threads) {
  const bool parallel = threads > 1 && n >= 2 * kParallelElements;
  parallel_for(n, threads, parallel, [&](Index x) { p[x] *= factor; });
}

template void scale_array<double>(double*, Index, double, int);
template void scale_array<float>(float*, Index, float, int);

}  // namespace volfft::kernels
