// The MPI session (MPI and BLACS lifetimes) and the BLACS process grid.
#include <cmath>
#include <utility>

#include "scalapack_calls.hpp"

namespace solvebench::scalapack {

using detail::one;
using detail::to_index;

mpi_session::mpi_session(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(&argc, &argv);
    owns_mpi_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  int me = 0, procs = 0;
  Cblacs_pinfo(&me, &procs);  // BLACS over MPI_COMM_WORLD, before any grid
}

mpi_session::~mpi_session() {
  if (!owns_mpi_) return;
  Cblacs_exit(1);  // free BLACS' own state; 1: MPI stays up for the MPI_Finalize below
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

grid_shape near_square_grid(int ranks) {
  if (ranks < 1) throw invalid_argument("a process grid needs at least one rank, got " + std::to_string(ranks));
  int rows = static_cast<int>(std::sqrt(static_cast<double>(ranks)));
  while (rows > 1 && ranks % rows != 0) --rows;
  return {rows, ranks / rows};
}

process_grid::process_grid(MPI_Comm comm)
    : process_grid(comm, [&] {
        int size = 0;
        MPI_Comm_size(comm, &size);
        return near_square_grid(size);
      }()) {}

process_grid::process_grid(MPI_Comm comm, grid_shape shape) : shape_(shape) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (shape.rows < 1 || shape.cols < 1 || shape.rows * shape.cols != size)
    throw invalid_argument("a " + std::to_string(shape.rows) + "x" + std::to_string(shape.cols) +
                           " process grid does not match the " + std::to_string(size) + " ranks of the communicator");
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  system_handle_ = Csys2blacs_handle(comm_);
  context_ = system_handle_;
  Cblacs_gridinit(&context_, "Row", shape.rows, shape.cols);
  int rows = 0, cols = 0;
  Cblacs_gridinfo(context_, &rows, &cols, &my_row_, &my_col_);
}

process_grid::~process_grid() { release(); }

process_grid::process_grid(process_grid&& other) noexcept
    : comm_(std::exchange(other.comm_, MPI_COMM_NULL)),
      system_handle_(std::exchange(other.system_handle_, -1)),
      context_(std::exchange(other.context_, -1)),
      shape_(other.shape_),
      my_row_(other.my_row_),
      my_col_(other.my_col_),
      rank_(other.rank_) {}

process_grid& process_grid::operator=(process_grid&& other) noexcept {
  if (this != &other) {
    release();
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    system_handle_ = std::exchange(other.system_handle_, -1);
    context_ = std::exchange(other.context_, -1);
    shape_ = other.shape_;
    my_row_ = other.my_row_;
    my_col_ = other.my_col_;
    rank_ = other.rank_;
  }
  return *this;
}

void process_grid::release() noexcept {
  if (context_ >= 0) Cblacs_gridexit(context_);
  if (system_handle_ >= 0) Cfree_blacs_system_handle(system_handle_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  context_ = system_handle_ = -1;
}

}  // namespace solvebench::scalapack
