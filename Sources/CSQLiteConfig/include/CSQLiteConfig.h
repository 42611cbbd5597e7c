#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/*
 * Process-wide SQLite settings. sqlite3_config is variadic, which Swift cannot call,
 * hence these C functions. They work only before SQLite initializes (before the first
 * connection opens): each returns SQLITE_OK (0) when the setting took, and another
 * SQLite result code (SQLITE_MISUSE, 21, when it was too late) otherwise.
 */

/// SQLITE_CONFIG_STMTJRNL_SPILL: statement journals smaller than `bytes` stay in memory.
int sqlimport_set_statement_journal_spill(int bytes);

/// The name of the VFS that writes the rollback journal in large writes
/// (JournalBufferVFS.c).
#define SQLIMPORT_JOURNAL_BUFFER_VFS "sqlimport-journal-buffer"

/// Registers that VFS over SQLite's "unix" VFS as the default: connections opened
/// afterwards without a VFS name use it. Returns SQLITE_OK (also when it is registered
/// already), or SQLITE_ERROR when there is no "unix" VFS to wrap. Unlike the setting
/// above, this works at any time.
int sqlimport_register_journal_buffer_vfs(void);

/// For tests: registers the same VFS, named `name`, over the VFS named `wrapped` (not as
/// the default). Returns SQLITE_OK (also when `name` is registered already) or
/// SQLITE_ERROR.
int sqlimport_register_journal_buffer_vfs_over(const char *wrapped, const char *name);

/// Makes that VFS ask Linux to start writing back what is written to a database, its
/// journal or its WAL every 2 MiB, from a helper thread, so that the syncs at commit
/// find the bytes on their way (WritebackHints.c). Takes effect for files opened
/// afterwards; `on` 0 turns it off again. Returns SQLITE_OK, or SQLITE_ERROR when it
/// cannot find the files' descriptors (no "unix" VFS); elsewhere than Linux it does
/// nothing.
int sqlimport_journal_buffer_vfs_hint_writeback(int on);

struct sqlite3;

/// For tests: the writeback hints made for `db`'s main database file (`journal` 0) or
/// its open rollback journal (1); -1 when there is no such file, it is not this VFS's,
/// or it gets no hints.
long long sqlimport_journal_buffer_writeback_hints(struct sqlite3 *db, int journal);

/// For tests: `descriptor` if fstat shows it is the file named `name`, else -1
/// (WritebackHints.c).
int sqlimport_descriptor_if_same_file(int descriptor, const char *name);

/// For tests: the writes to `db`'s open rollback journal that went into the buffer, and
/// the writes of the buffer to that file. Returns 0, or -1 when `db` has no open main
/// journal or the journal is not this VFS's.
int sqlimport_journal_buffer_counts(struct sqlite3 *db, long long *buffered, long long *written);

#endif
