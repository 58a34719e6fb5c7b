/* The lab's workload helper, built static (gcc -static) into the initramfs: what busybox
 * cannot do.
 *   labload thp MIB          mmap MIB of anonymous memory, MADV_HUGEPAGE, touch every page
 *                            (THP faults: do_huge_pmd_anonymous_page), then munmap
 *   labload pipes N KIB      N pipes holding KIB each (unmovable pipe_buffer pages), then close
 *   labload sockets N KIB    N socketpairs holding KIB queued each (unmovable skb memory)
 *   labload churn ROUNDS N KIB   ROUNDS of pipes: open, fill, close half, refill (fallbacks)
 *   labload holes DIR MIB KIB KEEP   files of KIB in DIR (a tmpfs) up to MIB, then every one
 *                            but each KEEP-th deleted: movable pages left in every pageblock
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static void die(const char *what) { perror(what); exit(1); }

static void raise_nofile(long n) {
	struct rlimit r = {n, n};
	if (setrlimit(RLIMIT_NOFILE, &r)) die("setrlimit(RLIMIT_NOFILE)");
}

static int thp(long mib) {
	size_t len = (size_t)mib << 20;
	char *p = mmap(NULL, len + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) die("mmap");
	char *a = (char *)(((unsigned long)p + (2 << 20) - 1) & ~((2UL << 20) - 1));
	if (madvise(a, len, MADV_HUGEPAGE)) perror("madvise(MADV_HUGEPAGE)");
	for (size_t off = 0; off < len; off += 4096) a[off] = 1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "AnonHugePages:", 14)) fputs(line, stdout);
	if (f) fclose(f);
	munmap(p, len + (2 << 20));
	return 0;
}

static char buf[65536];

static void fill(int fd, long kib) {
	long left = kib * 1024;
	while (left > 0) {
		ssize_t n = write(fd, buf, left < (long)sizeof buf ? left : (long)sizeof buf);
		if (n <= 0) { if (errno == EAGAIN) return; die("write"); }
		left -= n;
	}
}

static int pipes(long n, long kib, int keep_half) {
	int (*fds)[2] = calloc(n, sizeof *fds);
	raise_nofile(2 * n + 64);
	memset(buf, 0x5a, sizeof buf);
	for (long i = 0; i < n; i++) {
		if (pipe2(fds[i], O_NONBLOCK)) die("pipe2");
		if (kib * 1024 > 65536) fcntl(fds[i][1], F_SETPIPE_SZ, (int)(kib * 1024));
		fill(fds[i][1], kib);
	}
	for (long i = 0; i < n; i++)
		if (!keep_half || i % 2) { close(fds[i][0]); close(fds[i][1]); fds[i][0] = -1; }
	if (keep_half) {
		for (long i = 0; i < n; i += 2)
			if (fds[i][0] >= 0) { close(fds[i][0]); close(fds[i][1]); }
	}
	free(fds);
	return 0;
}

static int sockets(long n, long kib) {
	int (*fds)[2] = calloc(n, sizeof *fds);
	raise_nofile(2 * n + 64);
	for (long i = 0; i < n; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds[i])) die("socketpair");
		fill(fds[i][0], kib);
	}
	for (long i = 0; i < n; i++) { close(fds[i][0]); close(fds[i][1]); }
	free(fds);
	return 0;
}

static int holes(const char *dir, long mib, long kib, long keep) {
	long n = mib * 1024 / kib;
	char path[4096];
	memset(buf, 0x5a, sizeof buf);
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/h%ld", dir, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0) die("open");
		fill(fd, kib);
		close(fd);
	}
	long kept = 0;
	for (long i = 0; i < n; i++) {
		if (i % keep == 0) { kept++; continue; }
		snprintf(path, sizeof path, "%s/h%ld", dir, i);
		if (unlink(path)) die("unlink");
	}
	printf("holes: %ld files of %ld KiB written, %ld kept\n", n, kib, kept);
	return 0;
}

int main(int argc, char **argv) {
	if (argc >= 3 && !strcmp(argv[1], "thp")) return thp(atol(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "pipes")) return pipes(atol(argv[2]), atol(argv[3]), 0);
	if (argc >= 4 && !strcmp(argv[1], "sockets")) return sockets(atol(argv[2]), atol(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "churn")) {
		for (long r = 0; r < atol(argv[2]); r++) pipes(atol(argv[3]), atol(argv[4]), 1);
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "holes"))
		return holes(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]));
	fprintf(stderr, "usage: labload thp MIB | pipes N KIB | sockets N KIB | churn ROUNDS N KIB"
			" | holes DIR MIB KIB KEEP\n");
	return 2;
}
