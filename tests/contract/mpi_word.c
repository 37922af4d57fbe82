/* The completion word (src/api/completion_word.h) of calls through MPI, on the contract driver
 * with real teams. No kernel runs here: the allreduce launcher is replaced (--wrap,
 * tests/build.mk) by one that stamps the receive buffer, records the word its kernel would carry
 * (mcoll_launch_word_sent) and has a thread play the kernel's last block, which stores the value
 * into the word late, or never. The model's streams are idle at once, so the cases where the
 * GPU is still busy make cuStreamQuery answer CUDA_ERROR_NOT_READY (fault injection). Each rank
 * checks:
 *   - a blocking call whose word comes 20 ms late returns then, with the result, having asked
 *     the stream now and then (not at every poll) and never synchronized it;
 *   - a word that never comes, on a stream that has finished: the call succeeds, after one
 *     check interval at least;
 *   - a stream that reports an error while the word has not come: the call fails with
 *     MPI_ERR_OTHER;
 *   - the same three for MPI_Iallreduce tested with MPI_Test (no event queried; the one recorded
 *     is the mark its launch waits for, on the legacy default stream);
 *   - MCOLL_COMPLETION_WORD=0: no word, the stream is synchronized.
 * Every launch on the team's stream here carries a word with a larger value than the one before. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <mpi.h>
#include "completion_word.h"
#include "config.h"
#include "launch.h"
#include "contract/devmem.h"

#define COUNT 4096 /* ints: past the LL protocol (the resident kernel is off besides) */
#define LATE_US 20000
#define CHECK_US (MCOLL_WORD_CHECK_NS / 1000)

typedef enum { WRITE_LATE, NEVER } play_mode;

static play_mode mode;
static int stamp;
static uint64_t last_value;
static int launches, launches_with_word;
static pthread_t player;
static int playing;

typedef struct {
    volatile uint64_t *word;
    uint64_t value;
} play_args;
static play_args args;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* The last block of the kernel: its store, LATE_US after the launch. */
static void *play(void *arg)
{
    const play_args *a = arg;
    struct timespec ts = {0, (long)LATE_US * 1000};
    nanosleep(&ts, NULL);
    __atomic_store_n(a->word, a->value, __ATOMIC_RELEASE);
    return NULL;
}

int __wrap_mcoll_launch_allreduce(const mcoll_dev_team *team, mcoll_access access, const void *sendbuf, void *recvbuf,
                                  size_t count, mcoll_dtype dtype, mcoll_op op, void *stream)
{
    (void)access, (void)sendbuf, (void)count, (void)dtype, (void)op, (void)stream;
    launches++;
    ((int *)recvbuf)[0] = stamp;
    if (!team->done_word) return MCOLL_LAUNCH_OK;
    launches_with_word++;
    if (team->done_value <= last_value) CT_FAIL("word value %llu after %llu", (unsigned long long)team->done_value,
                                                (unsigned long long)last_value);
    last_value = team->done_value;
    mcoll_launch_word_sent(team);
    if (mode == WRITE_LATE) {
        args.word = (volatile uint64_t *)team->done_word; /* the model maps host memory as itself */
        args.value = team->done_value;
        playing = pthread_create(&player, NULL, play, &args) == 0;
        if (!playing) CT_FAIL("no thread to play the kernel");
    }
    return MCOLL_LAUNCH_OK;
}

static void end_play(void)
{
    if (playing) pthread_join(player, NULL);
    playing = 0;
    mcoll_contract_fail_clear();
}

typedef struct {
    double us;
    long queries, syncs, event_queries, event_records, order_waits;
    int rc, got;
} outcome;

/* One allreduce (blocking, or MPI_Iallreduce then MPI_Test until done) with the stream answering
 * `stream_says` (CUDA_SUCCESS: as the model does) and the kernel playing `m`. */
static outcome call(int *send, int *recv, int nonblocking, play_mode m, CUresult stream_says, int index)
{
    outcome o;
    MPI_Request q;
    int flag = 0;
    double t0;
    long q0 = mcoll_contract_calls("cuStreamQuery"), s0 = mcoll_contract_calls("cuStreamSynchronize");
    long e0 = mcoll_contract_calls("cuEventQuery"), r0 = mcoll_contract_calls("cuEventRecord");
    long w0 = mcoll_contract_calls("cuStreamWaitEvent");
    mode = m;
    stamp = index;
    recv[0] = -1;
    if (stream_says != CUDA_SUCCESS) mcoll_contract_fail("cuStreamQuery", 0, stream_says);
    t0 = now_us();
    if (!nonblocking) {
        o.rc = MPI_Allreduce(send, recv, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if ((o.rc = MPI_Iallreduce(send, recv, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q)) == MPI_SUCCESS) {
        while (!flag && (o.rc = MPI_Test(&q, &flag, MPI_STATUS_IGNORE)) == MPI_SUCCESS) continue;
    }
    o.us = now_us() - t0;
    end_play();
    o.queries = mcoll_contract_calls("cuStreamQuery") - q0;
    o.syncs = mcoll_contract_calls("cuStreamSynchronize") - s0;
    o.event_queries = mcoll_contract_calls("cuEventQuery") - e0;
    o.event_records = mcoll_contract_calls("cuEventRecord") - r0;
    o.order_waits = mcoll_contract_calls("cuStreamWaitEvent") - w0;
    o.got = recv[0];
    return o;
}

static void check_calls(int *send, int *recv, int nonblocking)
{
    const char *form = nonblocking ? "MPI_Iallreduce" : "MPI_Allreduce";
    const int base = nonblocking ? 200 : 100;
    const int with = launches_with_word;
    outcome o;

    /* The word comes late; the stream, asked meanwhile, is busy. */
    o = call(send, recv, nonblocking, WRITE_LATE, CUDA_ERROR_NOT_READY, base);
    ct_checks++;
    if (o.rc != MPI_SUCCESS) CT_FAIL("%s, word 20 ms late: returned %d", form, o.rc);
    if (o.us < LATE_US) CT_FAIL("%s returned after %.0f us, before its word (%d us)", form, o.us, LATE_US);
    if (o.got != base) CT_FAIL("%s: result %d, not %d", form, o.got, base);
    if (o.queries < 1) CT_FAIL("%s: the stream was never asked in %.0f us", form, o.us);
    /* About one query per check interval; one per poll would be thousands. */
    if (o.queries > (long)(o.us / CHECK_US) + 2)
        CT_FAIL("%s: %ld stream queries in %.0f us (one per %d us expected)", form, o.queries, o.us, (int)CHECK_US);
    if (o.syncs) CT_FAIL("%s: the stream was synchronized %ld times", form, o.syncs);
    /* The only event is the mark a nonblocking launch waits for (the application's work on the
     * legacy default stream before it, src/api/call_streams.c): none to be done. */
    if (o.event_queries || o.event_records != o.order_waits || o.event_records > nonblocking)
        CT_FAIL("%s: %ld events recorded (%ld waited for by a stream), %ld queried", form, o.event_records,
                o.order_waits, o.event_queries);

    /* The word never comes; the stream has finished: done, after one interval of waiting. */
    o = call(send, recv, nonblocking, NEVER, CUDA_SUCCESS, base + 1);
    ct_checks++;
    if (o.rc != MPI_SUCCESS) CT_FAIL("%s, no word, stream done: returned %d", form, o.rc);
    if (o.queries < 1) CT_FAIL("%s, no word: returned without asking the stream", form);
    if (o.us < CHECK_US) CT_FAIL("%s, no word: asked the stream after %.0f us (interval %d us)", form, o.us, (int)CHECK_US);
    if (o.got != base + 1) CT_FAIL("%s, no word: result %d", form, o.got);

    /* The word never comes; the stream has failed: the call fails. */
    o = call(send, recv, nonblocking, NEVER, CUDA_ERROR_ILLEGAL_ADDRESS, base + 2);
    ct_checks++;
    if (error_class(o.rc) != MPI_ERR_OTHER) CT_FAIL("%s on a failed stream: returned class %d", form, error_class(o.rc));

    ct_checks++;
    if (launches_with_word - with != 3) CT_FAIL("%s: %d of 3 launches carried a word", form, launches_with_word - with);
    checkpoint();
}

/* With the setting off no launch carries a word and the blocking call synchronizes the stream. */
static void check_off(int *send, int *recv)
{
    const int with = launches_with_word;
    outcome o;
    setenv("MCOLL_COMPLETION_WORD", "0", 1);
    mcoll_settings_reload();
    o = call(send, recv, 0, NEVER, CUDA_SUCCESS, 300);
    ct_checks++;
    if (o.rc != MPI_SUCCESS || o.got != 300) CT_FAIL("MCOLL_COMPLETION_WORD=0: returned %d, result %d", o.rc, o.got);
    if (launches_with_word != with) CT_FAIL("MCOLL_COMPLETION_WORD=0: a launch carried a word");
    if (o.syncs < 1) CT_FAIL("MCOLL_COMPLETION_WORD=0: the stream was not synchronized");
    setenv("MCOLL_COMPLETION_WORD", "1", 1);
    mcoll_settings_reload();
    checkpoint();
}

int main(int argc, char **argv)
{
    int rank, size, *send, *recv;
    CUdevice dev;

    (void)check_host;
    devmem_engine_init(&argc, &argv, &rank, &size, &dev, 0);
    send = (int *)d_alloc(COUNT * sizeof(int));
    recv = (int *)d_alloc(COUNT * sizeof(int));
    send[0] = 1;
    /* The first call builds the team (and its first launch carries a word already). */
    mode = NEVER;
    if (MPI_Allreduce(send, recv, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) CT_FAIL("first call");
    checkpoint();
    check_calls(send, recv, 0);
    check_calls(send, recv, 1);
    check_off(send, recv);
    if (!launches) CT_FAIL("no call reached the GPU engine's launcher");
    d_release(send);
    d_release(recv);
    return devmem_finish("mpi_word", dev);
}
