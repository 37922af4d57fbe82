/* A team: the ranks of one communicator in one NVLink domain (one node, or one NVLink clique
 * across nodes), one GPU each, with symmetric memory mapped by every rank and, when multicast is
 * in use, one multicast object bound to it. */
#ifndef MCOLL_TEAM_H
#define MCOLL_TEAM_H

#include <mpi.h>
#include <stddef.h>
#include "driver.h"
#include "launch.h"
#include "mcoll.h"
#include "nodes.h"
#include "vmm.h"
#include "watchdog.h"

/* Where this rank's part of the last mcoll_handle_allgather failed (MCOLL_SHARE_OK: it did not). */
typedef enum { MCOLL_SHARE_OK = 0, MCOLL_SHARE_EXPORT, MCOLL_SHARE_IMPORT, MCOLL_SHARE_EXCHANGE } mcoll_share_failure;

/* Symmetric memory: this rank's allocation and the unicast views of every rank's. */
typedef struct {
    size_t size;                                  /* bytes per rank (granularity multiple) */
    CUmemGenericAllocationHandle local;           /* this rank's cuMemCreate allocation */
    CUmemGenericAllocationHandle peers[MCOLL_MAX_RANKS]; /* imported handles (local at [rank]) */
    int imported[MCOLL_MAX_RANKS];                /* which peers' handles this rank holds */
    int mapped[MCOLL_MAX_RANKS];                  /* which slots are mapped */
    int have_local;                               /* `local` was created */
    CUdeviceptr base;                             /* reservation: rank i's memory at base + i * size */
    size_t reserved;                              /* bytes reserved at base */
} mcoll_symmetric;

/* The multicast object and this rank's view of it. */
typedef struct {
    int active;                                   /* bound and mapped: multimem may be used */
    size_t size;                                  /* bytes of the object (= symmetric size) */
    size_t granularity;                           /* CU_MULTICAST_GRANULARITY_MINIMUM */
    CUmemGenericAllocationHandle created;         /* rank 0: the handle cuMulticastCreate gave */
    CUmemGenericAllocationHandle handle;          /* every rank: the imported handle */
    int have_created, have_handle, device_added, bound, reserved, mapped;
    CUdeviceptr va;                               /* multicast address of the symmetric memory */
} mcoll_multicast;

/* Tests only (multimem_alias.c): every rank's symmetric memory mapped a second time, standing
 * in for the multicast mapping so that the multimem layer runs on GPUs without multicast. */
typedef struct {
    int active;                                   /* the kernels use it as mc_data / mc_signal */
    CUdeviceptr base;                             /* rank i's memory again at base + i * symm.size */
    size_t reserved;                              /* bytes reserved at base */
    int mapped[MCOLL_MAX_RANKS];                  /* which aliases are mapped */
} mcoll_multimem_alias;

/* How the team's ranks sit on GPUs: learnt at creation from every rank's device UUID. */
typedef struct {
    int gpus;                    /* distinct GPUs in the team */
    int ranks_per_gpu;           /* most ranks on one GPU */
    int sharers;                 /* ranks on this rank's GPU, itself included */
    int mps;                     /* this rank's GPU runs its contexts through MPS */
} mcoll_gpu_sharing;

typedef struct mcoll_team {
    MPI_Comm comm;               /* private duplicate of the user's communicator */
    int rank, size;
    mcoll_node_place node;       /* this rank's node (nodes.h) */
    int nodes;                   /* nodes the team spans; more than one: one NVLink clique, fabric handles */
    int device;                  /* CUDA ordinal */
    mcoll_gpu_sharing sharing;
    CUdevice cu_device;
    CUcontext context;           /* the device's primary context, retained */
    int made_current;            /* the creating thread had no context: context was made current */
    mcoll_handle_kind handle_kind;
    size_t granularity;          /* allocation granularity agreed by the ranks (symmetric sizes are multiples) */
    mcoll_symmetric symm;
    mcoll_multicast mc;
    mcoll_multimem_alias alias;  /* tests only: multimem emulated without multicast */
    CUdeviceptr epochs;          /* device memory: per-block barrier epochs, then the completion
                                    word's block count (launch.h, done_count) */
    /* Calls made through MPI run on two streams, one after another in the order they were made
     * (src/api/call_streams.c keeps that order): */
    CUstream stream;             /* blocking calls: a blocking stream, so the legacy default
                                    stream orders it after the application's earlier work */
    CUstream nb_stream;          /* nonblocking and persistent calls: a non-blocking stream, so the
                                    application's next legacy-stream operation (a cudaMemcpy) never
                                    waits for a kernel that may wait for its peers */
    CUevent order_mark;          /* recorded where one of them must wait for the other */
    int nb_last;                 /* the last launch went to nb_stream (else to `stream`, or none):
                                    a launch on the other stream must wait for it */
    mcoll_watch watch;           /* abort flag and peer processes (watchdog.h) */
    mcoll_dev_team dev;          /* what the kernels get */
    mcoll_engine engine;         /* MCOLL_ENGINE_UNICAST or MCOLL_ENGINE_NVLS */
    char nvls_reason[160];
    mcoll_share_failure share_failure; /* set by mcoll_handle_allgather: this rank's failing step */
    CUresult share_error;        /* and its error (CUDA_ERROR_OPERATING_SYSTEM for the socket exchange) */
} mcoll_team;

/* Collective over `comm`. On failure every rank returns the same error and holds nothing. */
mcoll_result mcoll_team_create(MPI_Comm comm, const mcoll_config *config, mcoll_team **out);
/* Local: frees what the team holds (peers keep their own mappings alive until they free theirs). */
void mcoll_team_destroy(mcoll_team *team);

/* Learn which ranks share a GPU (team->sharing) and every rank's process (team->watch.pids). MCOLL_ERR_UNSUPPORTED when some GPU is shared
 * by ranks of which one does not run under MPS (said once at INFO): the team must not be built.
 * Collective; every rank returns the same result. */
mcoll_result mcoll_gpu_sharing_learn(mcoll_team *team);

/* Steps of team creation, each in its own file. All are collective and agree on status
 * (agree.h); the VMM pieces they share are in vmm.h. */
/* `s` is the team's staging buffer (team->symm) or memory allocated for the user. */
mcoll_result mcoll_symmetric_create(mcoll_team *team, mcoll_symmetric *s, size_t bytes, size_t granularity);
void mcoll_symmetric_destroy(mcoll_team *team, mcoll_symmetric *s);
/* Decide whether multicast can be used; returns 1 and the granularity when it can, 0 with
 * team->nvls_reason set otherwise. Calls no cuMulticast* entry point when switched off. */
int mcoll_multicast_wanted(mcoll_team *team, const mcoll_config *config, size_t *granularity);
/* Create, share, add, bind and map; on any rank's failure every rank undoes its part and
 * returns an error (the team then runs unicast). */
mcoll_result mcoll_multicast_setup(mcoll_team *team);
/* Teardown in two parts around the release of the symmetric memory: unmap and unbind first,
 * release the multicast object last. */
void mcoll_multicast_unbind(mcoll_team *team);
void mcoll_multicast_release(mcoll_team *team);

/* Tests only: 1 when MCOLL_TEST_EMULATE_MULTIMEM=1 and the GPU tests' multicast guard is loaded
 * (users cannot select it). Setup is collective and agrees on status; on failure the team stays
 * on the unicast layer. Destroy before the symmetric memory is. */
int mcoll_alias_wanted(void);
mcoll_result mcoll_alias_setup(mcoll_team *team);
void mcoll_alias_destroy(mcoll_team *team);

/* Share memory or multicast handles: ranks with have_mine set export `mine` (others pass 0);
 * imported[i] receives rank i's handle where it had one (have_imported[i] = 1), the caller's own
 * included only when import_self is set. Collective; on failure nothing stays imported, and
 * team->share_failure / share_error say which step of this rank failed (if one did). */
mcoll_result mcoll_handle_allgather(mcoll_team *team, int have_mine, CUmemGenericAllocationHandle mine,
                                    int import_self, CUmemGenericAllocationHandle *imported,
                                    int *have_imported);

#endif /* MCOLL_TEAM_H */
