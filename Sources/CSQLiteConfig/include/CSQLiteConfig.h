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

struct sqlite3;

/// For tests: the writes to `db`'s open rollback journal that the VFS buffered, and the
/// writes of its buffer it made to that file. Returns 0, or -1 when `db` has no open
/// main journal or the journal is not this VFS's.
int sqlimport_write_coalescing_vfs_journal_counts(struct sqlite3 *db, long long *buffered, long long *written);

#endif
