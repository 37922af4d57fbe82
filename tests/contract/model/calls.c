/* The call protocol of every entry point (lock, count, log, fault pick, violation) and the
 * introspection API built on what it records. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "model.h"

/* Enough for any setup sequence; past it calls are still counted but no longer logged. */
#define MODEL_LOG_LIMIT 65536

static model_log_entry *log_append(model_fn fn, const char *args)
{
    if (model.log_length == MODEL_LOG_LIMIT) return NULL;
    if (model.log_length == model.log_capacity) {
        size_t capacity = model.log_capacity ? 2 * model.log_capacity : 256;
        model_log_entry **grown = realloc(model.log, capacity * sizeof *grown);
        if (!grown) return NULL;
        model.log = grown;
        model.log_capacity = capacity;
    }
    model_log_entry *entry = malloc(sizeof *entry);
    if (!entry) return NULL;
    entry->fn = fn;
    entry->result = CUDA_SUCCESS;
    snprintf(entry->line, sizeof entry->line, "%s(%s)", model_fn_names[fn], args);
    model.log[model.log_length++] = entry;
    return entry;
}

static void log_result(model_call *call, CUresult rc, const char *note)
{
    if (call->entry) {
        model_log_entry *entry = call->entry;
        size_t used = strlen(entry->line);
        entry->result = rc;
        snprintf(entry->line + used, sizeof entry->line - used, " = %s%s", model_error_name(rc),
                 note);
        if (model.trace) fprintf(stderr, "mcoll-contract[%d]: %s\n", (int)getpid(), entry->line);
    }
}

CUresult model_enter(model_call *call, model_fn fn, int needs_init, const char *fmt, ...)
{
    model_setup();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(call->args, sizeof call->args, fmt, ap);
    va_end(ap);

    pthread_mutex_lock(&model.lock);
    call->fn = fn;
    call->inject = CUDA_SUCCESS;
    call->injected = 0;
    long nth = ++model.calls[fn];
    call->entry = log_append(fn, call->args);
    for (int i = 0; i < model.fault_count; i++) {
        const model_fault *f = &model.faults[i];
        if (f->fn == (int)fn && (f->nth == 0 || nth - f->base == f->nth)) call->inject = f->err;
    }
    if (needs_init && !model.initialized)
        return model_violation(call, CUDA_ERROR_NOT_INITIALIZED, "cuInit was not called");
    return CUDA_SUCCESS;
}

CUresult model_violation(model_call *call, CUresult err, const char *fmt, ...)
{
    char rule[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof rule, fmt, ap);
    va_end(ap);

    size_t length = strlen(model_fn_names[call->fn]) + strlen(call->args) + strlen(rule) + 64;
    char *text = malloc(length);
    if (text) {
        snprintf(text, length, "%s(%s): %s -> %s", model_fn_names[call->fn], call->args, rule,
                 model_error_name(err));
        if (model.violation_count == model.violation_capacity) {
            int capacity = model.violation_capacity ? 2 * model.violation_capacity : 64;
            char **grown = realloc(model.violations, (size_t)capacity * sizeof *grown);
            if (grown) {
                model.violations = grown;
                model.violation_capacity = capacity;
            }
        }
        if (model.violation_count < model.violation_capacity) {
            model.violations[model.violation_count++] = text;
        } else {
            free(text);
            text = NULL;
        }
    }
    if (!model.quiet || model.abort_on_violation)
        fprintf(stderr, "mcoll-contract[%d]: violation: %s(%s): %s -> %s\n", (int)getpid(),
                model_fn_names[call->fn], call->args, rule, model_error_name(err));
    if (model.abort_on_violation) abort();
    log_result(call, err, " [violation]");
    pthread_mutex_unlock(&model.lock);
    return err;
}

int model_injecting(model_call *call)
{
    if (call->inject == CUDA_SUCCESS) return 0;
    model.injected++;
    call->injected = 1;
    return 1;
}

CUresult model_leave(model_call *call, CUresult rc)
{
    log_result(call, rc, call->injected ? " [injected]" : "");
    pthread_mutex_unlock(&model.lock);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Introspection
 * ------------------------------------------------------------------------------------------- */
long mcoll_contract_calls(const char *prefix)
{
    model_setup();
    size_t length = prefix ? strlen(prefix) : 0;
    long total = 0;
    pthread_mutex_lock(&model.lock);
    for (int i = 0; i < MODEL_FN_COUNT; i++)
        if (strncmp(model_fn_names[i], prefix ? prefix : "", length) == 0) total += model.calls[i];
    pthread_mutex_unlock(&model.lock);
    return total;
}

size_t mcoll_contract_log_length(void)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    size_t n = model.log_length;
    pthread_mutex_unlock(&model.lock);
    return n;
}

static const model_log_entry *log_at(size_t index)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    const model_log_entry *entry = index < model.log_length ? model.log[index] : NULL;
    pthread_mutex_unlock(&model.lock);
    return entry;
}

const char *mcoll_contract_log_line(size_t index)
{
    const model_log_entry *entry = log_at(index);
    return entry ? entry->line : NULL;
}

const char *mcoll_contract_log_call(size_t index)
{
    const model_log_entry *entry = log_at(index);
    return entry ? model_fn_names[entry->fn] : NULL;
}

CUresult mcoll_contract_log_result(size_t index)
{
    const model_log_entry *entry = log_at(index);
    return entry ? entry->result : CUDA_ERROR_INVALID_VALUE;
}

long mcoll_contract_log_find(const char *prefix, size_t from)
{
    model_setup();
    size_t length = prefix ? strlen(prefix) : 0;
    long found = -1;
    pthread_mutex_lock(&model.lock);
    for (size_t i = from; i < model.log_length && found < 0; i++)
        if (strncmp(model_fn_names[model.log[i]->fn], prefix ? prefix : "", length) == 0)
            found = (long)i;
    pthread_mutex_unlock(&model.lock);
    return found;
}

void mcoll_contract_log_print(FILE *out)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    for (size_t i = 0; i < model.log_length; i++)
        fprintf(out, "mcoll-contract[%d]: %4zu %s\n", (int)getpid(), i, model.log[i]->line);
    pthread_mutex_unlock(&model.lock);
}

int mcoll_contract_violations(void)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    int n = model.violation_count;
    pthread_mutex_unlock(&model.lock);
    return n;
}

const char *mcoll_contract_violation(int index)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    const char *text = index >= 0 && index < model.violation_count ? model.violations[index] : NULL;
    pthread_mutex_unlock(&model.lock);
    return text;
}

int mcoll_contract_violations_matching(const char *text)
{
    model_setup();
    int n = 0;
    pthread_mutex_lock(&model.lock);
    for (int i = 0; i < model.violation_count; i++)
        if (strstr(model.violations[i], text ? text : "")) n++;
    pthread_mutex_unlock(&model.lock);
    return n;
}

void mcoll_contract_violations_print(FILE *out)
{
    model_setup();
    pthread_mutex_lock(&model.lock);
    for (int i = 0; i < model.violation_count; i++)
        fprintf(out, "mcoll-contract[%d]: violation %d: %s\n", (int)getpid(), i,
                model.violations[i]);
    pthread_mutex_unlock(&model.lock);
}
