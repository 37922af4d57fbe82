! Persistent collectives through `use mpi` under Open MPI 4's names (MPIX_ALLREDUCE_INIT, ...),
! started with MPI_STARTALL and MPI_START, completed by MPI_WAITALL and MPI_WAIT, started again
! on new inputs, freed with MPI_REQUEST_FREE; the results are checked; prints PASS. (Built only
! where the MPI's persistent collectives are MPIX_ ones: tests/build.mk.)
program fortran_persistent
  use mpi
  implicit none
  integer, parameter :: ncalls = 6
  integer :: ierr, rank, nprocs, errs, round, i, root
  integer :: req(ncalls), counts(64), displs(64)
  ! Buffers of persistent calls: the compiler must not keep them in registers across the waits.
  integer, asynchronous :: x, ar, agv(64), gv(64), sc, a(64), s

  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  root = nprocs - 1
  do i = 1, nprocs
    counts(i) = 1
    displs(i) = i - 1
  end do
  call MPIX_ALLREDUCE_INIT(x, ar, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req(1), ierr)
  call MPIX_ALLGATHERV_INIT(x, 1, MPI_INTEGER, agv, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, &
                            req(2), ierr)
  call MPIX_GATHERV_INIT(x, 1, MPI_INTEGER, gv, counts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, MPI_INFO_NULL, &
                         req(3), ierr)
  call MPIX_SCAN_INIT(x, sc, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req(4), ierr)
  call MPIX_SCATTER_INIT(a, 1, MPI_INTEGER, s, 1, MPI_INTEGER, root, MPI_COMM_WORLD, MPI_INFO_NULL, req(5), ierr)
  call MPIX_BARRIER_INIT(MPI_COMM_WORLD, MPI_INFO_NULL, req(6), ierr)
  do round = 1, 3
    x = rank + round
    a = (/ (10 * i + round, i = 1, 64) /)
    ar = -1; agv = -1; gv = -1; sc = -1; s = -1
    if (round == 2) then
      do i = 1, ncalls
        call MPI_START(req(i), ierr)
        call MPI_WAIT(req(i), MPI_STATUS_IGNORE, ierr)
      end do
    else
      call MPI_STARTALL(ncalls, req, ierr)
      call MPI_WAITALL(ncalls, req, MPI_STATUSES_IGNORE, ierr)
    end if
    if (any(req == MPI_REQUEST_NULL)) errs = errs + 1
    if (ar /= nprocs * (nprocs - 1) / 2 + nprocs * round) errs = errs + 1
    do i = 1, nprocs
      if (agv(i) /= i - 1 + round) errs = errs + 1
      if (rank == root .and. gv(i) /= i - 1 + round) errs = errs + 1
    end do
    if (sc /= rank * (rank + 1) / 2 + (rank + 1) * round) errs = errs + 1
    if (s /= 10 * (rank + 1) + round) errs = errs + 1
  end do
  do i = 1, ncalls
    call MPI_REQUEST_FREE(req(i), ierr)
  end do
  if (any(req /= MPI_REQUEST_NULL)) errs = errs + 1
  call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', 'PASS fortran_persistent'
  if (rank == 0 .and. errs /= 0) print '(a,i0)', 'FAIL fortran_persistent: ', errs
  call MPI_FINALIZE(ierr)
  if (errs /= 0) stop 1
end program fortran_persistent
