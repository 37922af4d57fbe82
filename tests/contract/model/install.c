/* The model's driver table, and its installation in place of libcuda. */
#define _GNU_SOURCE
#include "model.h"

#define MODEL_INSTALL(name, version) table.name = model_##name;

static mcoll_driver table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void fill_table(void)
{
    MCOLL_DRIVER_REQUIRED(MODEL_INSTALL)
    MCOLL_DRIVER_VMM(MODEL_INSTALL)
    MCOLL_DRIVER_USER_MEMORY(MODEL_INSTALL)
    MCOLL_DRIVER_STREAM_WAIT(MODEL_INSTALL)
    MCOLL_DRIVER_MULTICAST(MODEL_INSTALL)
}

const mcoll_driver *mcoll_contract_driver(void)
{
    model_setup();
    pthread_once(&table_once, fill_table);
    return &table;
}

void mcoll_contract_install(void)
{
    mcoll_driver_install(mcoll_contract_driver());
    mcoll_fabric_install(mcoll_contract_fabric_query); /* NVML's cliques, modelled (cliques.c) */
}
