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

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): the descriptor another thread
/// writes to wake an event loop out of epoll_wait.
int axiom_eventfd(void);

/// epoll, which Glibc's Swift module does not export: one loop's readiness.
struct axiom_readiness {
    int fd;
    /// Input, EOF (EPOLLRDHUP/EPOLLHUP) or an error is pending.
    int readable;
    /// The peer shut down its side (or the socket failed): read to EOF.
    int hung_up;
    int writable;
};

/// epoll_create1(EPOLL_CLOEXEC).
int axiom_epoll_create(void);

/// Adds `fd` to the set: edge-triggered input, output and peer shutdown
/// (EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET), or level-triggered input only.
int axiom_epoll_watch(int epoll_fd, int fd, int edge_triggered);

/// epoll_wait for up to `capacity` (at most 256) events, as readiness records.
int axiom_epoll_wait(int epoll_fd, struct axiom_readiness *ready, int capacity, int timeout_ms);

/// CPUs in the calling thread's affinity mask (sched_getaffinity, as set
/// by taskset or a container's cpuset), 0 if it cannot be read.
int axiom_affinity_cpu_count(void);

#endif
