! Nonblocking collectives through `use mpi`, mixed with point-to-point requests and completed by
! MPI_WAITALL, an MPI_WAITANY loop, an MPI_TESTALL loop, an MPI_WAITSOME loop and MPI_WAIT, MPI_TEST;
! results, statuses and Fortran's 1-based indices are checked; prints PASS.
program fortran_nonblocking
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, errs, way, i, k, index, outcount, want
  integer :: req(9), indices(9), statuses(MPI_STATUS_SIZE, 9), status(MPI_STATUS_SIZE)
  ! Buffers of nonblocking calls: the compiler must not keep them in registers across the waits.
  integer, asynchronous :: a(4), ar(4), bc(4), rd(4), rsb(2), ag(256), counts(64), rsin(128), rs(1), token
  logical :: flag, done(9)

  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  counts = 1
  do way = 1, 5
    a = (/ (rank + i + way, i = 1, 4) /)
    bc = -1
    if (rank == 0) bc = (/ 2, 7, 1, way /)
    rsin = (/ (i + rank, i = 1, 128) /)
    token = -1
    call MPI_IRECV(token, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 9, MPI_COMM_WORLD, req(1), ierr)
    call MPI_IALLREDUCE(a, ar, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(2), ierr)
    call MPI_IBCAST(bc, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, req(3), ierr)
    call MPI_IREDUCE(a, rd, 4, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, req(4), ierr)
    call MPI_IREDUCE_SCATTER_BLOCK(rsin, rsb, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(5), ierr)
    call MPI_IREDUCE_SCATTER(rsin, rs, counts, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, req(6), ierr)
    call MPI_IALLGATHER(a, 1, MPI_INTEGER, ag, 1, MPI_INTEGER, MPI_COMM_WORLD, req(7), ierr)
    call MPI_IBARRIER(MPI_COMM_WORLD, req(8), ierr)
    call MPI_ISEND(rank, 1, MPI_INTEGER, mod(rank + 1, nprocs), 9, MPI_COMM_WORLD, req(9), ierr)
    statuses = -1
    select case (way)
    case (1)
      call MPI_WAITALL(9, req, statuses, ierr)
    case (2)
      done = .false.
      do k = 1, 9
        call MPI_WAITANY(9, req, index, status, ierr)
        if (index < 1 .or. index > 9) then
          errs = errs + 1
          exit
        end if
        if (done(index)) errs = errs + 1
        done(index) = .true.
        statuses(:, index) = status
      end do
    case (3)
      flag = .false.
      do while (.not. flag)
        call MPI_TESTALL(9, req, flag, statuses, ierr)
      end do
    case (4)
      k = 0
      do while (k < 9)
        call MPI_WAITSOME(9, req, outcount, indices, statuses, ierr)
        if (outcount == MPI_UNDEFINED) exit
        do i = 1, outcount
          if (indices(i) < 1 .or. indices(i) > 9) errs = errs + 1
          if (indices(i) == 1) status = statuses(:, i)
        end do
        k = k + outcount
      end do
      statuses(:, 1) = status
    case default
      do i = 1, 9
        if (mod(i, 2) == 0) then
          call MPI_WAIT(req(i), statuses(:, i), ierr)
        else
          flag = .false.
          do while (.not. flag)
            call MPI_TEST(req(i), flag, statuses(:, i), ierr)
          end do
        end if
      end do
    end select
    if (any(req /= MPI_REQUEST_NULL)) errs = errs + 1
    if (token /= mod(rank + nprocs - 1, nprocs)) errs = errs + 1
    if (statuses(MPI_SOURCE, 1) /= mod(rank + nprocs - 1, nprocs) .or. statuses(MPI_TAG, 1) /= 9) errs = errs + 1
    do i = 1, 4
      want = nprocs * (i + way) + nprocs * (nprocs - 1) / 2
      if (ar(i) /= want) errs = errs + 1
      if (rank == 0 .and. rd(i) /= nprocs - 1 + i + way) errs = errs + 1
    end do
    if (any(bc /= (/ 2, 7, 1, way /))) errs = errs + 1
    do i = 1, 2
      if (rsb(i) /= nprocs * (2 * rank + i) + nprocs * (nprocs - 1) / 2) errs = errs + 1
    end do
    if (rs(1) /= rank + 1) errs = errs + 1
    do i = 1, nprocs
      if (ag(i) /= i + way) errs = errs + 1
    end do
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', 'PASS fortran_nonblocking'
  if (rank == 0 .and. errs /= 0) print '(a,i0)', 'FAIL fortran_nonblocking: ', errs
  call MPI_FINALIZE(ierr)
  if (errs /= 0) stop 1
end program fortran_nonblocking
