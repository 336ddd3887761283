/* Writes a debugging line to stdout, which tron2010 reserves for moves. */
#include <stdio.h>

int main(void)
{
    char line[256];
    while (fgets(line, sizeof line, stdin) != NULL) {
        printf("debug: read a line\n");
        fflush(stdout);
    }
    return 0;
}
