// System calls Glibc's Swift module does not export because they sit behind
// _GNU_SOURCE. The header includes no system header on purpose (defining
// _GNU_SOURCE here would clash with the Glibc module's own view of them);
// the definitions live in shims.c.
#ifndef AXIOM_CSYSTEMSHIMS_H
#define AXIOM_CSYSTEMSHIMS_H

/// accept4(2): accept and set SOCK_NONBLOCK | SOCK_CLOEXEC in one call.
/// `address` is a struct sockaddr *, `length` a socklen_t *.
int axiom_accept4(int fd, void *address, unsigned int *length, int flags);

/// mallopt(M_MMAP_THRESHOLD, bytes): allocations of `bytes` or more are
/// mapped on their own and unmapped on free; setting it also stops glibc
/// from raising the threshold to the largest block freed. Returns 1 on success.
int axiom_set_mmap_threshold(int bytes);

#endif
