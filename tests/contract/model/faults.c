/* Fault injection: make the nth invocation of an entry fail with a chosen error, in this
 * process only. Rules are checked in model_enter and applied at the point where the call would
 * otherwise succeed, so a failed call has no effect. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "model.h"

static int add_rule(int fn, int nth, CUresult err, int from_start)
{
    if (model.fault_count == MODEL_MAX_FAULTS) return -1;
    model_fault *f = &model.faults[model.fault_count++];
    f->fn = fn;
    f->base = from_start ? 0 : model.calls[fn];
    f->nth = nth;
    f->err = err;
    return 0;
}

int mcoll_contract_fail(const char *call, int nth, CUresult err)
{
    model_setup();
    int fn = model_fn_lookup(call);
    if (fn < 0 || nth < 0) return -1;
    pthread_mutex_lock(&model.lock);
    int rc = add_rule(fn, nth, err, 0);
    pthread_mutex_unlock(&model.lock);
    return rc;
}

/* The MPI world rank from the launcher's environment, or -1 when not launched by one. */
int model_launcher_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                        "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *value = getenv(names[i]);
        if (value && *value) return atoi(value);
    }
    return -1;
}

typedef struct {
    int fn, nth, rank;
    CUresult err;
} parsed_rule;

/* One "call:nth:ERROR[:rank]" rule, in place (the text is a private copy). */
static int parse_rule(char *text, parsed_rule *rule)
{
    char *fields[5] = {0};
    int count = 0;
    for (char *save = NULL, *field = strtok_r(text, ":", &save); field && count < 5;
         field = strtok_r(NULL, ":", &save))
        fields[count++] = field;
    if (count < 3 || count > 4) return -1;
    char *end;
    rule->fn = model_fn_lookup(fields[0]);
    rule->nth = (int)strtol(fields[1], &end, 10);
    if (rule->fn < 0 || *end || rule->nth < 0) return -1;
    if (mcoll_contract_error_from_name(fields[2], &rule->err) != 0) return -1;
    rule->rank = -1;
    if (count == 4) {
        rule->rank = (int)strtol(fields[3], &end, 10);
        if (*end || rule->rank < 0) return -1;
    }
    return 0;
}

int model_parse_fault_spec(const char *spec, int from_environment)
{
    char *copy = strdup(spec ? spec : "");
    if (!copy) return -1;
    parsed_rule rules[MODEL_MAX_FAULTS];
    int count = 0, bad = 0;
    for (char *save = NULL, *text = strtok_r(copy, ",;", &save); text;
         text = strtok_r(NULL, ",;", &save)) {
        while (*text == ' ') text++;
        if (!*text) continue;
        if (count == MODEL_MAX_FAULTS || parse_rule(text, &rules[count]) != 0) {
            bad = 1;
            break;
        }
        count++;
    }
    free(copy);
    if (bad || model.fault_count + count > MODEL_MAX_FAULTS) return -1;
    int rank = model_launcher_rank();
    int added = 0;
    for (int i = 0; i < count; i++) {
        if (rules[i].rank >= 0 && rules[i].rank != rank) continue;
        add_rule(rules[i].fn, rules[i].nth, rules[i].err, from_environment);
        added++;
    }
    return added;
}

int mcoll_contract_fail_spec(const char *spec)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    int rc = model_parse_fault_spec(spec, 0);
    pthread_mutex_unlock(&model.lock);
    return rc;
}

void mcoll_contract_fail_clear(void)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    model.fault_count = 0;
    pthread_mutex_unlock(&model.lock);
}

long mcoll_contract_injected(void)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    long n = model.injected;
    pthread_mutex_unlock(&model.lock);
    return n;
}
