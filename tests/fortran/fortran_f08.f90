! Every intercepted call once through `use mpi_f08` (MPI_Init and MPI_Finalize included), with
! ierror left out in some calls (the binding gets NULL) and passed in others, MPI_IN_PLACE in
! a few; checks the results and prints PASS. test_fortran_f08.sh checks in mcoll's INFO log that
! mcoll's f08 entry points ran each call.
program fortran_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nprocs, i, errs, cls
  integer :: x(4), y(4), blocks(64), out(64), counts(64), displs(64)
  integer(kind=MPI_ADDRESS_KIND) :: bdispls(2)
  integer :: nbcounts(2), nbin(2), nbout(2)
  type(MPI_Datatype) :: types(64), nbtypes(2)
  type(MPI_Comm) :: ring
  logical :: periods(1)
  integer :: dims(1)
  type(MPI_Request) :: reqs(8)
  ! Buffers of nonblocking calls: the compiler must not keep them in registers across the waits.
  integer, asynchronous :: nx, nag(64), na2a(64), ngv(64), nsc, nscan, nexscan, nar

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  do i = 1, nprocs
    counts(i) = 1
    displs(i) = i - 1
    types(i) = MPI_INTEGER
  end do

  ! The first seven
  x = rank + 1
  call MPI_Allreduce(x, y, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (any(y /= nprocs * (nprocs + 1) / 2)) errs = errs + 1
  call MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(x /= nprocs)) errs = errs + 1
  x = rank
  call MPI_Bcast(x, 4, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD)
  if (any(x /= nprocs - 1)) errs = errs + 1
  x = 1
  y = -1
  call MPI_Reduce(x, y, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. any(y /= nprocs)) errs = errs + 1
  blocks(1:nprocs) = 1
  call MPI_Reduce_scatter_block(blocks, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (y(1) /= nprocs) errs = errs + 1
  call MPI_Reduce_scatter(blocks, y, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (y(1) /= nprocs) errs = errs + 1
  call MPI_Allgather(rank, 1, MPI_INTEGER, out, 1, MPI_INTEGER, MPI_COMM_WORLD)
  if (any(out(1:nprocs) /= displs(1:nprocs))) errs = errs + 1
  call MPI_Barrier(MPI_COMM_WORLD)

  ! Blocks per peer: rank r's block to rank i is 100 r + i
  do i = 1, nprocs
    blocks(i) = 100 * rank + i - 1
  end do
  out = -1
  call MPI_Allgatherv(rank, 1, MPI_INTEGER, out, counts, displs, MPI_INTEGER, MPI_COMM_WORLD)
  if (any(out(1:nprocs) /= displs(1:nprocs))) errs = errs + 1
  call MPI_Alltoall(blocks, 1, MPI_INTEGER, out, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nprocs
    if (out(i) /= 100 * (i - 1) + rank) errs = errs + 1
  end do
  out = -1
  call MPI_Alltoallv(blocks, counts, displs, MPI_INTEGER, out, counts, displs, MPI_INTEGER, MPI_COMM_WORLD)
  do i = 1, nprocs
    if (out(i) /= 100 * (i - 1) + rank) errs = errs + 1
  end do
  out = -1
  call MPI_Alltoallw(blocks, counts, 4 * displs, types, out, counts, 4 * displs, types, MPI_COMM_WORLD)
  do i = 1, nprocs
    if (out(i) /= 100 * (i - 1) + rank) errs = errs + 1
  end do
  out = -1
  call MPI_Gather(rank, 1, MPI_INTEGER, out, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. any(out(1:nprocs) /= displs(1:nprocs))) errs = errs + 1
  out = -1
  if (rank == 0) out(1) = 0
  if (rank == 0) then
    call MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INTEGER, out, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
    if (any(out(1:nprocs) /= displs(1:nprocs))) errs = errs + 1
  else
    call MPI_Gatherv(rank, 1, MPI_INTEGER, out, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
  end if
  do i = 1, nprocs
    blocks(i) = 7 * (i - 1)
  end do
  x = -1
  call MPI_Scatter(blocks, 1, MPI_INTEGER, x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (x(1) /= 7 * rank) errs = errs + 1
  x = -1
  call MPI_Scatterv(blocks, counts, displs, MPI_INTEGER, x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. x(1) /= 7 * rank) errs = errs + 1

  ! Scans and the local reduction
  x = 1
  call MPI_Scan(x, y, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (any(y /= rank + 1)) errs = errs + 1
  x = 1
  y = -5
  call MPI_Exscan(MPI_IN_PLACE, x, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank > 0 .and. any(x /= rank)) errs = errs + 1
  x = 2
  y = 3
  call MPI_Reduce_local(x, y, 4, MPI_INTEGER, MPI_PROD)
  if (any(y /= 6)) errs = errs + 1

  ! The neighbourhood collectives on a periodic ring: in- and out-neighbours are rank - 1, rank + 1
  dims(1) = nprocs
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring)
  nbin(1) = mod(rank + nprocs - 1, nprocs)
  nbin(2) = mod(rank + 1, nprocs)
  nbcounts = 1
  bdispls(1) = 0
  bdispls(2) = 4
  nbtypes = MPI_INTEGER
  nbout = -1
  call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, nbout, 1, MPI_INTEGER, ring)
  if (any(nbout /= nbin)) errs = errs + 1
  nbout = -1
  call MPI_Neighbor_allgatherv(rank, 1, MPI_INTEGER, nbout, nbcounts, displs, MPI_INTEGER, ring)
  if (any(nbout /= nbin)) errs = errs + 1
  x(1:2) = rank
  nbout = -1
  call MPI_Neighbor_alltoall(x, 1, MPI_INTEGER, nbout, 1, MPI_INTEGER, ring, ierr)
  if (ierr /= MPI_SUCCESS .or. any(nbout /= nbin)) errs = errs + 1
  nbout = -1
  call MPI_Neighbor_alltoallv(x, nbcounts, displs, MPI_INTEGER, nbout, nbcounts, displs, MPI_INTEGER, ring)
  if (any(nbout /= nbin)) errs = errs + 1
  nbout = -1
  call MPI_Neighbor_alltoallw(x, nbcounts, bdispls, nbtypes, nbout, nbcounts, bdispls, nbtypes, ring)
  if (any(nbout /= nbin)) errs = errs + 1
  call MPI_Comm_free(ring)

  ! Nonblocking forms, completed in mcoll's f08 MPI_Waitall and MPI_Wait
  nx = rank + 1
  blocks(1:nprocs) = (/ (100 * rank + i - 1, i = 1, nprocs) /)
  nag = -1; na2a = -1; ngv = -1; nsc = -1; nscan = -1; nexscan = -1; nar = -1
  call MPI_Iallgatherv(nx, 1, MPI_INTEGER, nag, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, reqs(1))
  call MPI_Ialltoall(blocks, 1, MPI_INTEGER, na2a, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Igatherv(nx, 1, MPI_INTEGER, ngv, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(3))
  call MPI_Iscatter(blocks, 1, MPI_INTEGER, nsc, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(4))
  call MPI_Iscan(nx, nscan, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(5))
  call MPI_Iexscan(nx, nexscan, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(6))
  call MPI_Iallreduce(nx, nar, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(7))
  call MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE)
  call MPI_Wait(reqs(7), MPI_STATUS_IGNORE, ierr)
  do i = 1, nprocs
    if (nag(i) /= i .or. na2a(i) /= 100 * (i - 1) + rank) errs = errs + 1
    if (rank == 0 .and. ngv(i) /= i) errs = errs + 1
  end do
  if (nsc /= rank .or. nscan /= (rank + 1) * (rank + 2) / 2 .or. nar /= nprocs * (nprocs + 1) / 2) errs = errs + 1
  if (rank > 0 .and. nexscan /= rank * (rank + 1) / 2) errs = errs + 1

  ! A bad argument comes back in ierror (MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Gather(x, -1, MPI_INTEGER, y, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_COUNT) errs = errs + 1

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (errs == 0) then
      print '(a)', 'PASS fortran_f08'
    else
      print '(a,i0,a)', 'FAIL fortran_f08: ', errs, ' check(s) failed'
    end if
  end if
  call MPI_Finalize()
  if (errs /= 0) stop 1
end program fortran_f08
