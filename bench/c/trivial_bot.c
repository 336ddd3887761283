/* The trivial 2010-protocol bot of bench/referee_overhead.py.
 *
 * Reads a map (a line "W H", then H rows), finds its own cycle '1' and answers the
 * first heading (1-4: N, E, S, W) whose cell is a space; 1 if none. Its own work is a
 * few microseconds, so a turn's cost is the pipe round trip plus the referee.
 */
#include <stdio.h>
#include <string.h>

static char map[512][514];

int main(void) {
    int w, h;
    setvbuf(stdout, NULL, _IONBF, 0);
    while (scanf("%d %d", &w, &h) == 2) {
        int c, x = -1, y = -1;
        while ((c = getchar()) != '\n' && c != EOF) {
        }
        for (int r = 0; r < h && r < 512; r++) {
            if (!fgets(map[r], sizeof map[r], stdin)) return 0;
            char *p = strchr(map[r], '1');
            if (p) { x = (int)(p - map[r]); y = r; }
        }
        char answer = '1';
        if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
            if (map[y - 1][x] == ' ') answer = '1';
            else if (map[y][x + 1] == ' ') answer = '2';
            else if (map[y + 1][x] == ' ') answer = '3';
            else if (map[y][x - 1] == ' ') answer = '4';
        }
        char out[2] = {answer, '\n'};
        fwrite(out, 1, 2, stdout);
    }
    return 0;
}
