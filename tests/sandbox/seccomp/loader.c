/* loader BPF_FILE COMMAND [ARG...]: run COMMAND under the seccomp filter in BPF_FILE.
 *
 * The tests' stand-in for bubblewrap's --seccomp: read a classic-BPF program (an array
 * of struct sock_filter), set PR_SET_NO_NEW_PRIVS (required to install a filter without
 * CAP_SYS_ADMIN), install the filter, exec COMMAND. BPF_FILE "none" installs nothing,
 * so a test runs the same program with and without the filter through the same path.
 * Core dumps are off either way: a process killed by the filter must not leave one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

static unsigned char program[1 << 20];

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: loader BPF_FILE|none COMMAND [ARG...]\n");
        return 2;
    }
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (strcmp(argv[1], "none") != 0) {
        FILE *f = fopen(argv[1], "rb");
        if (f == NULL) {
            perror("loader: cannot open the filter");
            return 2;
        }
        size_t size = fread(program, 1, sizeof program, f);
        fclose(f);
        if (size == 0 || size % sizeof(struct sock_filter) != 0) {
            fprintf(stderr, "loader: %zu bytes is not a BPF program\n", size);
            return 2;
        }
        struct sock_fprog prog = {
            .len = (unsigned short)(size / sizeof(struct sock_filter)),
            .filter = (struct sock_filter *)program,
        };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
            perror("loader: PR_SET_NO_NEW_PRIVS");
            return 3;
        }
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
            perror("loader: PR_SET_SECCOMP");
            return 3;
        }
    }
    execvp(argv[2], argv + 2);
    fprintf(stderr, "loader: cannot run %s: %s\n", argv[2], strerror(errno));
    return 127;
}
