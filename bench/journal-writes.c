/*
 * How much the rollback journal's write pattern costs by itself: 80,000 pages written
 * the way SQLite journals them (4-byte page number, 4096-byte page, 4-byte checksum: three
 * pwrite calls per page), then the same bytes joined into larger writes, as sqlimport's
 * VFS does (Sources/CSQLiteConfig/WriteCoalescingVFS.c). Each pattern is followed by
 * fdatasync and unlink, as SQLite's commit does. See bench/README.md, "Journal writes".
 *
 *   gcc -O2 bench/journal-writes.c -o bench/work/journal-writes
 *   bench/work/journal-writes bench/work/journal-test [pages]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Writes `pages` journal records at offset 512 (after the header), joined into writes of
 * at most `joined` bytes, or one pwrite per piece when `joined` is 0. */
static void run(const char *path, int pages, size_t joined) {
    static char page[4096];
    memset(page, 7, sizeof page);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    double start = now();
    off_t offset = 512;
    long calls = 0;
    if (joined == 0) {
        for (int i = 0; i < pages; i++, offset += 4104, calls += 3) {
            if (pwrite(fd, page, 4, offset) != 4 || pwrite(fd, page, 4096, offset + 4) != 4096 ||
                pwrite(fd, page, 4, offset + 4100) != 4) { perror("pwrite"); exit(1); }
        }
    } else {
        char *buffer = malloc(joined);
        size_t length = 0;
        for (int i = 0; i < pages; i++) {
            if (length + 4104 > joined) {
                if (pwrite(fd, buffer, length, offset) != (ssize_t)length) { perror("pwrite"); exit(1); }
                offset += length; length = 0; calls++;
            }
            memcpy(buffer + length, page, 4); memcpy(buffer + length + 4, page, 4096);
            memcpy(buffer + length + 4100, page, 4); length += 4104;
        }
        if (pwrite(fd, buffer, length, offset) != (ssize_t)length) { perror("pwrite"); exit(1); }
        calls++;
        free(buffer);
    }
    double written = now();
    fdatasync(fd);
    double synced = now();
    close(fd);
    unlink(path);
    double unlinked = now();
    printf("%-22s %7ld calls  write %.3f s  fdatasync %.3f s  unlink %.3f s  total %.3f s\n",
           joined ? (joined >= 1 << 20 ? "joined, 1 MiB writes" : "joined, 124 KiB writes") : "3 writes per page",
           calls, written - start, synced - written, unlinked - synced, unlinked - start);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s SCRATCH-FILE [pages]\n", argv[0]); return 2; }
    int pages = argc > 2 ? atoi(argv[2]) : 80000;
    for (int round = 0; round < 3; round++) {
        sync(); run(argv[1], pages, 0);
        sync(); run(argv[1], pages, 124 << 10);
        sync(); run(argv[1], pages, 1 << 20);
    }
    return 0;
}
