/*
 * A VFS that writes a rollback journal in large writes instead of three per page.
 *
 * Why by hand: SQLite journals a page as three writes (its 4-byte number, the page, a
 * 4-byte checksum), and on Linux each pwrite costs a system call and a walk of the page
 * cache whatever its size. A delta that changes most of a 350 MB database journals about
 * 100,000 pages: 300,000 calls, a sixth of its time (bench/README.md, "Journal writes").
 * SQLite has no setting for this, no library does it, and it is one small layer.
 *
 * What it does: it wraps SQLite's "unix" VFS. Each main rollback journal opened for
 * writing has a buffer of 124 KiB; a write that continues the journal's buffered bytes is
 * appended to them instead of being written. A write at offset 0 (the journal's header,
 * whose zeroing is the commit point in PERSIST and exclusive modes) is never held: it
 * goes to the file at once, after what is held, and SQLite gets its result. The buffer is
 * written out before anything that could depend on those bytes or let anyone see the
 * file without them: before any other call on the journal (but a continuing write), and
 * before a sync, truncate, size hint or unlock of its database (the handle of the same
 * connection: the one opened under the name the journal's name was made from), and
 * before a write of its database that overwrites a page whose original the buffer holds.
 * Nothing else touches it: another connection's or file's call never writes it out or
 * sees its errors.
 *
 * Which originals the buffer holds: SQLite journals a page as three writes, its number
 * (4 bytes), the page, and a checksum (pager.c, pagerAddPageToRollbackJournal). A write
 * that comes right after a 4-byte write is taken as the original of the page that number
 * names; the buffer keeps those numbers. (The number may have gone out with the buffer
 * before; the page and its checksum always share one: a page that would leave no room
 * for its checksum starts a new buffer.) Any other bytes in the buffer (a header further
 * on, a super-journal's name) make every write of the database send it out, as does a
 * database write that is not one whole page of the records' size. So a page that SQLite
 * spills to the database while the buffer fills (a transaction larger than the page
 * cache) no longer writes the buffer out, unless its original is in it.
 *
 * Why SQLite's guarantees hold when nothing fails: the file system receives the same
 * writes, syncs, truncates and deletes, with consecutive writes to the journal joined, in
 * the same order but for one change: a database page may be written before the journal's
 * last records, which are never its own original. Every page of the database is still
 * overwritten only once its original is in the journal's file, and the journal is
 * complete before any sync of the database and before its unlock. SQLite's own rule is
 * the first one (pager.c: a page is journaled before it is written); the order of
 * unrelated writes is not one, since with `synchronous` on they are not ordered on disk
 * before a sync anyway. A crash leaves a journal whose records are a prefix of SQLite's,
 * the last one possibly torn (its checksum tells), and a database in which every page
 * changed has its original among those records: the hot journal restores it.
 *
 * When writing the buffer fails (a full disk, an I/O error, a short write), SQLite has
 * already been told that those bytes were written, so the journal it believes in is not
 * the file's. Three rules make SQLite recover from the file instead:
 * - the bytes are dropped, never kept: a later call must not fail again on them (the
 *   layer this replaces kept them, and then the rollback's own reads and writes failed,
 *   which left a half-written database);
 * - the journal is poisoned: every later call on it fails (but its close), so every path
 *   that needs the journal (rolling back a statement or the transaction, syncing it to
 *   commit, writing to it) fails, and SQLite's pager goes into its error state, which
 *   discards its cache, closes the journal (pager.c, pager_unlock), and rolls it back
 *   from the file, through a new handle, as a hot journal, before anything else;
 * - while a poisoned journal is open, its database is not written, synced or truncated,
 *   so that no page whose original was in the dropped bytes can reach the database file
 *   (with `synchronous = OFF`, SQLite writes pages without syncing the journal first),
 *   and the transaction cannot commit. (SQLite's own paths reach its error state first,
 *   through the journal; this rule and the refusal to delete an open poisoned journal
 *   are defence in depth.)
 * What the file holds is then a journal of every page written to the database: all those
 * writes came after a successful write of the buffer, which held everything journaled
 * before them.
 *
 * Limits: a connection in `locking_mode = EXCLUSIVE` keeps its journal open, so after
 * such a fault every statement fails until the connection is closed (the database is
 * safe; sqlimport closes its connection after any fault). A size hint
 * (`SQLITE_FCNTL_SIZE_HINT`) of another handle may still extend a database with zeros.
 * Database files, WAL files, statement, temporary and super-journals, and journals
 * opened to read (a hot journal's check), are never buffered.
 * FaultInjectionTests fails each call, the buffer's writes among them, with ENOSPC, EIO
 * and short writes, and JournalBufferTests checks the rules one by one.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "CSQLiteConfig.h"
#include "WritebackHints.h"

/* The "unix" VFS writes at most 128 KiB - 1 bytes per call (seekAndWrite masks the
 * length to 17 bits), so a joined write stays below that: 31 pages of 4 KiB. */
enum { kBufferCapacity = 124 << 10 };
/* The most a write passes to the wrapped VFS at once. SQLite writes more in one call
 * only when a statement journal kept in memory spills to its file: it writes its chunks
 * whole, and a chunk is as large as the spill threshold, which sqlimport raises to
 * 16 MiB (SQLITE_CONFIG_STMTJRNL_SPILL). The unix VFS would write the length modulo
 * 128 KiB of such a chunk and fail the rest as a full disk; this VFS writes it in
 * pieces. */
enum { kLargestWrite = 64 << 10 };
/* Page numbers kept per buffer: 31 records of 4 KiB pages, 248 of 512-byte pages. More
 * records than that (smaller pages) make the buffer's contents unknown. */
enum { kHeldCapacity = 256 };

typedef struct BufferFile BufferFile;
struct BufferFile {
    sqlite3_file base;
    sqlite3_file *real; /* the wrapped file, stored right after this struct */
    const char *name;   /* SQLite keeps it valid until the close */
    int isMainDatabase;
    WritebackRange writeback; /* see WritebackHints.c (a journal's: under its lock) */
    /* A main journal's: its database's name (sqlite3_filename_database), its buffer
     * (NULL when it is not buffered), and its place in the list of open journals. */
    const char *databaseName;
    unsigned char *buffer;
    int bufferLength;
    sqlite3_int64 bufferOffset;
    /* The page numbers of the originals the buffer holds, and their size; heldCount is
     * -1 when it holds other bytes too (see the header). */
    unsigned int held[kHeldCapacity];
    int heldCount;
    int heldSize;
    /* The last 4-byte write to the journal (a record's page number, or its checksum) and
     * the offset where it ended, or -1: the write that starts there is that page's. */
    unsigned int lastWord;
    sqlite3_int64 lastWordEnd;
    /* The error that dropped the buffered bytes: every later call but the close fails
     * with it. */
    int poison;
    BufferFile *nextJournal;
    /* Guards the buffer, its length and offset, the poison and the counts. */
    pthread_mutex_t lock;
    sqlite3_int64 bufferedWrites; /* writes that went into the buffer */
    sqlite3_int64 flushes;        /* writes of the buffer to the file */
};

/* Guards the list of open buffered journals. A journal's own lock is taken after it,
 * never before, and it is held only to find a journal or to unlink one. */
static pthread_mutex_t journalsLock = PTHREAD_MUTEX_INITIALIZER;
static BufferFile *journals;

/* An error that SQLite's pager treats as fatal to the transaction (its error state). */
static int fatal(int rc) {
    int primary = rc & 0xff;
    return primary == SQLITE_FULL || primary == SQLITE_IOERR ? rc : SQLITE_IOERR_WRITE;
}

/* Writes `journal`'s buffer out. Call with the journal's lock held. On failure the bytes
 * are dropped and the journal is poisoned. */
static int flushLocked(BufferFile *journal) {
    if (journal->bufferLength == 0) return SQLITE_OK;
    int length = journal->bufferLength;
    journal->bufferLength = 0;
    journal->heldCount = 0;
    journal->flushes += 1;
    int rc = journal->real->pMethods->xWrite(journal->real, journal->buffer, length, journal->bufferOffset);
    if (rc == SQLITE_OK) writebackRangeWrote(&journal->writeback, journal->bufferOffset, length);
    if (rc != SQLITE_OK) {
        rc = fatal(rc);
        journal->poison = rc;
    }
    return rc;
}

/* The buffered journal of database `file` (the same connection's: SQLite makes the
 * journal's name from the database's, so sqlite3_filename_database gives back the very
 * pointer the database was opened with), locked; or NULL. */
static BufferFile *lockJournalOf(BufferFile *file) {
    if (!file->isMainDatabase || file->name == NULL) return NULL;
    pthread_mutex_lock(&journalsLock);
    BufferFile *journal = journals;
    while (journal != NULL && journal->databaseName != file->name) journal = journal->nextJournal;
    if (journal != NULL) pthread_mutex_lock(&journal->lock);
    pthread_mutex_unlock(&journalsLock);
    return journal;
}

/* Before any other call of a journal: its poison, and its buffer. */
static int beforeJournalCall(BufferFile *file) {
    if (file->buffer == NULL) return SQLITE_OK;
    pthread_mutex_lock(&file->lock);
    int rc = file->poison != SQLITE_OK ? file->poison : flushLocked(file);
    pthread_mutex_unlock(&file->lock);
    return rc;
}

/* Whether a write of `amount` bytes at `offset` of a database could overwrite a page whose
 * original `journal`'s buffer holds. Call with the journal's lock held. */
static int holdsOriginalOf(const BufferFile *journal, int amount, sqlite3_int64 offset) {
    if (journal->bufferLength == 0 || journal->heldCount == 0) return 0;
    if (journal->heldCount < 0 || amount != journal->heldSize || offset % amount != 0) return 1;
    sqlite3_int64 page = offset / amount + 1;
    for (int index = 0; index < journal->heldCount; index++) {
        if (journal->held[index] == page) return 1;
    }
    return 0;
}

/* Before a write of database `file`: its journal's poison, and its buffer if that holds
 * the original of a page written. */
static int beforeDatabaseWrite(BufferFile *file, int amount, sqlite3_int64 offset) {
    int rc = SQLITE_OK;
    BufferFile *journal = lockJournalOf(file);
    if (journal != NULL) {
        if (journal->poison != SQLITE_OK) rc = SQLITE_IOERR_WRITE;
        else if (holdsOriginalOf(journal, amount, offset)) rc = flushLocked(journal);
        pthread_mutex_unlock(&journal->lock);
    }
    return rc;
}

/* Notes what a write that went into `journal`'s buffer holds (`isPage`: it came right
 * after a 4-byte write). Call with its lock held. */
static void noteHeld(BufferFile *journal, const void *data, int amount, sqlite3_int64 offset, int isPage) {
    if (amount == 4) {
        const unsigned char *bytes = data;
        journal->lastWord = (unsigned int)bytes[0] << 24 | (unsigned int)bytes[1] << 16 | (unsigned int)bytes[2] << 8 | bytes[3];
        journal->lastWordEnd = offset + 4;
        return;
    }
    if (isPage && journal->heldCount >= 0 && journal->heldCount < kHeldCapacity
        && (journal->heldCount == 0 || journal->heldSize == amount)) {
        journal->held[journal->heldCount++] = journal->lastWord;
        journal->heldSize = amount;
    } else {
        journal->heldCount = -1;
    }
    journal->lastWordEnd = -1;
}

/* Before a journal's write that is not held, and before a sync, truncate or size hint of
 * `file`: a journal's own poison and buffer; a database's journal's buffer, and its
 * poison. */
static int beforeChange(BufferFile *file) {
    if (file->buffer != NULL) return beforeJournalCall(file);
    int rc = SQLITE_OK;
    BufferFile *journal = lockJournalOf(file);
    if (journal != NULL) {
        rc = journal->poison != SQLITE_OK ? SQLITE_IOERR_WRITE : flushLocked(journal);
        pthread_mutex_unlock(&journal->lock);
    }
    return rc;
}

/* Writes through `real` at most kLargestWrite bytes per call. */
static int writeInPieces(sqlite3_file *real, const void *data, int amount, sqlite3_int64 offset) {
    const unsigned char *bytes = data;
    while (amount > kLargestWrite) {
        int rc = real->pMethods->xWrite(real, bytes, kLargestWrite, offset);
        if (rc != SQLITE_OK) return rc;
        bytes += kLargestWrite;
        amount -= kLargestWrite;
        offset += kLargestWrite;
    }
    return real->pMethods->xWrite(real, bytes, amount, offset);
}

static int bufferWrite(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    BufferFile *file = (BufferFile *)base;
    if (file->buffer != NULL && amount <= kBufferCapacity && offset > 0) {
        pthread_mutex_lock(&file->lock);
        int rc = file->poison;
        /* A page: a write right after its 4-byte number. */
        int isPage = amount != 4 && offset == file->lastWordEnd;
        if (rc == SQLITE_OK) {
            /* Bytes that do not continue the buffer, or do not fit, send it out first. A
             * page must fit with its checksum: were the checksum left for the next
             * buffer, the page's record would reach the file incomplete (which a
             * rollback ignores) while the page was no longer held. */
            int continues = file->bufferLength > 0 && offset == file->bufferOffset + file->bufferLength
                && file->bufferLength + amount + (isPage ? 4 : 0) <= kBufferCapacity;
            if (!continues) rc = flushLocked(file);
        }
        if (rc == SQLITE_OK) {
            if (file->bufferLength == 0) file->bufferOffset = offset;
            memcpy(file->buffer + file->bufferLength, data, (size_t)amount);
            file->bufferLength += amount;
            file->bufferedWrites += 1;
            noteHeld(file, data, amount, offset, isPage);
        }
        pthread_mutex_unlock(&file->lock);
        return rc;
    }
    int rc = file->isMainDatabase ? beforeDatabaseWrite(file, amount, offset) : beforeChange(file);
    if (rc == SQLITE_OK) rc = writeInPieces(file->real, data, amount, offset);
    if (file->buffer == NULL) {
        if (rc == SQLITE_OK) writebackRangeWrote(&file->writeback, offset, amount);
        return rc;
    }
    pthread_mutex_lock(&file->lock);
    if (rc == SQLITE_OK) writebackRangeWrote(&file->writeback, offset, amount);
    /* Written past the buffer: a page that follows is not known as any record's. */
    file->lastWordEnd = -1;
    pthread_mutex_unlock(&file->lock);
    return rc;
}

static int bufferRead(sqlite3_file *base, void *data, int amount, sqlite3_int64 offset) {
    BufferFile *file = (BufferFile *)base;
    int rc = beforeJournalCall(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int bufferClose(sqlite3_file *base) {
    BufferFile *file = (BufferFile *)base;
    int rc = SQLITE_OK;
    if (file->buffer != NULL) {
        /* Out of the list first, so that no database call finds it any more; then its
         * lock waits for a call that found it before. */
        pthread_mutex_lock(&journalsLock);
        for (BufferFile **link = &journals; *link != NULL; link = &(*link)->nextJournal) {
            if (*link == file) {
                *link = file->nextJournal;
                break;
            }
        }
        pthread_mutex_unlock(&journalsLock);
        pthread_mutex_lock(&file->lock);
        /* A poisoned handle goes away: SQLite reopens the journal to roll it back. */
        if (file->poison == SQLITE_OK) rc = flushLocked(file);
        pthread_mutex_unlock(&file->lock);
        pthread_mutex_destroy(&file->lock);
        free(file->buffer);
        file->buffer = NULL;
    }
    writebackRangeClose(&file->writeback);
    int closed = file->real->pMethods->xClose(file->real);
    return rc != SQLITE_OK ? rc : closed;
}

static int bufferTruncate(sqlite3_file *base, sqlite3_int64 size) {
    BufferFile *file = (BufferFile *)base;
    int rc = beforeChange(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xTruncate(file->real, size);
}

static int bufferSync(sqlite3_file *base, int flags) {
    BufferFile *file = (BufferFile *)base;
    int rc = beforeChange(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xSync(file->real, flags);
}

static int bufferFileSize(sqlite3_file *base, sqlite3_int64 *size) {
    BufferFile *file = (BufferFile *)base;
    int rc = beforeJournalCall(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileSize(file->real, size);
}

static int bufferLock_(sqlite3_file *base, int level) {
    BufferFile *file = (BufferFile *)base;
    int rc = beforeJournalCall(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xLock(file->real, level);
}

static int bufferUnlock(sqlite3_file *base, int level) {
    BufferFile *file = (BufferFile *)base;
    /* Others may look at the journal once the database is unlocked. The lock is released
     * whatever happens, as SQLite asks; a failed write of the buffer (which poisons the
     * journal) is then reported. */
    int rc = SQLITE_OK;
    BufferFile *journal = lockJournalOf(file);
    if (journal != NULL) {
        if (journal->poison == SQLITE_OK) rc = flushLocked(journal);
        pthread_mutex_unlock(&journal->lock);
    }
    int unlocked = file->real->pMethods->xUnlock(file->real, level);
    return unlocked != SQLITE_OK ? unlocked : rc;
}

static int bufferCheckReservedLock(sqlite3_file *base, int *result) {
    BufferFile *file = (BufferFile *)base;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int bufferFileControl(sqlite3_file *base, int op, void *argument) {
    BufferFile *file = (BufferFile *)base;
    /* A size hint may extend the database: a change like a write. */
    int rc = op == SQLITE_FCNTL_SIZE_HINT ? beforeChange(file) : beforeJournalCall(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileControl(file->real, op, argument);
}

static int bufferSectorSize(sqlite3_file *base) {
    BufferFile *file = (BufferFile *)base;
    return file->real->pMethods->xSectorSize(file->real);
}

static int bufferDeviceCharacteristics(sqlite3_file *base) {
    BufferFile *file = (BufferFile *)base;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

/* Shared memory belongs to WAL mode, where no rollback journal is open. */
static int bufferShmMap(sqlite3_file *base, int region, int size, int extend, void volatile **memory) {
    BufferFile *file = (BufferFile *)base;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, memory);
}

static int bufferShmLock(sqlite3_file *base, int offset, int count, int flags) {
    BufferFile *file = (BufferFile *)base;
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void bufferShmBarrier(sqlite3_file *base) {
    BufferFile *file = (BufferFile *)base;
    file->real->pMethods->xShmBarrier(file->real);
}

static int bufferShmUnmap(sqlite3_file *base, int deleteFlag) {
    BufferFile *file = (BufferFile *)base;
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static int bufferFetch(sqlite3_file *base, sqlite3_int64 offset, int amount, void **pointer) {
    BufferFile *file = (BufferFile *)base;
    int rc = beforeJournalCall(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int bufferUnfetch(sqlite3_file *base, sqlite3_int64 offset, void *pointer) {
    BufferFile *file = (BufferFile *)base;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

/* One method table per version the wrapped file may report, so that SQLite sees the
 * same capabilities (WAL needs version 2, memory mapping version 3). */
#define BUFFER_METHODS(version)                                                                 \
    {                                                                                           \
        version, bufferClose, bufferRead, bufferWrite, bufferTruncate, bufferSync,              \
        bufferFileSize, bufferLock_, bufferUnlock, bufferCheckReservedLock, bufferFileControl,  \
        bufferSectorSize, bufferDeviceCharacteristics, bufferShmMap, bufferShmLock,             \
        bufferShmBarrier, bufferShmUnmap, bufferFetch, bufferUnfetch                            \
    }
static const sqlite3_io_methods methodsByVersion[4] = {BUFFER_METHODS(1), BUFFER_METHODS(1), BUFFER_METHODS(2), BUFFER_METHODS(3)};

/* The VFS this one wraps: its pAppData. */
#define UNDER(vfs) ((sqlite3_vfs *)(vfs)->pAppData)

static int bufferOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *base, int flags, int *outFlags) {
    BufferFile *file = (BufferFile *)base;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    file->name = name;
    file->isMainDatabase = (flags & SQLITE_OPEN_MAIN_DB) != 0;
    int hinted = (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL)) != 0 && name != NULL;
    if (hinted) writebackOpenStarts(name);
    int rc = UNDER(vfs)->xOpen(UNDER(vfs), name, file->real, flags, outFlags);
    writebackRangeOpen(&file->writeback, rc == SQLITE_OK && hinted ? name : NULL);
    if (file->real->pMethods != NULL) {
        int version = file->real->pMethods->iVersion;
        base->pMethods = &methodsByVersion[version < 1 ? 1 : version > 3 ? 3 : version];
    }
    if (rc == SQLITE_OK && (flags & SQLITE_OPEN_MAIN_JOURNAL) != 0 && (flags & SQLITE_OPEN_READWRITE) != 0 && name != NULL) {
        /* Without the memory (or the name), the journal is written as SQLite writes it. */
        file->databaseName = sqlite3_filename_database(name);
        file->buffer = file->databaseName != NULL ? malloc(kBufferCapacity) : NULL;
        file->lastWordEnd = -1;
        if (file->buffer != NULL) {
            pthread_mutex_init(&file->lock, NULL);
            pthread_mutex_lock(&journalsLock);
            file->nextJournal = journals;
            journals = file;
            pthread_mutex_unlock(&journalsLock);
        }
    }
    return rc;
}

static int bufferDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    /* A poisoned journal is deleted only once SQLite has closed it and rolled it back
     * (SQLite always closes a journal before deleting it: defence in depth). */
    int poisoned = 0;
    pthread_mutex_lock(&journalsLock);
    for (BufferFile *journal = journals; journal != NULL && name != NULL && !poisoned; journal = journal->nextJournal) {
        if (journal->name == NULL || strcmp(journal->name, name) != 0) continue;
        pthread_mutex_lock(&journal->lock);
        poisoned = journal->poison != SQLITE_OK;
        pthread_mutex_unlock(&journal->lock);
    }
    pthread_mutex_unlock(&journalsLock);
    return poisoned ? SQLITE_IOERR_DELETE : UNDER(vfs)->xDelete(UNDER(vfs), name, syncDirectory);
}

static int bufferAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    return UNDER(vfs)->xAccess(UNDER(vfs), name, flags, result);
}

static int bufferFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    return UNDER(vfs)->xFullPathname(UNDER(vfs), name, size, out);
}

static void *bufferDlOpen(sqlite3_vfs *vfs, const char *name) {
    return UNDER(vfs)->xDlOpen(UNDER(vfs), name);
}

static void bufferDlError(sqlite3_vfs *vfs, int size, char *message) {
    UNDER(vfs)->xDlError(UNDER(vfs), size, message);
}

static void (*bufferDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    return UNDER(vfs)->xDlSym(UNDER(vfs), handle, symbol);
}

static void bufferDlClose(sqlite3_vfs *vfs, void *handle) {
    UNDER(vfs)->xDlClose(UNDER(vfs), handle);
}

static int bufferRandomness(sqlite3_vfs *vfs, int size, char *out) {
    return UNDER(vfs)->xRandomness(UNDER(vfs), size, out);
}

static int bufferSleep(sqlite3_vfs *vfs, int microseconds) {
    return UNDER(vfs)->xSleep(UNDER(vfs), microseconds);
}

static int bufferCurrentTime(sqlite3_vfs *vfs, double *now) {
    return UNDER(vfs)->xCurrentTime(UNDER(vfs), now);
}

static int bufferGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    return UNDER(vfs)->xGetLastError ? UNDER(vfs)->xGetLastError(UNDER(vfs), size, message) : 0;
}

static int bufferCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    return UNDER(vfs)->xCurrentTimeInt64(UNDER(vfs), now);
}

/* Registered instances: the one over "unix", and those tests put over another VFS. */
enum { kInstances = 4 };
static sqlite3_vfs instances[kInstances];
static int instanceCount;

static int registerOver(const char *wrapped, const char *name, int makeDefault) {
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&once);
    int rc = SQLITE_OK;
    if (sqlite3_vfs_find(name) == NULL) {
        sqlite3_vfs *under = sqlite3_vfs_find(wrapped);
        /* The name must outlive the registration; the caller's may not. */
        char *kept = under == NULL ? NULL : sqlite3_mprintf("%s", name);
        /* Over itself, a write of the buffer would wait for its own lock. */
        if (kept == NULL || under->iVersion < 2 || under->xOpen == bufferOpen || instanceCount == kInstances) {
            sqlite3_free(kept);
            rc = SQLITE_ERROR;
        } else {
            sqlite3_vfs vfs = {
                2, (int)sizeof(BufferFile) + under->szOsFile, under->mxPathname, NULL, kept, under, bufferOpen, bufferDelete,
                bufferAccess, bufferFullPathname, bufferDlOpen, bufferDlError, bufferDlSym, bufferDlClose, bufferRandomness,
                bufferSleep, bufferCurrentTime, bufferGetLastError, bufferCurrentTimeInt64, NULL, NULL, NULL};
            instances[instanceCount] = vfs;
            rc = sqlite3_vfs_register(&instances[instanceCount], makeDefault);
            if (rc == SQLITE_OK) instanceCount += 1;
            else sqlite3_free(kept);
        }
    }
    pthread_mutex_unlock(&once);
    return rc;
}

int sqlimport_register_journal_buffer_vfs(void) { return registerOver("unix", SQLIMPORT_JOURNAL_BUFFER_VFS, 1); }

int sqlimport_register_journal_buffer_vfs_over(const char *wrapped, const char *name) { return registerOver(wrapped, name, 0); }

int sqlimport_journal_buffer_vfs_hint_writeback(int on) {
    if (on && !writebackHintsWatchOpens()) return SQLITE_ERROR;
    writebackHintsEnable(on);
    return SQLITE_OK;
}

long long sqlimport_journal_buffer_writeback_hints(struct sqlite3 *db, int journal) {
    sqlite3_file *file = NULL;
    int op = journal ? SQLITE_FCNTL_JOURNAL_POINTER : SQLITE_FCNTL_FILE_POINTER;
    if (sqlite3_file_control(db, "main", op, &file) != SQLITE_OK || file == NULL) return -1;
    if (file->pMethods == NULL || file->pMethods->xWrite != bufferWrite) return -1;
    BufferFile *ours = (BufferFile *)file;
    if (ours->buffer != NULL) pthread_mutex_lock(&ours->lock);
    long long hints = ours->writeback.descriptor < 0 ? -1 : ours->writeback.hints;
    if (ours->buffer != NULL) pthread_mutex_unlock(&ours->lock);
    return hints;
}

int sqlimport_journal_buffer_counts(struct sqlite3 *db, long long *buffered, long long *written) {
    sqlite3_file *journal = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal) != SQLITE_OK || journal == NULL) return -1;
    if (journal->pMethods == NULL || journal->pMethods->xWrite != bufferWrite) return -1;
    BufferFile *file = (BufferFile *)journal;
    /* In WAL mode the pointer is the WAL's, which is never buffered. (Call it from the
     * connection's own thread: the journal could not close meanwhile.) */
    if (file->buffer == NULL) return -1;
    pthread_mutex_lock(&file->lock);
    *buffered = file->bufferedWrites;
    *written = file->flushes;
    pthread_mutex_unlock(&file->lock);
    return 0;
}
