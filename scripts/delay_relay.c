/*
 * A TCP relay that holds every byte for a fixed time in each direction: the
 * network delay of scripts/cluster.sh's PostgreSQL hop (CLUSTER_PG_DELAY).
 * tc's netem qdisc would do this in the kernel, but kernels built without
 * CONFIG_NET_SCH_NETEM (this project's VMs among them) have no qdisc that
 * delays, so the delay is added here, on the path the bytes already take
 * through the veth pair.
 *
 *   delay_relay LISTEN_ADDR PORT TARGET_ADDR TARGET_PORT ONE_WAY_MICROSECONDS
 *
 * One thread, epoll. Every chunk read from either side joins one queue,
 * due its arrival time plus the delay: the delay is constant, so the queue
 * is in due order and each connection's bytes keep their order. A chunk is
 * written when due (epoll_pwait2's nanosecond timeout, timer slack 1 µs).
 * End of stream travels the same way (shutdown after the delay), and a reset
 * or an error on either side closes both at once, as a broken link would.
 * The TCP handshake itself is not delayed: connections are long-lived here.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct pair;

/* One end of a relayed connection: its socket, and the bytes due to it. */
struct end {
    struct pair *pair;
    int fd;
    int reading;        /* EPOLLIN wanted: no end of stream read yet */
    int shut_pending;   /* the peer's end of stream is due: shut down writing once flushed */
    int shut_done;      /* writing shut down */
    uint32_t watched;   /* the epoll events registered now */
    char *out;          /* due bytes not yet written */
    size_t out_len, out_cap;
};

struct pair {
    struct end end[2];  /* 0: the client, 1: the target */
    int closed;
    int shut_count;     /* writing sides shut down; both: the pair is done */
    size_t queued;      /* chunks in the queue that name this pair */
    struct pair *next_closed;
};

struct chunk {
    struct chunk *next;
    uint64_t due;
    struct end *to;
    size_t len;         /* 0: end of stream */
    char data[];
};

static struct chunk *head, *tail;
/* Closed pairs, freed between event batches once no chunk names them (an
 * event later in the batch that closed one may still point at it). */
static struct pair *closed_pairs;
static int epoll_fd;
static uint64_t delay_ns;
static struct sockaddr_in target;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

/* Only when the interest changes: a system call per message would be most
 * of the relay's cost. */
static void watch(struct end *e) {
    struct epoll_event ev = {.data.ptr = e};
    if (e->reading) ev.events |= EPOLLIN;
    if (e->out_len > 0) ev.events |= EPOLLOUT;
    if (ev.events == e->watched) return;
    e->watched = ev.events;
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, e->fd, &ev);
}

static void free_closed_pairs(void) {
    struct pair **link = &closed_pairs;
    while (*link) {
        struct pair *p = *link;
        if (p->queued > 0) { link = &p->next_closed; continue; }
        *link = p->next_closed;
        free(p->end[0].out);
        free(p->end[1].out);
        free(p);
    }
}

/* reset: after an error, so the other side learns of a broken link at
 * once; not after both ends of stream went through, which a reset would
 * overtake. */
static void close_pair(struct pair *p, int reset) {
    if (p->closed) return;
    p->closed = 1;
    for (int i = 0; i < 2; i++) {
        struct linger l = {.l_onoff = 1, .l_linger = 0};
        if (reset) setsockopt(p->end[i].fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        close(p->end[i].fd);
    }
    p->next_closed = closed_pairs;
    closed_pairs = p;
}

static void shut_if_due(struct end *e) {
    if (!e->shut_pending || e->out_len > 0) return;
    e->shut_pending = 0;
    e->shut_done = 1;
    shutdown(e->fd, SHUT_WR);
    if (++e->pair->shut_count == 2) close_pair(e->pair, 0);
}

static void flush(struct end *e) {
    while (e->out_len > 0) {
        ssize_t n = write(e->fd, e->out, e->out_len);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) break;
            close_pair(e->pair, 1);
            return;
        }
        memmove(e->out, e->out + n, e->out_len - (size_t)n);
        e->out_len -= (size_t)n;
    }
    watch(e);
    shut_if_due(e);
}

static void deliver(struct chunk *c) {
    struct end *e = c->to;
    if (e->pair->closed) return;
    if (c->len == 0) {
        e->shut_pending = 1;
    } else {
        if (e->out_len + c->len > e->out_cap) {
            e->out_cap = (e->out_len + c->len) * 2;
            e->out = realloc(e->out, e->out_cap);
            if (!e->out) die("realloc");
        }
        memcpy(e->out + e->out_len, c->data, c->len);
        e->out_len += c->len;
    }
    flush(e);
}

static void enqueue(struct end *to, const char *data, size_t len) {
    struct chunk *c = malloc(sizeof *c + len);
    if (!c) die("malloc");
    c->next = NULL;
    c->due = now_ns() + delay_ns;
    c->to = to;
    c->len = len;
    memcpy(c->data, data, len);
    to->pair->queued++;
    if (tail) tail->next = c; else head = c;
    tail = c;
}

static void deliver_due(void) {
    uint64_t now = now_ns();
    while (head && head->due <= now) {
        struct chunk *c = head;
        head = c->next;
        if (!head) tail = NULL;
        deliver(c);
        c->to->pair->queued--;
        free(c);
    }
}

static void nonblocking(int fd) {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void accept_one(int listener) {
    int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (client < 0) return;
    /* The target is one hop away: a blocking connect is answered at once
     * (accepted, or refused while PostgreSQL is down). */
    int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (upstream < 0 || connect(upstream, (struct sockaddr *)&target, sizeof target) < 0) {
        if (upstream >= 0) close(upstream);
        close(client);
        return;
    }
    struct pair *p = calloc(1, sizeof *p);
    if (!p) die("calloc");
    int fds[2] = {client, upstream};
    for (int i = 0; i < 2; i++) {
        struct end *e = &p->end[i];
        e->pair = p;
        e->fd = fds[i];
        e->reading = 1;
        e->watched = EPOLLIN;
        nonblocking(e->fd);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = e};
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, e->fd, &ev);
    }
}

static void readable(struct end *e) {
    struct end *other = &e->pair->end[e == &e->pair->end[0] ? 1 : 0];
    char buffer[65536];
    for (;;) {
        ssize_t n = read(e->fd, buffer, sizeof buffer);
        if (n > 0) {
            enqueue(other, buffer, (size_t)n);
            /* A short read took all there was; epoll (level-triggered)
             * reports what arrives later. */
            if ((size_t)n < sizeof buffer) return;
            continue;
        }
        if (n == 0) {
            e->reading = 0;
            watch(e);
            enqueue(other, NULL, 0);
        } else if (errno != EAGAIN && errno != EINTR) {
            close_pair(e->pair, 1);
        }
        return;
    }
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s LISTEN_ADDR PORT TARGET_ADDR TARGET_PORT ONE_WAY_MICROSECONDS\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_TIMERSLACK, 1UL);
    delay_ns = strtoull(argv[5], NULL, 10) * 1000u;

    struct sockaddr_in listen_addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
    target = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[4]))};
    if (inet_pton(AF_INET, argv[1], &listen_addr.sin_addr) != 1 || inet_pton(AF_INET, argv[3], &target.sin_addr) != 1) {
        fprintf(stderr, "delay_relay: not an IPv4 address\n");
        return 2;
    }
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (listener < 0 || bind(listener, (struct sockaddr *)&listen_addr, sizeof listen_addr) < 0 || listen(listener, 256) < 0)
        die("delay_relay: listen");
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &ev);

    struct epoll_event events[64];
    for (;;) {
        struct timespec timeout, *wait = NULL;
        if (head) {
            uint64_t now = now_ns(), left = head->due > now ? head->due - now : 0;
            timeout = (struct timespec){.tv_sec = (time_t)(left / 1000000000u), .tv_nsec = (long)(left % 1000000000u)};
            wait = &timeout;
        }
        int n = epoll_pwait2(epoll_fd, events, 64, wait, NULL);
        if (n < 0 && errno != EINTR) die("epoll_pwait2");
        for (int i = 0; i < n; i++) {
            struct end *e = events[i].data.ptr;
            if (!e) { accept_one(listener); continue; }
            if (e->pair->closed) continue;
            if (e->reading && (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))) {
                readable(e);
            } else if ((events[i].events & EPOLLHUP) && !(events[i].events & EPOLLERR) && e->shut_done) {
                /* Both ways shut on this end: done, waiting for the other's
                 * end of stream; stop its level-triggered hang-up. */
                epoll_ctl(epoll_fd, EPOLL_CTL_DEL, e->fd, NULL);
                e->watched = 0;
            } else if (events[i].events & (EPOLLERR | EPOLLHUP)) {
                close_pair(e->pair, 1);
            }
            if (!e->pair->closed && (events[i].events & EPOLLOUT)) flush(e);
        }
        deliver_due();
        free_closed_pairs();
    }
}
