/* Fills shared memory, which the data-segment limit does not count: only the sandbox's
 * memory cgroup stops it (the kernel kills it over its limit). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void)
{
    char line[256];
    if (fgets(line, sizeof line, stdin) != NULL) {
        for (;;) {
            char *p = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) {
                fprintf(stderr, "mmap failed\n");
                return 3;
            }
            memset(p, 1, 16 << 20);
        }
    }
    return 0;
}
