/*
 * Writeback hints: asking Linux to start writing a file's new bytes to the disk early.
 *
 * Why: when SQLite commits, it writes the changed pages and then calls fdatasync, which
 * waits while the kernel sends all of them to the disk: 0.16 s for the 330 MB of the
 * bench's delta, after 0.07-0.09 s for each sync of its journal (bench/README.md,
 * "Writeback hints"). Started while the run goes on, that work overlaps the rest of the
 * run and the syncs find almost nothing left to do. SQLite has no setting for this.
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
 * locks on that file, and SQLite's locking relies on them. The unix VFS's file object
 * (struct unixFile in os_unix.c) begins with three pointers and then the descriptor, as
 * in every SQLite 3 release; the number read there is used only if fstat shows that it
 * is the file just opened (same device and inode as stat of its name). Otherwise that
 * file gets no hints and is only as fast as without them.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* sync_file_range */
#endif
#include "CSQLiteConfig.h"
#include "WritebackHints.h"

#if defined(__linux__)
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

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

int sqlimport_unix_file_descriptor(const sqlite3_file *unixFile, const char *name) {
    if (name == NULL || unixFile->pMethods == NULL) return -1;
    int candidate = *(const int *)((const char *)unixFile + 3 * sizeof(void *));
    struct stat opened, named;
    if (candidate >= 0 && fstat(candidate, &opened) == 0 && stat(name, &named) == 0 &&
        opened.st_dev == named.st_dev && opened.st_ino == named.st_ino) {
        return candidate;
    }
    return -1;
}

void writebackRangeOpen(WritebackRange *range, sqlite3_file *unixFile, const char *name) {
    range->bytes = range->hints = 0;
    pthread_mutex_lock(&lock);
    int on = enabled;
    pthread_mutex_unlock(&lock);
    range->descriptor = on ? sqlimport_unix_file_descriptor(unixFile, name) : -1;
}

void writebackRangeWrote(WritebackRange *range, sqlite3_int64 offset, sqlite3_int64 amount) {
    if (range->descriptor < 0) return;
    if (range->bytes == 0 || offset < range->start) range->start = offset;
    if (range->bytes == 0 || offset + amount > range->end) range->end = offset + amount;
    range->bytes += amount;
    if (range->bytes < kHintBytes) return;
    pthread_mutex_lock(&lock);
    if (queueCount < kQueueCapacity && helperRunning()) {
        queue[(queueHead + queueCount) % kQueueCapacity] =
            (Hint){range, range->descriptor, range->start, range->end - range->start};
        queueCount += 1;
        pthread_cond_signal(&queued);
        range->hints += 1;
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

int sqlimport_unix_file_descriptor(const sqlite3_file *unixFile, const char *name) {
    (void)unixFile, (void)name;
    return -1;
}

void writebackHintsEnable(int on) { (void)on; }
void writebackRangeOpen(WritebackRange *range, sqlite3_file *unixFile, const char *name) {
    (void)unixFile, (void)name;
    range->descriptor = -1;
    range->bytes = range->hints = 0;
}
void writebackRangeWrote(WritebackRange *range, sqlite3_int64 offset, sqlite3_int64 amount) {
    (void)range, (void)offset, (void)amount;
}
void writebackRangeClose(WritebackRange *range) { (void)range; }

#endif
