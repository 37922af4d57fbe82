/* The settings table: defaults, parsing of sizes, tri-states, levels and log subsystems, range
 * checks, bad values falling back to the default with a warning, and NCCL_NVLS_ENABLE=0 forcing
 * multicast off whatever MCOLL_NVLS says. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "log.h"
#include "unit.h"

static const char *const vars[] = {"MCOLL_DEBUG", "MCOLL_DEBUG_SUBSYS", "MCOLL_DEBUG_FILE", "MCOLL_DISABLE", "MCOLL_NVLS", "MCOLL_ENGINE", "MCOLL_BUFFER_SIZE",
                                   "MCOLL_CUDA_AWARE", "MCOLL_STAGE_CHUNK", "MCOLL_MAX_BLOCKS", "MCOLL_ONESHOT_MAX",
                                   "MCOLL_MIN_RANKS", "MCOLL_TIMEOUT", "MCOLL_LL_MAX", "MCOLL_PDL", "NCCL_NVLS_ENABLE"};

static const mcoll_settings *with(const char *name, const char *value)
{
    size_t i;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
    if (name) setenv(name, value, 1);
    mcoll_settings_reload();
    return mcoll_settings_get();
}

/* A bad value keeps the default and leaves a warning naming the variable. */
static void rejected(const char *name, const char *value)
{
    with(name, value);
    CHECK(strstr(mcoll_last_warning(), name) != NULL);
    CHECK(strstr(mcoll_last_warning(), value) != NULL);
}

int main(void)
{
    const mcoll_settings *s;
    size_t size;
    mcoll_tristate tri;
    int level;
    unsigned mask;
    char long_name[600];

    /* Parsers */
    CHECK(mcoll_parse_size("4096", &size) == 0 && size == 4096);
    CHECK(mcoll_parse_size("512k", &size) == 0 && size == 512u << 10);
    CHECK(mcoll_parse_size("64M", &size) == 0 && size == 64u << 20);
    /* Sizes that overflow when scaled are refused, not wrapped. */
    CHECK(mcoll_parse_size("17179869185G", &size) == -1);
    CHECK(mcoll_parse_size("18446744073709551615K", &size) == -1);
    CHECK(mcoll_parse_size("99999999999999999999", &size) == -1);
    CHECK(mcoll_parse_size("16777215G", &size) == 0 && size == (size_t)16777215 << 30);
    CHECK(mcoll_parse_size("1G", &size) == 0 && size == 1u << 30);
    CHECK(mcoll_parse_size("2MiB", &size) == 0 && size == 2u << 20);
    CHECK(mcoll_parse_size("8KB", &size) == 0 && size == 8u << 10);
    CHECK(mcoll_parse_size("", &size) == -1);
    CHECK(mcoll_parse_size("-4", &size) == -1);
    CHECK(mcoll_parse_size("12X", &size) == -1);
    CHECK(mcoll_parse_size("M", &size) == -1);
    CHECK(mcoll_parse_size(NULL, &size) == -1);
    CHECK(mcoll_parse_tristate("auto", &tri) == 0 && tri == MCOLL_TRISTATE_AUTO);
    CHECK(mcoll_parse_tristate("1", &tri) == 0 && tri == MCOLL_ON);
    CHECK(mcoll_parse_tristate("ON", &tri) == 0 && tri == MCOLL_ON);
    CHECK(mcoll_parse_tristate("yes", &tri) == 0 && tri == MCOLL_ON);
    CHECK(mcoll_parse_tristate("0", &tri) == 0 && tri == MCOLL_OFF);
    CHECK(mcoll_parse_tristate("off", &tri) == 0 && tri == MCOLL_OFF);
    CHECK(mcoll_parse_tristate("maybe", &tri) == -1);
    CHECK(mcoll_parse_loglevel("NONE", &level) == 0 && level == MCOLL_LOG_NONE);
    CHECK(mcoll_parse_loglevel("warn", &level) == 0 && level == MCOLL_LOG_WARN);
    CHECK(mcoll_parse_loglevel("INFO", &level) == 0 && level == MCOLL_LOG_INFO);
    CHECK(mcoll_parse_loglevel("trace", &level) == 0 && level == MCOLL_LOG_TRACE);
    CHECK(mcoll_parse_loglevel("LOUD", &level) == -1);
    CHECK(mcoll_log_parse_subsys("INIT", &mask) == 0 && mask == MCOLL_SUBSYS_INIT);
    CHECK(mcoll_log_parse_subsys("init, Pmpi", &mask) == 0 && mask == (MCOLL_SUBSYS_INIT | MCOLL_SUBSYS_PMPI));
    CHECK(mcoll_log_parse_subsys("ALL", &mask) == 0 && mask == MCOLL_SUBSYS_ALL);
    CHECK(mcoll_log_parse_subsys("STAGE,TEAM,ENGINE", &mask) == 0 &&
          mask == (MCOLL_SUBSYS_STAGE | MCOLL_SUBSYS_TEAM | MCOLL_SUBSYS_ENGINE));
    CHECK(mcoll_log_parse_subsys("^TEAM", &mask) == 0 && mask == (MCOLL_SUBSYS_ALL & ~MCOLL_SUBSYS_TEAM));
    CHECK(mcoll_log_parse_subsys("^INIT,STAGE", &mask) == 0 &&
          mask == (MCOLL_SUBSYS_ALL & ~(MCOLL_SUBSYS_INIT | MCOLL_SUBSYS_STAGE)));
    CHECK(mcoll_log_parse_subsys("", &mask) == -1);
    CHECK(mcoll_log_parse_subsys("INIT,", &mask) == -1);
    CHECK(mcoll_log_parse_subsys("INIT,NET", &mask) == -1);
    CHECK(mcoll_log_parse_subsys("INITS", &mask) == -1);
    CHECK(mcoll_log_parse_subsys(NULL, &mask) == -1);

    /* Defaults */
    s = with(NULL, NULL);
    CHECK(s->debug == MCOLL_LOG_WARN);
    CHECK(s->debug_subsys == MCOLL_SUBSYS_ALL);
    CHECK(strcmp(s->debug_file, "stderr") == 0);
    CHECK(s->disable == 0);
    CHECK(s->nvls == MCOLL_TRISTATE_AUTO && s->nvls_killed == 0);
    CHECK(s->engine == MCOLL_ENGINE_AUTO);
    CHECK(s->buffer_size == 64u << 20);
    CHECK(s->cuda_aware == MCOLL_TRISTATE_AUTO);
    CHECK(s->stage_chunk == 4u << 20);
    CHECK(s->max_blocks == 32);
    CHECK(s->zero_copy_blocks == 64);
    CHECK(s->store_inputs == 1);
    CHECK(s->memory_limit == 1u << 30);
    CHECK(s->oneshot_max == 256u << 10);
    CHECK(s->min_ranks == 2);
    CHECK(s->timeout_s == 0);

    /* Good values */
    CHECK(with("MCOLL_DEBUG", "INFO")->debug == MCOLL_LOG_INFO && mcoll_log_level == MCOLL_LOG_INFO);
    CHECK(with("MCOLL_DEBUG_SUBSYS", "pmpi,STAGE")->debug_subsys == (MCOLL_SUBSYS_PMPI | MCOLL_SUBSYS_STAGE));
    CHECK(strcmp(with("MCOLL_DEBUG_FILE", "/nonexistent/mcoll.%h.%p")->debug_file, "/nonexistent/mcoll.%h.%p") == 0);
    CHECK(with("MCOLL_DISABLE", "1")->disable == 1);
    CHECK(with("MCOLL_STORE_INPUTS", "0")->store_inputs == 0);
    CHECK(with("MCOLL_ENGINE", "staged")->engine == MCOLL_ENGINE_STAGED);
    CHECK(with("MCOLL_ENGINE", "UNICAST")->engine == MCOLL_ENGINE_UNICAST);
    CHECK(with("MCOLL_NVLS", "1")->nvls == MCOLL_ON);
    CHECK(with("MCOLL_CUDA_AWARE", "0")->cuda_aware == MCOLL_OFF);
    CHECK(with("MCOLL_STAGE_CHUNK", "64K")->stage_chunk == 64u << 10);
    CHECK(with("MCOLL_STAGE_CHUNK", "1G")->stage_chunk == 1u << 30);
    CHECK(with("MCOLL_BUFFER_SIZE", "1M")->buffer_size == 1u << 20);
    CHECK(with("MCOLL_MAX_BLOCKS", "64")->max_blocks == 64);
    CHECK(with("MCOLL_MIN_RANKS", "1")->min_ranks == 1);
    CHECK(with("MCOLL_TIMEOUT", "0")->timeout_s == 0);
    CHECK(with("MCOLL_LL_MAX", "auto")->ll_max == MCOLL_SIZE_AUTO);
    CHECK(with("MCOLL_LL_MAX", "8K")->ll_max == 8u << 10);
    CHECK(with("MCOLL_LL_MAX", "0")->ll_max == 0);
    CHECK(with("MCOLL_PDL", "0")->pdl == 0);

    /* Bad values and out-of-range values: default kept, one warning naming the variable */
    rejected("MCOLL_ENGINE", "fast");
    CHECK(mcoll_settings_get()->engine == MCOLL_ENGINE_AUTO);
    rejected("MCOLL_STAGE_CHUNK", "1k");
    CHECK(mcoll_settings_get()->stage_chunk == 4u << 20);
    rejected("MCOLL_STAGE_CHUNK", "2G");
    CHECK(mcoll_settings_get()->stage_chunk == 4u << 20);
    rejected("MCOLL_BUFFER_SIZE", "lots");
    CHECK(mcoll_settings_get()->buffer_size == 64u << 20);
    rejected("MCOLL_MAX_BLOCKS", "65");
    CHECK(mcoll_settings_get()->max_blocks == 32);
    rejected("MCOLL_MAX_BLOCKS", "0");
    CHECK(mcoll_settings_get()->max_blocks == 32);
    rejected("MCOLL_LL_MAX", "off");
    CHECK(mcoll_settings_get()->ll_max == MCOLL_SIZE_AUTO);
    CHECK(mcoll_settings_get()->pdl == 1);
    rejected("MCOLL_MIN_RANKS", "2x");
    CHECK(mcoll_settings_get()->min_ranks == 2);
    rejected("MCOLL_TIMEOUT", "-1");
    CHECK(mcoll_settings_get()->timeout_s == 0);
    rejected("MCOLL_DISABLE", "auto"); /* a switch, not a tri-state */
    CHECK(mcoll_settings_get()->disable == 0);
    rejected("MCOLL_CUDA_AWARE", "perhaps");
    CHECK(mcoll_settings_get()->cuda_aware == MCOLL_TRISTATE_AUTO);
    rejected("MCOLL_DEBUG", "LOUD");
    CHECK(mcoll_settings_get()->debug == MCOLL_LOG_WARN);
    rejected("MCOLL_DEBUG_SUBSYS", "INIT,NET");
    CHECK(mcoll_settings_get()->debug_subsys == MCOLL_SUBSYS_ALL);
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK(strcmp(with("MCOLL_DEBUG_FILE", long_name)->debug_file, "stderr") == 0); /* too long */
    CHECK(strstr(mcoll_last_warning(), "MCOLL_DEBUG_FILE=xxx") != NULL);

    /* The kill switch wins over MCOLL_NVLS set to 1; any other NCCL value leaves it alone. */
    with(NULL, NULL);
    setenv("MCOLL_NVLS", "1", 1);
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    mcoll_settings_reload();
    s = mcoll_settings_get();
    CHECK(s->nvls == MCOLL_OFF && s->nvls_killed == 1);
    setenv("NCCL_NVLS_ENABLE", "1", 1);
    mcoll_settings_reload();
    CHECK(s->nvls == MCOLL_ON && s->nvls_killed == 0);
    s = with("NCCL_NVLS_ENABLE", "0");
    CHECK(s->nvls == MCOLL_OFF && s->nvls_killed == 1);

    with(NULL, NULL);
    return unit_exit("test_config");
}
