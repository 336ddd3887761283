/* good FILE: what an ordinary bot does must still work under the filter.
 *
 * Forks a child that answers through a pipe, starts and joins a thread (glibc tries
 * clone3 first and must fall back to clone), reads FILE, allocates and touches 64 MiB,
 * reads the clocks, sleeps briefly and asks its personality (the query is allowed).
 * Prints "good ok" when everything worked, else "good failed: STEP: ERROR".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *step) {
    printf("good failed: %s: %s\n", step, strerror(errno));
    return 1;
}

static void *thread_main(void *arg) {
    *(int *)arg = 42;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: good FILE\n");
        return 2;
    }
    int fds[2];
    if (pipe(fds) != 0)
        return fail("pipe");
    pid_t child = fork();
    if (child < 0)
        return fail("fork");
    if (child == 0) {
        if (write(fds[1], "k", 1) != 1)
            _exit(1);
        _exit(0);
    }
    char got = 0;
    int status = 0;
    if (read(fds[0], &got, 1) != 1 || got != 'k')
        return fail("read from the child");
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail("wait for the child");

    pthread_t thread;
    int value = 0;
    errno = pthread_create(&thread, NULL, thread_main, &value);
    if (errno != 0)
        return fail("pthread_create");
    if (pthread_join(thread, NULL) != 0 || value != 42)
        return fail("pthread_join");

    FILE *f = fopen(argv[1], "rb");
    if (f == NULL)
        return fail("fopen");
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n == 0)
        return fail("fread");

    size_t size = 64u << 20;
    char *mem = malloc(size);
    if (mem == NULL)
        return fail("malloc");
    memset(mem, 1, size);
    free(mem);

    struct timespec t0, t1, nap = {0, 1000000};
    if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0 || clock_gettime(CLOCK_REALTIME, &t1) != 0)
        return fail("clock_gettime");
    if (nanosleep(&nap, NULL) != 0)
        return fail("nanosleep");
    if (personality(0xffffffff) < 0)
        return fail("personality query");
    printf("good ok\n");
    return 0;
}
