// Debian installs libpq's headers under /usr/include/postgresql; the header
// includes its siblings with quotes, so this path needs no -I flag.
#include <postgresql/libpq-fe.h>
