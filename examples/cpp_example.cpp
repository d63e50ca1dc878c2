// A distributed 3-D complex FFT on a p0 x p1 process grid (pencils), forward and back.
#include <volfft/plan.hpp>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0, rank = 0, dims[2] = {0, 0};
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Dims_create(ranks, 2, dims);  // 4 ranks: 2 x 2
  double error = 0;
  {
    volfft::Options options;
    options.grid = {dims[0], dims[1]};
    volfft::Plan plan(MPI_COMM_WORLD, {64, 48, 32}, volfft::Kind::c2c, volfft::Precision::float64,
                      options);
    // This rank's block of the global array x[i][j][k], in C order: the box from input_box().
    const volfft::Box box = plan.input_box();
    std::vector<std::complex<double>> x, y(plan.output_count()), z(plan.input_count());
    for (auto i = box.lo[0]; i < box.hi[0]; ++i)
      for (auto j = box.lo[1]; j < box.hi[1]; ++j)
        for (auto k = box.lo[2]; k < box.hi[2]; ++k) x.emplace_back(double(i + j), double(k));

    plan.forward(x.data(), y.data());   // y: output_box() of the spectrum, in output_order()
    plan.backward(y.data(), z.data());  // scaled by 1/N: z == x
    for (std::size_t n = 0; n < x.size(); ++n) error = std::max(error, std::abs(z[n] - x[n]));
  }  // the plan is destroyed (collectively) before MPI_Finalize
  MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("grid %dx%d, round-trip error %.1e\n", dims[0], dims[1], error);
  MPI_Finalize();
  return error < 1e-12 ? 0 : 1;
}
