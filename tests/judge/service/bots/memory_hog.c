/* Allocates and touches memory until something stops it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char line[256];
    if (fgets(line, sizeof line, stdin) != NULL) {
        for (;;) {
            char *p = malloc(16 << 20);
            if (p == NULL) {
                fprintf(stderr, "malloc failed\n");
                return 3;
            }
            memset(p, 1, 16 << 20);
        }
    }
    return 0;
}
