/*
 * A VFS that joins the rollback journal's small writes into large ones.
 *
 * Why by hand: SQLite journals a page as three writes (its 4-byte number, the page, a
 * 4-byte checksum), so a run that changes 80,000 pages makes 240,000 pwrite calls to the
 * journal. On this machine's ext4 each call costs a few microseconds in the kernel
 * whatever its size: 0.41 s for the journal of 80,000 pages against 0.10 s for the same
 * bytes in 124 KiB writes (bench/README.md, "Journal writes"). SQLite has no setting
 * for this, no library does it, and it is one small layer.
 *
 * What it does: it wraps SQLite's "unix" VFS. A write to a main rollback journal that
 * continues the previous one is appended to a process-wide buffer instead of being
 * written. The buffer is written out before anything that could depend on those bytes
 * or let anyone see the file without them: before any other write, truncate, sync,
 * lock, unlock, file control, shared-memory call or delete anywhere, and before a read,
 * size query or close of the journal itself. Only reads of other files (the database
 * pages SQLite is about to journal) pass it by.
 *
 * Why SQLite's guarantees hold: the file system receives the same writes, syncs,
 * truncates and deletes in the same order, with consecutive writes to the journal
 * joined. In particular the journal is complete before any database page is
 * overwritten and before any sync. A crash can leave only what the unjoined sequence
 * could leave at some point: a prefix of it, the last write possibly torn, which the
 * journal's format survives (its records carry checksums). Database files, WAL files
 * and temporary files are not buffered. When writing the buffer fails (a full disk),
 * the call that needed it fails with SQLite's error and the bytes stay buffered, so no
 * later write can overtake them.
 *
 * The same layer reports the writes to main databases, their journals and their WAL
 * files to WritebackHints.c, which asks Linux to start writing them back early when
 * the application turned that on.
 */
#include <pthread.h>
#include <string.h>
#include <sqlite3.h>
#include "CSQLiteConfig.h"
#include "WritebackHints.h"

/* The "unix" VFS writes at most 128 KiB - 1 bytes per call (seekAndWrite masks the
 * length to 17 bits), so a joined write stays below that: 31 pages of 4 KiB. */
enum { kBufferCapacity = 124 << 10 };

typedef struct CoalescingFile {
    sqlite3_file base;
    sqlite3_file *real; /* the wrapped file, stored right after this struct */
    int isMainJournal;
    sqlite3_int64 bufferedWrites; /* writes that went into the buffer */
    sqlite3_int64 flushes;        /* writes of the buffer to the file system */
    WritebackRange writeback;     /* see WritebackHints.c */
} CoalescingFile;

static sqlite3_vfs *underlying;

/* The buffer: at most one file has unwritten bytes at a time. */
static pthread_mutex_t bufferLock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char buffer[kBufferCapacity];
static CoalescingFile *owner;      /* the file the buffered bytes belong to, or NULL */
static sqlite3_int64 bufferOffset; /* where they go in that file */
static int bufferLength;

/* Writes the buffer out. Call with bufferLock held. On failure the bytes stay buffered. */
static int flushLocked(void) {
    if (owner == NULL) return SQLITE_OK;
    int rc = owner->real->pMethods->xWrite(owner->real, buffer, bufferLength, bufferOffset);
    owner->flushes += 1;
    if (rc == SQLITE_OK) {
        writebackRangeWrote(&owner->writeback, bufferOffset, bufferLength);
        owner = NULL;
        bufferLength = 0;
    }
    return rc;
}

/* Writes the buffer out whichever file it belongs to. */
static int flushAll(void) {
    pthread_mutex_lock(&bufferLock);
    int rc = flushLocked();
    pthread_mutex_unlock(&bufferLock);
    return rc;
}

/* Writes the buffer out if it belongs to `file`. */
static int flushOwn(CoalescingFile *file) {
    pthread_mutex_lock(&bufferLock);
    int rc = owner == file ? flushLocked() : SQLITE_OK;
    pthread_mutex_unlock(&bufferLock);
    return rc;
}

static int coalescingWrite(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    CoalescingFile *file = (CoalescingFile *)base;
    pthread_mutex_lock(&bufferLock);
    int continuesBuffer = owner == file && offset == bufferOffset + bufferLength;
    int rc = continuesBuffer ? SQLITE_OK : flushLocked();
    if (rc == SQLITE_OK && continuesBuffer && bufferLength + amount > kBufferCapacity) rc = flushLocked();
    if (rc == SQLITE_OK) {
        if (!file->isMainJournal || amount > kBufferCapacity) {
            rc = file->real->pMethods->xWrite(file->real, data, amount, offset);
            if (rc == SQLITE_OK) writebackRangeWrote(&file->writeback, offset, amount);
        } else {
            if (owner == NULL) {
                owner = file;
                bufferOffset = offset;
            }
            memcpy(buffer + bufferLength, data, (size_t)amount);
            bufferLength += amount;
            file->bufferedWrites += 1;
        }
    }
    pthread_mutex_unlock(&bufferLock);
    return rc;
}

static int coalescingRead(sqlite3_file *base, void *data, int amount, sqlite3_int64 offset) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushOwn(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int coalescingClose(sqlite3_file *base) {
    CoalescingFile *file = (CoalescingFile *)base;
    pthread_mutex_lock(&bufferLock);
    int rc = owner == file ? flushLocked() : SQLITE_OK;
    if (owner == file) {
        /* The file goes away: its bytes cannot be written later. */
        owner = NULL;
        bufferLength = 0;
    }
    pthread_mutex_unlock(&bufferLock);
    writebackRangeClose(&file->writeback);
    int closed = file->real->pMethods->xClose(file->real);
    return rc != SQLITE_OK ? rc : closed;
}

static int coalescingTruncate(sqlite3_file *base, sqlite3_int64 size) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : file->real->pMethods->xTruncate(file->real, size);
}

static int coalescingSync(sqlite3_file *base, int flags) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : file->real->pMethods->xSync(file->real, flags);
}

static int coalescingFileSize(sqlite3_file *base, sqlite3_int64 *size) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushOwn(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileSize(file->real, size);
}

static int coalescingLock(sqlite3_file *base, int level) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : file->real->pMethods->xLock(file->real, level);
}

static int coalescingUnlock(sqlite3_file *base, int level) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : file->real->pMethods->xUnlock(file->real, level);
}

static int coalescingCheckReservedLock(sqlite3_file *base, int *result) {
    CoalescingFile *file = (CoalescingFile *)base;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int coalescingFileControl(sqlite3_file *base, int op, void *argument) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileControl(file->real, op, argument);
}

static int coalescingSectorSize(sqlite3_file *base) {
    CoalescingFile *file = (CoalescingFile *)base;
    return file->real->pMethods->xSectorSize(file->real);
}

static int coalescingDeviceCharacteristics(sqlite3_file *base) {
    CoalescingFile *file = (CoalescingFile *)base;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int coalescingShmMap(sqlite3_file *base, int region, int size, int extend, void volatile **memory) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : file->real->pMethods->xShmMap(file->real, region, size, extend, memory);
}

static int coalescingShmLock(sqlite3_file *base, int offset, int count, int flags) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void coalescingShmBarrier(sqlite3_file *base) {
    CoalescingFile *file = (CoalescingFile *)base;
    (void)flushAll();
    file->real->pMethods->xShmBarrier(file->real);
}

static int coalescingShmUnmap(sqlite3_file *base, int deleteFlag) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static int coalescingFetch(sqlite3_file *base, sqlite3_int64 offset, int amount, void **pointer) {
    CoalescingFile *file = (CoalescingFile *)base;
    int rc = flushOwn(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int coalescingUnfetch(sqlite3_file *base, sqlite3_int64 offset, void *pointer) {
    CoalescingFile *file = (CoalescingFile *)base;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

/* One method table per version the wrapped file may report, so that SQLite sees the
 * same capabilities (WAL needs version 2, memory mapping version 3). */
#define COALESCING_METHODS(version)                                                       \
    {                                                                                     \
        version, coalescingClose, coalescingRead, coalescingWrite, coalescingTruncate,    \
        coalescingSync, coalescingFileSize, coalescingLock, coalescingUnlock,             \
        coalescingCheckReservedLock, coalescingFileControl, coalescingSectorSize,         \
        coalescingDeviceCharacteristics, coalescingShmMap, coalescingShmLock,             \
        coalescingShmBarrier, coalescingShmUnmap, coalescingFetch, coalescingUnfetch      \
    }
static const sqlite3_io_methods methodsByVersion[4] = {
    COALESCING_METHODS(1), COALESCING_METHODS(1), COALESCING_METHODS(2), COALESCING_METHODS(3)};

static int coalescingOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *base, int flags, int *outFlags) {
    (void)vfs;
    CoalescingFile *file = (CoalescingFile *)base;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    file->isMainJournal = (flags & SQLITE_OPEN_MAIN_JOURNAL) != 0;
    int rc = underlying->xOpen(underlying, name, file->real, flags, outFlags);
    int hinted = SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL;
    writebackRangeOpen(&file->writeback, file->real, rc == SQLITE_OK && (flags & hinted) ? name : NULL);
    if (file->real->pMethods != NULL) {
        int version = file->real->pMethods->iVersion;
        base->pMethods = &methodsByVersion[version < 1 ? 1 : version > 3 ? 3 : version];
    }
    return rc;
}

static int coalescingDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    int rc = flushAll();
    return rc != SQLITE_OK ? rc : underlying->xDelete(underlying, name, syncDirectory);
}

static int coalescingAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return underlying->xAccess(underlying, name, flags, result);
}

static int coalescingFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return underlying->xFullPathname(underlying, name, size, out);
}

static void *coalescingDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return underlying->xDlOpen(underlying, name);
}

static void coalescingDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    underlying->xDlError(underlying, size, message);
}

static void (*coalescingDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return underlying->xDlSym(underlying, handle, symbol);
}

static void coalescingDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    underlying->xDlClose(underlying, handle);
}

static int coalescingRandomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return underlying->xRandomness(underlying, size, out);
}

static int coalescingSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return underlying->xSleep(underlying, microseconds);
}

static int coalescingCurrentTime(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return underlying->xCurrentTime(underlying, now);
}

static int coalescingGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return underlying->xGetLastError ? underlying->xGetLastError(underlying, size, message) : 0;
}

static int coalescingCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return underlying->xCurrentTimeInt64(underlying, now);
}

static sqlite3_vfs coalescingVFS = {
    2, 0, 0, NULL, SQLIMPORT_WRITE_COALESCING_VFS, NULL, coalescingOpen, coalescingDelete,
    coalescingAccess, coalescingFullPathname, coalescingDlOpen, coalescingDlError, coalescingDlSym,
    coalescingDlClose, coalescingRandomness, coalescingSleep, coalescingCurrentTime,
    coalescingGetLastError, coalescingCurrentTimeInt64, NULL, NULL, NULL};

int sqlimport_register_write_coalescing_vfs(void) {
    underlying = sqlite3_vfs_find("unix");
    if (underlying == NULL || underlying->iVersion < 2) return SQLITE_ERROR;
    coalescingVFS.szOsFile = (int)sizeof(CoalescingFile) + underlying->szOsFile;
    coalescingVFS.mxPathname = underlying->mxPathname;
    return sqlite3_vfs_register(&coalescingVFS, 1);
}

void sqlimport_write_coalescing_vfs_hint_writeback(int on) { writebackHintsEnable(on); }

long long sqlimport_write_coalescing_vfs_writeback_hints(struct sqlite3 *db, int journal) {
    sqlite3_file *file = NULL;
    int op = journal ? SQLITE_FCNTL_JOURNAL_POINTER : SQLITE_FCNTL_FILE_POINTER;
    if (sqlite3_file_control(db, "main", op, &file) != SQLITE_OK || file == NULL) return -1;
    if (file->pMethods == NULL || file->pMethods->xWrite != coalescingWrite) return -1;
    CoalescingFile *ours = (CoalescingFile *)file;
    if (ours->writeback.descriptor < 0) return -1;
    pthread_mutex_lock(&bufferLock);
    long long hints = ours->writeback.hints;
    pthread_mutex_unlock(&bufferLock);
    return hints;
}

int sqlimport_write_coalescing_vfs_journal_counts(struct sqlite3 *db, long long *buffered, long long *written) {
    sqlite3_file *journal = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal) != SQLITE_OK || journal == NULL) return -1;
    if (journal->pMethods == NULL || journal->pMethods->xWrite != coalescingWrite) return -1;
    pthread_mutex_lock(&bufferLock);
    *buffered = ((CoalescingFile *)journal)->bufferedWrites;
    *written = ((CoalescingFile *)journal)->flushes;
    pthread_mutex_unlock(&bufferLock);
    return 0;
}
