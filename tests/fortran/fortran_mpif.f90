! The same entry points through mpif.h: Allreduce in and out of place, Bcast, Barrier, Alltoall,
! Scan and Reduce_local; prints PASS. (Every call of one routine passes arguments of one type and rank: without an explicit
! interface, gfortran insists on that.)
program fortran_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, errs, x, y, i
  integer :: a(3), s(64), r(64)

  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  x = rank
  call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (y /= nprocs - 1) errs = errs + 1
  y = 2
  call MPI_ALLREDUCE(MPI_IN_PLACE, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (y /= 2 * nprocs) errs = errs + 1
  a = 0
  if (rank == 0) a = (/ 3, 1, 4 /)
  call MPI_BCAST(a, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (any(a /= (/ 3, 1, 4 /))) errs = errs + 1
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  ! Alltoall: rank q's block to rank i is 100 q + i
  do i = 1, nprocs
    s(i) = 100 * rank + i - 1
  end do
  r = -1
  call MPI_ALLTOALL(s, 1, MPI_INTEGER, r, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nprocs
    if (r(i) /= 100 * (i - 1) + rank) errs = errs + 1
  end do
  x = 1
  call MPI_SCAN(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (y /= rank + 1) errs = errs + 1
  x = 4
  y = 5
  call MPI_REDUCE_LOCAL(x, y, 1, MPI_INTEGER, MPI_MAX, ierr)
  if (y /= 5 .or. ierr /= MPI_SUCCESS) errs = errs + 1
  call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', 'PASS fortran_mpif'
  if (rank == 0 .and. errs /= 0) print '(a)', 'FAIL fortran_mpif'
  call MPI_FINALIZE(ierr)
  if (errs /= 0) stop 1
end program fortran_mpif
