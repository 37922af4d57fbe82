/* The model's state: the lock, object lists, identifiers, live-object accounting and reset. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "model.h"

model_state model = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define MODEL_FN_NAME(name, version) #name,
const char *const model_fn_names[MODEL_FN_COUNT] = {
    MCOLL_DRIVER_REQUIRED(MODEL_FN_NAME)
    MCOLL_DRIVER_VMM(MODEL_FN_NAME)
    MCOLL_DRIVER_USER_MEMORY(MODEL_FN_NAME)
    MCOLL_DRIVER_STREAM_WAIT(MODEL_FN_NAME)
    MCOLL_DRIVER_MULTICAST(MODEL_FN_NAME)
    "kernel",
};
#undef MODEL_FN_NAME

int model_fn_lookup(const char *name)
{
    for (int i = 0; name && i < MODEL_FN_COUNT; i++)
        if (strcmp(model_fn_names[i], name) == 0) return i;
    return -1;
}

void model_list_push(model_node **head, model_node *node)
{
    node->next = *head;
    *head = node;
}

void model_list_remove(model_node **head, model_node *node)
{
    for (model_node **link = head; *link; link = &(*link)->next) {
        if (*link == node) {
            *link = node->next;
            node->next = NULL;
            return;
        }
    }
}

int model_list_length(const model_node *head)
{
    int n = 0;
    for (; head; head = head->next) n++;
    return n;
}

static int env_flag(const char *name, int fallback)
{
    const char *text = getenv(name);
    if (!text || !*text) return fallback;
    return atoi(text) != 0;
}

static void setup_once(void)
{
    mcoll_contract_config config;
    mcoll_contract_config_defaults(&config);
    const char *devices = getenv("MCOLL_CONTRACT_DEVICES");
    if (devices && atoi(devices) >= 1 && atoi(devices) <= MCOLL_CONTRACT_MAX_DEVICES)
        config.device_count = atoi(devices);
    config.multicast_supported = env_flag("MCOLL_CONTRACT_MULTICAST", config.multicast_supported);
    config.fabric_supported = env_flag("MCOLL_CONTRACT_FABRIC", config.fabric_supported);
    config.posix_fd_supported = env_flag("MCOLL_CONTRACT_POSIX_FD", config.posix_fd_supported);
    config.vmm_supported = env_flag("MCOLL_CONTRACT_VMM", config.vmm_supported);
    config.mps_enabled = env_flag("MCOLL_CONTRACT_MPS", config.mps_enabled);
    const char *node_size = getenv("MCOLL_CONTRACT_NODE_SIZE");
    if (node_size && atoi(node_size) >= 0) config.node_size = atoi(node_size);

    pthread_mutex_lock(&model.lock);
    model_apply_config(&config);
    model.quiet = env_flag("MCOLL_CONTRACT_QUIET", 0);
    model.trace = env_flag("MCOLL_CONTRACT_TRACE", 0);
    model.abort_on_violation = env_flag("MCOLL_CONTRACT_ABORT", 0);
    model.event_delay = getenv("MCOLL_CONTRACT_EVENT_DELAY") ? atoi(getenv("MCOLL_CONTRACT_EVENT_DELAY")) : 0;
    const char *spec = getenv("MCOLL_CONTRACT_FAIL");
    if (spec && *spec && model_parse_fault_spec(spec, 1) < 0)
        fprintf(stderr, "mcoll-contract[%d]: MCOLL_CONTRACT_FAIL=\"%s\" is not valid; ignored\n",
                (int)getpid(), spec);
    pthread_mutex_unlock(&model.lock);
}

void model_setup(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, setup_once);
}

size_t model_page_size(void)
{
    static size_t page;
    if (!page) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

int model_bit_count(uint64_t mask)
{
    int n = 0;
    for (; mask; mask &= mask - 1) n++;
    return n;
}

/* Handles and object ids carry the pid in their upper half, so a handle value copied from
 * another process is recognised instead of silently naming a local object. */
uint64_t model_new_handle_value(void)
{
    return ((uint64_t)getpid() << 32) | ++model.next_handle;
}

uint64_t model_new_object_id(void)
{
    return ((uint64_t)getpid() << 32) | ++model.next_object;
}

unsigned long long model_new_buffer_id(void)
{
    return ++model.next_buffer_id;  /* never reused, as the driver promises */
}

model_handle *model_find_handle(CUmemGenericAllocationHandle value, const char **why)
{
    for (model_node *n = model.handles; n; n = n->next) {
        model_handle *h = (model_handle *)n;
        if (h->value == value) return h;
    }
    if (value == 0)
        *why = "handle is 0";
    else if ((value >> 32) != (uint64_t)getpid())
        *why = "handle was made by another process (import it with "
               "cuMemImportFromShareableHandle and use the imported handle)";
    else if ((value & 0xffffffffu) <= model.next_handle)
        *why = "handle was already released";
    else
        *why = "not a handle returned by the driver";
    return NULL;
}

/* An exported fd is alive while it is open here and still names the memfd it was made from;
 * entries whose fd was closed are dropped as they are found. */
static int live_exported_fds(void)
{
    int alive = 0;
    model_node *n = model.exported_fds;
    while (n) {
        model_exported_fd *e = (model_exported_fd *)n;
        n = n->next;
        struct stat st;
        if (fstat(e->fd, &st) == 0 && (unsigned long long)st.st_dev == e->dev &&
            (unsigned long long)st.st_ino == e->ino) {
            alive++;
        } else {
            model_list_remove(&model.exported_fds, &e->node);
            free(e);
        }
    }
    return alive;
}

static int count_handles(int want_kind, int want_imported)
{
    int n = 0;
    for (model_node *node = model.handles; node; node = node->next) {
        model_handle *h = (model_handle *)node;
        if (want_imported) {
            n += h->imported;
        } else if (!h->imported && h->header->kind == (uint32_t)want_kind) {
            n++;
        }
    }
    return n;
}

static const char *const live_kinds[] = {
    "allocation", "imported", "multicast", "reservation", "mapping", "exported_fd",
    "device_memory", "host_memory", "host_registered", "stream", "event", "context",
};
enum { LIVE_KIND_COUNT = sizeof live_kinds / sizeof live_kinds[0] };

static int live_locked(int kind)
{
    switch (kind) {
    case 0: return count_handles(MODEL_KIND_ALLOCATION, 0);
    case 1: return count_handles(0, 1);
    case 2: return count_handles(MODEL_KIND_MULTICAST, 0);
    case 3: return model_list_length(model.reservations);
    case 4: return model_list_length(model.mappings);
    case 5: return live_exported_fds();
    case 6: return model_list_length(model.device_buffers);
    case 7: return model_list_length(model.host_buffers);
    case 8: return model_list_length(model.registered);
    case 9: return model_list_length(model.streams);
    case 10: return model_list_length(model.events);
    case 11: {
        int n = 0;
        for (int d = 0; d < MCOLL_CONTRACT_MAX_DEVICES; d++) n += model.context_retains[d];
        return n;
    }
    }
    return -1;
}

int mcoll_contract_live(const char *kind)
{
    model_setup();
    for (int k = 0; kind && k < LIVE_KIND_COUNT; k++) {
        if (strcmp(kind, live_kinds[k]) == 0) {
            pthread_mutex_lock(&model.lock);
            int n = live_locked(k);
            pthread_mutex_unlock(&model.lock);
            return n;
        }
    }
    return -1;
}

int mcoll_contract_live_objects(void)
{
    model_setup();
    int total = 0;
    pthread_mutex_lock(&model.lock);
    for (int k = 0; k < LIVE_KIND_COUNT; k++)
        if (strcmp(live_kinds[k], "context") != 0) total += live_locked(k);
    pthread_mutex_unlock(&model.lock);
    return total;
}

void mcoll_contract_live_print(FILE *out)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    fprintf(out, "mcoll-contract[%d]: live objects:", (int)getpid());
    for (int k = 0; k < LIVE_KIND_COUNT; k++) fprintf(out, " %s=%d", live_kinds[k], live_locked(k));
    fprintf(out, "\n");
    for (model_node *n = model.handles; n; n = n->next) {
        model_handle *h = (model_handle *)n;
        fprintf(out, "  handle %#llx: %s%s, %llu bytes\n", (unsigned long long)h->value,
                h->imported ? "imported " : "",
                h->header->kind == MODEL_KIND_MULTICAST ? "multicast object" : "allocation",
                (unsigned long long)h->header->size);
    }
    for (model_node *n = model.mappings; n; n = n->next) {
        model_mapping *m = (model_mapping *)n;
        fprintf(out, "  mapping [%#lx, +%zu) of handle %#llx\n", (unsigned long)m->va, m->size,
                (unsigned long long)m->handle);
    }
    for (model_node *n = model.reservations; n; n = n->next) {
        model_reservation *r = (model_reservation *)n;
        fprintf(out, "  reservation [%#lx, +%zu)\n", (unsigned long)r->base, r->size);
    }
    pthread_mutex_unlock(&model.lock);
}

void mcoll_contract_reset(void)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    memset(model.calls, 0, sizeof model.calls);
    model.fault_count = 0;
    model.injected = 0;
    for (size_t i = 0; i < model.log_length; i++) free(model.log[i]);
    model.log_length = 0;
    for (int i = 0; i < model.violation_count; i++) free(model.violations[i]);
    model.violation_count = 0;
    pthread_mutex_unlock(&model.lock);
}

void mcoll_contract_set_quiet(int quiet)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    model.quiet = quiet;
    pthread_mutex_unlock(&model.lock);
}
