#ifndef WRITEBACKHINTS_H
#define WRITEBACKHINTS_H

#include <sqlite3.h>

/* What WritebackHints.c keeps for one open file: the bytes written since its last hint. */
typedef struct WritebackRange {
    int descriptor;           /* the file's descriptor, or -1: no hints for this file */
    sqlite3_int64 start, end; /* the span the writes since the last hint fall in */
    sqlite3_int64 bytes;      /* how many bytes they were */
    sqlite3_int64 hints;      /* hints asked for this file (a full queue drops one), for tests */
} WritebackRange;

/* Watches the unix VFS's `open` from now on (once per process); 0 when it cannot. */
int writebackHintsWatchOpens(void);

/* Before the wrapped VFS opens `name` on this thread: the descriptor `open` returns for
 * that name is noted. */
void writebackOpenStarts(const char *name);

/* After it: fills `range` with the descriptor noted for `name` (NULL: no hints for this
 * file), or leaves it -1 when hints are off or fstat does not show that very file. */
void writebackRangeOpen(WritebackRange *range, const char *name);

/* Records a write that succeeded; past the threshold, hands a hint to the helper thread. */
void writebackRangeWrote(WritebackRange *range, sqlite3_int64 offset, sqlite3_int64 amount);

/* Before the file closes: drops its queued hints and waits for one in progress, so that
 * its descriptor is never used after SQLite closed it. */
void writebackRangeClose(WritebackRange *range);

/* On (nonzero) or off for files opened afterwards. Off until set. */
void writebackHintsEnable(int on);

#endif
