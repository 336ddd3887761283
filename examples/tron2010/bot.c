/* Starter bot for the tron2010 protocol (the 2010 AI challenge). C99, libc only.
 * Build it and run it against a built-in bot, from the repository root:
 *
 *   cc -O2 -o examples/tron2010/bot examples/tron2010/bot.c && lightcycle match --map ring --bot cmd:examples/tron2010/bot --bot builtin:chaser --protocol tron2010
 *
 * Every turn the referee writes "W H" and then H rows of W characters: '1' is this bot,
 * '2' the opponent, '#' a wall or a trail, ' ' the floor. The bot answers one character:
 * 1 north, 2 east, 3 south, 4 west (y grows downwards, so north is y - 1). Nothing marks
 * the start or the end of a game: the referee just closes stdin.
 *
 * stdout carries the moves only: write diagnostics to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* north, east, south, west: answers 1, 2, 3, 4 */
static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};

static char *map = NULL; /* map[y * width + x], as received */
static int width = 0, height = 0;

/* One line from stdin without its '\n' (and '\r'), or NULL at the end of input.
 * The buffer is reused by the next call. */
static char *read_line(void)
{
    static char *buf = NULL;
    static size_t cap = 0;
    size_t len = 0;
    int ch;
    while ((ch = getchar()) != EOF && ch != '\n') {
        if (len + 2 > cap) {
            cap = cap ? 2 * cap : 256;
            buf = realloc(buf, cap);
            if (buf == NULL) {
                fprintf(stderr, "out of memory\n");
                exit(1);
            }
        }
        buf[len++] = (char)ch;
    }
    if (ch == EOF && len == 0)
        return NULL;
    if (buf == NULL)
        return "";
    if (len > 0 && buf[len - 1] == '\r')
        len--;
    buf[len] = '\0';
    return buf;
}

/* Whether (x, y) is on the map and holds floor (no wall, trail or head). */
static int is_free(int x, int y)
{
    return x >= 0 && x < width && y >= 0 && y < height && map[y * width + x] == ' ';
}

/* The heading (0-3) into a free cell with the most free neighbours; north if none. */
static int choose(void)
{
    char *me = memchr(map, '1', (size_t)width * height);
    int mx = me ? (int)(me - map) % width : 0, my = me ? (int)(me - map) / width : 0;
    int best = 0, best_score = -1;
    for (int h = 0; h < 4; h++) {
        int x = mx + DX[h], y = my + DY[h], score = 0;
        if (!is_free(x, y))
            continue;
        for (int e = 0; e < 4; e++)
            score += is_free(x + DX[e], y + DY[e]);
        if (score > best_score) {
            best = h;
            best_score = score;
        }
    }
    return best;
}

int main(void)
{
    char *line;
    int turn = 0;
    while ((line = read_line()) != NULL) {
        if (sscanf(line, "%d %d", &width, &height) != 2 || width < 1 || height < 1)
            continue; /* not a map header (a blank line): skip it */
        map = realloc(map, (size_t)width * height);
        if (map == NULL) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        memset(map, '#', (size_t)width * height); /* missing cells count as walls */
        for (int y = 0; y < height && (line = read_line()) != NULL; y++) {
            size_t n = strlen(line);
            memcpy(map + (size_t)y * width, line, n < (size_t)width ? n : (size_t)width);
        }
        turn++;
        int move = choose() + 1;
        printf("%d\n", move);
        fflush(stdout); /* the referee waits for the answer: never leave it buffered */
        fprintf(stderr, "turn %d: answered %d\n", turn, move);
    }
    fprintf(stderr, "end of input after %d turns\n", turn);
    free(map);
    return 0;
}
