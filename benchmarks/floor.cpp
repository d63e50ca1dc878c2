#include "floor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

namespace bench {

double copy_bandwidth(MPI_Comm comm, std::size_t bytes_per_rank, int threads, int reps) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  // Touched before timing (first-touch places the pages; nothing is timed twice cold).
  std::unique_ptr<unsigned char[]> src(new unsigned char[bytes_per_rank]), dst(new unsigned char[bytes_per_rank]);
  std::memset(src.get(), 1, bytes_per_rank);
  std::memset(dst.get(), 0, bytes_per_rank);
  const int t = std::max(1, threads);
  auto copy = [&] {
    std::vector<std::thread> pool;
    const std::size_t part = (bytes_per_rank + static_cast<std::size_t>(t) - 1) / static_cast<std::size_t>(t);
    for (int k = 1; k < t; ++k) {
      const std::size_t lo = std::min(bytes_per_rank, part * static_cast<std::size_t>(k));
      const std::size_t n = std::min(part, bytes_per_rank - lo);
      pool.emplace_back([&, lo, n] { std::memcpy(dst.get() + lo, src.get() + lo, n); });
    }
    std::memcpy(dst.get(), src.get(), std::min(part, bytes_per_rank));
    for (auto& th : pool) th.join();
  };
  copy();  // warm-up
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    copy();
    double mine = MPI_Wtime() - t0, slowest = mine;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    best = std::min(best, slowest);
  }
  return 2.0 * static_cast<double>(bytes_per_rank) * size / best;
}

std::vector<FloorRow> floor_rows(const volfft::PlanDescription& plan, bool forward,
                                 const std::vector<std::string>& phase_names,
                                 const std::vector<double>& phase_seconds, double bandwidth) {
  // Elements of the whole array: N reals or complexes in; N' = N / n_last * (n_last / 2 + 1)
  // complexes after the r2c axis.
  double n = 1;
  for (auto e : plan.shape) n *= static_cast<double>(e);
  const double cb = static_cast<double>(plan.element_bytes), rb = cb / 2;
  const bool real = plan.kind == volfft::Kind::r2c;
  const double last = static_cast<double>(plan.shape.back());
  const double spectral = real ? n / last * (std::floor(last / 2) + 1) : n;
  // The complex array read and written once; the real side of the r2c/c2r phase instead of one
  // of them: the first forward FFT phase reads the reals, the last backward one writes them.
  const double fft_bytes = 2 * spectral * cb;
  const double real_fft_bytes = n * rb + spectral * cb;
  std::map<std::string, double> exchange_bytes;  // one copy of every message: read + write
  for (const auto& e : plan.exchanges) {
    double b = 0;
    for (const auto& m : e.messages) b += static_cast<double>(m.bytes);
    exchange_bytes[e.name] = 2 * b;
  }
  int fft_phases = 0, fft_seen = 0;
  for (const auto& name : phase_names) fft_phases += name.rfind("fft", 0) == 0;

  std::vector<FloorRow> rows;
  std::map<std::string, std::size_t> group_row;  // exchange name -> its row
  for (std::size_t k = 0; k < phase_names.size(); ++k) {
    const std::string& name = phase_names[k];
    const double s = phase_seconds[k];
    if (name.rfind("hidden_", 0) == 0) continue;  // under compute: already in the FFT phases
    std::string group;
    for (const char* prefix : {"pack_", "exchange_", "unpack_"})
      if (name.rfind(prefix, 0) == 0) group = name.substr(std::strlen(prefix));
    if (!group.empty()) {
      auto it = group_row.find(group);
      if (it == group_row.end()) {
        FloorRow row;
        row.phase = "pack+exchange+unpack " + group;
        row.bytes = exchange_bytes.count(group) ? exchange_bytes[group] : 0;
        group_row[group] = rows.size();
        rows.push_back(row);
        it = group_row.find(group);
      }
      rows[it->second].seconds += s;
      continue;
    }
    FloorRow row;
    row.phase = name;
    row.seconds = s;
    if (name.rfind("fft", 0) == 0) {
      const bool real_side = real && (forward ? fft_seen == 0 : fft_seen == fft_phases - 1);
      row.bytes = real_side ? real_fft_bytes : fft_bytes;
      ++fft_seen;
    } else if (name == "scale") {
      row.bytes = forward ? 2 * spectral * cb : (real ? 2 * n * rb : 2 * n * cb);
    }
    rows.push_back(row);
  }
  for (auto& row : rows) row.floor_seconds = bandwidth > 0 ? row.bytes / bandwidth : 0;
  return rows;
}

void print_floor(const std::vector<FloorRow>& forward, const std::vector<FloorRow>& backward) {
  auto line = [](const char* phase, double seconds, double bytes, double floor_seconds) {
    if (bytes > 0)
      std::printf("    %-30s %10.3f %10.1f %9.3f ms %8.0f%%\n", phase, seconds * 1e3, bytes * 1e-6,
                  floor_seconds * 1e3, seconds > 0 ? 100 * floor_seconds / seconds : 0.0);
    else
      std::printf("    %-30s %10.3f %10s %12s %9s\n", phase, seconds * 1e3, "-", "-", "-");
  };
  std::printf("    %-30s %10s %10s %12s %9s\n", "phase", "ms", "MB moved", "at copy bw", "fraction");
  for (const auto* rows : {&forward, &backward}) {
    std::printf("    %s\n", rows == &forward ? "forward" : "backward");
    FloorRow all{"all phases"};
    for (const auto& row : *rows) {
      line(row.phase.c_str(), row.seconds, row.bytes, row.floor_seconds);
      all.seconds += row.seconds, all.bytes += row.bytes, all.floor_seconds += row.floor_seconds;
    }
    line(all.phase.c_str(), all.seconds, all.bytes, all.floor_seconds);
  }
  std::printf("    (fraction: the time the bytes take at the copy bandwidth over the phase's time; every\n"
              "     phase's floor is one read and one write of what it transforms or moves)\n");
}

}  // namespace bench
