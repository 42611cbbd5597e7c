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

struct sqlite3;

/// For tests: the writes to `db`'s open rollback journal that went into the buffer, and
/// the writes of the buffer to that file. Returns 0, or -1 when `db` has no open main
/// journal or the journal is not this VFS's.
int sqlimport_journal_buffer_counts(struct sqlite3 *db, long long *buffered, long long *written);

#endif
