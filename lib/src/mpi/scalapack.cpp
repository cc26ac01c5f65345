// ScaLAPACK/BLACS/PBLAS wrappers: grids, block-cyclic matrices, p?gesv/p?posv with errors
// the ranks agree on, the distributed HPL residual, and what the MPI stack reports.
#include "solvebench/scalapack.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <type_traits>

#include "solvebench/matrix.hpp"
#include "solvebench/residual.hpp"

// ScaLAPACK ships no C header. BLACS's C interface and PBLAS are C; the ScaLAPACK drivers
// and auxiliaries are Fortran (gfortran), whose CHARACTER arguments take a hidden length
// at the end of the argument list (size_t since gfortran 8), passed here explicitly.
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int not_done);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);

int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* context, const int* lld, int* info);

void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             double* b, const int* ib, const int* jb, const int* descb, int* info);
void psgesv_(const int* n, const int* nrhs, float* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             float* b, const int* ib, const int* jb, const int* descb, int* info);
void pdposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* ia, const int* ja,
             const int* desca, double* b, const int* ib, const int* jb, const int* descb, int* info,
             std::size_t uplo_len);
void psposv_(const char* uplo, const int* n, const int* nrhs, float* a, const int* ia, const int* ja,
             const int* desca, float* b, const int* ib, const int* jb, const int* descb, int* info,
             std::size_t uplo_len);
double pdlange_(const char* norm, const int* m, const int* n, const double* a, const int* ia, const int* ja,
                const int* desca, double* work, std::size_t norm_len);
// PBLAS (C): no hidden lengths.
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib,
             const int* jb, const int* descb, const double* beta, double* c, const int* ic, const int* jc,
             const int* descc);
}

namespace solvebench::scalapack {
namespace {

constexpr int one = 1;

index_t to_index(const std::string& what, std::int64_t v) {
  return static_cast<index_t>(checked_size(what, v, max_n));
}

std::string real_path(const char* path) {
  if (!path) return "";
  char* resolved = realpath(path, nullptr);
  if (!resolved) return path;
  std::string out = resolved;
  std::free(resolved);
  return out;
}

std::string library_of(void* symbol) {
  Dl_info where{};
  if (symbol && dladdr(symbol, &where) != 0) return real_path(where.dli_fname);
  return "";
}

// Same grid, same square block, n x n A and n x nrhs B: what p?gesv/p?posv require.
template <class T>
void check_system(const char* routine, const distributed_matrix<T>& a, const distributed_matrix<T>& b) {
  const std::string r = routine;
  if (a.rows() != a.cols())
    throw invalid_argument(r + ": A must be square, got " + std::to_string(a.rows()) + " x " +
                           std::to_string(a.cols()));
  if (b.rows() != a.rows())
    throw invalid_argument(r + ": B has " + std::to_string(b.rows()) + " rows, A has " + std::to_string(a.rows()));
  if (a.block() != b.block())
    throw invalid_argument(r + ": A and B must share one block size, got " + std::to_string(a.block()) + " and " +
                           std::to_string(b.block()));
  if (a.descriptor()[1] != b.descriptor()[1]) throw invalid_argument(r + ": A and B live on different grids");
}

// Max |entry| of each global column (non-finite -> +Inf), over all ranks.
std::vector<double> column_inf_norms(MPI_Comm comm, const distributed_matrix<double>& m) {
  std::vector<double> norms(static_cast<std::size_t>(m.cols()), 0.0);
  for (std::int64_t j = 0; j < m.local_cols(); ++j) {
    double& norm = norms[static_cast<std::size_t>(m.global_col(j))];
    for (std::int64_t i = 0; i < m.local_rows(); ++i) {
      const double v = m.local(i, j);
      norm = std::isfinite(v) ? std::max(norm, std::fabs(v)) : std::numeric_limits<double>::infinity();
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, norms.data(), static_cast<int>(norms.size()), MPI_DOUBLE, MPI_MAX, comm);
  return norms;
}

distributed_matrix<double> widened(const process_grid& grid, const distributed_matrix<float>& m) {
  distributed_matrix<double> w(grid, m.rows(), m.cols(), m.block());
  for (std::int64_t j = 0; j < m.local_cols(); ++j)
    for (std::int64_t i = 0; i < m.local_rows(); ++i) w.local(i, j) = static_cast<double>(m.local(i, j));
  return w;
}

double scaled_residual_double(const process_grid& grid, const distributed_matrix<double>& a,
                              const distributed_matrix<double>& x, const distributed_matrix<double>& b, double eps) {
  const index_t n = to_index("residual: n", a.rows()), nrhs = to_index("residual: nrhs", b.cols());
  distributed_matrix<double> r = b;
  const double minus_one = -1.0, plus_one = 1.0;
  pdgemm_("N", "N", &n, &nrhs, &n, &minus_one, a.data(), &one, &one, a.descriptor(), x.data(), &one, &one,
          x.descriptor(), &plus_one, r.data(), &one, &one, r.descriptor());
  std::vector<double> work(static_cast<std::size_t>(std::max<std::int64_t>(1, a.local_rows())));
  const double a_norm = pdlange_("I", &n, &n, a.data(), &one, &one, a.descriptor(), work.data(), 1);
  const auto r_norms = column_inf_norms(grid.comm(), r), x_norms = column_inf_norms(grid.comm(), x),
             b_norms = column_inf_norms(grid.comm(), b);
  double worst = 0.0;
  for (std::size_t j = 0; j < r_norms.size(); ++j) {
    const double resid = solvebench::hpl_scaled_residual(r_norms[j], a_norm, x_norms[j], b_norms[j], n, eps);
    if (!(resid <= worst)) worst = resid;  // also propagates NaN/Inf
  }
  return worst;
}

}  // namespace

// ---- MPI session and grid ----------------------------------------------------------------

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

process_grid::process_grid(MPI_Comm comm) : process_grid(comm, [&] {
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

// ---- distributed matrices ------------------------------------------------------------------

template <class T>
distributed_matrix<T>::distributed_matrix(const process_grid& grid, std::int64_t rows, std::int64_t cols,
                                          index_t block)
    : rows_(rows), cols_(cols), block_(block) {
  const index_t m = to_index("distributed matrix rows", rows), n = to_index("distributed matrix columns", cols);
  if (block < 1) throw invalid_argument("block size must be positive, got " + std::to_string(block));
  const grid_shape shape = grid.shape();
  grid_rows_ = shape.rows;
  grid_cols_ = shape.cols;
  my_row_ = grid.my_row();
  my_col_ = grid.my_col();
  const int source = 0;
  local_rows_ = numroc_(&m, &block, &my_row_, &source, &grid_rows_);
  local_cols_ = numroc_(&n, &block, &my_col_, &source, &grid_cols_);
  const index_t lld = static_cast<index_t>(std::max<std::int64_t>(1, local_rows_));
  const int context = grid.context();
  index_t info = 0;
  descinit_(desc_.data(), &m, &n, &block, &block, &source, &source, &context, &lld, &info);
  if (info != 0) throw invalid_argument("descinit: argument " + std::to_string(-info) + " had an illegal value");
  // At least one element, so that a rank owning nothing still passes a valid pointer.
  data_.resize(std::max<std::size_t>(1, static_cast<std::size_t>(lld) * static_cast<std::size_t>(local_cols_)));
}

template <class T>
void distributed_matrix<T>::assign(const distributed_matrix& other) {
  if (other.desc_ != desc_ || other.data_.size() != data_.size())
    throw invalid_argument("distributed_matrix::assign: layout mismatch");
  std::copy(other.data_.begin(), other.data_.end(), data_.begin());
}

template <class T>
distributed_matrix<T> generate_matrix(const process_grid& grid, matrix_kind kind, std::int64_t n, index_t block,
                                      std::uint64_t seed) {
  distributed_matrix<T> a(grid, n, n, block);
  const std::uint64_t key = rng::matrix_key(seed);
  for (std::int64_t j = 0; j < a.local_cols(); ++j) {
    const std::int64_t gj = a.global_col(j);
    for (std::int64_t i = 0; i < a.local_rows(); ++i)
      a.local(i, j) = static_cast<T>(matrix_entry(kind, key, n, a.global_row(i), gj));
  }
  return a;
}

template <class T>
distributed_matrix<T> generate_rhs(const process_grid& grid, std::int64_t n, std::int64_t nrhs, index_t block,
                                   std::uint64_t seed) {
  distributed_matrix<T> b(grid, n, nrhs, block);
  const std::uint64_t key = rng::rhs_key(seed);
  for (std::int64_t j = 0; j < b.local_cols(); ++j) {
    const std::int64_t gj = b.global_col(j);
    for (std::int64_t i = 0; i < b.local_rows(); ++i) b.local(i, j) = static_cast<T>(rhs_entry(key, n, b.global_row(i), gj));
  }
  return b;
}

template <class T>
std::vector<index_t> pivots_for(const distributed_matrix<T>& a) {
  return std::vector<index_t>(static_cast<std::size_t>(a.local_rows() + a.block()));
}

// ---- solvers -------------------------------------------------------------------------------

template <class T>
std::string routine_name(const char* op) {
  return std::string(std::is_same_v<T, double> ? "pd" : "ps") + op;
}

template <class T>
index_t gesv_info(distributed_matrix<T>& a, std::vector<index_t>& ipiv, distributed_matrix<T>& b) {
  check_system("gesv", a, b);
  if (ipiv.size() < static_cast<std::size_t>(a.local_rows() + a.block()))
    throw invalid_argument("gesv: ipiv holds " + std::to_string(ipiv.size()) + " entries, needs LOCr(n) + nb = " +
                           std::to_string(a.local_rows() + a.block()) + " (use pivots_for)");
  const index_t n = static_cast<index_t>(a.rows()), nrhs = to_index("gesv: nrhs", b.cols());
  index_t info = 0;
  if constexpr (std::is_same_v<T, double>)
    pdgesv_(&n, &nrhs, a.data(), &one, &one, a.descriptor(), ipiv.data(), b.data(), &one, &one, b.descriptor(), &info);
  else
    psgesv_(&n, &nrhs, a.data(), &one, &one, a.descriptor(), ipiv.data(), b.data(), &one, &one, b.descriptor(), &info);
  return info;
}

template <class T>
index_t posv_info(distributed_matrix<T>& a, distributed_matrix<T>& b) {
  check_system("posv", a, b);
  const index_t n = static_cast<index_t>(a.rows()), nrhs = to_index("posv: nrhs", b.cols());
  index_t info = 0;
  if constexpr (std::is_same_v<T, double>)
    pdposv_("L", &n, &nrhs, a.data(), &one, &one, a.descriptor(), b.data(), &one, &one, b.descriptor(), &info, 1);
  else
    psposv_("L", &n, &nrhs, a.data(), &one, &one, a.descriptor(), b.data(), &one, &one, b.descriptor(), &info, 1);
  return info;
}

void throw_on_grid_info(const process_grid& grid, const std::string& routine, index_t local_info,
                        factorization kind) {
  // MAX of {|most negative INFO|, -(smallest positive INFO)}: one collective for both.
  int agreed[2] = {local_info < 0 ? -local_info : 0, local_info > 0 ? -local_info : -INT_MAX};
  MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT, MPI_MAX, grid.comm());
  const index_t info = agreed[0] > 0 ? -agreed[0] : (agreed[1] != -INT_MAX ? -agreed[1] : 0);
  throw_on_info(routine, info, kind);
}

template <class T>
void gesv(const process_grid& grid, distributed_matrix<T>& a, std::vector<index_t>& ipiv, distributed_matrix<T>& b) {
  throw_on_grid_info(grid, routine_name<T>("gesv"), gesv_info(a, ipiv, b), factorization::lu);
}

template <class T>
void posv(const process_grid& grid, distributed_matrix<T>& a, distributed_matrix<T>& b) {
  throw_on_grid_info(grid, routine_name<T>("posv"), posv_info(a, b), factorization::cholesky);
}

template <class T>
double hpl_scaled_residual(const process_grid& grid, const distributed_matrix<T>& a, const distributed_matrix<T>& x,
                           const distributed_matrix<T>& b) {
  check_system("hpl_scaled_residual", a, b);
  if (x.rows() != b.rows() || x.cols() != b.cols() || x.block() != b.block())
    throw invalid_argument("hpl_scaled_residual: X must have the shape and blocking of B");
  if constexpr (std::is_same_v<T, double>)
    return scaled_residual_double(grid, a, x, b, unit_roundoff<T>());
  else
    return scaled_residual_double(grid, widened(grid, a), widened(grid, x), widened(grid, b), unit_roundoff<T>());
}

// ---- agreement between ranks ---------------------------------------------------------------

void throw_if_any_rank_failed(MPI_Comm comm, const std::exception_ptr& local_failure) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = local_failure ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;

  int is_invalid_argument = 0;
  std::string message;
  if (rank == first) {
    try {
      std::rethrow_exception(local_failure);
    } catch (const invalid_argument& e) {
      is_invalid_argument = 1;
      message = e.what();
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown exception";
    }
  }
  int length = static_cast<int>(message.size());
  MPI_Bcast(&is_invalid_argument, 1, MPI_INT, first, comm);
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first, comm);
  const std::string text = "rank " + std::to_string(first) + ": " + message;
  if (is_invalid_argument) throw invalid_argument(text);
  throw error(text);
}

double max_over_ranks(MPI_Comm comm, double seconds) {
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

void require_node_memory(MPI_Comm comm, std::uint64_t local_bytes) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  std::uint64_t node_bytes = local_bytes;
  MPI_Allreduce(MPI_IN_PLACE, &node_bytes, 1, MPI_UINT64_T, MPI_SUM, node);
  MPI_Comm_free(&node);
  const std::uint64_t available = host_memory_available_bytes();

  // The first rank whose node is short tells everyone its numbers, so all throw alike.
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = available != 0 && node_bytes > available ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  std::uint64_t numbers[2] = {node_bytes, available};
  MPI_Bcast(numbers, 2, MPI_UINT64_T, first, comm);
  throw out_of_memory("host (the node of rank " + std::to_string(first) + ", all its ranks together)", numbers[0],
                      numbers[1]);
}

runtime_info mpi_runtime_info(MPI_Comm comm) {
  runtime_info info;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  info.mpi_library.assign(version, static_cast<std::size_t>(std::max(0, length)));
  info.mpi_library = info.mpi_library.substr(0, info.mpi_library.find('\n'));
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  info.mpi_standard = std::to_string(major) + "." + std::to_string(minor);
  info.scalapack_library = library_of(reinterpret_cast<void*>(&pdgesv_));
  info.blas_library = library_of(dlsym(RTLD_DEFAULT, "dgemm_"));

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int name_length = 0;
  MPI_Get_processor_name(name, &name_length);
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
  std::vector<std::string> order;
  std::map<std::string, int> ranks_on;
  for (int r = 0; r < size; ++r) {
    const std::string host(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
    if (ranks_on[host]++ == 0) order.push_back(host);
  }
  for (const auto& host : order)
    info.hosts += (info.hosts.empty() ? "" : ",") + host + ":" + std::to_string(ranks_on[host]);
  return info;
}

#define SB_INSTANTIATE(T)                                                                                  \
  template class distributed_matrix<T>;                                                                    \
  template distributed_matrix<T> generate_matrix(const process_grid&, matrix_kind, std::int64_t, index_t,  \
                                                 std::uint64_t);                                           \
  template distributed_matrix<T> generate_rhs(const process_grid&, std::int64_t, std::int64_t, index_t,    \
                                              std::uint64_t);                                              \
  template std::vector<index_t> pivots_for(const distributed_matrix<T>&);                                  \
  template std::string routine_name<T>(const char*);                                                       \
  template index_t gesv_info(distributed_matrix<T>&, std::vector<index_t>&, distributed_matrix<T>&);       \
  template index_t posv_info(distributed_matrix<T>&, distributed_matrix<T>&);                              \
  template void gesv(const process_grid&, distributed_matrix<T>&, std::vector<index_t>&,                   \
                     distributed_matrix<T>&);                                                              \
  template void posv(const process_grid&, distributed_matrix<T>&, distributed_matrix<T>&);                 \
  template double hpl_scaled_residual(const process_grid&, const distributed_matrix<T>&,                   \
                                      const distributed_matrix<T>&, const distributed_matrix<T>&);
SB_INSTANTIATE(float)
SB_INSTANTIATE(double)
#undef SB_INSTANTIATE

}  // namespace solvebench::scalapack
