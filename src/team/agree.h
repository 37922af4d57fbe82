/* Host agreements: how the ranks of a communicator settle something together. Every step of
 * team creation that can fail on one rank ends in one, so all ranks go on or give up together
 * (docs/choices.md). Each is one small collective over `comm`; when MPI itself fails, every
 * function answers "no" (0), which ends the step on every rank that sees it. */
#ifndef MCOLL_AGREE_H
#define MCOLL_AGREE_H

#include <mpi.h>
#include <stdint.h>

/* 1 when every rank passes ok != 0; 0 if any did not. */
int mcoll_team_agree(MPI_Comm comm, int ok);

/* -1 when every rank passes ok != 0; else the lowest rank that did not (INT_MAX: MPI failed),
 * so every rank can say which one to look at. */
int mcoll_agree_first_failure(MPI_Comm comm, int rank, int ok);

/* all[i] = the largest (smallest) mine[i] over the ranks, i < n. */
int mcoll_agree_max(MPI_Comm comm, const uint64_t *mine, uint64_t *all, int n);
int mcoll_agree_min(MPI_Comm comm, const uint64_t *mine, uint64_t *all, int n);

/* lo[i] and hi[i] = the smallest and largest mine[i] over the ranks, i < n <= 8, in one call. */
int mcoll_agree_range(MPI_Comm comm, const int64_t *mine, int64_t *lo, int64_t *hi, int n);

#endif /* MCOLL_AGREE_H */
