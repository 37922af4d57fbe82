! The nonblocking collectives with a block per peer and the nonblocking scans through `use mpi`:
! MPI_IALLGATHERV, MPI_IALLTOALL, MPI_IALLTOALLV, MPI_IALLTOALLW, MPI_IGATHER, MPI_IGATHERV,
! MPI_ISCATTER, MPI_ISCATTERV, MPI_ISCAN, MPI_IEXSCAN, every root in turn, completed by
! MPI_WAITALL and an MPI_TESTALL loop; the results are checked; prints PASS.
program fortran_nonblocking_blocks
  use mpi
  implicit none
  integer, parameter :: ncalls = 10
  integer :: ierr, rank, nprocs, errs, way, i, root, isz
  integer :: req(ncalls), counts(64), displs(64), bdispls(64), types(64)
  ! Buffers of nonblocking calls: the compiler must not keep them in registers across the waits.
  integer, asynchronous :: x, a(64), agv(64), a2a(64), a2av(64), a2aw(64), g(64), gv(64), s, sv, sc, ex
  logical :: flag

  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_TYPE_SIZE(MPI_INTEGER, isz, ierr)
  do i = 1, nprocs
    counts(i) = 1
    displs(i) = i - 1
    bdispls(i) = (i - 1) * isz
    types(i) = MPI_INTEGER
  end do
  do way = 1, 2 * nprocs
    root = mod(way, nprocs)
    x = rank + way
    a = (/ (100 * rank + i - 1, i = 1, 64) /)
    if (rank == root) a(1:nprocs) = (/ (10 * i + way, i = 1, nprocs) /)
    agv = -1; a2a = -1; a2av = -1; a2aw = -1; g = -1; gv = -1; s = -1; sv = -1; sc = -1; ex = -1
    call MPI_IALLGATHERV(x, 1, MPI_INTEGER, agv, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, req(1), ierr)
    call MPI_IALLTOALL(a, 1, MPI_INTEGER, a2a, 1, MPI_INTEGER, MPI_COMM_WORLD, req(2), ierr)
    call MPI_IALLTOALLV(a, counts, displs, MPI_INTEGER, a2av, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, &
                        req(3), ierr)
    call MPI_IALLTOALLW(a, counts, bdispls, types, a2aw, counts, bdispls, types, MPI_COMM_WORLD, req(4), ierr)
    call MPI_IGATHER(x, 1, MPI_INTEGER, g, 1, MPI_INTEGER, root, MPI_COMM_WORLD, req(5), ierr)
    call MPI_IGATHERV(x, 1, MPI_INTEGER, gv, counts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, req(6), ierr)
    call MPI_ISCATTER(a, 1, MPI_INTEGER, s, 1, MPI_INTEGER, root, MPI_COMM_WORLD, req(7), ierr)
    call MPI_ISCATTERV(a, counts, displs, MPI_INTEGER, sv, 1, MPI_INTEGER, root, MPI_COMM_WORLD, req(8), ierr)
    call MPI_ISCAN(x, sc, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(9), ierr)
    call MPI_IEXSCAN(x, ex, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(10), ierr)
    if (mod(way, 2) == 0) then
      call MPI_WAITALL(ncalls, req, MPI_STATUSES_IGNORE, ierr)
    else
      flag = .false.
      do while (.not. flag)
        call MPI_TESTALL(ncalls, req, flag, MPI_STATUSES_IGNORE, ierr)
      end do
    end if
    if (any(req /= MPI_REQUEST_NULL)) errs = errs + 1
    do i = 1, nprocs
      if (agv(i) /= i - 1 + way) errs = errs + 1
      if (i - 1 /= mod(way, nprocs)) then
        if (a2a(i) /= 100 * (i - 1) + rank) errs = errs + 1
        if (a2av(i) /= 100 * (i - 1) + rank) errs = errs + 1
        if (a2aw(i) /= 100 * (i - 1) + rank) errs = errs + 1
      else
        if (a2a(i) /= 10 * (rank + 1) + way) errs = errs + 1
        if (a2av(i) /= a2a(i) .or. a2aw(i) /= a2a(i)) errs = errs + 1
      end if
      if (rank == root .and. (g(i) /= i - 1 + way .or. gv(i) /= i - 1 + way)) errs = errs + 1
    end do
    if (s /= 10 * (rank + 1) + way .or. sv /= s) errs = errs + 1
    if (sc /= (rank + 1) * rank / 2 + (rank + 1) * way) errs = errs + 1
    if (rank > 0 .and. ex /= rank * (rank - 1) / 2 + rank * way) errs = errs + 1
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', 'PASS fortran_nonblocking_blocks'
  if (rank == 0 .and. errs /= 0) print '(a,i0)', 'FAIL fortran_nonblocking_blocks: ', errs
  call MPI_FINALIZE(ierr)
  if (errs /= 0) stop 1
end program fortran_nonblocking_blocks
