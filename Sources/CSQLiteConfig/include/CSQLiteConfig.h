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

#endif
