/* Reads its first turn and then spins forever without answering. */
#include <stdio.h>

int main(void)
{
    char line[256];
    volatile unsigned long n = 0;
    if (fgets(line, sizeof line, stdin) != NULL)
        for (;;)
            n++;
    return 0;
}
