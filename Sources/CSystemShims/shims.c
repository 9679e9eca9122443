#define _GNU_SOURCE
#include <malloc.h>
#include <sched.h>
#include <sys/socket.h>
#include "CSystemShims.h"

int axiom_accept4(int fd, void *address, unsigned int *length, int flags) {
    return accept4(fd, (struct sockaddr *)address, (socklen_t *)length, flags);
}

int axiom_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

#include <sys/eventfd.h>

int axiom_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

#include <sys/epoll.h>

int axiom_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int axiom_epoll_watch(int epoll_fd, int fd, int edge_triggered) {
    struct epoll_event event = {0};
    event.events = edge_triggered ? (EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET) : EPOLLIN;
    event.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

int axiom_epoll_wait(int epoll_fd, struct axiom_readiness *ready, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        ready[i].fd = events[i].data.fd;
        ready[i].readable = (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
        ready[i].hung_up = (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
        ready[i].writable = (events[i].events & EPOLLOUT) != 0;
    }
    return count;
}

int axiom_affinity_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    return CPU_COUNT(&set);
}
