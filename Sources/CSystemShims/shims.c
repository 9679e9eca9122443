#define _GNU_SOURCE
#include <malloc.h>
#include <sys/socket.h>
#include "CSystemShims.h"

int axiom_accept4(int fd, void *address, unsigned int *length, int flags) {
    return accept4(fd, (struct sockaddr *)address, (socklen_t *)length, flags);
}

int axiom_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
