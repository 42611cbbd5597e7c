#include <sqlite3.h>
#include "CSQLiteConfig.h"

int sqlimport_set_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}

