/* Crashes on its first turn: a write through a null pointer (SIGSEGV). */
#include <stdio.h>

int main(void)
{
    char line[256];
    if (fgets(line, sizeof line, stdin) != NULL) {
        fprintf(stderr, "about to crash\n");
        fflush(stderr);
        volatile int *p = NULL;
        *p = 1;
    }
    return 0;
}
