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

/// The name of the VFS that joins the rollback journal's contiguous writes
/// (WriteCoalescingVFS.c).
#define SQLIMPORT_WRITE_COALESCING_VFS "sqlimport-coalescing"

/// Registers that VFS over SQLite's "unix" VFS as the default: connections opened
/// afterwards without a VFS name use it. Call it once. Returns SQLITE_OK, or SQLITE_ERROR
/// when there is no "unix" VFS to wrap. Unlike the setting above, this works at any time.
int sqlimport_register_write_coalescing_vfs(void);

/// Makes that VFS ask Linux to start writing back what is written to a database, its
/// journal or its WAL every 2 MiB, from a helper thread, so that the syncs at commit
/// find the bytes on their way (WritebackHints.c). Takes effect for files opened
/// afterwards; `on` 0 turns it off again. Elsewhere than Linux it does nothing.
void sqlimport_write_coalescing_vfs_hint_writeback(int on);

struct sqlite3;

/// For tests: the writes to `db`'s open rollback journal that the VFS buffered, and the
/// writes of its buffer it made to that file. Returns 0, or -1 when `db` has no open
/// main journal or the journal is not this VFS's.
int sqlimport_write_coalescing_vfs_journal_counts(struct sqlite3 *db, long long *buffered, long long *written);

/// For tests: the writeback hints made for `db`'s main database file (`journal` 0) or
/// its open rollback journal (1); -1 when there is no such file, it is not this VFS's,
/// or it gets no hints.
long long sqlimport_write_coalescing_vfs_writeback_hints(struct sqlite3 *db, int journal);

struct sqlite3_file;

/// The descriptor of a file that SQLite's "unix" VFS opened as `name`, read from its file
/// object and checked with fstat against stat(name); -1 when that check fails or off
/// Linux (WritebackHints.c).
int sqlimport_unix_file_descriptor(const struct sqlite3_file *unixFile, const char *name);

#endif
