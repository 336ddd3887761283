/* Legal but hopeless: always answers north, so it drives into the wall. */
#include <stdio.h>
#include <string.h>

int main(void)
{
    char line[256];
    int w, h;
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (sscanf(line, "%d %d", &w, &h) != 2)
            continue;
        for (int y = 0; y < h && fgets(line, sizeof line, stdin) != NULL; y++)
            ;
        printf("1\n");
        fflush(stdout);
    }
    return 0;
}
