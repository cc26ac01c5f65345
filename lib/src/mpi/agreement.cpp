// What keeps the ranks in agreement: shared errors, the slowest rank's time, node memory.

#include "scalapack_calls.hpp"
#include "solvebench/matrix.hpp"

namespace solvebench::scalapack {

using detail::one;
using detail::to_index;

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

}  // namespace solvebench::scalapack
