! The intercepted collectives called from Fortran through `use mpi` (the first seven, and
! Gatherv, Alltoallv, Alltoallw, Scatter, Exscan): checks the results (MPI_IN_PLACE included),
! one bad argument with MPI_ERRORS_RETURN, and prints PASS.
program fortran_use_mpi
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, cls, errs
  integer :: ivec(4), iout(4), gathered(64), counts(64), block(2), displs(64), types(64), blocks(64)
  double precision :: dvec(3)
  integer, allocatable :: rsb_in(:), rs_in(:)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! Allreduce, out of place and in place
  ivec = rank + 1
  call MPI_Allreduce(ivec, iout, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(iout /= nprocs * (nprocs + 1) / 2)) errs = errs + 1
  dvec = dble(rank)
  call MPI_Allreduce(MPI_IN_PLACE, dvec, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(dvec /= dble(nprocs - 1))) errs = errs + 1

  ! Bcast from the last rank
  ivec = -1
  if (rank == nprocs - 1) ivec = (/ 5, 6, 7, 8 /)
  call MPI_Bcast(ivec, 4, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(ivec /= (/ 5, 6, 7, 8 /))) errs = errs + 1

  ! Reduce to rank 0, out of place and in place at the root
  ivec = rank
  iout = -7
  call MPI_Reduce(ivec, iout, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  if (rank == 0 .and. any(iout /= nprocs * (nprocs - 1) / 2)) errs = errs + 1
  if (rank /= 0 .and. any(iout /= -7)) errs = errs + 1
  ivec = rank + 1
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, ivec, 4, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
    if (any(ivec /= nprocs)) errs = errs + 1
  else
    call MPI_Reduce(ivec, iout, 4, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  end if
  if (ierr /= MPI_SUCCESS) errs = errs + 1

  ! Allgather
  gathered = -1
  call MPI_Allgather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nprocs
    if (gathered(i) /= i - 1) errs = errs + 1
  end do
  gathered = -1
  gathered(rank + 1) = 10 * rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nprocs
    if (gathered(i) /= 10 * (i - 1)) errs = errs + 1
  end do

  ! Reduce_scatter_block: block i of rank r holds r + i; this rank gets the sum of block rank+1
  allocate(rsb_in(2 * nprocs), rs_in(3 * nprocs))
  do i = 1, 2 * nprocs
    rsb_in(i) = rank + (i + 1) / 2
  end do
  call MPI_Reduce_scatter_block(rsb_in, block, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(block /= nprocs * (nprocs - 1) / 2 + nprocs * (rank + 1))) errs = errs + 1
  call MPI_Reduce_scatter_block(MPI_IN_PLACE, rsb_in, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(rsb_in(1:2) /= nprocs * (nprocs - 1) / 2 + nprocs * (rank + 1))) errs = errs + 1

  ! Reduce_scatter with uneven counts: rank r gets 1 + mod(r, 2) elements
  do i = 1, nprocs
    counts(i) = 1 + mod(i - 1, 2)
  end do
  rs_in = 1
  call MPI_Reduce_scatter(rs_in, iout, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(iout(1:counts(rank + 1)) /= nprocs)) errs = errs + 1

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1

  ! Gatherv in place at the root, Alltoallv, Alltoallw (byte displacements), Scatter, Exscan
  do i = 1, nprocs
    counts(i) = 1
    displs(i) = i - 1
    types(i) = MPI_INTEGER
    blocks(i) = 100 * rank + i - 1
  end do
  gathered = -1
  if (rank == 0) then
    gathered(1) = 0
    call MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (any(gathered(1:nprocs) /= displs(1:nprocs))) errs = errs + 1
  else
    call MPI_Gatherv(rank, 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  gathered = -1
  call MPI_Alltoallv(blocks, counts, displs, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nprocs
    if (gathered(i) /= 100 * (i - 1) + rank) errs = errs + 1
  end do
  gathered = -1
  call MPI_Alltoallw(blocks, counts, 4 * displs, types, gathered, counts, 4 * displs, types, MPI_COMM_WORLD, ierr)
  do i = 1, nprocs
    if (gathered(i) /= 100 * (i - 1) + rank) errs = errs + 1
  end do
  ivec = -1
  call MPI_Scatter(blocks, 1, MPI_INTEGER, ivec, 1, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  if (ivec(1) /= 100 * (nprocs - 1) + rank) errs = errs + 1
  ivec = 2
  call MPI_Exscan(ivec, iout, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank > 0 .and. any(iout /= 2 * rank)) errs = errs + 1

  ! A bad count comes back as MPI_ERR_COUNT and leaves the buffers alone
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  iout = 42
  call MPI_Allreduce(ivec, iout, -1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, i)
  if (cls /= MPI_ERR_COUNT .or. any(iout /= 42)) errs = errs + 1
  call MPI_Bcast(ivec, 4, MPI_INTEGER, nprocs, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, i)
  if (cls /= MPI_ERR_ROOT) errs = errs + 1

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (errs == 0) then
      print '(a)', 'PASS fortran_use_mpi'
    else
      print '(a,i0,a)', 'FAIL fortran_use_mpi: ', errs, ' check(s) failed'
    end if
  end if
  deallocate(rsb_in, rs_in)
  call MPI_Finalize(ierr)
  if (errs /= 0) stop 1
end program fortran_use_mpi
