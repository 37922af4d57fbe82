/* Memory exported by another API or process as an opaque POSIX file descriptor, imported and
 * mapped as one device buffer (see mcoll_mem_import_external in mcoll.h). Process-wide. */
#ifndef MCOLL_IMPORT_H
#define MCOLL_IMPORT_H

#include <stddef.h>
#include "mcoll.h"

mcoll_result mcoll_external_import(int fd, size_t size, size_t offset, size_t bytes, void **ptr);
mcoll_result mcoll_external_release(void *ptr);

#endif /* MCOLL_IMPORT_H */
