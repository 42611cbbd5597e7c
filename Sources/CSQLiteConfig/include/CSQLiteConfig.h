#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// Sets SQLITE_CONFIG_STMTJRNL_SPILL: statement journals smaller than `bytes` stay in
/// memory. sqlite3_config is variadic, which Swift cannot call, hence this C function.
/// It works only before SQLite initializes (the first connection opens); it returns
/// SQLITE_OK (0) when the setting took, SQLITE_MISUSE (21) when it was too late.
int sqlimport_set_statement_journal_spill(int bytes);

#endif
