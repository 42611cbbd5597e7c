#ifndef CFAULTVFS_H
#define CFAULTVFS_H

/*
 * For tests: a VFS named "sqlimport-test-faults" over SQLite's "unix" VFS, whose writes
 * fail with a chosen result code on the files whose path ends with a chosen suffix,
 * while that suffix is set. Everything else passes through.
 */

/// Registers the VFS (not as the default); returns SQLITE_OK, also when it already is.
int sqlimport_test_faults_register(void);

/// From now on, writes to files whose path ends with `suffix` fail with `code` once
/// `after` of them have succeeded (NULL: no write fails). Writes to files whose path ends
/// with `watched` (or none, when NULL) are counted.
void sqlimport_test_faults_fail_writes(const char *suffix, int code, long long after, const char *watched);

/// Writes that failed since the last call above.
long long sqlimport_test_faults_failed_writes(void);

/// Writes to the watched files made before the first failed write since the last call
/// above; -1 when no write failed.
long long sqlimport_test_faults_watched_before_failure(void);

/// Writes to the watched files since the last call above.
long long sqlimport_test_faults_watched_writes(void);

#endif
