/* The i386 (int $0x80) and x32 system-call entries of an x86-64 kernel, from C.
 *
 * Each is tried in a child (a seccomp filter may kill it): getpid through the entry,
 * compared with the real pid. Writes the same ATTACK lines as the Python programs.
 * Built by tests/sandbox/test_attacks.py with gcc into the test's own folder. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long int80_getpid(void) {
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory"); /* i386 getpid */
    return r;
}

static long x32_getpid(void) {
    return syscall(0x40000000L | SYS_getpid); /* -1 and errno when refused */
}

static void try_entry(const char *name, long (*call)(void), int uses_errno) {
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        long r = call();
        if (r == getpid()) _exit(0);
        int code = uses_errno ? errno : (int)-r;
        _exit(code > 0 && code < 100 ? 100 + code : 99);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        fprintf(stderr, "ATTACK %s BLOCKED killed by signal %d\n", name, WTERMSIG(status));
    else if (WEXITSTATUS(status) == 0)
        fprintf(stderr, "ATTACK %s WORKED getpid answered through this entry\n", name);
    else if (WEXITSTATUS(status) > 100)
        fprintf(stderr, "ATTACK %s BLOCKED %s\n", name, strerror(WEXITSTATUS(status) - 100));
    else
        fprintf(stderr, "ATTACK %s BLOCKED exit code %d\n", name, WEXITSTATUS(status));
}

int main(void) {
    try_entry("int80", int80_getpid, 0);
    try_entry("x32", x32_getpid, 1);
    fprintf(stderr, "ATTACK-END\n");
    return 0;
}
