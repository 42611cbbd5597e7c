// An LD_PRELOAD shim for FaultInjectionTests: it fails the Nth call of one kind of file
// operation on the files whose path contains $FAULT_PATTERN, the way a full disk or a
// failing device would, and counts the calls of each kind.
//
//   FAULT_PATTERN  substring of the paths to watch (nothing is watched without it)
//   FAULT_OP       write | sync | read | truncate | unlink
//   FAULT_AT       the call to fail, counting from 1 (0: count only)
//   FAULT_ERRNO    the errno to fail with (default EIO); "short" for a write: half of it
//                  is written, and the next write of that kind fails with ENOSPC
//   FAULT_COUNTS   a file to write "write N\nsync N\n..." to at exit
//
// The calls are the ones SQLite's unix VFS and sqlimport make: pwrite64, write, pread64,
// read, fdatasync, fsync, ftruncate64, ftruncate, unlink.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum { OP_WRITE, OP_SYNC, OP_READ, OP_TRUNCATE, OP_UNLINK, OP_COUNT };
static const char *names[OP_COUNT] = {"write", "sync", "read", "truncate", "unlink"};
static long counts[OP_COUNT];
static const char *pattern;
static int target = -1;
static long failAt;
static int failErrno = EIO;
static int shortWrite;
static int failNextWrite;

__attribute__((constructor)) static void setUp(void) {
    pattern = getenv("FAULT_PATTERN");
    const char *op = getenv("FAULT_OP");
    for (int i = 0; op && i < OP_COUNT; i++) if (strcmp(op, names[i]) == 0) target = i;
    const char *at = getenv("FAULT_AT");
    failAt = at ? atol(at) : 0;
    const char *error = getenv("FAULT_ERRNO");
    if (error && strcmp(error, "short") == 0) shortWrite = 1;
    else if (error) failErrno = atoi(error);
}

__attribute__((destructor)) static void tearDown(void) {
    const char *path = getenv("FAULT_COUNTS");
    if (!path) return;
    FILE *file = fopen(path, "w");
    if (!file) return;
    for (int i = 0; i < OP_COUNT; i++) fprintf(file, "%s %ld\n", names[i], counts[i]);
    fclose(file);
}

static int watchedPath(const char *path) { return pattern && path && strstr(path, pattern) != NULL; }

static int watched(int fd) {
    if (!pattern) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, path, sizeof path - 1);
    if (length < 0) return 0;
    path[length] = 0;
    return watchedPath(path);
}

/// 1 when this call must fail; 2 when a write must come up short.
static int fault(int op) {
    long count = __atomic_add_fetch(&counts[op], 1, __ATOMIC_SEQ_CST);
    if (op == OP_WRITE && failNextWrite) {
        failNextWrite = 0;
        errno = ENOSPC;
        return 1;
    }
    if (op != target || count != failAt) return 0;
    if (op == OP_WRITE && shortWrite) {
        failNextWrite = 1;
        return 2;
    }
    errno = failErrno;
    return 1;
}

#define REAL(name) static __typeof__(name) *real; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite64);
    if (watched(fd)) {
        int f = fault(OP_WRITE);
        if (f == 1) return -1;
        if (f == 2 && count > 1) return real(fd, buffer, count / 2, offset);
    }
    return real(fd, buffer, count, offset);
}

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(write);
    if (watched(fd)) {
        int f = fault(OP_WRITE);
        if (f == 1) return -1;
        if (f == 2 && count > 1) return real(fd, buffer, count / 2);
    }
    return real(fd, buffer, count);
}

ssize_t pread64(int fd, void *buffer, size_t count, off_t offset) {
    REAL(pread64);
    if (watched(fd) && fault(OP_READ)) return -1;
    return real(fd, buffer, count, offset);
}

ssize_t read(int fd, void *buffer, size_t count) {
    REAL(read);
    if (watched(fd) && fault(OP_READ)) return -1;
    return real(fd, buffer, count);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (watched(fd) && fault(OP_SYNC)) return -1;
    return real(fd);
}

int fsync(int fd) {
    REAL(fsync);
    if (watched(fd) && fault(OP_SYNC)) return -1;
    return real(fd);
}

int ftruncate64(int fd, off_t length) {
    REAL(ftruncate64);
    if (watched(fd) && fault(OP_TRUNCATE)) return -1;
    return real(fd, length);
}

int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    if (watched(fd) && fault(OP_TRUNCATE)) return -1;
    return real(fd, length);
}

int unlink(const char *path) {
    REAL(unlink);
    if (watchedPath(path) && fault(OP_UNLINK)) return -1;
    return real(path);
}
