// SQLite maps a database per connection (os_unix.c keeps the mapping in the
// unixFile), so N reader connections map the same file N times and every
// page they touch counts N times in the process's RssFile. This VFS wraps
// the default one and answers xFetch from one read-only MAP_SHARED mapping
// per file (by device and inode) that all connections share; everything
// else is the default VFS's. The mapping reserves SQLite's largest mmap
// size once and is never moved: the file may grow under it (a page is
// handed out only below the size last seen by fstat), so no connection
// ever has to unmap and map again. A connection uses it once its
// `PRAGMA mmap_size` is above 0; pages still come from the WAL first, as
// with SQLite's own mapping.
#include "CSQLiteSharedMap.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

// SQLite's compile-time ceiling for mmap_size on Debian's build (and its
// default): larger files are mapped up to here and read beyond it.
#define RESERVE ((sqlite3_int64)0x7fff0000)

typedef struct SharedMap {
    dev_t device;
    ino_t inode;
    int fd;
    int users;
    unsigned char *base;
    _Atomic sqlite3_int64 size;  // the file's size as last seen
    struct SharedMap *next;
} SharedMap;

typedef struct MappedFile {
    sqlite3_file base;
    sqlite3_file *real;         // the default VFS's file, right after this struct
    SharedMap *map;             // main database files only
    sqlite3_int64 limit;        // this connection's mmap_size
} MappedFile;

static sqlite3_vfs *underlying;
static sqlite3_vfs vfs;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static SharedMap *maps;

static SharedMap *map_acquire(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) { close(fd); return NULL; }
    pthread_mutex_lock(&maps_lock);
    SharedMap *map = maps;
    while (map && !(map->device == st.st_dev && map->inode == st.st_ino)) map = map->next;
    if (map) {
        map->users++;
        close(fd);
    } else if ((map = calloc(1, sizeof *map))) {
        void *base = mmap(NULL, (size_t)RESERVE, PROT_READ, MAP_SHARED, fd, 0);
        if (base == MAP_FAILED) {
            free(map);
            map = NULL;
            close(fd);
        } else {
            map->device = st.st_dev;
            map->inode = st.st_ino;
            map->fd = fd;
            map->users = 1;
            map->base = base;
            atomic_store(&map->size, (sqlite3_int64)st.st_size);
            map->next = maps;
            maps = map;
        }
    } else {
        close(fd);
    }
    pthread_mutex_unlock(&maps_lock);
    return map;
}

static void map_release(SharedMap *map) {
    pthread_mutex_lock(&maps_lock);
    if (--map->users == 0) {
        SharedMap **link = &maps;
        while (*link != map) link = &(*link)->next;
        *link = map->next;
        munmap(map->base, (size_t)RESERVE);
        close(map->fd);
        free(map);
    }
    pthread_mutex_unlock(&maps_lock);
}

#define REAL(f) (((MappedFile *)(f))->real)

static int x_close(sqlite3_file *f) {
    MappedFile *p = (MappedFile *)f;
    int rc = p->real->pMethods ? p->real->pMethods->xClose(p->real) : SQLITE_OK;
    if (p->map) map_release(p->map);
    p->map = NULL;
    return rc;
}
static int x_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int x_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xWrite(REAL(f), b, n, o); }
static int x_truncate(sqlite3_file *f, sqlite3_int64 size) {
    MappedFile *p = (MappedFile *)f;
    int rc = p->real->pMethods->xTruncate(p->real, size);
    // Pages past the new end must not be handed out (they would fault).
    if (p->map) {
        sqlite3_int64 seen = atomic_load(&p->map->size);
        while (size < seen && !atomic_compare_exchange_weak(&p->map->size, &seen, size)) {}
    }
    return rc;
}
static int x_sync(sqlite3_file *f, int flags) { return REAL(f)->pMethods->xSync(REAL(f), flags); }
static int x_file_size(sqlite3_file *f, sqlite3_int64 *size) { return REAL(f)->pMethods->xFileSize(REAL(f), size); }
static int x_lock(sqlite3_file *f, int level) { return REAL(f)->pMethods->xLock(REAL(f), level); }
static int x_unlock(sqlite3_file *f, int level) { return REAL(f)->pMethods->xUnlock(REAL(f), level); }
static int x_check_reserved(sqlite3_file *f, int *out) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out); }
static int x_file_control(sqlite3_file *f, int op, void *arg) {
    MappedFile *p = (MappedFile *)f;
    if (op == SQLITE_FCNTL_MMAP_SIZE) {
        // Kept here, not passed down: the default VFS must not map on its own.
        sqlite3_int64 *requested = arg;
        sqlite3_int64 previous = p->limit;
        if (*requested >= 0) p->limit = *requested < RESERVE ? *requested : RESERVE;
        *requested = previous;
        return SQLITE_OK;
    }
    return p->real->pMethods->xFileControl(p->real, op, arg);
}
static int x_sector_size(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int x_device_characteristics(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int x_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out) {
    return REAL(f)->pMethods->xShmMap(REAL(f), page, size, extend, out);
}
static int x_shm_lock(sqlite3_file *f, int offset, int n, int flags) { return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags); }
static void x_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int x_shm_unmap(sqlite3_file *f, int delete) { return REAL(f)->pMethods->xShmUnmap(REAL(f), delete); }

static int x_fetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) {
    MappedFile *p = (MappedFile *)f;
    *out = NULL;
    SharedMap *map = p->map;
    sqlite3_int64 end = offset + amount;
    if (!map || end > p->limit) return SQLITE_OK;
    if (end > atomic_load(&map->size)) {
        // The file grew since (the writer's checkpoints): look again.
        struct stat st;
        if (fstat(map->fd, &st) != 0) return SQLITE_OK;
        atomic_store(&map->size, (sqlite3_int64)st.st_size);
        if (end > (sqlite3_int64)st.st_size) return SQLITE_OK;
    }
    *out = map->base + offset;
    return SQLITE_OK;
}
// The mapping outlives every page handed out; SQLite's request to unmap
// everything (a NULL page, after another connection changed the file) is
// not needed: the shared mapping shows the file as it is now.
static int x_unfetch(sqlite3_file *f, sqlite3_int64 offset, void *page) { (void)f; (void)offset; (void)page; return SQLITE_OK; }

static const sqlite3_io_methods methods = {
    3, x_close, x_read, x_write, x_truncate, x_sync, x_file_size, x_lock, x_unlock,
    x_check_reserved, x_file_control, x_sector_size, x_device_characteristics,
    x_shm_map, x_shm_lock, x_shm_barrier, x_shm_unmap, x_fetch, x_unfetch,
};

static int x_open(sqlite3_vfs *self, sqlite3_filename name, sqlite3_file *f, int flags, int *out_flags) {
    (void)self;
    MappedFile *p = (MappedFile *)f;
    memset(p, 0, sizeof *p);
    p->real = (sqlite3_file *)(p + 1);
    int rc = underlying->xOpen(underlying, name, p->real, flags, out_flags);
    if (p->real->pMethods == NULL) return rc;
    // SQLite calls xClose whenever pMethods is set, even after a failed open.
    p->base.pMethods = &methods;
    if (rc == SQLITE_OK && (flags & SQLITE_OPEN_MAIN_DB) && name && p->real->pMethods->iVersion >= 3) {
        p->map = map_acquire(name);
    }
    return rc;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int registered = SQLITE_ERROR;

static void register_once(void) {
    underlying = sqlite3_vfs_find(NULL);
    if (!underlying) return;
    vfs = *underlying;
    vfs.zName = AXIOM_SHARED_MAP_VFS;
    vfs.szOsFile = (int)sizeof(MappedFile) + underlying->szOsFile;
    vfs.xOpen = x_open;
    vfs.pNext = NULL;
    registered = sqlite3_vfs_register(&vfs, 0);
}

int axiom_shared_map_register(void) {
    pthread_once(&once, register_once);
    return registered;
}
