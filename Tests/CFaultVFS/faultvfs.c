/* See CFaultVFS.h. The io methods are the unix VFS's own, but for xWrite. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "CFaultVFS.h"

typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;
    const char *name;
    sqlite3_io_methods methods;
} FaultFile;

static sqlite3_vfs *unixVFS;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *failSuffix;
static char *watchedSuffix;
static int failCode;
static long long succeedFirst;
static long long failed;
static long long watched;
static long long watchedBeforeFailure = -1;

static int endsWith(const char *name, const char *suffix) {
    if (suffix == NULL || name == NULL) return 0;
    size_t length = strlen(name), count = strlen(suffix);
    return length >= count && strcmp(name + length - count, suffix) == 0;
}

#define REAL(base) (((FaultFile *)(base))->real)

static int faultClose(sqlite3_file *base) { return REAL(base)->pMethods->xClose(REAL(base)); }
static int faultRead(sqlite3_file *base, void *data, int amount, sqlite3_int64 offset) {
    return REAL(base)->pMethods->xRead(REAL(base), data, amount, offset);
}
static int faultWrite(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    const char *name = ((FaultFile *)base)->name;
    pthread_mutex_lock(&lock);
    int code = SQLITE_OK;
    if (endsWith(name, failSuffix)) {
        if (succeedFirst > 0) {
            succeedFirst -= 1;
        } else {
            code = failCode;
            if (failed == 0) watchedBeforeFailure = watched;
            failed += 1;
        }
    }
    if (code == SQLITE_OK && endsWith(name, watchedSuffix)) watched += 1;
    pthread_mutex_unlock(&lock);
    return code != SQLITE_OK ? code : REAL(base)->pMethods->xWrite(REAL(base), data, amount, offset);
}
static int faultTruncate(sqlite3_file *base, sqlite3_int64 size) { return REAL(base)->pMethods->xTruncate(REAL(base), size); }
static int faultSync(sqlite3_file *base, int flags) { return REAL(base)->pMethods->xSync(REAL(base), flags); }
static int faultFileSize(sqlite3_file *base, sqlite3_int64 *size) { return REAL(base)->pMethods->xFileSize(REAL(base), size); }
static int faultLock(sqlite3_file *base, int level) { return REAL(base)->pMethods->xLock(REAL(base), level); }
static int faultUnlock(sqlite3_file *base, int level) { return REAL(base)->pMethods->xUnlock(REAL(base), level); }
static int faultCheckReservedLock(sqlite3_file *base, int *out) { return REAL(base)->pMethods->xCheckReservedLock(REAL(base), out); }
static int faultFileControl(sqlite3_file *base, int op, void *argument) { return REAL(base)->pMethods->xFileControl(REAL(base), op, argument); }
static int faultSectorSize(sqlite3_file *base) { return REAL(base)->pMethods->xSectorSize(REAL(base)); }
static int faultDeviceCharacteristics(sqlite3_file *base) { return REAL(base)->pMethods->xDeviceCharacteristics(REAL(base)); }
static int faultShmMap(sqlite3_file *base, int region, int size, int extend, void volatile **memory) {
    return REAL(base)->pMethods->xShmMap(REAL(base), region, size, extend, memory);
}
static int faultShmLock(sqlite3_file *base, int offset, int count, int flags) { return REAL(base)->pMethods->xShmLock(REAL(base), offset, count, flags); }
static void faultShmBarrier(sqlite3_file *base) { REAL(base)->pMethods->xShmBarrier(REAL(base)); }
static int faultShmUnmap(sqlite3_file *base, int deleteFlag) { return REAL(base)->pMethods->xShmUnmap(REAL(base), deleteFlag); }
static int faultFetch(sqlite3_file *base, sqlite3_int64 offset, int amount, void **pointer) {
    return REAL(base)->pMethods->xFetch(REAL(base), offset, amount, pointer);
}
static int faultUnfetch(sqlite3_file *base, sqlite3_int64 offset, void *pointer) { return REAL(base)->pMethods->xUnfetch(REAL(base), offset, pointer); }

static int faultOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *base, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *file = (FaultFile *)base;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    file->name = name;
    int rc = unixVFS->xOpen(unixVFS, name, file->real, flags, outFlags);
    if (file->real->pMethods != NULL) {
        sqlite3_io_methods methods = {
            file->real->pMethods->iVersion, faultClose, faultRead, faultWrite, faultTruncate, faultSync, faultFileSize,
            faultLock, faultUnlock, faultCheckReservedLock, faultFileControl, faultSectorSize, faultDeviceCharacteristics,
            faultShmMap, faultShmLock, faultShmBarrier, faultShmUnmap, faultFetch, faultUnfetch};
        file->methods = methods;
        base->pMethods = &file->methods;
    }
    return rc;
}

static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return unixVFS->xDelete(unixVFS, name, syncDirectory);
}
static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return unixVFS->xAccess(unixVFS, name, flags, result);
}
static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return unixVFS->xFullPathname(unixVFS, name, size, out);
}
static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; return unixVFS->xDlOpen(unixVFS, name); }
static void faultDlError(sqlite3_vfs *vfs, int size, char *message) { (void)vfs; unixVFS->xDlError(unixVFS, size, message); }
static void (*faultDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) { (void)vfs; return unixVFS->xDlSym(unixVFS, handle, symbol); }
static void faultDlClose(sqlite3_vfs *vfs, void *handle) { (void)vfs; unixVFS->xDlClose(unixVFS, handle); }
static int faultRandomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return unixVFS->xRandomness(unixVFS, size, out); }
static int faultSleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return unixVFS->xSleep(unixVFS, microseconds); }
static int faultCurrentTime(sqlite3_vfs *vfs, double *now) { (void)vfs; return unixVFS->xCurrentTime(unixVFS, now); }
static int faultGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return unixVFS->xGetLastError ? unixVFS->xGetLastError(unixVFS, size, message) : 0;
}
static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) { (void)vfs; return unixVFS->xCurrentTimeInt64(unixVFS, now); }

static sqlite3_vfs faultVFS = {
    2, 0, 0, NULL, "sqlimport-test-faults", NULL, faultOpen, faultDelete, faultAccess, faultFullPathname,
    faultDlOpen, faultDlError, faultDlSym, faultDlClose, faultRandomness, faultSleep, faultCurrentTime,
    faultGetLastError, faultCurrentTimeInt64, NULL, NULL, NULL};

int sqlimport_test_faults_register(void) {
    pthread_mutex_lock(&lock);
    int rc = SQLITE_OK;
    if (sqlite3_vfs_find(faultVFS.zName) == NULL) {
        unixVFS = sqlite3_vfs_find("unix");
        if (unixVFS == NULL) {
            rc = SQLITE_ERROR;
        } else {
            faultVFS.szOsFile = (int)sizeof(FaultFile) + unixVFS->szOsFile;
            faultVFS.mxPathname = unixVFS->mxPathname;
            rc = sqlite3_vfs_register(&faultVFS, 0);
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void sqlimport_test_faults_fail_writes(const char *suffix, int code, long long after, const char *watch) {
    pthread_mutex_lock(&lock);
    free(failSuffix);
    free(watchedSuffix);
    failSuffix = suffix ? strdup(suffix) : NULL;
    watchedSuffix = watch ? strdup(watch) : NULL;
    failCode = code;
    succeedFirst = after;
    failed = 0;
    watched = 0;
    watchedBeforeFailure = -1;
    pthread_mutex_unlock(&lock);
}

long long sqlimport_test_faults_failed_writes(void) {
    pthread_mutex_lock(&lock);
    long long count = failed;
    pthread_mutex_unlock(&lock);
    return count;
}

long long sqlimport_test_faults_watched_before_failure(void) {
    pthread_mutex_lock(&lock);
    long long count = watchedBeforeFailure;
    pthread_mutex_unlock(&lock);
    return count;
}

long long sqlimport_test_faults_watched_writes(void) {
    pthread_mutex_lock(&lock);
    long long count = watched;
    pthread_mutex_unlock(&lock);
    return count;
}
