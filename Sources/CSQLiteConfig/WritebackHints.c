/*
 * Writeback hints: asking Linux to start writing a file's new bytes to the disk early.
 *
 * Why: when SQLite commits, it writes the changed pages and then calls fdatasync, which
 * waits while the kernel sends all of them to the disk: 0.18 s for the bench's delta on
 * random keys, after about 0.1 s for each of two syncs of its journal, 0.37 s of a 2.5 s
 * run (bench/README.md, "Writeback hints"). Started while the run goes on, that work
 * overlaps the rest of the run and the syncs find almost nothing left to do. SQLite has
 * no setting for this.
 *
 * What it does: the VFS reports each write to a main database, its rollback journal or
 * its WAL. After every kHintBytes written to a file, a helper thread calls
 * sync_file_range(SYNC_FILE_RANGE_WRITE) on the span those writes fell in. The thread
 * exists because that call can block while the disk's queue is full: 331 calls took
 * 0.10 s of the writing thread when it made them itself. The queue of hints is bounded;
 * when it is full, a hint is dropped, since the sync that follows covers the bytes anyway.
 *
 * Why it changes nothing that SQLite relies on: SYNC_FILE_RANGE_WRITE only starts the
 * writeback of dirty pages, which the kernel does on its own at any moment (after
 * dirty_expire_centisecs, under memory pressure). It promises nothing about durability,
 * writes no metadata and changes no content, and SQLite never assumes that written data
 * stays unwritten until it syncs. Its durability rests on its own syncs, which still run.
 *
 * Finding the descriptor: a VFS cannot ask a unix file for it, and opening a second
 * descriptor would be wrong: closing any descriptor of a file drops the process's POSIX
 * locks on that file, and SQLite's locking relies on them. (An earlier version read it
 * out of the unix VFS's private file object; issue 16.) Instead, the VFS watches the
 * unix VFS's own `open` through its public system-call interface (xGetSystemCall and
 * xSetSystemCall, sqlite3.h): while the wrapping VFS opens a file on a thread, the
 * descriptor that `open` returns there for that very name is noted, and used only if
 * fstat shows that it is the file just opened (same device and inode as stat of its
 * name). A file the unix VFS opens without calling `open` (it reuses a descriptor a
 * closed connection left) gets no hints, and is only as fast as without them.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* sync_file_range */
#endif
#include <string.h>
#include "CSQLiteConfig.h"
#include "WritebackHints.h"

#if defined(__linux__)
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { kHintBytes = 2 << 20, kQueueCapacity = 64 };

typedef struct Hint {
    const WritebackRange *file;
    int descriptor;
    sqlite3_int64 start, length;
} Hint;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static Hint queue[kQueueCapacity];
static int queueHead, queueCount;
static const WritebackRange *inProgress; /* the file whose hint the helper is making */
static int helperState;                   /* 0 not started, 1 running, -1 could not start */
static int enabled;

static void *helperMain(void *unused) {
    (void)unused;
    /* Behind the reading and writing threads for the CPU: where they keep both cores
     * busy (a first load), the writeback left to the sync costs no more than before.
     * (Nice, not SCHED_IDLE, whose writeback Linux would also put in the idle I/O class,
     * which a later fdatasync would then wait behind.) */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
    pthread_mutex_lock(&lock);
    for (;;) {
        while (queueCount == 0) pthread_cond_wait(&queued, &lock);
        Hint hint = queue[queueHead];
        queueHead = (queueHead + 1) % kQueueCapacity;
        queueCount -= 1;
        inProgress = hint.file;
        pthread_mutex_unlock(&lock);
        (void)sync_file_range(hint.descriptor, hint.start, hint.length, SYNC_FILE_RANGE_WRITE);
        pthread_mutex_lock(&lock);
        inProgress = NULL;
        pthread_cond_broadcast(&finished);
    }
    return NULL;
}

/* Call with `lock` held. */
static int helperRunning(void) {
    if (helperState == 0) {
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        helperState = pthread_create(&thread, &attributes, helperMain, NULL) == 0 ? 1 : -1;
        pthread_attr_destroy(&attributes);
    }
    return helperState == 1;
}

void writebackHintsEnable(int on) {
    pthread_mutex_lock(&lock);
    enabled = on;
    pthread_mutex_unlock(&lock);
}

/* The name being opened on this thread (NULL when none) and the descriptor `open`
 * returned for it. */
static __thread const char *openingName;
static __thread int openedDescriptor;
static sqlite3_syscall_ptr unixOpen;

/* Stands in for the unix VFS's `open` (posixOpen in os_unix.c takes these arguments and
 * calls open). Another thread may see it installed before it sees `unixOpen` set. */
static int watchedOpen(const char *path, int flags, int mode) {
    sqlite3_syscall_ptr wrapped = __atomic_load_n(&unixOpen, __ATOMIC_ACQUIRE);
    int descriptor = wrapped != NULL ? ((int (*)(const char *, int, int))wrapped)(path, flags, mode) : open(path, flags, mode);
    if (descriptor >= 0 && openingName != NULL && path != NULL && strcmp(path, openingName) == 0) {
        openedDescriptor = descriptor;
    }
    return descriptor;
}

int writebackHintsWatchOpens(void) {
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&once);
    sqlite3_vfs *unixVFS = sqlite3_vfs_find("unix");
    int watching = __atomic_load_n(&unixOpen, __ATOMIC_ACQUIRE) != NULL;
    if (!watching && unixVFS != NULL && unixVFS->iVersion >= 3 && unixVFS->xGetSystemCall != NULL && unixVFS->xSetSystemCall != NULL) {
        sqlite3_syscall_ptr current = unixVFS->xGetSystemCall(unixVFS, "open");
        if (current != NULL && current != (sqlite3_syscall_ptr)watchedOpen) {
            __atomic_store_n(&unixOpen, current, __ATOMIC_RELEASE);
            watching = unixVFS->xSetSystemCall(unixVFS, "open", (sqlite3_syscall_ptr)watchedOpen) == SQLITE_OK;
            if (!watching) __atomic_store_n(&unixOpen, NULL, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&once);
    return watching;
}

void writebackOpenStarts(const char *name) {
    openingName = name;
    openedDescriptor = -1;
}

int sqlimport_descriptor_if_same_file(int descriptor, const char *name) {
    struct stat opened, named;
    if (descriptor >= 0 && name != NULL && fstat(descriptor, &opened) == 0 && stat(name, &named) == 0 &&
        opened.st_dev == named.st_dev && opened.st_ino == named.st_ino) {
        return descriptor;
    }
    return -1;
}

void writebackRangeOpen(WritebackRange *range, const char *name) {
    range->bytes = range->hints = 0;
    int descriptor = openedDescriptor;
    openingName = NULL;
    openedDescriptor = -1;
    pthread_mutex_lock(&lock);
    int on = enabled;
    pthread_mutex_unlock(&lock);
    range->descriptor = on && name != NULL ? sqlimport_descriptor_if_same_file(descriptor, name) : -1;
}

void writebackRangeWrote(WritebackRange *range, sqlite3_int64 offset, sqlite3_int64 amount) {
    if (range->descriptor < 0) return;
    if (range->bytes == 0 || offset < range->start) range->start = offset;
    if (range->bytes == 0 || offset + amount > range->end) range->end = offset + amount;
    range->bytes += amount;
    if (range->bytes < kHintBytes) return;
    /* Counted when asked for, handed over or not (a full queue drops it: the sync that
     * follows covers those bytes anyway). */
    range->hints += 1;
    pthread_mutex_lock(&lock);
    if (queueCount < kQueueCapacity && helperRunning()) {
        queue[(queueHead + queueCount) % kQueueCapacity] =
            (Hint){range, range->descriptor, range->start, range->end - range->start};
        queueCount += 1;
        pthread_cond_signal(&queued);
    }
    pthread_mutex_unlock(&lock);
    range->bytes = 0;
}

void writebackRangeClose(WritebackRange *range) {
    if (range->descriptor < 0) return;
    pthread_mutex_lock(&lock);
    int kept = 0;
    for (int i = 0; i < queueCount; i++) {
        Hint hint = queue[(queueHead + i) % kQueueCapacity];
        if (hint.file != range) queue[(queueHead + kept++) % kQueueCapacity] = hint;
    }
    queueCount = kept;
    while (inProgress == range) pthread_cond_wait(&finished, &lock);
    pthread_mutex_unlock(&lock);
    range->descriptor = -1;
}

#else /* sync_file_range is Linux's: elsewhere no file gets hints. */

int sqlimport_descriptor_if_same_file(int descriptor, const char *name) {
    (void)descriptor, (void)name;
    return -1;
}

int writebackHintsWatchOpens(void) { return 0; }
void writebackOpenStarts(const char *name) { (void)name; }
void writebackHintsEnable(int on) { (void)on; }
void writebackRangeOpen(WritebackRange *range, const char *name) {
    (void)name;
    range->descriptor = -1;
    range->bytes = range->hints = 0;
}
void writebackRangeWrote(WritebackRange *range, sqlite3_int64 offset, sqlite3_int64 amount) {
    (void)range, (void)offset, (void)amount;
}
void writebackRangeClose(WritebackRange *range) { (void)range; }

#endif
